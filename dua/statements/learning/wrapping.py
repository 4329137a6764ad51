"""Where a row's lines wrap, learned from where the answer key's words stand: the side each
column wraps to, how far, dates a narrow cell wraps (and columns printing a day once), and
long lines that run on under a column of money; without a key, the side the table's ends
show. Settings only; ``learning`` calls these once the rows are found, ``analysis`` the
last."""
from __future__ import annotations

import collections
import re

from ..notation import columndates, datenotation
from ..table import engine, wordlines
from ..table.columns import GLUE_GAP, LINE_TOLERANCE

_WRAP_SHARE = 0.9  # of a column's wrapped words on one side of the anchor line: its side


def lines_text(words: list) -> str:
    """A cell's text line by line, top to bottom (a date wrapped in a narrow cell)."""
    lines: dict = {}
    for w in words:
        top = next((t for t in lines if abs(t - w[3]) <= LINE_TOLERANCE), w[3])
        lines.setdefault(top, []).append(w)
    return " ".join(wordlines.join_words(lines[t], GLUE_GAP) for t in sorted(lines))


def wrapped_dates(settings: dict, rows: list, c: int, date_pattern) -> None:
    """Dates a narrow cell wraps ('11 June' over '2023'): a row starts at the date's first
    line, whose words take the shape of the dates' first lines (``date_head_pattern``), and
    the date column may continue on the row's next line (``wrapped_columns``)."""
    heads, whole = [], []
    for r in rows:
        words = r.cells.get(c, [])
        if words and any(abs(w[3] - words[0][3]) > LINE_TOLERANCE for w in words):
            heads.append(wordlines.join_words([w for w in words
                                            if abs(w[3] - words[0][3]) <= LINE_TOLERANCE],
                                           GLUE_GAP))
            whole.append(lines_text(words).split())
    if heads:
        # a cell wraps where the line is full, so a shorter month leaves room for more of
        # the date on its first line: '09' over 'september' here, '05 march' on the next
        # statement. Every first words of a wrapped date may head one.
        fewest = min(len(h.split()) for h in heads)
        heads += [" ".join(t[:n]) for t in whole for n in range(fewest, len(t))]
        head = date_pattern(heads)
        # every first line must start a date; the shorter heads a longer month wraps to
        # come with the notation's (``datenotation.head_pattern``)
        shapes = datenotation.head_pattern(heads)
        if not head or not all(re.fullmatch(head, h, re.IGNORECASE) for h in heads):
            head = shapes
        elif shapes:
            head = f"(?:{head})|(?:{shapes})"
        if head:
            settings["date_head_pattern"] = f"(?:{settings['date_pattern']})|(?:{head})"
            settings["wrapped_columns"] = [settings["date_column"]]


def sides(settings: dict, pages: list, rows: list, second: set) -> None:
    """How far apart a row's lines stand, and whether its wrapped text sits below its
    anchor line, above it (a description printed over its date and amounts), or both.
    Where the description wraps above and a narrow column's cells (a value date) wrap
    below, the rows read above and those columns go on under the anchor line."""
    steps, sides = [], collections.defaultdict(collections.Counter)
    columns = settings["columns"]
    for row in rows:
        lines = pages[row.page].lines
        tops = sorted(lines[k][0][3] for k in row.lines)
        anchor = lines[row.line][0][3]
        own = {id(w) for k in row.lines for w in lines[k]}  # not a day's heading above
        for c, words in row.cells.items():  # a second tier's field stands below by its own
            for w in words:  # rule, and wraps no first-tier column it stands under
                if c not in second and id(w) in own and abs(w[3] - anchor) > LINE_TOLERANCE:
                    sides[wordlines.column_of(w, columns)]["above" if w[3] < anchor else "below"] += 1
        steps += [b - a for a, b in zip(tops, tops[1:])]
    if not steps:  # no row of the key wraps: text over the first row was no row's (a title)
        settings["continuation"] = "below"
        return
    settings["continuation_gap"] = round(max(steps) * 1.25, 2)
    total = sum(sides.values(), collections.Counter())
    if not total:
        settings["continuation"] = "below"
        return
    # each column by the side most of its wrapped words take: a cell of the key's found
    # on the next row's line now and then (the same word printed there) says nothing
    side = {c: n.most_common(1)[0][0] for c, n in sides.items()
            if n.most_common(1)[0][1] >= _WRAP_SHARE * sum(n.values())}
    under = sorted(c for c, where in side.items() if where == "below")
    if len(side) == len(sides) and set(side.values()) == {"above"}:
        settings["continuation"] = "above"
    elif len(side) == len(sides) and set(side.values()) == {"below"}:
        settings["continuation"] = "below"
    elif len(side) == len(sides) and total.most_common(1)[0][0] == "above":
        settings["continuation"] = "above"
        settings["wrapped_columns"] = sorted(set(settings.get("wrapped_columns", [])) | set(under))
    else:
        settings["continuation"] = "nearest"


