"""The lines of a statement's transaction table, found before its columns are known.

A transaction prints a date and an amount; the dates that share the commonest shape at the
commonest place are the table's, lines that print money off the rows' edges are a summary,
and where a date is printed once per day the undated lines under it that print money on
the rows' edges are rows too. ``analysis`` builds the table's columns from these lines.
"""
from __future__ import annotations

import re

from ..notation.dates import DATE_PATTERNS, DATE_SEARCH
from . import engine, wordlines
from .columns import GLUE_GAP, LINE_TOLERANCE

# Lines that print money but are not transactions (summary, balances carried, page furniture).
SKIP_PATTERNS = [
    r"^\s*(sub\s*-?\s*)?totals?\b",
    r"\btotal (amount|debits?|credits?|due|withdrawals?|deposits?)\b",
    r"\b(opening|closing|previous|last month'?s?|brought|carried)\s+(forward\s+)?balance\b",
    r"\bbalance\s+(brought|carried|b/?f|c/?f|forward)\b",
    r"^\W*(brought|carried)\s+forward\b",  # bare, only opening the line ('Interest
    # brought forward' is a charge); a dated line's balance brought forward prints only a
    # balance, which the balance column tells
    r"\bb/f\b|\bc/f\b",
    r"\bpage\s+\d+\s*(of|/)\s*\d+\b",
]


def _has_amount(line: list, skip_until: float) -> bool:
    return any(w[1] >= skip_until and engine.looks_like_amount(w[0]) for w in line)


def _searcher(patterns: tuple):
    if patterns is DATE_PATTERNS:
        return DATE_SEARCH
    return re.compile(r"(?<![\w/.-])(?:%s)(?![\w/-])" % "|".join(patterns), re.IGNORECASE)


def candidate_lines(pages: list, patterns: tuple = DATE_PATTERNS) -> list:
    """Lines that look like transactions: a date and an amount, in either order. ``(page, line)``."""
    out, search = [], _searcher(patterns)
    for index, words in enumerate(pages):
        for line in wordlines.group_lines(words, LINE_TOLERANCE):
            text = " ".join(w[0] for w in line)
            m = search.search(text)
            if not m or any(re.search(p, text, re.IGNORECASE) for p in SKIP_PATTERNS):
                continue
            date_words = _words_spanning(line, m.start(), m.end())
            if any(engine.looks_like_amount(w[0]) for w in line if w not in date_words):
                shape = next(p for p in patterns if re.fullmatch(p, m.group(0), re.IGNORECASE))
                out.append((index, line, shape, date_words[0][1]))
    return _dominant(out, patterns, pages)


def _words_spanning(line: list, start: int, end: int) -> list:
    """The words of ``line`` that characters ``start:end`` of its joined text fall in (a
    date may begin inside a word, as in ``(12/03/2024)``, or a word may hold a blank)."""
    out, at = [], 0
    for w in line:
        if at < end and start < at + len(w[0]):
            out.append(w)
        at += len(w[0]) + 1
    return out


