"""Settings learned from the answer key's evidence (see ``evidence``).

Where the expected rows stand gives each column's x-range and the gutters between them,
the date shape and whether each row prints its date, each amount column's notation and
sign convention, how wrapped cells attach and how far, the heading above the first row
and the label words of the lines inside the table that are not rows. The result is an
engine SETTINGS dict: structure only, never the sample's values.
"""
from __future__ import annotations

import collections
import copy
import re

from ..notation.dates import match_of
from ..table import engine, notation, sections, wordlines
from ..table.columns import GLUE_GAP, LINE_TOLERANCE
from ..table.heading import find_header
from ..table.tablelines import SKIP_PATTERNS
from . import evidence, keyspec, signs, wrapping

_ENOUGH = 0.5  # share of the expected rows that must be found before the evidence counts
_WORD = re.compile(r"[^\W\d_][^\W\d_'’./&-]*[.]?")


def learn(words_by_page: list, expected, base: dict | None = None) -> dict | None:
    """Engine settings learned from where the answer key's values are printed.

    ``base`` (the layout analysis' guess) supplies what the evidence cannot show. None
    when the expected CSV has no date column or too few of its rows are found.
    """
    kinds = evidence.roles(expected)
    if "date" not in kinds:
        return None
    pages = [evidence.Page(w) for w in words_by_page]
    settings, rows = None, []
    start = _defaults(base)
    start["currency_codes"] = sorted(set(start["currency_codes"]) | set(
        notation.currency_codes(words_by_page, LINE_TOLERANCE)))  # the page's own marks
    for mark in dict.fromkeys((start["decimal"], ".", ",")):
        trial = dict(start, decimal=mark)
        found = evidence.locate(pages, expected, kinds, trial)
        if settings is None or _count(found) > _count(rows):
            settings, rows = trial, found
        if _count(rows) == len(expected):
            break  # every row found: the other mark cannot do better
    expected, rows, backwards = keyspec.orient(pages, expected, kinds, settings, rows)
    if _count(rows) < max(2, _ENOUGH * len(expected)):
        return None
    evidence.attach_text(pages, expected, kinds, rows)
    rows = [r for r in rows if r]
    signs.sign_words(settings, pages, rows, expected, kinds)
    signs.attach_marks(pages, rows, kinds, settings.get("sign_marks", ()))
    ranges = _ranges(rows, kinds)
    groups = not any(r.dated for r in rows)
    if not any(kinds.index("date") in r.cells for r in rows):
        return None  # the key's dates are not printed as it writes them
    wanted = [c for c in range(len(kinds)) if expected.iloc[:, c].notna().any()
              and not (groups and kinds[c] == "date")]
    if any(c not in ranges for c in wanted):
        return None  # a column the page does not show where the rows are
    second = _second_tier(pages, rows, kinds)
    main = {c: r for c, r in ranges.items() if c not in second}
    settings["columns"] = _columns(main, _unclaimed(pages, rows, main), expected, kinds, groups,
                                   _flush_edges(rows))
    settings.pop("second_line", None)  # the layout's guess: the key says what the rows print
    if second:  # fields each row prints on its second line, under a second heading tier
        settings["second_line"] = _columns({c: ranges[c] for c in second}, [], expected,
                                           kinds, False)
    settings["output_order"] = [str(c) for c in expected.columns]
    keyspec.specify(settings, pages, rows, expected, ranges, backwards)
    if not _dates(settings, rows, expected, kinds, groups):
        return None  # the key's dates share no notation the page prints
    keyspec.carried(rows, expected, settings, kinds)
    signs.column_signs(settings, rows, expected, kinds)
    _balance(settings, expected)
    wrapping.sides(settings, pages, rows, second)
    if second:
        wrapping.tier_wraps(settings, pages, rows, [ranges[c] for c in second], second)
    wrapping.spills(settings, pages, rows, kinds)
    _heading(settings, words_by_page, pages, rows, ranges)
    signs.section_signs(settings, words_by_page, rows, expected, kinds, pages)
    settings["skip_patterns"] = _non_rows(settings, words_by_page, pages, rows,
                                          _key_texts(expected, kinds))
    return settings


