"""Whether a reading's column edges stand in the table's gutters.

Every word can sit in some cell while a column edge runs through the wrong gap: a date's
year read into the description, because the edge between the two columns was put
between the month and the year. On a row's line a gutter between two columns is at least
as wide as the gaps between the words inside either cell; an edge that cuts a narrower
gap than one inside its neighbouring cells, on most of the rows it crosses, is in the
wrong place: the wider gap inside the cell is the gutter.
"""
from __future__ import annotations

import re

from ..table import engine, wordlines

_SLACK = 1.0  # points: gaps this close are the same gap measured twice
_ENOUGH = 3  # rows an edge must cross before its gaps say anything
_NAME_GAP = 0.5  # heights: a gap this wide between heading words parts two columns' names
_UNDER = 2.0  # points: a word starting this near a heading word's start stands under it


def check(rows: list, items: list, settings: dict) -> dict:
    """``{"name", "passed", "detail"}``: None when no edge crosses enough rows to tell."""
    names = [c["name"] for c in settings["columns"]]
    lines = [a for row in rows for a in _anchors(row, items)]
    crossed: dict = {}  # edge (its left column) -> [rows it crosses]
    wider: dict = {}  # edge -> [the wider gap inside a cell beside it, on each such row]
    for words in lines:
        for edge, inside in _edges(words, settings):
            crossed.setdefault(edge, []).append(words)
            if inside:
                wider.setdefault(edge, []).append(inside)
    judged = {e: len(v) for e, v in crossed.items() if len(v) >= _ENOUGH}
    if not judged:
        return {"name": "columns_in_gutters", "passed": None,
                "detail": "too few rows print words on both sides of a column edge to tell"}
    for e, n in sorted(judged.items()):
        gaps = wider.get(e, [])
        river = _river(gaps, lines) if len(gaps) * 2 > n else None
        if river:
            return {"name": "columns_in_gutters", "passed": False,
                    "detail": f"the edge between {names[e]!r} and {names[e + 1]!r} cuts a gap "
                              f"narrower than the empty strip at x {river[0]:.0f}-"
                              f"{river[1]:.0f} inside their cells, which runs down all "
                              f"{len(lines)} rows: that strip is the gutter, and words stand "
                              "in the wrong column"}
    return {"name": "columns_in_gutters", "passed": True,
            "detail": f"each of {len(judged)} column edges runs through the gutter between "
                      "its two columns on the rows' lines"}


def _anchors(row: list, items: list) -> list:
    return [items[p][k][4] for p, k in row[3] if items[p][k][0] == "anchor"][:1]


def _river(gaps: list, lines: list) -> tuple | None:
    """The strip every one of ``gaps`` (x0, x1) spans and no row's word touches."""
    lo, hi = max(g[0] for g in gaps), min(g[1] for g in gaps)
    if hi - lo <= _SLACK:
        return None
    if any(w[1] < hi and w[2] > lo for words in lines for w in words):
        return None
    return lo, hi


def _edges(words: list, settings: dict) -> list:
    """``[(left column, wider gap or None)]`` for each column edge a row's line prints
    words on both sides of, with the gap inside a cell beside it that is wider than the
    one the edge cuts, if any."""
    columns = settings["columns"]
    placed = [(wordlines.column_of(w, columns), w) for w in sorted(words, key=lambda w: w[1])]
    inner: dict = {}
    for (c1, a), (c2, b) in zip(placed, placed[1:]):
        if c1 == c2 and b[1] - a[2] > inner.get(c1, (0.0, 0.0))[1] - inner.get(c1, (0.0, 0.0))[0]:
            inner[c1] = (a[2], b[1])
    out = []
    for (c1, a), (c2, b) in zip(placed, placed[1:]):
        if c1 != c2 and c2 == c1 + 1:
            gap = b[1] - a[2]
            beside = [g for g in (inner.get(c1), inner.get(c2))
                      if g and g[1] - g[0] > gap + _SLACK]
            out.append((c1, max(beside, key=lambda g: g[1] - g[0]) if beside else None))
    return out


