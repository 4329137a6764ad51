"""Layout analysis of a statement on words read once: header row, column x-ranges, row anchors.

It turns the cached words into the engine's first SETTINGS guess plus what an LLM
prompt needs (headers, sample rows, raw sample text). It never opens the PDF itself.
"""
from __future__ import annotations

import copy
import dataclasses
import re

from ..notation import columndates
from ..notation.dates import DATE_PATTERNS, DATE_SEARCH, pattern_of  # noqa: F401
from ..table import dataframe, engine, margins, notation, sections, tiers, wordlines
from ..table.columns import GLUE_GAP, LINE_TOLERANCE, build_columns, widen  # noqa: F401
from ..table.segments import find_segments, join_word_rivers, money_segments  # noqa: F401
from ..table.heading import find_header  # noqa: F401  (re-exported: tests use it here)
from ..table.tablelines import (  # noqa: F401  (re-exported: tests and the writer use them here)
    SKIP_PATTERNS, _has_amount, _pitch, _table_lines, candidate_lines, date_headings,
    grouped_lines)
from . import learning, sample, stacked, wrapping


@dataclasses.dataclass
class Analysis:
    """What the analysis learned: the first settings guess and the prompt material."""

    settings: dict
    column_headers: list
    sample_rows: list
    raw_sample_text: list
    candidate_lines: int
    page_count: int
    learned: dict | None = None  # settings learned from the answer key's evidence, if given
    sections: list = dataclasses.field(default_factory=list)  # titles that may sign rows
    header_lines: list = dataclasses.field(default_factory=list)  # the heading's words


def reader_pages(doc) -> list:
    """dua.pdf Words as the reader's tuples (what a generated parser's reader gives)."""
    return [[(w.text, w.x0, w.x1, w.top, w.bottom, w.font, w.size, w.runs, w.stream)
             for w in page.words] for page in doc.pages]


def statement_pages(doc) -> tuple:
    """``(pages, apart)``: the engine's words of each page and the words set apart with
    their reasons (``pagewords``), as a generated parser makes them."""
    return engine.statement_pages(reader_pages(doc), {}, [p.char_count for p in doc.pages])


def pages_from_document(doc) -> list:
    """The engine's words of each page (see ``statement_pages``)."""
    return statement_pages(doc)[0]


def _vote_date(cells_by_col: list, patterns: tuple = DATE_PATTERNS) -> tuple:
    best = (0, 0, patterns[0])
    for col, cells in enumerate(cells_by_col):
        for pattern in patterns:
            n = sum(1 for c in cells if c and re.fullmatch(pattern, c, re.IGNORECASE))
            if n > best[0]:
                best = (n, col, pattern)
    return best[1], best[2]


def _kinds(columns: list, cells_by_col: list, date_col: int, money: dict) -> None:
    for i, (col, cells) in enumerate(zip(columns, cells_by_col)):
        present = [c for c in cells if c and c.strip("-–— ")]  # a dash prints "nothing"
        amounts = sum(1 for c in present if engine.looks_like_amount(c, money))
        if i == date_col:
            col["kind"] = "date"
        elif present and amounts >= 0.6 * len(present):
            col["kind"] = "amount"


def continuation_lines(pages: list, candidates: list, header: list) -> list:
    """Plain lines close below or above a row (wrapped descriptions), or anywhere between
    two rows (a description wrapped under a date wrapped over three lines), heading lines
    excepted."""
    heading = {wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in header}
    reach = 2.5 * _pitch(candidates)
    tops: dict = {}
    for index, line in candidates:
        tops.setdefault(index, []).append(line[0][3])
    out = []
    for index, rows in tops.items():
        first, last = min(rows), max(rows)
        for line in wordlines.group_lines(pages[index], LINE_TOLERANCE):
            text = wordlines.join_words(line, GLUE_GAP)
            if (wordlines.normalize(text) in heading or DATE_SEARCH.search(text)
                    or any(engine.looks_like_amount(w[0]) for w in line)):
                continue
            top = line[0][3]
            if first < top < last and top not in rows or \
                    any(0 < abs(top - row) <= reach for row in rows):
                out.append(line)
    return out


def analyze_pages(pages: list, expected=None, layout: Analysis | None = None) -> Analysis:
    """Guess the engine settings for these pages (words as engine tuples).

    With ``expected`` (the answer key) the settings its evidence teaches are learned too,
    and they stand in for the layout's guess when the layout alone finds no table.
    ``layout``: the layout's own reading of these pages, made before (``layout_of``).
    """
    found = copy.deepcopy(layout) if layout is not None else _from_layout(pages)
    if expected is not None:
        found.learned = learning.learn(pages, expected, found.settings or None)
        if not found.settings and found.learned:
            found.settings = found.learned
            found.column_headers = [c["name"] for c in found.learned["columns"]]
    return found


