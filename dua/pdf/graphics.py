"""Ruling lines, images and ruled tables as pdfplumber finds them, from the reader's scan.

pdfplumber's edges come from pdfminer's paths: each painted path becomes a line, a
rectangle or a curve (``PDFLayoutAnalyzer.paint_path``), each of those pdfplumber's edges
(``rect_to_edges``, ``line_to_edge``, ``curve_to_edges``); its images are the boxes of the
unit square under the matrix of each image drawn. ``_Paths`` does the same arithmetic while
the content scan (``content``) reads a page for its words, so ``dua extract`` needs no
pdfplumber page for them; tables come from pdfplumber's own finder over those edges. Not
copied into parsers (the word reader does not need it).
"""
from __future__ import annotations

import re

_OPERANDS = {b"m": 2, b"l": 2, b"c": 6, b"v": 4, b"y": 4, b"re": 4}  # the rest take none
_SUBPATH = re.compile(r"m[^m]+")


class _Document:
    """What a document's pages draw, and its metadata decoded as pdfplumber decodes it."""

    def __init__(self, miner):
        from pdfplumber.utils import resolve_and_decode

        self.metadata = {}
        for info in miner.info:
            self.metadata.update(info)
        for key, value in self.metadata.items():
            try:
                self.metadata[key] = resolve_and_decode(value)
            except Exception:  # pdfplumber warns and keeps the raw value
                pass

    def page(self, height, shift):
        return _Paths(height, shift)


