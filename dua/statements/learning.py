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

from . import datenotation, engine, evidence, keyspec, notation, sections
from .columns import GLUE_GAP, LINE_TOLERANCE, find_header
from .dates import match_of

_ENOUGH = 0.5  # share of the expected rows that must be found before the evidence counts
_WRAP_SHARE = 0.9  # of a column's wrapped words on one side of the anchor line: its side
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
    _learn_sign_words(settings, pages, rows, expected, kinds)
    _attach_marks(pages, rows, kinds, settings.get("sign_marks", ()))
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
    settings["columns"] = _columns(main, _unclaimed(pages, rows, main), expected, kinds, groups)
    settings.pop("second_line", None)  # the layout's guess: the key says what the rows print
    if second:  # fields each row prints on its second line, under a second heading tier
        settings["second_line"] = _columns({c: ranges[c] for c in second}, [], expected,
                                           kinds, False)
    settings["output_order"] = [str(c) for c in expected.columns]
    keyspec.specify(settings, pages, rows, expected, ranges, backwards)
    if not _dates(settings, rows, expected, kinds, groups):
        return None  # the key's dates share no notation the page prints
    keyspec.carried(rows, expected, settings, kinds)
    _signs(settings, rows, expected, kinds)
    _balance(settings, expected)
    _wraps(settings, pages, rows)
    _spills(settings, pages, rows, kinds)
    _heading(settings, words_by_page, pages, rows, ranges)
    _section_signs(settings, words_by_page, rows, expected, kinds, pages)
    settings["skip_patterns"] = _non_rows(settings, words_by_page, pages, rows)
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
    from .analysis import SKIP_PATTERNS  # late: the analysis module imports this one

    s = copy.deepcopy(base) if base else {}
    for key, value in (("decimal", "."), ("currency_codes", list(engine.CURRENCY_CODES)),
                       ("line_tolerance", LINE_TOLERANCE), ("glue_gap", GLUE_GAP),
                       ("parens_negative", True), ("trailing_minus_negative", True),
                       ("drcr_signs", {"dr": -1, "cr": 1}), ("anchor_needs_amount", True),
                       ("skip_patterns", list(SKIP_PATTERNS)), ("continuation", "below"),
                       ("continuation_gap", 12.0)):
        s.setdefault(key, value)
    for key in ("anchor", "date_fill", "date_groups", "output_order", "sections",
                "balance_column", "blank_columns", "row_order", "sign_marks"):
        s.pop(key, None)  # decided again from the evidence
    return s


# --- columns ---------------------------------------------------------------------------


def _learn_sign_words(settings: dict, pages: list, rows: list, expected, kinds: list) -> None:
    """Words such as 'S' and 'H' that print an amount's sign beside it, from the key's signs."""
    signs = [[None if k != "amount" or not evidence.value(v) else (-1 if v < 0 else 1)
              for k, v in zip(kinds, expected.iloc[i].tolist())] for i in range(len(expected))]
    words = notation.sign_words(lambda r: pages[r.page].lines[r.line], rows, kinds, signs)
    if words:  # a sign word beside every amount also looked like a currency code
        settings["currency_codes"] = [c for c in settings["currency_codes"]
                                      if c.lower().rstrip(".") not in words]
        settings["sign_marks"] = sorted(words)
        settings["drcr_signs"] = dict(settings.get("drcr_signs", {}), **words)


def _attach_marks(pages: list, rows: list, kinds: list, learned=()) -> None:
    """A Dr/Cr or sign printed as a word of its own right beside an amount is part of it."""
    for row in rows:
        line = pages[row.page].lines[row.line]
        claimed = {id(w) for ws in row.cells.values() for w in ws}
        for c, words in list(row.cells.items()):
            if kinds[c] != "amount":
                continue
            i = next(i for i, w in enumerate(line) if w is words[-1])
            nxt = line[i + 1] if i + 1 < len(line) else None
            size = words[-1][4] - words[-1][3]
            if nxt and id(nxt) not in claimed and nxt[0].lower().rstrip(".") in (
                    evidence.MARKS | set(learned)) \
                    and nxt[1] - words[-1][2] < 1.5 * size:
                row.cells[c] = words + [nxt]
                claimed.add(id(nxt))


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