def layout_of(pages: list) -> Analysis:
    """The layout's reading alone, for several keys checked against the same pages."""
    return _from_layout(pages)


def _from_layout(pages: list) -> Analysis:
    """The layout's reading, read again from the rows it read when they are fewer than the
    lines that looked like rows: a strip of daily balances under a heading of its own,
    which the table's reading leaves out, no longer shapes the table's columns."""
    candidates, group_pattern, patterns = _dated_lines(pages)
    # dates stacked over lines ('10' over 'nov.'): more rows than the dates that fit on one
    # line, however many of those there are (a long month stacks where a short one fits)
    folded = stacked.folded(pages)
    again = _dated_lines(folded) if folded else None
    if again and len(again[0]) > len(candidates):
        pages, (candidates, group_pattern, patterns) = folded, again
    if not candidates:
        return Analysis({}, [], [], sample.raw_sample(pages), 0, len(pages))
    found = _read_layout(pages, candidates, group_pattern, patterns=patterns)
    titled = sections.in_heading(pages, found.settings, found.header_lines) \
        if found.settings else None
    if titled:  # a section's title set close under the heading is the first section's
        again = _read_layout(pages, candidates, group_pattern, titled, patterns)
        found = again if len(again.sections) >= 2 else found
    second = tiers.second_line(pages, found.settings, found.header_lines) \
        if found.settings else None
    if second:  # the heading's last line names each row's second line, not its columns
        lower = found.header_lines[-1]
        found = _read_layout(pages, candidates, group_pattern, found.header_lines[:-1], patterns)
        found.settings["second_line"] = second
        found.settings["header"] = sorted(set(found.settings["header"]) | {
            wordlines.normalize(wordlines.join_words(lower, GLUE_GAP))})
    kept = tiers.text_over_rows(pages, found.settings, found.header_lines) \
        if found.settings else None
    if kept:  # the first row's text, set over its figures, taken for the heading's
        again = _read_layout(pages, candidates, group_pattern, kept, patterns)
        found = again if _text_at_both_ends(pages, again.settings) else found
    try:
        rows, items = engine.extract(pages, found.settings)
    except (KeyError, ValueError, TypeError, IndexError):
        return found
    read = [(p, items[p][k][4]) for row in rows for p, k in row[3] if items[p][k][0] == "anchor"]
    if 2 <= len(read) < len(candidates):
        # the heading read over the same first row stands (a title under it set apart)
        same = found.settings.get("second_line") or (
            read[0][0] == candidates[0][0] and read[0][1][0][3] == candidates[0][1][0][3])
        again = _read_layout(pages, read, group_pattern, found.header_lines if same else None,
                             patterns)
        if again.settings:
            if found.settings.get("second_line"):
                again.settings["second_line"] = found.settings["second_line"]
            return again
    return found


def _text_at_both_ends(pages: list, settings: dict) -> bool:
    """Whether the rows' text set on lines of its own is every row's, first and last."""
    try:
        rows, items = engine.extract(pages, settings)
    except (KeyError, ValueError, TypeError, IndexError):
        return False
    return bool(tiers.own_lines(rows, items, settings)) and \
        tiers.short_end(rows, items, settings) is None


def _dated_lines(pages: list) -> tuple:
    """``(candidate lines, group pattern, date patterns)``. The notation the dated lines
    share (any language, any order) is used where it reads more rows than the usual shapes:
    a few month names may read in English ('sept.', 'nov.'). Where it reads as many, it
    still votes first: the usual shapes may read only the head of its dates ('Nov. 19' of
    'Nov. 19 24')."""
    patterns = DATE_PATTERNS
    candidates, group_pattern = _table_lines(pages)
    lines = [ln for words in pages for ln in wordlines.group_lines(words, LINE_TOLERANCE)]
    learned = columndates.from_lines(lines, lambda ln: _has_amount(ln, ln[0][1]))
    if learned:
        more = _table_lines(pages, (learned,))
        if len(more[0]) > len(candidates):
            patterns, (candidates, group_pattern) = (learned,), more
        elif len(more[0]) == len(candidates):
            patterns = (learned,) + tuple(DATE_PATTERNS)
    return candidates, group_pattern, patterns