def _dominant(found: list, patterns: tuple = DATE_PATTERNS, pages: list = ()) -> list:
    """Keep the lines whose date has the commonest format at the commonest x (drops summary
    strips, and a daily-balance table whose dates stand a column to the right).

    Dates in one column start within a few characters of each other (a right-aligned day
    moves by a digit); a page set a little to one side keeps its dates together too.
    """
    if not found:
        return []
    pattern = max(patterns, key=[f[2] for f in found].count)
    xs = sorted(f[3] for f in found if f[2] == pattern)
    x = xs[len(xs) // 2]
    reach = max(12.0, 2.0 * _pitch([(i, ln) for i, ln, _, _ in found]))
    return _aligned_money([(i, ln) for i, ln, p, x0 in found
                           if p == pattern and abs(x0 - x) < reach], pages)


def _aligned_money(lines: list, pages: list = ()) -> list:
    """Drop the lines whose money stands where the table's does not: a summary block above
    the table ('Beginning Balance', 'Ending Balance' with dates of their own) or a strip of
    daily balances below it prints amounts off the edges the rows right-align theirs on.
    Only where most lines keep to those edges; amounts set left or centred give no such
    evidence. An edge a name above the line ends on is a column's too, however few rows
    use it: 'Débit EUROS' set flush right over the one debit of the month."""
    edges: dict = {}
    for _, line in lines:
        for x in {round(w[2]) for w in line if engine.looks_like_amount(w[0])}:
            edges[x] = edges.get(x, 0) + 1
    common = {x for x, n in edges.items() if n >= max(3, 0.05 * len(lines))}
    grouped: dict = {}  # a page's lines, grouped once and only where an edge is in doubt

    def named(i: int, line: list, amount: tuple) -> bool:
        if i >= len(pages):
            return False
        if i not in grouped:
            grouped[i] = wordlines.group_lines(pages[i], LINE_TOLERANCE)
        return _named_edge(grouped[i], line, amount, common)

    near = lambda i, line: all(  # noqa: E731
        any(abs(round(w[2]) - x) <= 2 for x in common) or named(i, line, w)
        for w in line if engine.looks_like_amount(w[0]))
    kept = [(i, ln) for i, ln in lines if near(i, ln)]
    return kept if len(kept) >= 0.8 * len(lines) else lines


def _named_edge(page_lines: list, line: list, amount: tuple, common: set) -> bool:
    """Whether a line above ``line`` on its page names the rows' money: a word of it with no
    digit ends where ``amount`` does, and another where rows commonly end theirs (the
    table's heading, not a summary box's)."""
    for above in page_lines:
        ends = [w[2] for w in above if w[4] <= line[0][3] and not re.search(r"\d", w[0])]
        if any(abs(x - amount[2]) <= 1 for x in ends) and any(
                abs(x - c) <= 2 and abs(x - amount[2]) > 2 for x in ends for c in common):
            return True
    return False


def date_headings(pages: list, patterns: tuple = DATE_PATTERNS) -> list:
    """Patterns of the lines that print a date and nothing else (a day's heading)."""
    found = []
    for words in pages:
        for line in wordlines.group_lines(words, LINE_TOLERANCE):
            text = wordlines.join_words(line, GLUE_GAP)
            found += [p for p in patterns if re.fullmatch(p, text, re.IGNORECASE)][:1]
    return found


def grouped_lines(pages: list, pattern: str) -> list:
    """Lines with money after a day's heading: the rows of a one-date-per-day table."""
    out, active = [], False
    for index, words in enumerate(pages):
        for line in wordlines.group_lines(words, LINE_TOLERANCE):
            text = wordlines.join_words(line, GLUE_GAP)
            if re.fullmatch(pattern, text, re.IGNORECASE):
                active = True
            elif active and _has_amount(line, line[0][1]) and not any(
                    re.search(p, text, re.IGNORECASE) for p in SKIP_PATTERNS):
                out.append((index, line))
    return out


def _table_lines(pages: list, patterns: tuple = DATE_PATTERNS) -> tuple:
    """(candidate lines, date pattern or None): dated rows, or rows under day headings."""
    candidates = candidate_lines(pages, patterns)
    headings = date_headings(pages, patterns)
    if len(headings) >= 2 and len(candidates) < len(headings):
        pattern = max(set(headings), key=headings.count)
        return grouped_lines(pages, pattern), pattern
    return _with_same_day_rows(pages, candidates), None


def _with_same_day_rows(pages: list, candidates: list) -> list:
    """The dated lines and, where a statement prints a date once per day, the undated lines
    that run on under them: the next lines, each within two lines' pitch of the one above,
    that print money on an edge a dated line's stands on (two rows under 'Dec 30' are as
    much the table's as the one that prints it)."""
    if not candidates:
        return candidates
    pitch = 2.0 * _pitch(candidates)
    edges = {round(w[2]) for _, ln in candidates for w in ln if engine.looks_like_amount(w[0])}
    dated = {(i, round(ln[0][3], 1)) for i, ln in candidates}
    out = list(candidates)
    for index in sorted({i for i, _ in candidates}):
        lines = wordlines.group_lines(pages[index], LINE_TOLERANCE)
        for above, line in zip(lines, lines[1:]):
            key = (index, round(line[0][3], 1))
            if key in dated or line[0][3] - above[0][3] > pitch:
                continue
            if (index, round(above[0][3], 1)) not in dated:
                continue
            money = [w for w in line if engine.looks_like_amount(w[0])]
            text = " ".join(w[0] for w in line)
            if money and any(abs(round(w[2]) - x) <= 1 for w in money for x in edges) \
                    and not any(re.search(p, text, re.IGNORECASE) for p in SKIP_PATTERNS):
                dated.add(key)
                out.append((index, line))
    return sorted(out, key=lambda c: (c[0], c[1][0][3]))


def _pitch(candidates: list) -> float:
    heights = sorted(max(w[4] - w[3] for w in ln) for _, ln in candidates)
    return heights[len(heights) // 2] if heights else 10.0
