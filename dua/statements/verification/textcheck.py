"""Hints about a statement's text cells, which no arithmetic can verify; never a verdict.

A word of a row that stands across the gutter between two columns may have been cut into
the wrong one (a wrapped description that spilled over). It is said, so that a person
can look; it proves nothing either way, so it never changes a result's status.
"""
from __future__ import annotations

from ..table import engine


def gutter_crossings(pages: list, settings: dict) -> dict:
    """column pair -> detail, for words of table rows that stand across a column boundary."""
    cols = settings.get("columns", [])
    bounds = [(i, c["x0"]) for i, c in enumerate(cols) if i and c["x0"] > 0]
    out = {}
    for lines in (row[1] for row in engine.extract(pages, settings)[0]):
        for line in lines:
            for w in line:
                for i, x in bounds:
                    if w[1] < x - 1.0 and w[2] > x + 1.0:
                        pair = f"{cols[i - 1]['name']!r}/{cols[i]['name']!r}"
                        out.setdefault(pair, f"{w[0]!r} stands across the gutter at x={x:g}")
    return out


def gutter_hint(pages: list, settings: dict) -> str:
    """One line naming the words that stand across a gutter, or '' when none does."""
    found = gutter_crossings(pages, settings)
    return "; ".join(f"{k}: {v}" for k, v in sorted(found.items()))
