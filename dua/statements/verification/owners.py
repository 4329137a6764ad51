"""Whether the page shows which row each wrapped line belongs to.

Where rows keep their wrapped lines on the side nearer them (``continuation: nearest``), a
line standing as near the row above as the row below belongs to either: every word still
sits in some cell, the balances still reconcile, and the descriptions may be one row off
all the way down. Distance decides only where it differs; a tie is said, never passed.

Where rows keep them on one side (``below`` or ``above``), a column of text that no row's
first line prints in is set on lines of its own, and those lines could as well be the next
row's: the table's ends decide. Read below their rows, every row but the last one having
its text says the text stands over its figures, read one row off all the way down.
"""
from __future__ import annotations

import re

from ..table import engine, tiers, wordlines

_TIE = 1.0  # points: two distances this close are the same distance measured twice
_FIRST_LINE = 0.8  # of the rows' first lines printing in a column: one every row fills


def check(rows: list, items: list, settings: dict) -> dict | None:
    """``{"name", "passed", "detail"}``: whether the table's ends agree with the side the
    reading keeps wrapped lines on (``one_side``) and, where it gives them to the nearer
    row, whether each stands nearer one row. None where neither can be judged."""
    ends = one_side(rows, items, settings)
    if ends is None or ends["passed"]:
        stray = _tail_read_below(rows, items, settings)
        if stray:
            return {"name": "wrapped_lines_owned", "passed": None,
                    "detail": f"{stray[1]!r} on page {stray[0] + 1}, in a column every row "
                              "prints on its first line, stands right under a row and is read "
                              "with the next: it may be the rest of the row above's cell"}
    if settings.get("continuation", "below") != "nearest" or (ends and ends["passed"] is None):
        return ends
    gap = settings["continuation_gap"]
    # a narrow cell's wrapped date belongs to the row whose date it completes: the date's
    # notation, not the distance, places it
    dated = set(settings.get("wrapped_columns") or ()) | _heads_of_dates(items, settings)
    ties = []
    for row in rows:
        for page, k in row[3]:
            if items[page][k][0] != "text" or (dated and all(
                    wordlines.column_of(w, settings["columns"]) in dated for w in items[page][k][4])):
                continue
            up, d_up = engine._owner(items[page], k, -1, gap)
            down, d_down = engine._owner(items[page], k, 1, gap)
            if up is not None and down is not None and abs(d_up - d_down) <= _TIE:
                ties.append((page, items[page][k][3]))
    if not ties:
        return {"name": "wrapped_lines_owned", "passed": True,
                "detail": "each wrapped line stands nearer its own row than the next"}
    page, text = ties[0]
    return {"name": "wrapped_lines_owned", "passed": None,
            "detail": f"{len(ties)} wrapped line(s) stand as near the row above as the row "
                      f"below ({text!r} on page {page + 1}): which row each belongs to, the "
                      "page does not show"}


def _tail_read_below(rows: list, items: list, settings: dict) -> tuple | None:
    """``(page, text)`` of a line a row takes from over its first line (read above) whose
    words all stand in columns nearly every row prints on its first line, right under
    another row's first line: a narrow cell's wrapped rest (the year under '15 AUG') sits
    there, and read with the row below it moves every such cell one row down."""
    columns, gap = settings.get("columns"), settings.get("continuation_gap", 0.0)
    anchors = [item[4] for page in items for item in page if item[0] == "anchor"]
    if settings.get("continuation") != "above" or not columns or not anchors:
        return None
    first = {c for c in range(len(columns)) if sum(
        1 for words in anchors if any(wordlines.column_of(w, columns) == c for w in words))
        >= _FIRST_LINE * len(anchors)}
    for row in rows:
        for page, k in row[3]:
            item, before = items[page][k], items[page][k - 1] if k else None
            if item[0] == "text" and before and before[0] == "anchor" \
                    and (page, k - 1) not in row[3] and item[1] - before[1] <= gap \
                    and all(wordlines.column_of(w, columns) in first for w in item[4]):
                return page, item[3]
    return None


def one_side(rows: list, items: list, settings: dict) -> dict | None:
    """Whether a column of text set on lines of its own reaches both ends of the table: one
    row at an end the reading leaves open being the only one without it, each row's text
    may be its neighbour's ('Direct debit' over the first row's figures taken for part of
    the heading, the last row read with none). None where no column's text stands apart."""
    columns = settings.get("columns") or []
    short = tiers.short_end(rows, items, settings)
    if short is not None:
        c, row = short
        return {"name": "wrapped_lines_owned", "passed": None,
                "detail": f"every row's {columns[c]['name']!r} stands on lines of its own, "
                          f"and every row has some but the {'first' if row == 0 else 'last'}: "
                          "the rows' text may each be the next row's, read one row off"}
    tier = tiers.tier_over_text(rows, items, settings)
    if tier:
        return {"name": "wrapped_lines_owned", "passed": None,
                "detail": f"the heading's line {tier!r}, under its names, stands where the "
                          "rows print their text over their figures: it may be the first "
                          "row's"}
    apart = tiers.own_lines(rows, items, settings) if len(rows) > 3 else []
    if not apart:
        return None
    return {"name": "wrapped_lines_owned", "passed": True,
            "detail": f"the rows' {columns[apart[0]]['name']!r}, on lines of their own, "
                      "reaches both ends of the table"}


def _heads_of_dates(items: list, settings: dict) -> set:
    """The columns whose cells on the rows' first lines are the first lines of wrapped
    dates ('5 november' over '23'), a value date's column with the date's own."""
    head = settings.get("date_head_pattern")
    anchors = [item[2] for page in items for item in page if item[0] == "anchor"]
    if not head or not anchors:
        return set()
    return {c for c in range(len(anchors[0]))
            if sum(1 for cells in anchors if c < len(cells) and cells[c]
                   and re.fullmatch(head, cells[c], re.IGNORECASE)) >= 0.8 * len(anchors)}