def _columns(ranges: dict, extra: list, expected, kinds: list, groups: bool) -> list:
    """Engine columns left to right, each gutter halfway between neighbouring columns."""
    names = [str(c) for c in expected.columns]
    items = [(r, {"name": names[c], "kind": kinds[c], "output": True,
                  "dtype": evidence.dtype_of(expected.iloc[:, c])}) for c, r in ranges.items()]
    items += [(r, {"name": f"unlabelled {n + 1}", "kind": "text", "output": False})
              for n, r in enumerate(extra)]
    items.sort(key=lambda item: (item[0][0] + item[0][1]) / 2)
    columns = []
    for i, (r, col) in enumerate(items):
        if i == 0:
            col["x0"] = 0.0
        else:
            left = items[i - 1][0]
            gutter = (left[1] + r[0]) / 2
            if left[1] > r[0]:  # the columns' edges overlap: separate their words' centres
                gutter = (max(left[2]) + min(r[2])) / 2
            col["x0"] = round(gutter, 2)
        columns.append(col)
    if groups:  # the day's heading fills a Date column of its own (see the engine)
        c = evidence.roles(expected).index("date")
        columns.insert(0, {"name": names[c], "kind": "date", "x0": -1.0, "output": True,
                           "dtype": evidence.dtype_of(expected.iloc[:, c])})
    return columns


# --- dates, signs, wraps ---------------------------------------------------------------


def _dates(settings: dict, rows: list, expected, kinds: list, groups: bool) -> bool:
    c = kinds.index("date")
    name = str(expected.columns[c])
    settings["date_column"] = next(i for i, col in enumerate(settings["columns"])
                                   if col["name"] == name)
    printed = [_lines_text(r.cells[c]) for r in rows if c in r.cells]
    settings["date_pattern"] = date_pattern(printed)
    if settings["date_pattern"] is None:
        return False
    _wrapped_dates(settings, rows, c)
    settings["date_groups"] = groups
    if not groups and not all(r.dated for r in rows):
        settings["anchor"] = "amount"  # the date is printed once, on the day's first row
        blank = all(evidence.value(expected.iloc[r.index, c]) is None
                    for r in rows if not r.dated)
        settings["date_fill"] = "blank" if blank else "carry"
    return True


def _lines_text(words: list) -> str:
    """A cell's text line by line, top to bottom (a date wrapped in a narrow cell)."""
    lines: dict = {}
    for w in words:
        top = next((t for t in lines if abs(t - w[3]) <= LINE_TOLERANCE), w[3])
        lines.setdefault(top, []).append(w)
    return " ".join(engine.join_words(lines[t], GLUE_GAP) for t in sorted(lines))


def _wrapped_dates(settings: dict, rows: list, c: int) -> None:
    """Dates a narrow cell wraps ('11 June' over '2023'): a row starts at the date's first
    line, whose words take the shape of the dates' first lines (``date_head_pattern``), and
    the date column may continue on the row's next line (``wrapped_columns``)."""
    heads = []
    for r in rows:
        words = r.cells.get(c, [])
        if words and any(abs(w[3] - words[0][3]) > LINE_TOLERANCE for w in words):
            heads.append(engine.join_words([w for w in words
                                            if abs(w[3] - words[0][3]) <= LINE_TOLERANCE],
                                           GLUE_GAP))
    if heads:
        head = date_pattern(heads) or datenotation.head_pattern(heads)
        if head:
            settings["date_head_pattern"] = f"(?:{settings['date_pattern']})|(?:{head})"
            settings["wrapped_columns"] = [settings["date_column"]]


def date_pattern(printed: list) -> str | None:
    """The usual shape most of the printed dates take; where none reads them all, or they
    name months in words, the notation induced from them (any order, separator, language
    or script: 'feb' and 'mar' read as English would leave a Spanish 'ene' unread)."""
    shapes = collections.Counter(match_of(d) for d in printed)
    if None in shapes or any(re.search(r"[^\W\d_]{3}", d) for d in printed):
        # a month in words: every language that spells the months seen, not English only
        induced = evidence.date_notation(printed)
        if induced:
            return induced["pattern"]
        del shapes[None]
    return shapes.most_common(1)[0][0] if shapes else None


