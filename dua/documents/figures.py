"""Figures from what a page draws: images, and clusters of vector paths that are no table.

A chart drawn as paths (bars, axes, a frame or a light panel behind it) leaves many short
ruling edges packed in one place; a table leaves rules that run its full width. Words
inside a figure's region, and the short runs of small words around it, are its labels and
go with it, not to paragraphs.
"""
from __future__ import annotations

import bisect

from ..schemas import Block
from .lines import center_in, rows_of, split_row, words_block
from .rules import CAPTION

# A page-sized image is the scan under an OCR text layer, not a figure.
BACKGROUND_AREA = 0.6
_TOUCH = 3.0  # points: paths this close belong to one drawing
_MIN_SIDE = 30.0  # points: smaller clusters are bullets, underlines, icons
_MIN_EDGES = 6
_PAIR_BUDGET = 2_000_000  # edge comparisons before a page counts as a flood of paths
_CELL_BUDGET = 1_000_000  # grid cells an edge flood's grouping may visit, about
_FULL_SPAN = 0.9  # a horizontal edge this wide of its cluster is a table rule or stripe
_ON_FRAME = 2.0  # points: an edge this close to its cluster's box is the frame or panel
_CONTENT_EDGES = 3  # a drawing has marks inside its frame (bars, axes, a plotted line)
_LABEL_PAD = 16.0  # points around a drawing where its title, ticks and category names sit
_LABEL_WORDS = 4  # a label is a short run of words; prose lines are longer
_LABEL_SIZE = 0.85  # of the body size: tick and category labels are set smaller (captions less so)


def figure_regions(page, tables: list = ()) -> list:
    """Boxes (x0, top, x1, bottom) of the figures on a ``dua.pdf.Page``."""
    area = page.width * page.height
    images = [tuple(b) for b in page.images
              if (b[2] - b[0]) * (b[3] - b[1]) < BACKGROUND_AREA * area]
    edges = [(x0, y, x1, y, "h") for x0, x1, y in page.h_rules]
    edges += [(x, top, x, bottom, "v") for x, top, bottom in page.v_rules]
    edges = [e for e in edges if not any(_inside(e, t.bbox) for t in tables)]
    regions = [_box(c) for c in _nested(_clusters(edges)) if _is_drawing(c)]
    regions += images
    return _merge(regions)


def _inside(e, box, slack: float = 2.0) -> bool:
    return (e[0] >= box[0] - slack and e[2] <= box[2] + slack and
            e[1] >= box[1] - slack and e[3] <= box[3] + slack)


def _clusters(edges: list) -> list:
    """Groups of edges that touch, through any chain of touching edges.

    Edges are compared pairwise down the page, which costs little on a page people drew; a
    page that floods it with paths (10^5 marks a point apart) would take hours that way, so
    past ``_PAIR_BUDGET`` comparisons the edges are grouped by the cells of a grid they
    cover instead: paths a cell apart then count as touching, a coarser reading of a page
    that is no report anyway.
    """
    parent = list(range(len(edges)))
    if not _touching_pairs(edges, parent):
        parent = list(range(len(edges)))
        _sharing_cells(edges, parent)
    groups: dict = {}
    for i in range(len(edges)):
        groups.setdefault(_root(parent, i), []).append(edges[i])
    return list(groups.values())


def _root(parent: list, i: int) -> int:
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


def _touching_pairs(edges: list, parent: list) -> bool:
    """Join every two edges within ``_TOUCH`` of each other; False once over budget."""
    order = sorted(range(len(edges)), key=lambda i: edges[i][1])
    tops = [edges[i][1] for i in order]
    lefts = [edges[i][0] for i in order]
    rights = [edges[i][2] + _TOUCH for i in order]
    budget = _PAIR_BUDGET
    for a_pos, a in enumerate(order):
        ea = edges[a]
        # sorted by top: nothing below the first edge past ea's bottom touches ea
        end = bisect.bisect_right(tops, ea[3] + _TOUCH, a_pos + 1)
        budget -= end - a_pos - 1  # the pairs compared
        if budget < 0:
            return False
        reach, left = ea[2] + _TOUCH, ea[0]
        for b_pos in range(a_pos + 1, end):
            if lefts[b_pos] <= reach and left <= rights[b_pos]:
                parent[_root(parent, a)] = _root(parent, order[b_pos])
    return True