def bands(rows: list, items: list, settings: dict) -> dict:
    """Whether the lines a row continues on stand in its columns: where a column's cells
    start at one x on every row's first line (left-aligned), a word the reading adds to the
    row from another line and that starts left of that edge stands outside the column (a
    page's running header taken for the last row's wrapped description)."""
    columns = settings["columns"]
    starts: dict = {}
    for row in rows:
        for p, k in row[3]:
            if items[p][k][0] == "anchor":
                for c, w in _first_words(items[p][k][4], columns).items():
                    starts.setdefault(c, []).append(w[1])
    edges = {c: min(xs) for c, xs in starts.items()
             if len(xs) >= _ENOUGH and max(xs) - min(xs) <= _SLACK}
    for n, row in enumerate(rows):
        for p, k in row[3]:
            item = items[p][k]
            if item[0] not in ("text", "money"):
                continue
            for c, w in _first_words(item[4], columns, settings).items():
                if c in edges and w[1] < edges[c] - _SLACK:
                    return {"name": "lines_in_columns", "passed": False,
                            "detail": f"row {n} takes {w[0]!r} (page {p + 1}) from a line that "
                                      f"starts left of where {columns[c]['name']!r} starts "
                                      f"on every row ({edges[c]:.1f} pt): that line is not "
                                      "the row's"}
    return {"name": "lines_in_columns", "passed": True if edges else None,
            "detail": "the lines rows continue on start within their columns" if edges
            else "no column's cells start at one edge on every row"}


def apart(rows: list, items: list, settings: dict) -> dict:
    """Whether each column of words prints cells of its own: a column whose every word
    stands a word space after the text of the column before it (no wider than the spaces
    inside the line's cells), on every line it prints on, is that text running on past the
    edge of a column that prints nothing of its own. Where the column elsewhere opens
    cells after a gutter, two cells that touch are a tight table, not one run of text."""
    columns = settings["columns"]
    runs: dict = {}  # column -> the first (row, page, word before, word) it runs on at
    own = set()  # columns that open a cell of their own somewhere
    for n, row in enumerate(rows):
        for p, k in row[3]:
            for c, before, word in _openings(items[p][k][4], columns, settings):
                if before is None:
                    own.add(c)
                else:
                    runs.setdefault(c, (n, p, before, word))
    for c, (n, p, a, b) in sorted(runs.items()):
        if c not in own:
            return {"name": "cells_apart", "passed": False,
                    "detail": f"every word read into {columns[c]['name']!r} runs on a word "
                              f"space from the text before it, as {b[0]!r} does from {a[0]!r} "
                              f"(row {n}, page {p + 1}, {b[1] - a[2]:.1f} pt apart): that "
                              "column prints nothing of its own"}
    return {"name": "cells_apart", "passed": True,
            "detail": "every column of words opens cells of its own, after a gutter"}