def _signs(settings: dict, rows: list, expected, kinds: list) -> None:
    """Each amount column's sign convention, from its printed markers and expected signs."""
    tally = collections.defaultdict(collections.Counter)
    for row in rows:
        for c, words in row.cells.items():
            if kinds[c] != "amount":
                continue
            text = " ".join(w[0] for w in words)
            value = evidence.value(expected.iloc[row.index, c])
            if value:
                tally[c][(_marker(text, settings), value < 0)] += 1
    for c, seen in tally.items():
        col = next(col for col in settings["columns"] if col["name"] == str(expected.columns[c]))
        flip = seen[("", True)] > seen[("", False)]  # unmarked amounts print money out
        if flip:
            col["sign"] = -1
        neg = {m: seen[(m, True ^ flip)] > seen[(m, False ^ flip)]
               for m in ("()", "trail-", "dr", "cr", *settings.get("sign_marks", ()))
               if seen[(m, True)] + seen[(m, False)]}
        if "()" in neg:
            settings["parens_negative"] = neg["()"]
        if "trail-" in neg:
            settings["trailing_minus_negative"] = neg["trail-"]
        if "dr" in neg or "cr" in neg or set(neg) & set(settings.get("sign_marks", ())):
            col["drcr_signs"] = {"dr": -1 if neg.get("dr", True) else 1,
                                 "cr": -1 if neg.get("cr", False) else 1}
            for m in settings.get("sign_marks", ()):  # a learned word this column never shows
                col["drcr_signs"][m] = (-1 if neg[m] else 1) if m in neg \
                    else settings["drcr_signs"][m]


def _balance(settings: dict, expected) -> None:
    """The balance column, where the answer key's own rows reconcile with one."""
    from . import reconcile  # late: it loads pandas' helpers only when a key is given

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


def _section_signs(settings: dict, words_by_page: list, rows: list, expected,
                   kinds: list, pages: list) -> None:
    """Sections whose unmarked amounts the answer key signs differently (credits above,
    debits below, all printed unsigned) sign those amounts by the section they stand in."""
    found, starts = sections.guess(words_by_page, settings), None
    if not found:  # titles a row's wrapped text could be: the key claims none of them
        said = {engine.normalize(str(v)) for c, k in enumerate(kinds) if k == "text"
                for v in expected.iloc[:, c].dropna()}
        starts = [t for t in _unclaimed_titles(pages, rows, settings) if t[2] not in said]
        found = [[t, 1] for t in dict.fromkeys(t for _, _, t in starts)]
        if len(found) < 2:
            return
    where = sections.of_lines(words_by_page, settings, starts)
    for c, kind in enumerate(kinds):
        per = collections.defaultdict(collections.Counter)
        for row in rows:
            value = evidence.value(expected.iloc[row.index, c])
            if kind == "amount" and c in row.cells and value and _marker(
                    " ".join(w[0] for w in row.cells[c]), settings) == "":
                per[where.get((row.page, row.line))][value < 0] += 1
        negative = {t: n[True] > n[False] for t, n in per.items() if t is not None}
        if len(set(negative.values())) < 2:
            continue  # every section signs alike: the column's own convention says it
        col = next(col for col in settings["columns"] if col["name"] == str(expected.columns[c]))
        col.pop("sign", None)
        col["section_signed"] = True
        settings["sections"] = [[t, -1 if negative.get(t) else 1] for t, _ in found]