def tier_wraps(settings: dict, pages: list, rows: list, fields: list, second: set) -> None:
    """The first tier's columns whose cells go on below the row's first line, clear of the
    second tier's fields (a value date's year, a description's next words, beside the
    reference the second line prints): there they keep their own column
    (``tier_wraps``) instead of falling to the field the second tier puts there."""
    columns, out = settings["columns"], set()
    for row in rows:
        anchor = pages[row.page].lines[row.line][0][3]
        for c, words in row.cells.items():
            out |= {wordlines.column_of(w, columns) for w in words if c not in second
                    and w[3] - anchor > LINE_TOLERANCE
                    and not any(a - 1 <= (w[1] + w[2]) / 2 <= b + 1 for a, b, *_ in fields)}
    if out:
        settings["tier_wraps"] = sorted(out)


def spills(settings: dict, pages: list, rows: list, kinds: list) -> None:
    """Wrapped lines of text that run on under a column of money (a long description
    line wider than its column): the columns a row's wrapped lines may fill become the
    text columns and those (``continuation_columns``); elsewhere a line reaching a column
    of money is none of a row's."""
    columns = settings["columns"]
    text = {i for i, c in enumerate(columns) if c["kind"] != "amount"}
    seen = set()
    for row in rows:
        for c, words in row.cells.items():
            if kinds[c] == "text":
                seen |= {wordlines.column_of(w, columns) for w in words
                         if not any(w is x for x in pages[row.page].lines[row.line])}
    if seen - text:
        settings["continuation_columns"] = sorted(text | seen)


# --- the heading and the lines that are not rows ------------------------------------------


def dates_below(pages: list, settings: dict) -> None:
    """Without a key: dates a narrow cell wraps, from the date column itself. Where nearly
    every dated row's next line prints, in the date column alone, the rest of its date
    ('15 OKT' over '2024'), and head and rest read together as dates in order, the rows'
    dates are both lines (``date_head_pattern``, ``wrapped_columns``)."""
    from ..table import engine  # the reading, as the analysis has it

    try:
        items = engine.extract(pages, settings)[1]
    except (KeyError, ValueError, TypeError, IndexError):
        return
    col, columns, joined, dated = settings["date_column"], settings["columns"], [], 0
    for page in items:
        for k, item in enumerate(page):
            if item[0] != "anchor" or not item[2][col]:
                continue
            dated += 1
            nxt = page[k + 1] if k + 1 < len(page) else None
            if nxt is None or nxt[0] not in ("text", "money") \
                    or nxt[1] - item[1] > settings["continuation_gap"]:
                continue
            tail = [w for w in nxt[4] if wordlines.column_of(w, columns) == col]
            if tail:
                joined.append(item[2][col] + " " + wordlines.join_words(tail, GLUE_GAP))
    if dated < 3 or len(joined) < 0.8 * dated:
        return
    notation = datenotation.induce(joined)
    found = columndates.in_order_pattern(joined)
    if found and "y" in notation["roles"] and found != settings["date_pattern"]:
        settings["date_head_pattern"] = f"(?:{found})|(?:{settings['date_pattern']})"
        settings["date_pattern"] = found
        settings["wrapped_columns"] = [col]


