"""Figures from what a page draws: images, and clusters of vector paths that are no table.

A chart drawn as paths (bars, axes, a frame or a light panel behind it) leaves many short
ruling edges packed in one place; a table leaves rules that run its full width. Words
inside a figure's region are its labels and go with it, not to paragraphs.
"""
from __future__ import annotations

# A page-sized image is the scan under an OCR text layer, not a figure.
BACKGROUND_AREA = 0.6
_TOUCH = 3.0  # points: paths this close belong to one drawing
_MIN_SIDE = 30.0  # points: smaller clusters are bullets, underlines, icons
_MIN_EDGES = 6
_FULL_SPAN = 0.9  # a horizontal edge this wide of its cluster is a table rule or stripe


def figure_regions(page, tables: list = ()) -> list:
    """Boxes (x0, top, x1, bottom) of the figures on a ``dua.pdf.Page``."""
    area = page.width * page.height
    images = [tuple(b) for b in page.images
              if (b[2] - b[0]) * (b[3] - b[1]) < BACKGROUND_AREA * area]
    edges = [(x0, y, x1, y, "h") for x0, x1, y in page.h_rules]
    edges += [(x, top, x, bottom, "v") for x, top, bottom in page.v_rules]
    edges = [e for e in edges if not any(_inside(e, t.bbox) for t in tables)]
    regions = [_box(c) for c in _clusters(edges) if _is_drawing(c)]
    regions += images
    return _merge(regions)


def _inside(e, box, slack: float = 2.0) -> bool:
    return (e[0] >= box[0] - slack and e[2] <= box[2] + slack and
            e[1] >= box[1] - slack and e[3] <= box[3] + slack)


def _clusters(edges: list) -> list:
    """Groups of edges that touch, through any chain of touching edges (union-find)."""
    parent = list(range(len(edges)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    order = sorted(range(len(edges)), key=lambda i: edges[i][1])
    for a_pos, a in enumerate(order):
        ea = edges[a]
        for b in order[a_pos + 1:]:
            eb = edges[b]
            if eb[1] > ea[3] + _TOUCH:
                break  # sorted by top: nothing further down touches ea
            if eb[0] <= ea[2] + _TOUCH and ea[0] <= eb[2] + _TOUCH:
                parent[find(a)] = find(b)
    groups: dict = {}
    for i in range(len(edges)):
        groups.setdefault(find(i), []).append(edges[i])
    return list(groups.values())


def _box(edges: list) -> tuple:
    return (min(e[0] for e in edges), min(e[1] for e in edges),
            max(e[2] for e in edges), max(e[3] for e in edges))


def _is_drawing(edges: list) -> bool:
    """Many edges both ways, in a box of some size, not all of them full-width rules."""
    x0, top, x1, bottom = _box(edges)
    if len(edges) < _MIN_EDGES or x1 - x0 < _MIN_SIDE or bottom - top < _MIN_SIDE:
        return False
    horizontal = [e for e in edges if e[4] == "h"]
    if not horizontal or len(horizontal) == len(edges):
        return False  # rules only one way: booktabs, underlines, separators
    full = sum(1 for e in horizontal if e[2] - e[0] >= _FULL_SPAN * (x1 - x0))
    return full < 0.8 * len(horizontal)  # zebra stripes and ruled rows span the table


def _merge(boxes: list) -> list:
    """Overlapping boxes become one (a chart on its panel, a photo in its frame)."""
    out = []
    for box in sorted(boxes, key=lambda b: (b[1], b[0])):
        for i, o in enumerate(out):
            if box[0] <= o[2] and o[0] <= box[2] and box[1] <= o[3] and o[1] <= box[3]:
                out[i] = (min(o[0], box[0]), min(o[1], box[1]), max(o[2], box[2]), max(o[3], box[3]))
                break
        else:
            out.append(box)
    return out
