"""Whether every row has a day: its own date, or the one of a row above it in its table;
and whether each date it prints reads as one.

A date printed once a day leaves the day's later rows blank, and they share the day above
them. A table's first row has no row above it: where it prints no date, it is no day's
transaction but a line about the table (an opening balance, 'balance brought forward'),
read as a row. Its amount still adds up, from nothing to the balance it brings, so the
arithmetic cannot tell; only the missing day does.
"""
from __future__ import annotations

import re

from ..table import tablestarts

_MOSTLY = 0.5  # of the rows print a date: the table dates its rows


def check(rows: list, items: list, settings: dict) -> dict | None:
    """``{"name": "rows_dated", "passed", "detail"}``; None where the rows print no dates
    of their own (the date a group heading, or too few dated rows to say)."""
    date = settings.get("date_column")
    if date is None or settings.get("date_groups") or not rows:
        return None
    cells = [row[0][date] if date < len(row[0]) else "" for row in rows]
    if sum(1 for c in cells if c) < max(2, _MOSTLY * len(rows)):
        return None
    firsts = [0] + tablestarts.new_tables((rows, items))
    undated = [i for i in firsts if not cells[i]]
    if undated:
        return {"name": "rows_dated", "passed": None,
                "detail": f"row {undated[0] + 1} prints no date and is its table's first: no "
                          "row above it gives it a day (a balance line read as a row?)"}
    # a date wrapped in its cell whose tail went to the next row: one cell lacks its year,
    # the other holds it twice, and both still anchor their rows
    pattern = settings.get("date_pattern") or ""
    odd = [i for i, c in enumerate(cells) if c and not re.fullmatch(pattern, c, re.IGNORECASE)]
    if odd and not _wrapped_alike(cells, pattern):
        return {"name": "rows_dated", "passed": None,
                "detail": f"row {odd[0] + 1}'s date {cells[odd[0]]!r} is no date of the rows' "
                          f"notation ({len(odd)} such): a wrapped date's lines given to the "
                          "wrong rows?"}
    return {"name": "rows_dated", "passed": True,
            "detail": "every table's first row prints its date, and every date reads as the "
                      "rows' dates do" + (", each with a tail of one shape wrapped onto a line "
                                          "of its own" if odd else "")}


def _wrapped_alike(cells: list, pattern: str) -> bool:
    """Whether every date printed wraps the same part onto a line of its own: the rows'
    notation, then a tail of one shape on every row ('17 Agosto' over '2024', where the
    notation was learned from the date lines alone)."""
    shapes = set()
    for cell in filter(None, cells):
        head = re.match(f"(?:{pattern})(?=\\s)", cell, re.IGNORECASE)
        if not head:
            return False
        shapes.add(re.sub(r"[^\W\d_]", "a", re.sub(r"\d", "9", cell[head.end():].strip())))
    return len(shapes) == 1 and "" not in shapes
