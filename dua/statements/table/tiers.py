"""A two-tier heading: a second line of names under the first, each naming a field that
every row prints on a line of its own below its first (a value date under the date, a
reference under the details).

A heading wrapped in its cells ('Withdrawal' over 'Amt.') looks the same from above; the
rows tell them apart: under a second tier nearly every row's first line is followed by a
line that no row continues, whose words stand under the second tier's names.

Nor is every line under the names a tier: where each row's text stands over its figures,
the first row's text stands right under the heading. The table's ends tell: read as a
tier, every row takes the next row's text and the last row is left with none.
"""
from __future__ import annotations

from . import engine, wordlines
from .columns import _phrases

_SHARE = 0.8  # of the rows whose first line is followed by such a line
_ENOUGH = 3  # rows with text of their own before the one without says anything


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
    if anchors < 3 or len(second) < _SHARE * anchors or _wraps_above(second, lower, settings):
        return None
    columns = _columns(lower, settings)
    filled = [sum(1 for line in second if any(wordlines.column_of(w, columns) == i
                                              for w in line[4])) for i in range(len(columns))]
    if min(filled) < 0.5 * len(second):
        return None  # a name no second line fills: a heading wrapped in its cell, not a tier
    return columns


def _wraps_above(second: list, lower: list, settings: dict) -> bool:
    """Whether most second lines print words under a column of the first tier that no name
    of the lower line stands under: those cells wrap onto the next line ('Posting' over
    'Date', a narrow cell's reference under its 'Ref:'), the lower line a name wrapped."""
    columns = settings["columns"]
    named = {wordlines.column_of(p[0], columns) for p in _phrases([lower])}
    wrapped = sum(1 for line in second
                  if any(wordlines.column_of(w, columns) not in named for w in line[4]))
    return wrapped > len(second) / 2


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


def short_end(rows: list, items: list, settings: dict) -> tuple | None:
    """``(column, row)``: a column of text every row prints on lines of its own, never on
    its first line, that only one row lacks, at an end the reading's side leaves open (the
    last, read below; the first, read above; either, read by nearness). Its text may be
    each row's neighbour's."""
    columns, side = settings.get("columns") or [], settings.get("continuation", "below")
    if len(rows) <= _ENOUGH:
        return None
    ends = {"below": (len(rows) - 1,), "above": (0,)}.get(side, (0, len(rows) - 1))
    for c in own_lines(rows, items, settings):
        lacking = [n for n, row in enumerate(rows) if not _lines_in(row, items, columns, c)]
        if len(lacking) == 1 and lacking[0] in ends:
            return c, lacking[0]
    return None


def own_lines(rows: list, items: list, settings: dict) -> list:
    """The columns of text no row's first line prints in and enough rows' other lines do."""
    columns = settings.get("columns") or []
    out = []
    for c, column in enumerate(columns):
        if column.get("kind") != "text" or not column.get("output", True):
            continue
        has = [_lines_in(row, items, columns, c) for row in rows]
        if None not in has and sum(has) >= _ENOUGH:
            out.append(c)
    return out


def _lines_in(row: list, items: list, columns: list, c: int) -> bool | None:
    """Whether ``row`` prints a word in column ``c`` on its other lines; None when its
    first line does."""
    found = False
    for page, k in row[3]:
        item = items[page][k]
        if any(wordlines.column_of(w, columns) == c for w in item[4]):
            if item[0] == "anchor":
                return None
            found = True
    return found


def text_over_rows(pages: list, settings: dict, header: list) -> list | None:
    """The heading without the lines under its names, where those lines hold text only and
    are the first row's text, set over its figures as every row's is: read below their
    figures, the rows leave the last without text of its own (``short_end``); read above
    them or by nearness, the lines stand in a column the rows print on lines of their own."""
    if len(header) < 2 or not settings.get("columns"):
        return None
    columns = settings["columns"]
    # the line naming the most columns, not the one with most words (a description's)
    names = max(range(len(header)), key=lambda i: len({wordlines.column_of(w, columns)
                                                        for w in header[i]}))
    lower = [w for line in header[names + 1:] for w in line]
    if not lower or any(columns[wordlines.column_of(w, columns)]["kind"] != "text"
                        for w in lower):
        return None
    try:
        rows, items = engine.extract(pages, settings)
    except (KeyError, ValueError, TypeError, IndexError):
        return None
    if settings.get("continuation", "below") == "below":
        over = short_end(rows, items, settings) is not None
    else:
        own = own_lines(rows, items, settings)
        over = all(wordlines.column_of(w, columns) in own for w in lower)
    return header[:names + 1] if over else None


def tier_over_text(rows: list, items: list, settings: dict) -> str | None:
    """The text of the heading's lines under its names, where the rows print their text
    over their figures and those lines stand in a column the rows print on lines of their
    own: the first row's text, for all the page shows."""
    if settings.get("continuation", "below") not in ("above", "nearest"):
        return None
    columns = settings.get("columns") or []
    own = own_lines(rows, items, settings) if len(rows) > _ENOUGH else []
    for page in items:
        heading = [item for item in page if item[0] == "furniture"
                   and item[5] == wordlines.HEADING]
        if not heading:
            continue
        names = max(heading, key=lambda item: len(item[4]))
        lower = [item for item in heading if item[1] > names[1]]
        if own and lower and all(wordlines.column_of(w, columns) in own
                                 for item in lower for w in item[4]):
            return " ".join(item[3] for item in lower)
        return None
    return None