def _second_tier(pages: list, rows: list, kinds: list) -> set:
    """Key columns printed, row after row, wholly on a line below the row's first: the
    fields a two-tier heading names on each row's second line (a value date, a reference),
    standing where first-line columns stand. A description that wraps starts on the first
    line and is none of them."""
    line_of = {}
    for row in rows:
        for k, line in enumerate(pages[row.page].lines):
            for w in line:
                line_of[(row.page, id(w))] = k
    out = set()
    for c, kind in enumerate(kinds):
        if kind == "amount":
            continue
        placed = [r for r in rows if r.cells.get(c)]
        below = [r for r in placed
                 if all(line_of.get((r.page, id(w)), r.line) > r.line for w in r.cells[c])]
        if len(placed) >= 3 and len(below) >= 0.8 * len(placed):
            out.add(c)
    return out if out and len(out) < sum(1 for k in kinds if k != "amount") else set()


def _count(rows: list) -> int:
    return sum(1 for r in rows if r)


def _defaults(base: dict | None) -> dict:
    s = copy.deepcopy(base) if base else {}
    for key, value in (("decimal", "."), ("currency_codes", list(engine.CURRENCY_CODES)),
                       ("line_tolerance", LINE_TOLERANCE), ("glue_gap", GLUE_GAP),
                       ("parens_negative", True), ("trailing_minus_negative", True),
                       ("drcr_signs", {"dr": -1, "cr": 1}), ("anchor_needs_amount", True),
                       ("skip_patterns", list(SKIP_PATTERNS)), ("continuation", "below"),
                       ("continuation_gap", 12.0)):
        s.setdefault(key, value)
    for key in ("anchor", "date_fill", "date_groups", "output_order", "sections",
                "balance_column", "blank_columns", "row_order", "sign_marks", "tier_wraps"):
        s.pop(key, None)  # decided again from the evidence
    return s


# --- columns ---------------------------------------------------------------------------


def _ranges(rows: list, kinds: list) -> dict:
    """Expected column -> (x0, x1, centres) over the words printing it on dated lines."""
    spans = collections.defaultdict(list)
    for row in rows:
        for c, words in row.cells.items():
            if kinds[c] == "date" and not row.dated:
                continue  # a day's heading date stands apart from the table's columns
            spans[c] += words
    return {c: (min(w[1] for w in ws), max(w[2] for w in ws),
                [(w[1] + w[2]) / 2 for w in ws]) for c, ws in spans.items()}


def _unclaimed(pages: list, rows: list, ranges: dict) -> list:
    """Ranges of printed columns the answer key leaves out (words on row lines nobody took)."""
    claimed = {id(w) for r in rows for ws in r.cells.values() for w in ws}
    spans = []
    for row in rows:
        for w in pages[row.page].lines[row.line]:
            inside = any(a - 1 <= (w[1] + w[2]) / 2 <= b + 1 for a, b, _ in ranges.values())
            if id(w) not in claimed and not inside:
                spans.append([w[1], w[2]])
    merged = []
    for a, b in sorted(spans):
        if merged and a <= merged[-1][1] + 2:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return [(a, b, [(a + b) / 2]) for a, b in merged]


def _flush_edges(rows: list) -> dict:
    """Expected column -> (its cells start at one x, they end at one x), from three cells
    or more: the edge the next statement's cells keep, however long their text."""
    cells = collections.defaultdict(list)
    for row in rows:
        for c, words in row.cells.items():
            if words:
                cells[c].append((min(w[1] for w in words), max(w[2] for w in words)))
    return {c: tuple(len(got) >= 3 and max(e) - min(e) <= 1.0 for e in zip(*got))
            for c, got in cells.items()}


