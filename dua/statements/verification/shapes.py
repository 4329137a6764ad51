"""Whether each column's cells keep the shape its cells share.

A column whose cells are one word of one shape with digits in it on nearly every row (a
value date, a reference) says what its cells are: where a row's cell holds that word and
more, on the side of a column of text, the more is that column's words read across the
edge ('month 18/02': a description's last word in the value date's cell). Every word
still sits in a cell and the balances still reconcile; only the shape tells.
"""
from __future__ import annotations

import re

from ..table import wordlines

_SHARE = 0.9  # of a column's cells that are one word of its shape
_ENOUGH = 5  # such cells before the shape says anything
_LETTERS = re.compile(r"[^\W\d_]+")
_DIGITS = re.compile(r"\d+")


def shape(word: str) -> str:
    """A word's shape: each run of letters 'a', each run of digits '9', the rest as printed
    ('18/02' and '03/11' are '9/9'; 'LM4692' is 'a9')."""
    return _DIGITS.sub("9", _LETTERS.sub("a", word))


def check(rows: list, items: list, settings: dict) -> dict | None:
    """``{"name", "passed", "detail"}``, or None where no column's cells share a shape."""
    columns = settings["columns"]
    judged = []
    for c, column in enumerate(columns):
        if column.get("kind") == "amount" or not column.get("output", True):
            continue
        cells = _cells(rows, items, columns, c)
        single = [shape(ws[0][0]) for ws in cells if len(ws) == 1]
        common = max(set(single), key=single.count) if single else None
        if common is None or "9" not in common or \
                single.count(common) < max(_ENOUGH, _SHARE * len(cells)):
            continue  # words of letters alone are a text's, whatever their number
        judged.append(column["name"])
        for ws in cells:
            extra = _across(ws, common, columns, c)
            if extra:
                text = wordlines.join_words(extra, 0.0)
                return {"name": "cells_in_shape", "passed": None,
                        "detail": f"{single.count(common)} of {len(cells)} cells of "
                                  f"{column['name']!r} are one word shaped like "
                                  f"{ws[0][0] if extra is ws[1:] else ws[-1][0]!r}, and one "
                                  f"holds {text!r} beside it, on the side of a column of "
                                  "text: that text may be the next column's"}
    if not judged:
        return None
    return {"name": "cells_in_shape", "passed": True,
            "detail": f"every cell of {', '.join(map(repr, judged))} keeps the shape the "
                      "column's cells share"}


def _cells(rows: list, items: list, columns: list, c: int) -> list:
    """The words each row's first line prints in column ``c``, left to right, where any."""
    out = []
    for row in rows:
        for p, k in row[3]:
            if items[p][k][0] == "anchor":
                words = sorted((w for w in items[p][k][4]
                                if wordlines.column_of(w, columns) == c), key=lambda w: w[1])
                if words:
                    out.append(words)
    return out


def _across(words: list, common: str, columns: list, c: int) -> list:
    """The words beside a cell's word of the column's shape, where they stand on the side
    of a neighbouring column of text; [] where the cell is of the shape or of no shape."""
    if len(words) < 2:
        return []
    if shape(words[-1][0]) == common and c > 0 and columns[c - 1].get("kind") == "text":
        return words[:-1]
    if shape(words[0][0]) == common and c + 1 < len(columns) \
            and columns[c + 1].get("kind") == "text":
        return words[1:]
    return []
