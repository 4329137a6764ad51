"""Whether each column's cells keep the shape its cells share.

A column whose cells are one word of one shape with digits in it on nearly every row (a
value date, a reference) says what its cells are: where a row's cell holds that word and
more, on the side of a column of text, the more is that column's words read across the
edge ('month 18/02': a description's last word in the value date's cell). Every word
still sits in a cell and the balances still reconcile; only the shape tells.
"""
from __future__ import annotations

import re

_SHARE = 0.9  # of a column's cells that share its shape
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
        cells = [row[0][c].split() for row in rows if c < len(row[0]) and row[0][c]]
        shapes = [tuple(shape(w) for w in cell) for cell in cells]
        common = max(set(shapes), key=shapes.count) if shapes else None
        if common is None or not any("9" in part for part in common) or \
                shapes.count(common) < max(_ENOUGH, _SHARE * len(cells)):
            continue  # words of letters alone are a text's, whatever their number
        judged.append(column["name"])
        for cell, cut in zip(cells, shapes):
            extra = _beside(cell, cut, common, columns, c)
            if extra:
                return {"name": "cells_in_shape", "passed": None,
                        "detail": f"{shapes.count(common)} of {len(cells)} cells of "
                                  f"{column['name']!r} are shaped like "
                                  f"{' '.join(cells[shapes.index(common)])!r}, and one holds "
                                  f"{' '.join(extra)!r} beside that, on the side of a column "
                                  "of text: the neighbour's words, or a line the cell does not "
                                  "own"}
    if not judged:
        return None
    return {"name": "cells_in_shape", "passed": True,
            "detail": f"every cell of {', '.join(map(repr, judged))} keeps the shape the "
                      "column's cells share"}


def _beside(cell: list, cut: tuple, common: tuple, columns: list, c: int) -> list:
    """The words a cell holds beside the column's shape, where they stand on the side of a
    neighbouring column of text (before it, the column on the left; after it, the one on
    the right); [] where the cell is of the shape or of no shape."""
    n = len(common)
    if len(cut) <= n:
        return []
    if cut[-n:] == common and c > 0 and columns[c - 1].get("kind") == "text":
        return cell[:-n]
    if cut[:n] == common and c + 1 < len(columns) and columns[c + 1].get("kind") == "text":
        return cell[n:]
    return []