def _columns(ranges: dict, extra: list, expected, kinds: list, groups: bool,
             flush: dict | None = None) -> list:
    """Engine columns left to right, each gutter halfway between neighbouring columns, or
    close to the right one's edge where only that one is fixed: text set flush left after a
    ragged column starts where it always starts, and the ragged text may run on further
    next time ('insurance premium for the month' before a column of cheque numbers)."""
    flush = flush or {}
    names = [str(c) for c in expected.columns]
    items = [(r, {"name": names[c], "kind": kinds[c], "output": True,
                  "dtype": evidence.dtype_of(expected.iloc[:, c])}, flush.get(c, (False,) * 2))
             for c, r in ranges.items()]
    items += [(r, {"name": f"unlabelled {n + 1}", "kind": "text", "output": False,
                   "unclaimed": True},
               (False,) * 2) for n, r in enumerate(extra)]
    items.sort(key=lambda item: (item[0][0] + item[0][1]) / 2)
    columns = []
    for i, (r, col, (starts, _)) in enumerate(items):
        if i == 0:
            col["x0"] = 0.0
        else:
            left, ends = items[i - 1][0], items[i - 1][2][1]
            gutter = (left[1] + r[0]) / 2
            if left[1] > r[0]:  # the columns' edges overlap: separate their words' centres
                gutter = (max(left[2]) + min(r[2])) / 2
            elif starts and not ends:
                gutter = max(gutter, r[0] - 2.0)
            col["x0"] = round(gutter, 2)
        columns.append(col)
    if groups:  # the day's heading fills a Date column of its own (see the engine)
        c = evidence.roles(expected).index("date")
        columns.insert(0, {"name": names[c], "kind": "date", "x0": -1.0, "output": True,
                           "dtype": evidence.dtype_of(expected.iloc[:, c])})
    return columns


# --- dates, the balance, the heading, lines of no transaction ----------------------------


def _dates(settings: dict, rows: list, expected, kinds: list, groups: bool) -> bool:
    c = kinds.index("date")
    name = str(expected.columns[c])
    settings["date_column"] = next(i for i, col in enumerate(settings["columns"])
                                   if col["name"] == name)
    printed = [wrapping.lines_text(r.cells[c]) for r in rows if c in r.cells]
    settings["date_pattern"] = date_pattern(printed)
    if settings["date_pattern"] is None:
        return False
    wrapping.wrapped_dates(settings, rows, c, date_pattern)
    settings["date_groups"] = groups
    if not groups and not all(r.dated for r in rows):
        settings["anchor"] = "amount"  # the date is printed once, on the day's first row
        blank = all(evidence.value(expected.iloc[r.index, c]) is None
                    for r in rows if not r.dated)
        settings["date_fill"] = "blank" if blank else "carry"
    return True


def date_pattern(printed: list) -> str | None:
    """The usual shape most of the printed dates take; where none reads them all, or they
    name months in words, the notation induced from them (any order, separator, language
    or script: 'feb' and 'mar' read as English would leave a Spanish 'ene' unread)."""
    shapes = collections.Counter(match_of(d) for d in printed)
    words = any(re.search(r"[^\W\d_]{3}", d) for d in printed)
    induced = evidence.date_notation(printed) if printed else None
    # a month in words: every language that spells the months seen, not English only; a
    # year printed first in two digits ('24.10.17'): the usual shapes end on a year and
    # would leave the next statement's one-digit day ('23.6.9') unread
    if induced and (None in shapes or words or induced["roles"][-1] in ("d", "m")):
        return induced["pattern"]
    shapes.pop(None, None)
    return shapes.most_common(1)[0][0] if shapes else None


def _balance(settings: dict, expected) -> None:
    """The balance column, where the answer key's own rows reconcile with one."""
    from ..table import reconcile  # late: it loads pandas' helpers only when a key is given

    result = reconcile.reconcile(expected)
    names = [c["name"] for c in settings["columns"]]
    if not result["passed"] or str(result["roles"][0]) not in names:
        return
    settings["balance_column"] = names.index(str(result["roles"][0]))
    others = [str(c) for c, col in zip(expected.columns, evidence.roles(expected))
              if col == "amount" and str(c) != str(result["roles"][0])]
    moves = expected[others].notna().any(axis=1) if others else None
    if moves is not None and not moves.all():
        settings["balance_rows"] = True  # the key lists lines that print only a balance