def _read_layout(pages: list, candidates: list, group_pattern: str | None,
                 header: list | None = None, patterns: tuple = DATE_PATTERNS) -> Analysis:
    rows = margins.aligned(candidates)  # rivers in one frame, where a page's margin moved
    raw = find_segments(rows)
    segments = join_word_rivers(raw, rows, () if patterns == DATE_PATTERNS else patterns)
    if header is None:
        header = find_header(pages, candidates[0], segments)
    # a row's text longer than any other row's is too rare to cover a segment of its own:
    # it widens its column as a wrapped line's does
    wrapped = continuation_lines(pages, candidates, header)
    segments = widen(segments, wrapped + rows, header)
    money = money_segments(segments, rows)
    columns = build_columns(segments, header, money, raw, wrapped, rows)
    if group_pattern:  # the day's heading fills a Date column of its own, first
        columns.insert(0, {"name": "Date", "x0": -1.0, "kind": "date"})
    cells = [wordlines.split_cells(ln, columns, GLUE_GAP) for _, ln in candidates]
    by_col = [[row[i] for row in cells] for i in range(len(columns))]
    date_col, pattern = (0, group_pattern) if group_pattern else _vote_date(by_col, patterns)
    money = {"decimal": notation.decimal_mark(pages),
             "currency_codes": sorted(set(engine.CURRENCY_CODES)
                                      | set(notation.currency_codes(pages, LINE_TOLERANCE)))}
    _kinds(columns, by_col, date_col, money)
    text_cols = [i for i, c in enumerate(columns) if c["kind"] == "text"]
    bare = sum(1 for row in cells if text_cols and not any(row[i] for i in text_cols))
    settings = {
        "columns": columns,
        "date_column": date_col,
        "date_pattern": pattern,
        "date_groups": bool(group_pattern),
        "header": sorted({wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in header}),
        "require_header": bool(header),
        # A header printed on the first page only: later pages continue the table.
        "header_once": bool(header) and not _header_on_every_page(pages, candidates, header),
        "line_tolerance": LINE_TOLERANCE,
        "glue_gap": GLUE_GAP,
        "continuation_gap": round(_pitch(candidates) * 1.6, 2),
        # Anchors with no description of their own: wrapped cells centred on the date line.
        "continuation": "nearest" if bare >= max(2, 0.2 * len(cells)) else "below",
        "skip_patterns": list(SKIP_PATTERNS),
        **money,
        "parens_negative": True,
        "trailing_minus_negative": True,
        "drcr_signs": {"dr": -1, "cr": 1},
        "anchor_needs_amount": True,
    }
    _signs(columns, by_col, settings)
    if not group_pattern and _dateless_rows(pages, settings) >= max(2, 0.1 * len(cells)):
        settings["anchor"] = "amount"  # the date is printed once per day
    # a column printing a day once wraps no words (a title in it over the first row)
    wrapping.once_a_day(pages, settings)
    # the table's ends are its rows', the undated ones of a day among them
    settings["continuation"] = wrapping.side_at_ends(pages, settings)
    settings["continuation_gap"] = _wrap_leading(pages, settings)
    _roles(pages, settings)
    wrapping.dates_below(pages, settings)
    if "date_head_pattern" in settings and "carry_columns" not in settings:
        wrapping.once_a_day(pages, settings)  # a day once, wrapped like the rows' dates
    _labels(settings, cells)
    samples = [dict(zip([c["name"] for c in columns], row)) for row in cells[:5]]
    return Analysis(settings, [c["name"] for c in columns], samples, sample.raw_sample(pages),
                    len(candidates), len(pages), sections=_sections(pages, settings),
                    header_lines=header)


def _roles(pages: list, settings: dict) -> None:
    """The balance column, when the rows reconcile with one: a line printing only it is
    then no row."""
    from ..table import reconcile, tablestarts  # lazy: pandas loads with the first frame

    try:
        extraction = engine.extract(pages, settings)
        result = reconcile.reconcile(dataframe.frame_of(extraction[0], settings),
                                     tablestarts.openings(extraction, settings))
    except (KeyError, ValueError, TypeError, IndexError):
        result = {"passed": None}
    names = [c["name"] for c in settings["columns"]]
    if result["passed"] and result["roles"][0] in names:
        settings["balance_column"] = names.index(result["roles"][0])


def _sections(pages: list, settings: dict) -> list:
    """Titles of the table's sections, which may sign the amounts printed under them: the
    search tries their signs only when the rows do not add up unsigned."""
    return [t for t, _ in sections.guess(pages, settings)]