def _openings(words: list, columns: list, settings: dict | None = None) -> list:
    """``[(column, word before or None, first word)]`` for each cell of words a line opens
    in a column the output keeps or the key left unclaimed (``_judged``): the word before
    it where it stands a word space after the cell before (no wider than the spaces inside
    the line's cells), else None. With ``settings``, words the reading keeps in the cell
    they run on from open none."""
    words = sorted(words, key=lambda w: w[1])
    placed = [(wordlines.column_of(w, columns), w) for w in words]
    if settings is not None:
        for n in range(1, len(placed)):
            if wordlines.takes_no_run_on(columns[placed[n][0]]) and \
                    wordlines._runs_on(words, n, settings):
                placed[n] = (placed[n - 1][0], placed[n][1])
    pairs = list(zip(placed, placed[1:]))
    inside = sorted(b[1] - a[2] for (c1, a), (c2, b) in pairs if c1 == c2)
    space = inside[len(inside) // 2] if len(inside) >= 2 else None
    out = [(placed[0][0], None, placed[0][1])] if placed else []
    for (c1, a), (c2, b) in pairs:
        if c1 == c2 or columns[c2]["kind"] != "text" or not _judged(columns[c2]):
            continue
        # after a label the key leaves out ('Ref:'), a value opens its own cell
        touching = space is not None and columns[c1]["kind"] == "text" and \
            columns[c1].get("output", True) and b[1] - a[2] <= space + _SLACK / 2
        out.append((c2, a if touching else None, b))
    return out


def _judged(column: dict) -> bool:
    """A column of the output, or one the key's values left unclaimed (words no cell of
    the key holds): whether such words are a column or the rest of a cell is the page's
    to say, not the key's."""
    return column.get("output", True) or bool(column.get("unclaimed"))


def one_column_each(rows: list, items: list, settings: dict) -> dict:
    """Whether each column of words holds one column of the page: where, on nearly every
    row whose cell reaches that far, a cell's later word starts under a word of the heading
    printed over that cell, the heading word names a column of its own that the reading
    merged into its neighbour ('Value' and 'Reference' read as one column, each row's date
    and reference in it). Judged on every page's rows, and on the heading's own page's: a
    page may set the same columns at other widths. Fields a row's second line prints have
    names of their own: one name under two columns is the heading's names wrapped."""
    columns = settings["columns"]
    tier = [c["name"] for c in settings.get("second_line") or ()]
    again = next((name for name in tier if tier.count(name) > 1), None)
    if again:  # s298005 235: 'Value'/'Date' and 'Txn'/'Date', each date's year a 'Date'
        return {"name": "one_column_each", "passed": None,
                "detail": f"the heading's second line names {again!r} under more than one "
                          "column: it may hold the first line's names wrapped, not fields"}
    over = _drawn_over(items)
    if over:
        return {"name": "one_column_each", "passed": None,
                "detail": f"the heading prints {over[0]!r} drawn over {over[1]!r}: two names "
                          "set too close to tell which columns they name (one may name a "
                          "column no row fills)"}
    heading = [(p, w) for p, page in enumerate(items) for item in page
               if item[0] == "furniture" and item[5] == wordlines.HEADING
               for w in _names(item[4])]
    lines = [next(((p, items[p][k][4]) for p, k in row[3] if items[p][k][0] == "anchor"),
                  None) for row in rows]
    lines = [line for line in lines if line]
    before = _name_before_cells(items, lines, columns)
    if before:
        return {"name": "one_column_each", "passed": None,
                "detail": f"the heading's {before[0]!r} ends before every cell of "
                          f"{before[1]!r} starts: it may name a column of its own that no "
                          "row fills"}
    for c, column in enumerate(columns):
        if column["kind"] == "amount":
            continue
        cells = [(p, sorted((w for w in words if wordlines.column_of(w, columns) == c),
                            key=lambda w: w[1])) for p, words in lines]
        cells = [(p, cell) for p, cell in cells if cell]
        for page, h in heading:
            if wordlines.column_of(h, columns) != c:
                continue
            for judged in ([cell for _, cell in cells],
                           [cell for p, cell in cells if p == page]):
                merged = _starts_under(h, judged)
                if merged:
                    under, reach = merged
                    return {"name": "one_column_each", "passed": False,
                            "detail": f"in {column['name']!r}, {under} of the {reach} rows "
                                      f"whose cell reaches under the heading's {h[0]!r} (x "
                                      f"{h[1]:.0f}, page {page + 1}) start a word right there:"
                                      " a column of its own, read into this one"}
    return {"name": "one_column_each", "passed": True,
            "detail": "no cell's words start again under a word of its column's heading"}


def _drawn_over(items: list) -> tuple | None:
    """The first two words of a heading line the second of which starts more than half a
    point inside the first ('Memo' and 'Money', printed 'MemoMoney'), or None."""
    for page in items:
        for item in page:
            if item[0] == "furniture" and item[5] == wordlines.HEADING:
                words = sorted(item[4], key=lambda w: w[1])
                for a, b in zip(words, words[1:]):
                    if b[1] < a[2] - 0.5 and abs(b[3] - a[3]) < 1:
                        return a[0], b[0]
    return None


def _name_before_cells(items: list, lines: list, columns: list) -> tuple | None:
    """``(word, column name)`` where a text column's name prints a first word that ends
    before the start of every cell on its page ('Memo' in 'Memo Reference' over references
    set further right), or None. A name's first word stands over its cells' start, as a
    cell's first word does; one over no cell at all may be the name of an empty column."""
    for p, page in enumerate(items):
        starts: dict = {}  # column -> where each of the page's rows starts its cell
        for words in (words for q, words in lines if q == p):
            for c, w in _first_words(words, columns).items():
                starts.setdefault(c, []).append(w[1])
        for item in page:
            if item[0] != "furniture" or item[5] != wordlines.HEADING:
                continue
            words = sorted(item[4], key=lambda w: w[1])
            for c, xs in starts.items():
                said = columns[c]["name"].split()
                name = [w for w in words if wordlines.column_of(w, columns) == c
                        and w[0] in said]
                if columns[c]["kind"] != "amount" and len(name) > 1 and \
                        name[0][0] == said[0] and len(xs) >= _ENOUGH and \
                        name[0][2] + _SLACK < min(xs):
                    return name[0][0], columns[c]["name"]
    return None


def _starts_under(h: tuple, cells: list) -> tuple | None:
    """``(rows, rows reaching)``: how many cells start a later word under heading word ``h``,
    of those that print as far; None unless nearly all do."""
    # a heading's cell may be padded apart from its values' ('POSTING' at 96.8 over dates
    # at 95.0); a letter-spaced line prints a letter every few points, near any name
    under = sum(1 for cell in cells if any(
        abs(w[1] - h[1]) <= (_UNDER if len(w[0]) > 1 else _SLACK) for w in cell[1:]))
    # only the cells that print as far as the heading word can start a word under it: a
    # column printed on some rows only (a date once a day) is still a column
    reach = sum(1 for cell in cells if cell[-1][2] > h[1] + _SLACK)
    return (under, reach) if under >= _ENOUGH and under * 5 >= reach * 4 else None


def _names(words: list) -> list:
    """The heading line's words that open a column's name: each a gutter (more than half
    its height) after the word before it. 'Date' in 'Posting Date' is the same name's."""
    words = sorted(words, key=lambda w: w[1])
    return [b for a, b in zip(words, words[1:]) if b[1] - a[2] > _NAME_GAP * (b[4] - b[3])]



def _first_words(words: list, columns: list, settings: dict | None = None) -> dict:
    """column -> the leftmost word a line prints in it. With ``settings``, a word that
    runs on from the one before it under a column of money stays in that word's column,
    as the reading keeps it (a long description carried on under the balance)."""
    out: dict = {}
    words = sorted(words, key=lambda w: w[1])
    at = None
    for n, w in enumerate(words):
        c = wordlines.column_of(w, columns)
        if settings is not None and at is not None and wordlines.takes_no_run_on(columns[c]) \
                and wordlines._runs_on(words, n, settings):
            c = at
        out.setdefault(c, w)
        at = c
    return out


def row_edges(rows: list, items: list, settings: dict) -> tuple:
    """``(date starts, money ends)``: the x where the rows' date cells start and where
    their amounts end, each rounded to the point, from the rows' first lines."""
    columns, date = settings["columns"], settings["date_column"]
    starts, ends = set(), set()
    for row in rows:
        for p, k in row[3]:
            if items[p][k][0] != "anchor":
                continue
            for c, w in _first_words(items[p][k][4], columns).items():
                if c == date:
                    starts.add(round(w[1]))
            ends |= {round(w[2]) for w in items[p][k][4]
                     if columns[wordlines.column_of(w, columns)]["kind"] == "amount"
                     and engine.looks_like_amount(w[0], settings)}
    return starts, ends


def on_row_edges(words: list, edges: tuple, settings: dict) -> bool:
    """A line that starts a word where the rows' dates start and ends an amount where
    theirs end: a row, whether or not its date reads in the notation the rows were read
    with (a month the reading never saw, on a page it never reached)."""
    starts, ends = edges
    dated = any(abs(round(w[1]) - x) <= 1 and _dated(words, w)
                and not engine.looks_like_amount(w[0], settings) for w in words for x in starts)
    return dated and any(abs(round(w[2]) - x) <= 1 and engine.looks_like_amount(w[0], settings)
                         for w in words for x in ends)


def _dated(words: list, word: tuple) -> bool:
    """Whether ``word`` opens a date: it prints a digit, or the next word, a word space on,
    is a day or a year ('OTTOBRE 06', a month named first; not 'EUR 1.000,00')."""
    if any(ch.isdigit() for ch in word[0]):
        return True
    after = [w for w in words if 0 <= w[1] - word[2] <= word[4] - word[3]]
    return any(re.fullmatch(r"\d{1,4}[.,]?", w[0]) for w in after[:1])


def on_money_edges(words: list, edges: tuple, settings: dict) -> bool:
    """A line that ends two amounts or more where the rows' amounts end, each at an edge of
    its own (a row's amount and its balance): printed as a row, whether or not its date
    stands where the rows' dates do (a date printed once a day, left out)."""
    ends = edges[1]
    hit = {x for w in words if engine.looks_like_amount(w[0], settings)
           for x in ends if abs(round(w[2]) - x) <= 1}
    return len({round(x / 3.0) for x in hit}) >= 2


def printed_as_row(words: list, edges: tuple, settings: dict) -> bool:
    """A line set on the rows' edges (``on_row_edges``) or ending amounts on two of their
    money's (``on_money_edges``): a row, read or not."""
    return on_money_edges(words, edges, settings) or on_row_edges(words, edges, settings)
