"""Dates a narrow cell wraps over lines ('12 DECEMBER' over '2025', a day alone over its
month and year), found by the date pattern the settings hold, in the date column and in any
column of text a value date stands in, whether or not the key showed one wrapping; and dates
printed once a day, carried down to the day's other rows.

Copied verbatim, after ``wordlines`` and before ``engine``, into every generated parser:
standard library only, never dua.
"""
from __future__ import annotations

import re

from .wordlines import column_of, join_words, normalize, split_cells

_DATE_LINES = 3  # a date wraps onto three lines at most: day, month, year


def wrapped_heads(lines_by_page: list, settings: dict) -> dict:
    """``settings`` reading dates a narrow cell wraps ('12 DECEMBER' over '2025'), wherever a
    line's cell is the head of a date that the next line's cell completes: a statement
    learned where every date fit its cell reads one where long months wrap. A value date
    the key taught as text wraps the same way, and goes on in its own column."""
    if settings.get("date_groups") or "date_tails" in settings:
        return settings
    col = settings["date_column"]
    # the date column, and any other column a date may stand in (the key's text)
    watched = [col] + [c for c, spec in enumerate(settings["columns"])
                       if c != col and spec.get("kind") == "text"]
    heads, tails, wrapped = set(), set(), set()
    for lines in lines_by_page:
        for k, line in enumerate(lines):
            cells = None
            for c in watched:
                found = date_goes_on(lines, k, c, settings, cells)
                if not found:
                    continue
                cells, (head, tail) = found
                wrapped.add(c)
                tails.update(normalize(t) for t in tail)
                if c == col:
                    heads.add(head)
    if not wrapped:
        return settings
    # a line of a date's tail under a month in each date column is no other table's heading,
    # where the key taught the heads as much as where this reading finds them; heads the
    # taught ones do not read (a month alone, where a longer month wraps before its day)
    # are read too
    known = settings.get("date_head_pattern")
    if known:
        wrapped.discard(col)
        heads = {h for h in heads if not re.fullmatch(known, h, re.IGNORECASE)}
    if heads:
        settings = dict(settings, date_head_pattern="(?:%s)|%s" % (
            known or settings["date_pattern"], "|".join(sorted(map(re.escape, heads)))))
    return dict(settings, date_tails=sorted(tails),
                wrapped_columns=sorted(set(settings.get("wrapped_columns", ())) | wrapped))


def date_goes_on(lines: list, k: int, col: int, settings: dict, cells) -> tuple | None:
    """``(line k's cells, (head, tail))`` where line k's cell in ``col`` is a date's head that
    the cells under it complete, within a date's lines; else None."""
    pattern, gap, tail = settings["date_pattern"], settings.get("continuation_gap", 0.0), []
    for above, nxt in zip(lines[k:k + _DATE_LINES - 1], lines[k + 1:k + _DATE_LINES]):
        if nxt[0][3] - above[0][3] > gap:
            return None
        words = [w for w in nxt if column_of(w, settings["columns"]) == col]
        if not words:
            return None  # most lines: no cells to cut, on every reading of the pages
        tail.append(join_words(words, settings["glue_gap"]))
        cells = cells or split_cells(lines[k], settings["columns"], settings["glue_gap"])
        head = cells[col]
        if head and not re.fullmatch(pattern, head, re.IGNORECASE) and \
                re.fullmatch(pattern, " ".join([head] + tail), re.IGNORECASE):
            return cells, (head, tail)
    return None


def carry_dates(rows: list, settings: dict) -> None:
    """A row printed without its date takes the date above it (one date per day layouts),
    and so does a cell of a column of dates printed once a day (``carry_columns``)."""
    carry = list(settings.get("carry_columns", ()))
    if settings.get("anchor") == "amount" and settings.get("date_fill", "carry") == "carry":
        carry.append(settings["date_column"])
    for col in carry:
        last = ""
        for row in rows:
            last = row[0][col] = row[0][col] or last