def _signs(columns: list, by_col: list, settings: dict) -> None:
    for col, cells in zip(columns, by_col):
        signs = notation.drcr_signs(cells, settings) if col["kind"] == "amount" else None
        if signs and signs != settings["drcr_signs"]:
            col["drcr_signs"] = signs
    notation.one_sided_ways(by_col, columns, settings)
    c, codes = notation.code_signs(by_col, columns, settings)
    if not codes:  # no balance says which code is money out: a guess the search flips,
        # and the verdict says so unless the statement's own figures tell the two ways apart
        c, pair = notation.coded_column(by_col, columns, settings)
        codes = dict(zip(pair, (1, -1)))
        settings["sign_marks_guessed"] = bool(codes)
    if codes:  # 'S' and 'H' after the amounts, signed as the balance moves by them
        columns[c]["kind"] = "amount"
        settings.update(sign_marks=sorted(codes), drcr_signs=dict(settings["drcr_signs"], **codes),
                        currency_codes=[m for m in settings["currency_codes"]
                                        if m.lower().rstrip(".") not in codes])


def _labels(settings: dict, cells: list) -> None:
    """A field's name printed before every value of a text column ('Ref:', a word ending
    in a colon that opens nearly every cell): a label, no part of the values."""
    for c, col in enumerate(settings["columns"]):
        firsts = [row[c].split(" ", 1)[0] for row in cells if row[c]]
        if col["kind"] != "text" or len(firsts) < 3:
            continue
        word = max(set(firsts), key=firsts.count)
        if word.endswith(":") and not re.search(r"\d", word) and \
                firsts.count(word) >= 0.9 * len(firsts):
            col["labels"] = [word]


def _wrap_leading(pages: list, settings: dict) -> float:
    """How far under its row a wrapped line may stand. A table that pads its rows sets a
    description's second line a whole row below its first: where three lines or more that
    may continue a row stand that same distance under the line before them, a row and no
    further, that distance is a wrap's reach too."""
    gap = settings["continuation_gap"]
    try:
        pages_items = engine.extract(pages, settings)[1]
    except (KeyError, ValueError, TypeError, IndexError):
        return gap
    offsets, steps = [], []
    for items in pages_items:
        anchors = [i for i, item in enumerate(items) if item[0] == "anchor"]
        steps += [items[b][1] - items[a][1] for a, b in zip(anchors, anchors[1:])]
        offsets += [round(items[i + 1][1] - items[i][1], 1) for i in anchors
                    if i + 1 < len(items) and items[i + 1][0] == "text"
                    and engine.continues(items[i + 1], settings)]
    wide = [o for o in offsets if gap < o <= 1.05 * min(steps or [0])]
    common = max(set(wide), key=wide.count) if wide else None
    if common is None or sum(1 for o in wide if abs(o - common) <= 0.5) < 3:
        return gap
    return round(common + 1.0, 2)


def _dateless_rows(pages: list, settings: dict) -> int:
    """Table lines with money in an amount column but an empty date cell, between two dated
    rows of one table: a day's later rows. A balance line stands at a table's end instead,
    under its heading or over the next one."""
    kinds = [c["kind"] for c in settings["columns"]]
    flat = [item for items in engine.extract(pages, settings)[1] for item in items
            if item[0] in ("anchor", "money") or item[5] == wordlines.HEADING]
    undated = [i for i, item in enumerate(flat)
               if item[0] == "money" and not item[2][settings["date_column"]]
               and engine._amount_cells(item[2], settings, kinds)]
    return sum(1 for i in undated if _between_rows(flat, i))


def _between_rows(flat: list, i: int) -> bool:
    """Whether a dated row comes before line ``i`` and another after it, with no heading
    between (money lines between them are the day's other rows)."""
    before = next((item[0] for item in reversed(flat[:i]) if item[0] != "money"), None)
    after = next((item[0] for item in flat[i + 1:] if item[0] != "money"), None)
    return before == after == "anchor"


def _header_on_every_page(pages: list, candidates: list, header: list) -> bool:
    wanted = wordlines.normalize(wordlines.join_words(header[0], GLUE_GAP))
    for index in sorted({i for i, _ in candidates}):
        texts = {wordlines.normalize(wordlines.join_words(ln, GLUE_GAP))
                 for ln in wordlines.group_lines(pages[index], LINE_TOLERANCE)}
        if wanted not in texts:
            return False
    return True