def _unclaimed_titles(pages: list, rows: list, settings: dict) -> list:
    """``(page, line, title)`` of the lines of words alone (no digit) that stand inside the
    table, under its heading or between rows, and that no row of the key claims. The
    heading's lowest line is one too where it starts where such a title does: the first
    section's title set close under the heading ('Money out'), the next one between rows."""
    claimed = {(r.page, k) for r in rows for k in r.lines}
    header = set(settings.get("header") or [])
    last, glue = max(claimed), settings["glue_gap"]
    out, lowest = [], []
    for p, page in enumerate(pages):
        inside = False
        for k, line in enumerate(page.lines):
            if (p, k) > last:
                break
            text = engine.join_words(line, glue)
            if engine.normalize(text) in header:
                inside, lowest = True, lowest + [(p, k, line)] if not inside else lowest
                continue
            inside = inside or (p, k) in claimed
            if inside and (p, k) not in claimed and not re.search(r"\d", text) \
                    and re.search(r"[^\W\d_]", text):
                out.append((p, k, engine.normalize(text)))
    edges = {pages[p].lines[k][0][1] for p, k, _ in out}
    for p, k, line in lowest:
        below = [ln for ln in pages[p].lines[k + 1:k + 3]
                 if engine.normalize(engine.join_words(ln, glue)) in header]
        if below and any(abs(below[-1][0][1] - x) <= 2.0 for x in edges) and \
                not re.search(r"\d", engine.join_words(below[-1], glue)):
            title = engine.normalize(engine.join_words(below[-1], glue))
            settings["header"] = [h for h in settings["header"] if h != title]
            out.append((p, pages[p].lines.index(below[-1]), title))
    return sorted(out)


def _marker(text: str, settings: dict) -> str:
    mark = engine.amount_marker(text, settings)
    return "trail-" if mark == "-" and text.rstrip().endswith("-") else mark


def _wraps(settings: dict, pages: list, rows: list) -> None:
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
        for words in row.cells.values():
            for w in words:
                if id(w) in own and abs(w[3] - anchor) > LINE_TOLERANCE:
                    sides[engine.column_of(w, columns)]["above" if w[3] < anchor else "below"] += 1
        steps += [b - a for a, b in zip(tops, tops[1:])]
    if not steps:
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


def _spills(settings: dict, pages: list, rows: list, kinds: list) -> None:
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
                seen |= {engine.column_of(w, columns) for w in words
                         if not any(w is x for x in pages[row.page].lines[row.line])}
    if seen - text:
        settings["continuation_columns"] = sorted(text | seen)


# --- the heading and the lines that are not rows ------------------------------------------


def _heading(settings: dict, words_by_page: list, pages: list, rows: list, ranges: dict) -> None:
    first = rows[0]
    segments = sorted((a, b) for a, b, _ in ranges.values())
    top = min(first.lines | {first.line})  # a description printed above the date line
    header = find_header(words_by_page, (first.page, pages[first.page].lines[top]), segments)
    claimed = {engine.normalize(engine.join_words(pages[r.page].lines[k], GLUE_GAP))
               for r in rows[:3] for k in r.lines}  # a row's words stacked under the heading
    texts = sorted({engine.normalize(engine.join_words(ln, GLUE_GAP)) for ln in header}
                   - claimed)
    settings["header"] = texts
    settings["require_header"] = bool(texts)
    printed_on = {p for p, page in enumerate(pages)
                  if any(engine.normalize(engine.join_words(ln, GLUE_GAP)) in texts
                         for ln in page.lines)}
    # rows on one page say nothing of the next: a heading that is not printed again must
    # not cost the next statement its later pages' rows
    pages_of_rows = {r.page for r in rows}
    settings["header_once"] = bool(texts) and (len(pages_of_rows) == 1
                                               or not pages_of_rows <= printed_on)


def _non_rows(settings: dict, words_by_page: list, pages: list, rows: list) -> list:
    """Skip patterns: the defaults that spare every row, plus labels of lines that are not rows.

    A line the engine would read as a row (or attach to one) that the answer key does not
    list is marked by its label words, learned only when no real row prints them.
    """
    glue = settings["glue_gap"]
    kept = {(r.page, k) for r in rows for k in r.lines}
    texts = [engine.join_words(pages[p].lines[k], glue) for p, k in kept]
    patterns = [p for p in settings["skip_patterns"]
                if not any(re.search(p, t, re.IGNORECASE) for t in texts)]
    mine = {id(w) for p, k in kept for w in pages[p].lines[k]}
    trial = dict(settings, skip_patterns=patterns)
    for _, lines in engine.extract_rows(words_by_page, trial):
        for line in lines:
            if any(id(w) in mine for w in line):
                continue
            label = _label(line)
            if label and label not in patterns and not any(
                    re.search(label, t, re.IGNORECASE) for t in texts):
                patterns.append(label)
    return patterns


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
