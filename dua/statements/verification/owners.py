"""Whether the page shows which row each wrapped line belongs to.

Where rows keep their wrapped lines on the side nearer them (``continuation: nearest``), a
line standing as near the row above as the row below belongs to either: every word still
sits in some cell, the balances still reconcile, and the descriptions may be one row off
all the way down. Distance decides only where it differs; a tie is said, never passed.
"""
from __future__ import annotations

import re

from ..table import engine, wordlines

_TIE = 1.0  # points: two distances this close are the same distance measured twice


def check(rows: list, items: list, settings: dict) -> dict | None:
    """``{"name", "passed", "detail"}`` for a reading that gives wrapped lines to the nearer
    row, None for one that keeps them on a side the settings name."""
    if settings.get("continuation") != "nearest":
        return None
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