def _wraps_a_name(header: list, names: list) -> bool:
    """Whether a word of the heading's lowest line ends a column name the key spells with
    the heading's words stacked over it ('Txn' over 'Date' for 'Txn Date'): a cell the
    heading wraps, never a section's title, however flush it stands with one."""
    wanted = {wordlines.normalize(n) for n in names}
    for w in header[-1] if len(header) >= 2 else ():
        above = [u for ln in header[:-1] for u in ln if u[1] < w[2] and w[1] < u[2]]
        if above and wordlines.normalize(" ".join(u[0] for u in above + [w])) in wanted:
            return True
    return False


def _heading(settings: dict, words_by_page: list, pages: list, rows: list, ranges: dict) -> None:
    first = rows[0]
    segments = sorted((a, b) for a, b, _ in ranges.values())
    top = min(first.lines | {first.line})  # a description printed above the date line
    header = find_header(words_by_page, (first.page, pages[first.page].lines[top]), segments)
    said = [wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in header]
    if not _wraps_a_name(header, settings["output_order"]):
        header = sections.in_heading(words_by_page, dict(settings, header=said), header) or header
    claimed = {wordlines.normalize(wordlines.join_words(pages[r.page].lines[k], GLUE_GAP))
               for r in rows[:3] for k in r.lines}  # a row's words stacked under the heading
    texts = sorted({wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in header}
                   - claimed)
    settings["header"] = texts
    settings["require_header"] = bool(texts)
    printed_on = {p for p, page in enumerate(pages)
                  if any(wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) in texts
                         for ln in page.lines)}
    # a heading printed on every page of rows says nothing of the next statement, whose
    # rows may run on to a page without one: only lines that read as rows on a page with
    # no heading, and that the key does not list, say rows need it there
    pages_of_rows = {r.page for r in rows}
    headless = [p for p in range(len(pages)) if p not in printed_on | pages_of_rows]
    settings["header_once"] = bool(texts) and (not pages_of_rows <= printed_on or not any(
        wordlines.reads_as_row(line, settings) for p in headless for line in pages[p].lines))


def _key_texts(expected, kinds: list) -> list:
    """The key's text cells, each as its words."""
    return [str(v).split() for c, kind in enumerate(kinds) if kind == "text"
            for v in expected.iloc[:, c].dropna()]


def _non_rows(settings: dict, words_by_page: list, pages: list, rows: list,
              cells: list) -> list:
    """Skip patterns: the defaults that spare every row, plus labels of lines that are not rows.

    A line the engine would read as a row (or attach to one) that the answer key does not
    list is marked by its label words, learned only when no real row prints them. A line
    that prints a run of a key's text cell is that row's, found where the evidence did not
    look (a description printed at the foot of the page before its row's figures).
    """
    glue = settings["glue_gap"]
    kept = {(r.page, k) for r in rows for k in r.lines}
    texts = [wordlines.join_words(pages[p].lines[k], glue) for p, k in kept]
    patterns = [p for p in settings["skip_patterns"]
                if not any(re.search(p, t, re.IGNORECASE) for t in texts)]
    mine = {id(w) for p, k in kept for w in pages[p].lines[k]}
    trial = dict(settings, skip_patterns=patterns)
    for lines in (row[1] for row in engine.extract(words_by_page, trial)[0]):
        for line in lines:
            if any(id(w) in mine for w in line) or _in_a_cell([w[0] for w in line], cells):
                continue
            label = _label(line)
            if label and label not in patterns and not any(
                    re.search(label, t, re.IGNORECASE) for t in texts):
                patterns.append(label)
    return patterns


def _in_a_cell(tokens: list, cells: list) -> bool:
    n = len(tokens)
    return any(cell[i:i + n] == tokens for cell in cells for i in range(len(cell) - n + 1))


def _label(line: list) -> str | None:
    """The longest run of plain words on a line, as a pattern (a row's digits vary)."""
    runs, run = [], []
    for w in line:
        if _WORD.fullmatch(w[0]) and not engine.looks_like_amount(w[0]):
            run.append(w[0])
        else:
            runs.append(run)
            run = []
    runs.append(run)
    best = max(runs, key=lambda r: sum(len(x) for x in r))
    if sum(len(x) for x in best) < 3:
        return None
    return r"(?<!\w)" + r"\s+".join(re.escape(x) for x in best) + r"(?!\w)"
