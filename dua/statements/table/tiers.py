"""A two-tier heading: a second line of names under the first, each naming a field that
every row prints on a line of its own below its first (a value date under the date, a
reference under the details).

A heading wrapped in its cells ('Withdrawal' over 'Amt.') looks the same from above; the
rows tell them apart: under a second tier nearly every row's first line is followed by a
line that no row continues, whose words stand under the second tier's names.
"""
from __future__ import annotations

from . import engine, wordlines
from .columns import _phrases

_SHARE = 0.8  # of the rows whose first line is followed by such a line


def second_line(pages: list, settings: dict, header: list) -> list | None:
    """The second-line columns the heading's lowest line names, or None when the rows do
    not print one line of those fields each."""
    if len(header) < 2 or not settings.get("columns"):
        return None
    lower = header[-1]
    try:
        rows, items = engine.extract(pages, settings)
    except (KeyError, ValueError, TypeError, IndexError):
        return None
    owned = {ref for row in rows for ref in row[3]}
    anchors, second = 0, []
    for p, page in enumerate(items):
        for k, item in enumerate(page):
            if item[0] != "anchor":
                continue
            anchors += 1
            nxt = page[k + 1] if k + 1 < len(page) else None
            if nxt and (p, k + 1) not in owned and nxt[0] in ("money", "text") \
                    and nxt[1] - item[1] <= settings["continuation_gap"] and _under(nxt, lower):
                second.append(nxt)
    if anchors < 3 or len(second) < _SHARE * anchors:
        return None
    columns = _columns(lower, settings)
    filled = [sum(1 for line in second if any(wordlines.column_of(w, columns) == i
                                              for w in line[4])) for i in range(len(columns))]
    if min(filled) < 0.5 * len(second):
        return None  # a name no second line fills: a heading wrapped in its cell, not a tier
    return columns


def _under(item: list, lower: list) -> bool:
    """The line's first word starts under one of the second tier's names."""
    first = item[4][0]
    return any(abs(first[1] - w[1]) <= 3.0 for w in lower)


def _columns(lower: list, settings: dict) -> list:
    """One text column per name of the second tier, starting where the first-tier column
    it stands under starts."""
    out = []
    for phrase in _phrases([lower]):
        above = settings["columns"][wordlines.column_of(phrase[0], settings["columns"])]
        x0 = above["x0"] if not out else max(above["x0"], out[-1]["x0"] + 1.0)
        out.append({"name": wordlines.join_words(phrase, 0.8), "x0": x0, "kind": "text"})
    out[0]["x0"] = 0.0
    return out
