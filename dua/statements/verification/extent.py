"""Where the table runs on its pages and which lines stand in it as rows do, for the
ledger: the extent its accounting covers, the rows' left edge, lines printed as rows,
lines that head a group of rows rather than belong to one, and lines a page break may have
carried from a row.
"""
from __future__ import annotations

import re

from ..table import engine, wordlines

_SAME_X = 1.0  # points: two left edges this close are one edge measured twice
_BANNER = 2  # a page's heading over what a page break carried: the bank's name, the holder's


def region_of(rows: list, items: list, row_like=None) -> dict:
    """page -> (top, bottom, last row line) of what is accounted for. The table's extent
    is the page's, not the rows': from its column heading above the first row (or that
    row, with no heading) to the page's end on the last page, every page between included,
    every page that prints the heading, and every later page that prints a line
    ``row_like`` says is printed as a row. Where the rows end is no evidence of where the
    table does: a row the reading lost below the last one it found would lie outside."""
    if not rows:
        return {}
    region = {}
    for row in rows:
        for page, k in row[3]:
            top = items[page][k][1]
            low, high = region.get(page, (top, top))
            region[page] = (min(low, top), max(high, top))
    first, last = min(region), max(region)
    heading = [item[1] for item in items[first] if item[0] == "furniture"
               and item[5] == "the table's column heading" and item[1] <= region[first][0]]
    top = max(heading) if heading else region[first][0]
    inf = float("inf")
    out = {p: (top if p == first else -inf, inf,
               region[p][1] if p in region else -inf) for p in range(first, last + 1)}
    for p, lines in enumerate(items):  # a page that prints the heading is the table's too
        tops = [item[1] for item in lines if item[0] == "furniture"
                and item[5] == "the table's column heading"]
        if p not in out and tops:
            out[p] = (min(tops), inf, -inf)
        elif p > last and row_like and any(row_like(item[4]) for item in lines):
            out[p] = (-inf, inf, -inf)  # rows the reading lost, on a page of their own
    return out


def rows_left(rows: list) -> float | None:
    """Where the rows' lines start on the page: the left edge of the table's text."""
    starts = [line[0][1] for row in rows for line in row[1] if line]
    return min(starts) if starts else None


def row_like(words: list, settings: dict, anywhere: bool = False) -> bool:
    """A line that prints a date as the rows print theirs and an amount: under the table's
    heading the date may stand anywhere in it (a row whose cells slipped off the columns);
    outside the table it must open the line (a summary box's due date amid its amounts is
    no transaction)."""
    texts = [w[0] for w in words]
    for start in range(len(texts) if anywhere else 1):
        n = next((n for n in (1, 2, 3) if re.fullmatch(
            settings["date_pattern"], " ".join(texts[start:start + n]), re.IGNORECASE)), 0)
        if n and any(engine.looks_like_amount(t, settings)
                     for t in texts[:start] + texts[start + n:]):
            return True
    return False


def heads_rows(items: list, k: int, settings: dict, left: float | None,
                own_starts: set = frozenset()) -> bool:
    """A line of words that starts where no wrapped description does (see
    ``engine.continues``), at the rows' left edge, and that the next rows stand under: a
    group's heading. A line starting anywhere else between two rows is some row's words
    the reading left out (a description wrapped from under its date), and so is one that
    starts where the rows' text set on lines of their own starts (``own_starts``)."""
    if engine.continues(items[k], settings):
        return False
    line = items[k][4]
    if any(abs(line[0][1] - x) <= _SAME_X for x in own_starts):
        return False
    if wordlines.figures_only(line, settings):
        return False  # a summary's figures head no group: the rows' numbers say what they are
    if left is None or abs(line[0][1] - left) > max(w[4] - w[3] for w in line):
        return False
    return engine.row_below(items, k, settings)


def own_lines_starts(rows: list, items: list, settings: dict) -> set:
    """Where the rows' text set on lines of its own starts (``tiers.own_lines``): the left
    edge of each such column's words on the rows' other lines."""
    from ..table import tiers

    columns = settings["columns"]
    out = set()
    for c in tiers.own_lines(rows, items, settings):
        for row in rows:
            xs = [w[1] for page, k in row[3] if items[page][k][0] != "anchor"
                  for w in items[page][k][4] if wordlines.column_of(w, columns) == c]
            if xs:
                out.add(round(min(xs), 1))
    return out


