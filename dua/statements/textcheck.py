"""Checks on a statement's text cells, which no arithmetic can verify.

Amounts prove themselves by reconciling; a reference, a type code or a description does
not. Two things still show that a text column was cut right: its cells share one shape
(a reference column prints 'AB12345678' on every row), and no word of a row stands
across the gutter between two columns (a wrapped description that spilled over).
"""
from __future__ import annotations

import collections
import re

from . import engine

_DOMINANT = 0.8  # a column "has a shape" when this share of its cells print it


def shape(text: str) -> str:
    """Letters as A, digits as 9, runs collapsed: 'AB12345678' -> 'A9', 'Dr' -> 'A'."""
    out = re.sub(r"[^\W\d_]+", "A", text)
    out = re.sub(r"\d+", "9", out)
    return re.sub(r"\s+", " ", out).strip()


def shape_outliers(frame, settings: dict) -> dict:
    """column -> detail, for text columns whose cells mostly share a shape but not all do."""
    out = {}
    for col in settings.get("columns", []):
        name = col["name"]
        if col["kind"] != "text" or not col.get("output", True) or name not in frame.columns:
            continue
        cells = [str(v) for v in frame[name].dropna().tolist()]
        if len(cells) < 3:
            continue
        shapes = collections.Counter(shape(c) for c in cells)
        top, n = shapes.most_common(1)[0]
        if _DOMINANT * len(cells) <= n < len(cells):
            odd = next(c for c in cells if shape(c) != top)
            out[name] = (f"{len(cells) - n} of {len(cells)} cells break the column's shape "
                         f"{top!r}, e.g. {odd!r}")
    return out


def gutter_crossings(pages: list, settings: dict) -> dict:
    """column -> detail, for words of table rows that stand across a column boundary."""
    cols = settings.get("columns", [])
    bounds = [(i, c["x0"]) for i, c in enumerate(cols) if i and c["x0"] > 0]
    out = {}
    for _, lines in engine.extract_rows(pages, settings):
        for line in lines:
            for w in line:
                for i, x in bounds:
                    if w[1] < x - 1.0 and w[2] > x + 1.0:
                        pair = f"{cols[i - 1]['name']!r}/{cols[i]['name']!r}"
                        out.setdefault(pair, f"{w[0]!r} stands across the gutter at x={x:g}")
    return out


def text_cells(frame, pages: list, settings: dict) -> dict:
    """The check's entry in ``verify.intrinsic``: passed, or which columns are unverified."""
    problems = dict(shape_outliers(frame, settings))
    problems.update(gutter_crossings(pages, settings))
    if not problems:
        return {"name": "text_cells", "passed": True,
                "detail": "text columns keep one shape each and no word crosses a gutter"}
    detail = "; ".join(f"{k}: {v}" for k, v in sorted(problems.items()))
    return {"name": "text_cells", "passed": False, "soft": True, "columns": sorted(problems),
            "detail": f"not verified: {detail}"}