class _Paths:
    """pdfminer's current path and what painting it made, for one page: lines and rects
    as ``(x0, y0, x1, y1)``, curves as their points, images as ``(x0, y0, x1, y1)``."""

    def __init__(self, height, shift=(0, 0)):
        self.height, self.shift, self.path = height, shift, []
        self.lines, self.rects, self.curves, self.images = [], [], [], []

    def takes(self, word):
        """How many operands a path operator takes (None: not a path operator)."""
        return _OPERANDS.get(word, 0 if word in _PAINTS else None)

    def op(self, word, values, ctm):
        """One path operator, as pdfminer's interpreter applies it."""
        values = [float(v) for v in values]
        if word in (b"m", b"l", b"c", b"v", b"y"):
            self.path.append((word.decode(), *values))
        elif word == b"re":
            x, y, w, h = values
            self.path += [("m", x, y), ("l", x + w, y), ("l", x + w, y + h), ("l", x, y + h),
                          ("h",)]
        elif word == b"h":
            self.path.append(("h",))
        elif word == b"n":
            self.path = []
        else:  # S s f F f* B B* b b*: s, b and b* close the path first
            if word in (b"s", b"b", b"b*"):
                self.path.append(("h",))
            self.paint(self.path, ctm)
            self.path = []

    def enter_form(self):
        saved, self.path = self.path, []
        return saved

    def leave_form(self, saved):
        self.path = saved

    def paint(self, path, ctm):
        """pdfminer's ``paint_path``: one line, rect or curve per subpath."""
        shape = "".join(p[0] for p in path)
        if shape[:1] != "m":
            return
        if shape.count("m") > 1:
            for found in _SUBPATH.finditer(shape):
                self.paint(path[found.start():found.end()], ctm)
            return
        a, b, c, d, e, f = ctm
        pts = [(a * x + c * y + e, b * x + d * y + f)
               for x, y in (p[-2:] if p[0] != "h" else path[0][-2:] for p in path)]
        if len(shape) > 3 and shape[-2:] == "lh" and pts[-2] == pts[0]:
            shape = shape[:-2] + "h"  # a redundant l before the closing h
            pts.pop()
        if shape in ("mlh", "ml"):
            self.lines.append(_bound(pts[:2]))
        elif shape in ("mlllh", "mllll"):
            (x0, y0), (x1, y1), (x2, y2), (x3, y3), _ = pts
            square = (x0 == x1 and y1 == y2 and x2 == x3 and y3 == y0) or (
                y0 == y1 and x1 == x2 and y2 == y3 and x3 == x0)
            if pts[0] == pts[4] and square:
                (x0, y0), (x1, y1) = pts[0], pts[2]
                self.rects.append(_bound([(x0, y0), (x1, y0), (x1, y1), (x0, y1)]))
            else:
                self.curves.append(pts)
        else:
            self.curves.append(pts)

    def image(self, ctm):
        """An image: pdfminer's figure of the unit square under the matrix it is drawn in."""
        a, b, c, d, e, f = _mult((1, 0, 0, 1, 0, 0), ctm)
        corners = [(a * x + c * y + e, b * x + d * y + f) for x, y in
                   ((0, 0), (0 + 1, 0), (0 + 1, 0 + 1), (0, 0 + 1))]
        self.images.append(_bound(corners))

    def rules(self):
        """``(h_rules, v_rules, images)`` as ``document._graphics`` makes them of
        pdfplumber's edges (lines', then rects', then curves') and images."""
        h_rules, v_rules = [], []
        for edge in self.edges():
            if edge["orientation"] == "h":
                h_rules.append((edge["x0"], edge["x1"], edge["top"]))
            else:
                v_rules.append((edge["x0"], edge["top"], edge["bottom"]))
        images = [(x0, top, x1, bottom) for x0, top, x1, bottom in map(self.box, self.images)]
        return h_rules, v_rules, images

    def box(self, bound):
        """pdfplumber's ``(x0, top, x1, bottom)`` of pdfminer's bounds on this page."""
        (x0, y0, x1, y1), (right, down) = bound, self.shift
        if right:
            x0, x1 = x0 + right, x1 + right
        return x0, (self.height - y1) + down, x1, (self.height - y0) + down

    def edges(self):
        """pdfplumber's ``page.edges``: the keys its table finder reads, its floats."""
        out = []
        for bound in self.lines:
            x0, top, x1, bottom = self.box(bound)
            out.append({"object_type": "line", "x0": x0, "x1": x1, "top": top,
                        "bottom": bottom, "doctop": top, "width": bound[2] - bound[0],
                        "height": bound[3] - bound[1],
                        "orientation": "h" if top == bottom else "v"})
        for bound in self.rects:
            (x0, top, x1, bottom), tall = self.box(bound), bound[3] - bound[1]
            base = {"object_type": "rect_edge", "x0": x0, "x1": x1, "top": top,
                    "bottom": bottom, "doctop": top, "width": bound[2] - bound[0],
                    "height": tall}
            out += [dict(base, height=0, bottom=top, orientation="h"),
                    dict(base, height=0, top=top + tall, doctop=top + tall, orientation="h"),
                    dict(base, width=0, x1=x0, orientation="v"),
                    dict(base, width=0, x0=x1, orientation="v")]
        right, down = self.shift
        for pts in self.curves:  # pdfplumber's point2coord
            pts = [(right + x, (down + self.height) - y) for x, y in pts]
            for (x0, y0), (x1, y1) in zip(pts, pts[1:]):
                out.append({"object_type": "curve_edge", "x0": min(x0, x1), "x1": max(x0, x1),
                            "top": min(y0, y1), "bottom": max(y0, y1), "doctop": min(y0, y1),
                            "width": abs(x0 - x1), "height": abs(y0 - y1),
                            "orientation": "v" if x0 == x1 else ("h" if y0 == y1 else None)})
        return out

    def tables(self, width):
        """pdfplumber's ruled tables (``page.find_tables()``, default settings), found by
        its own finder over these edges: the lines strategies read nothing else. [] without
        asking it on a page that can have none of the tables dua keeps (two rows and two
        columns, ``document._tables``): such a table stands on three edges across and three
        down at least (two rows of cells have two tops and a bottom below them, two cells of
        a row two lefts and a right), and merging edges never makes more."""
        from pdfplumber.table import TableFinder, TableSettings

        edges = self.edges()
        if min(sum(e["orientation"] == way for e in edges) for way in "hv") < 3:
            return []
        page = _Page(edges, (0, 0, width, self.height))
        return TableFinder(page, TableSettings.resolve(None)).tables


class _Page:
    """What pdfplumber's table finder reads of a page with its default settings."""

    def __init__(self, edges, bbox):
        self.edges, self.bbox = edges, bbox


_PAINTS = (b"h", b"n", b"S", b"s", b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*")


def _bound(pts):
    """pdfminer's ``get_bound``."""
    x0, y0, x1, y1 = float("inf"), float("inf"), -float("inf"), -float("inf")
    for x, y in pts:
        x0, y0, x1, y1 = min(x0, x), min(y0, y), max(x1, x), max(y1, y)
    return x0, y0, x1, y1


def _mult(m1, m0):
    (a1, b1, c1, d1, e1, f1), (a0, b0, c0, d0, e0, f0) = m1, m0
    return (a0 * a1 + c0 * b1, b0 * a1 + d0 * b1, a0 * c1 + c0 * d1, b0 * c1 + d0 * d1,
            a0 * e1 + c0 * f1 + e0, b0 * e1 + d0 * f1 + f0)