def wrap_starts(rows: list, items: list) -> set:
    """Where the rows' wrapped lines start: the left edge of each line of text a row owns."""
    return {round(items[p][k][4][0][1], 1) for row in rows for p, k in row[3]
            if items[p][k][0] == "text" and items[p][k][4]}


def may_go_on(item: list, last_row: float, reach: float, starts: set) -> bool:
    """Whether a line a little beyond the last row's reach (two reaches at most) starts
    where the rows' wrapped lines start: the last row's text the reading left there, as
    much as the page's foot (a row whose cell wraps a figure stands a line taller than
    its top says)."""
    return item[1] <= last_row + 2 * reach and bool(item[4]) and any(
        abs(item[4][0][1] - x) <= _SAME_X for x in starts)


LEARNED_LABEL = ("a line of words among the rows, labelled as no transaction only by a pattern "
                 "learned from the rows given (the key, the rows checked): words of a row they "
                 "leave out?")


def learned_label(item: list, settings: dict) -> bool:
    """A line printing no money in the table's columns that only a pattern learned from the
    key labels as no transaction (no pattern of the statement's usual vocabulary reads
    it): the key is the only evidence that its words are no row's."""
    from ..table.tablelines import SKIP_PATTERNS

    columns = settings["columns"]
    money = any(columns[wordlines.column_of(w, columns)]["kind"] == "amount"
                and engine.looks_like_amount(w[0], settings) for w in item[4])
    return item[5].startswith(wordlines._LABELLED) and not money and \
        not any(re.search(p, item[3], re.IGNORECASE) for p in SKIP_PATTERNS)


def carried_over(items: list, region: dict, owned: dict, settings: dict,
                  rows: list) -> dict:
    """``{(page, line): why}``: on each page after one a row ends on, up to the page after
    the table's last, text that opens it where that row's cells of words start may be the
    rest of the row, which the page break carried over. No reading owns it, and no label
    (the page's header, an account's title) says what it is: it is named, not passed over
    (s298005 243 a and 262 b passed with a description's end so taken). A line of the first
    page's header printed again is the page's own, and so is one starting where that
    header's lines start: there a row's words cannot be told from the page's (c11: the
    descriptions start at the margin, where the later pages' own header does)."""
    out, ends = {}, {}
    first = min(region, default=0)
    top = region[first][0] if region else 0.0
    own = [item[4][0][1] for item in (items[first] if items else []) if item[1] < top and item[4]]
    for row in rows:  # each page's last row
        ends[row[3][-1][0]] = row
    for page in range(1, min(max(region, default=-1) + 2, len(items))):
        row = ends.get(page - 1)
        starts = _text_starts(row, settings["columns"]) if row else set()
        banner = 0  # lines over the rest, as a page's own heading prints (the bank, the holder)
        for k, item in enumerate(items[page] if starts else []):
            if item[0] == "furniture":
                continue  # a running header, a page number, a balance carried: its structure
            if (page, k) in owned or item[0] not in ("text", "outside"):
                break
            x = item[4][0][1]
            at = any(abs(x - s) <= 2.0 for s in starts) and \
                not any(abs(x - e) <= 2.0 for e in own) and \
                not wordlines.letterhead(item[4], items[first], top)
            if at and engine.continues(item, settings):
                out[(page, k)] = ("opens the page after a row ends, in the columns the row "
                                  "wraps in: the rest of that row?")
            elif banner < _BANNER and not at:
                banner += 1
            else:
                break
    return out


def _text_starts(row: list, columns: list) -> set:
    """Where each of a row's cells of words starts on the page (its leftmost word)."""
    out: dict = {}
    for line in row[1]:
        for w in line:
            c = wordlines.column_of(w, columns)
            if columns[c]["kind"] == "text":
                out[c] = min(out.get(c, w[1]), w[1])
    return set(out.values())