def _sharing_cells(edges: list, parent: list) -> None:
    """Join edges whose boxes, grown by half of ``_TOUCH``, cover a common grid cell; the
    cell grows with the page's total reach so the work stays near ``_CELL_BUDGET``."""
    half = _TOUCH / 2
    reach = sum((e[2] - e[0] + _TOUCH) + (e[3] - e[1] + _TOUCH) for e in edges)
    cell = max(_TOUCH, reach / _CELL_BUDGET)
    first: dict = {}
    for i, e in enumerate(edges):
        for cx in range(int((e[0] - half) // cell), int((e[2] + half) // cell) + 1):
            for cy in range(int((e[1] - half) // cell), int((e[3] + half) // cell) + 1):
                j = first.setdefault((cx, cy), i)
                if j != i:
                    parent[_root(parent, i)] = _root(parent, j)


def _nested(clusters: list) -> list:
    """Clusters lying inside another cluster's box join it: a chart's axes and plotted line
    drawn on a panel do not touch the panel's outline, but they are one figure. Only a
    cluster big enough to be a drawing can host others (a host's box is its own, so a small
    one never becomes a drawing by taking others in)."""
    out: list = []  # [box, edges]
    for box, c in sorted(((_box(c), c) for c in clusters), key=lambda bc: -_area(bc[0])):
        big = box[2] - box[0] >= _MIN_SIDE and box[3] - box[1] >= _MIN_SIDE
        host = next((o for o in out if _inside(box, o[0])), None) if out else None
        if host is not None:
            host[1].extend(c)
        elif big:
            out.append([box, list(c)])
    return [edges for _, edges in out]


def _area(box: tuple) -> float:
    return (box[2] - box[0]) * (box[3] - box[1])


def _box(edges: list) -> tuple:
    return (min(e[0] for e in edges), min(e[1] for e in edges),
            max(e[2] for e in edges), max(e[3] for e in edges))


def _is_drawing(edges: list) -> bool:
    """Many edges both ways, in a box of some size, with marks inside its frame that are not
    all full-width rules. A panel's or frame's own outline spans the box too, but only on
    its border; zebra stripes and ruled rows span it inside."""
    box = _box(edges)
    x0, top, x1, bottom = box
    if len(edges) < _MIN_EDGES or x1 - x0 < _MIN_SIDE or bottom - top < _MIN_SIDE:
        return False
    horizontal = [e for e in edges if e[4] == "h"]
    if not horizontal or len(horizontal) == len(edges):
        return False  # rules only one way: booktabs, underlines, separators
    inner = [e for e in edges if not _on_frame(e, box)]
    if len(inner) < _CONTENT_EDGES:
        return False  # an empty frame or a text panel
    inner_h = [e for e in inner if e[4] == "h"]
    full = sum(1 for e in inner_h if e[2] - e[0] >= _FULL_SPAN * (x1 - x0))
    return full < 0.8 * len(inner_h) if inner_h else True


def _on_frame(e, box) -> bool:
    """The edge lies along one side of the box (a frame's or a panel's outline)."""
    if e[4] == "h":
        return min(abs(e[1] - box[1]), abs(e[1] - box[3])) <= _ON_FRAME
    return min(abs(e[0] - box[0]), abs(e[0] - box[2])) <= _ON_FRAME


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


# --- the words of a figure ------------------------------------------------------------------


def with_labels(box: tuple, words: list, body: float = 0.0) -> tuple:
    """Grow a drawing's box over the runs of words just around it that are its labels (a
    chart's title, axis ticks and category names sit outside its paths): short runs, or runs
    set smaller than the page's body text, alone on their row."""
    for _ in range(2):
        pad = (box[0] - _LABEL_PAD, box[1] - _LABEL_PAD, box[2] + _LABEL_PAD, box[3] + _LABEL_PAD)
        near = [w for w in words if center_in(w, pad)]
        for seg in (s for row in rows_of(near) for s in split_row(row)):
            small = seg.size <= _LABEL_SIZE * body
            if CAPTION.match(" ".join(w.text for w in seg.words)):
                continue  # "Figure 2: …" names the figure; it is the caption's, not a label
            if (len(seg.words) <= _LABEL_WORDS or small) and _within(seg, pad) and _alone(seg, words):
                box = (min(box[0], seg.x0), min(box[1], seg.top), max(box[2], seg.x1),
                       max(box[3], seg.bottom))
    return box


def words_inside(box: tuple, words: list) -> list:
    """The words a figure holds: those centered in its box, less the ones a prose line
    outside it runs on from (a panel that spills into the next column overlaps its text)."""
    inside = [w for w in words if center_in(w, box)]
    ids = set(map(id, inside))
    # Only words on the box's rows can run a line on into it.
    outside = [w for w in words if id(w) not in ids and w.bottom >= box[1] and w.top <= box[3]]
    changed = True
    while changed:
        changed = False
        for w in list(inside):
            if any(_runs_on(w, o) for o in outside):
                inside.remove(w)
                outside.append(w)
                changed = True
    return inside


def _runs_on(w, o) -> bool:
    """``o`` stands next to ``w`` on its row, a word space away."""
    space = 0.6 * max(w.size, o.size, 1.0)
    return abs(w.top - o.top) < 2 and (0 <= o.x0 - w.x1 < space or 0 <= w.x0 - o.x1 < space)


def _within(seg, box) -> bool:
    return seg.x0 >= box[0] and seg.x1 <= box[2] and seg.top >= box[1] and seg.bottom <= box[3]


def _alone(seg, words: list) -> bool:
    """No word of the page continues the run on its row (it is not the start of a prose line)."""
    taken = set(map(id, seg.words))
    top, x0, x1 = seg.top, seg.x0, seg.x1  # once, not once a word of the page
    return not any(id(w) not in taken and abs(w.top - top) < 2 and
                   (0 <= w.x0 - x1 < 12 or 0 <= x0 - w.x1 < 12) for w in words)


def figure_block(box, words: list) -> Block:
    """An image or drawing; the words inside it (a chart's labels) are its text."""
    return words_block(box, words, {"source_block_type": "image"})