def side_at_ends(pages: list, settings: dict) -> str:
    """Where rows keep their wrapped lines, without a key. Between two rows a wrapped line
    could be either's, but the table's ends tell: text just over its first row and none
    under its last is printed above each row's anchor line. Text under the last row in
    other columns than the text over the first is a narrow cell wrapping below while the
    rest is printed above: those columns go on under the anchor line (``wrapped_columns``).
    """
    try:
        pages_items = engine.extract(pages, dict(settings, continuation="nearest"))[1]
    except (KeyError, ValueError, TypeError, IndexError):
        return settings["continuation"]
    anchors = [(items, i) for items in pages_items for i, item in enumerate(items)
               if item[0] == "anchor"]
    if not anchors:
        return settings["continuation"]
    gap = settings["continuation_gap"]
    over = _wrapped_to(*anchors[0], -1, gap, settings)
    under = _wrapped_to(*anchors[-1], 1, gap, settings)
    # Text under the last row in the same columns is no evidence: rows centred on their
    # date line print the same when the first row fits on one line. Nor is text over a
    # first row that prints its own in those columns already (a section's title over it).
    items, first = anchors[0]
    if not over or over & under or any(items[first][2][c] for c in over):
        return settings["continuation"]
    if under:
        settings["wrapped_columns"] = sorted(set(settings.get("wrapped_columns", [])) | under)
    return "above"


def _wrapped_to(items: list, anchor: int, step: int, gap: float, settings: dict) -> set:
    """The columns of the line next to ``anchor`` (``step``: -1 over it, 1 under it) when it
    is text that may continue a row, within a wrapped line's reach (a sign code is an
    amount's); else none."""
    j = anchor + step
    if not (0 <= j < len(items) and items[j][0] == "text"
            and abs(items[j][1] - items[anchor][1]) <= gap and engine.continues(items[j], settings)
            and not wordlines.codes_only(items[j][4], settings)):
        return set()
    return {wordlines.column_of(w, settings["columns"]) for w in items[j][4]}


def once_a_day(pages: list, settings: dict) -> None:
    """Columns of dates beside the rows' date that print a day once, on its first row:
    their blanks are the day above (``carry_columns``). Such a column's dates change at
    every date it prints and agree with the row's date on some rows; a value date printed
    only where it differs from the booking date never agrees with it, and keeps its blanks."""
    try:
        rows = engine.extract(pages, settings)[0]
    except (KeyError, ValueError, TypeError, IndexError):
        return
    date, pattern, out = settings["date_column"], settings["date_pattern"], []
    for c, col in enumerate(settings["columns"]):
        # the line with the row's date (a title under a day's last row may be read onto it),
        # or the whole cell where it holds a date wrapped in a narrow column ('24' under it)
        cells = [row[0][c] if re.fullmatch(pattern, row[0][c], re.I) else
                 _first_line(row, c, settings) for row in rows]
        printed = [(i, v) for i, v in enumerate(cells) if v]
        if c == date or col["kind"] != "text" or len(printed) < 2 or len(printed) == len(rows) \
                or not cells[0] or not all(re.fullmatch(pattern, v, re.I) for _, v in printed):
            continue
        changes = all(a != b for (_, a), (_, b) in zip(printed, printed[1:]))
        if changes and any(rows[i][0][date] == v for i, v in printed):
            out.append(c)
    if out:
        settings["carry_columns"] = out


def _first_line(row: list, c: int, settings: dict) -> str:
    """The text in column ``c`` on a row's line that prints its date."""
    columns = settings["columns"]
    line = next((ln for ln in row[1] if any(wordlines.column_of(w, columns) ==
                                            settings["date_column"] for w in ln)), row[1][0])
    return wordlines.join_words([w for w in line if wordlines.column_of(w, columns) == c],
                                settings["glue_gap"])
