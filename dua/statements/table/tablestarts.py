"""Where one account's table ends and the next starts: the lines between two rows, the
headings that open a table of its own, and the balances such a table may open on.

What stands between rows is read here; whether the rows reconcile, ``reconcile`` says.
"""
from __future__ import annotations

import re

from . import engine, wordlines
from .reconcile import line_amounts


def amounts_among_rows(extraction: tuple | None, settings: dict) -> list:
    """The amounts printed on lines between two rows that are no row, and on lines after
    the last row dated as the rows are: none of them is a balance every row leads from or
    to (a row the reading lost prints its amount there, or under a heading that ended the
    table too soon)."""
    if not extraction or not extraction[0]:
        return []
    found, dates = [], _date_columns(extraction[0], settings)
    for i in range(1, len(extraction[0]) + 1):
        for item in between(extraction, i):
            if item[5] == wordlines.HEADING:
                continue
            if (i < len(extraction[0]) and item[0] in ("money", "furniture", "text")) or \
                    _row_shaped(item, settings, dates):
                found += line_amounts(item[4], settings)
    return found


def _row_shaped(item: list, settings: dict, dates: list) -> bool:
    """A line after the table printing what a row prints: a date in a column of the rows'
    dates, and words in a column of text (a day's balance under its date prints no words)."""
    if item[0] == "anchor" or not item[4] or not _dated(item, settings, dates):
        return False
    cells = item[2] or wordlines.split_cells(item[4], settings["columns"], settings["glue_gap"])
    return any(c < len(cells) and c not in dates and col["kind"] == "text"
               and re.search(r"[^\W\d_]{2}", cells[c])
               for c, col in enumerate(settings["columns"]))


def _date_columns(rows: list, settings: dict) -> list:
    """The columns whose cells are dates on nine rows in ten: the rows' date, a value date."""
    pattern = settings.get("date_pattern") or r"(?!)"
    return [c for c in range(len(settings["columns"])) if sum(
        1 for row in rows if c < len(row[0]) and re.fullmatch(pattern, row[0][c], re.I))
        >= 0.9 * len(rows)]


def openings(extraction: tuple | None, settings: dict) -> dict:
    """Row -> the amounts printed on the lines between it and the row before it (in the
    table's columns of money; anywhere on them where a column heading stands between, a
    second account's own table under its summary), and for a second account's first row
    those printed after its table (its summary below it): where a chain may start again
    from an opening balance."""
    if not extraction or not settings.get("columns"):
        return {}
    money = [i for i, c in enumerate(settings["columns"]) if c["kind"] == "amount"]
    out = {}
    for i in range(1, len(extraction[0])):
        found, lines = [], between(extraction, i)
        anywhere = any(item[0] == "furniture" and item[5] == wordlines.HEADING
                       for item in lines)
        if not anywhere and any(_dated(item, settings) for item in lines):
            continue  # a line dated as the rows are is a row left out, not an opening
        for item in lines:
            if anywhere:
                found += line_amounts(item[4], settings)
                continue
            cells = item[2] or wordlines.split_cells(item[4], settings["columns"],
                                                  settings["glue_gap"])
            found += [engine.parse_amount(cells[c], settings) for c in money
                      if c < len(cells) and cells[c]]
        if any(v is not None for v in found):
            out[i] = [v for v in found if v is not None]
    # a table's own summary may follow it: its opening balance printed after its rows
    starts = new_tables(extraction)
    for t, end in zip(starts, starts[1:] + [len(extraction[0])]):
        out[t] = out.get(t, []) + [v for item in between(extraction, end)
                                   for v in line_amounts(item[4], settings)]
    return out


def _dated(item: list, settings: dict, columns: list = ()) -> bool:
    """A line whose date cell (or a cell of ``columns``) reads as the rows' dates do."""
    cells = item[2] or wordlines.split_cells(item[4], settings["columns"], settings["glue_gap"])
    return any(c < len(cells) and cells[c] and re.fullmatch(
        settings["date_pattern"], cells[c], re.IGNORECASE)
        for c in {settings["date_column"], *columns})


def new_tables(extraction: tuple | None) -> list:
    """The rows a column heading stands right above, where it is no page's heading printed
    again: on the same page as the row before, or under a title of words no row owns (an
    account's name and number): a table of their own, another account's."""
    if not extraction:
        return []
    rows = extraction[0]
    return [i for i in under_headings(extraction) if rows[i - 1][3][-1][0] == rows[i][3][0][0]
            or any(item[0] == "text" or (item[0] == "outside" and _numbered(item[4]))
                   for item in between(extraction, i))]


def _numbered(words: list) -> bool:
    """A name and a number, no amount ('Savings Account 6826 6529 9310'): an account's
    title over the heading a page prints, where the page's own header names no account."""
    return any(w[0].isalpha() for w in words) and any(w[0].isdigit() for w in words) \
        and not any(engine.looks_like_amount(w[0]) for w in words)


def under_headings(extraction: tuple | None) -> list:
    """The rows a column heading stands right above (the first excepted): where a second
    account's table may start, its own totals printed apart."""
    if not extraction:
        return []
    return [i for i in range(1, len(extraction[0])) if any(
        item[0] == "furniture" and item[5] == wordlines.HEADING
        for item in between(extraction, i))]


def between(extraction: tuple, i: int) -> list:
    """The lines between row ``i - 1``'s last and row ``i``'s first (the document's end,
    where ``i`` is past the last row)."""
    rows, items = extraction
    (p0, k0) = rows[i - 1][3][-1]
    (p1, k1) = rows[i][3][0] if i < len(rows) else (len(items) - 1, len(items[-1]))
    if p0 == p1:
        return [items[p0][k] for k in range(k0 + 1, k1)]
    return ([items[p0][k] for k in range(k0 + 1, len(items[p0]))]
            + [item for p in range(p0 + 1, p1) for item in items[p]]
            + [items[p1][k] for k in range(k1)])


def table_ends(extraction: tuple | None, settings: dict) -> dict:
    """Each table's first row (the first, and each of ``new_tables``) -> ``(above, below)``:
    the amounts printed between its column heading and its first row, and between its last
    row and the next heading. Where a line dated as the rows are stands there (a row left
    out), or no heading stands over the table, it has none."""
    if not extraction or not extraction[0]:
        return {}
    rows, items = extraction
    starts = [0] + new_tables(extraction)
    out = {}
    for start, stop in zip(starts, starts[1:] + [len(rows)]):
        p, k = rows[start][3][0]
        above = between(extraction, start) if start else items[p][:k]
        heads = [i for i, item in enumerate(above)
                 if item[0] == "furniture" and item[5] == wordlines.HEADING]
        after = between(extraction, stop)
        below = after[:next((i for i, item in enumerate(after) if item[0] == "furniture"
                             and item[5] == wordlines.HEADING), len(after))]
        lines = above[heads[-1] + 1:] if heads else []
        if heads and not any(_dated(item, settings) for item in lines + below):
            out[start] = tuple([v for item in part for v in
                                line_amounts(item[4], settings)]
                               for part in (lines, below))
    return out
