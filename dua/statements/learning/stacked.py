"""Dates a narrow cell stacks over two or three lines ('10' over 'nov.' over '2023'),
folded back onto their first line so that the layout's search for dated lines finds them.

Without a key nothing says where a date is but the date itself: a word whose own line
does not print a date, with words set flush under it on the next lines, is a date's head
where head and tail read together as dates in one notation down the pages (the usual
shapes, or one induced from the joined texts: a month in words or a year). The folded
pages serve the layout's analysis only; the engine reads the real pages, where the
settings' date pattern finds the same dates wrapped (``datewraps.wrapped_heads``).
"""
from __future__ import annotations

import re

from ..notation import datenotation
from ..notation.dates import DATE_PATTERNS
from ..table import engine, wordlines
from ..table.columns import LINE_TOLERANCE

_LINES = 3  # a date stacks over three lines at most: day, month, year
_FLUSH = 1.0  # points: a tail's left edge under its head's
_ENOUGH = 3  # stacked dates down the pages before they say anything


def folded(pages: list) -> list | None:
    """The pages with each stacked date folded onto its first line, as one word; None
    where fewer than a few stacks read as dates."""
    stacks = [s for p, words in enumerate(pages) for s in _stacks(p, words)]
    dates = _dates([text for _, _, text in stacks])
    chosen, used = {}, set()
    for heads, tail, text in sorted(stacks, key=lambda s: -len(s[1])):  # the longest first
        mine = {id(w) for w in heads[1:] + tail}
        if text in dates and id(heads[0]) not in chosen and not ({id(heads[0])} | mine) & used:
            first = heads[0]
            chosen[id(first)] = (text, first[1], max(w[2] for w in heads + tail),
                                 first[3], first[4], *first[5:])
            used |= mine
    if len(chosen) < _ENOUGH:
        return None
    return [[chosen.get(id(w), w) for w in words if id(w) not in used] for words in pages]


def _stacks(page: int, words: list) -> list:
    """``(head, tail, joined text)`` for each run of one or two words on a line (a day, or
    a day and its month) with words set flush under its first on the next one or two
    lines, each line within two of its heights of the one above and printing no money:
    a line with an amount is a row's (the next row's day under this one's month, a line
    apart, is no year)."""
    lines = wordlines.group_lines(words, LINE_TOLERANCE)
    out = []
    for k, line in enumerate(lines):
        for i, head in enumerate(line):
            runs = [line[i:i + 1]] + ([line[i:i + 2]] if i + 1 < len(line) and line[i + 1][1]
                                      - head[2] < 0.6 * (head[4] - head[3]) else [])
            tail, above = [], head
            for nxt in lines[k + 1:k + _LINES]:
                below = next((w for w in nxt if abs(w[1] - head[1]) <= _FLUSH), None)
                if below is None or below[3] - above[3] > 2.0 * (head[4] - head[3]) \
                        or any(engine.looks_like_amount(w[0]) for w in nxt):
                    break
                tail, above = tail + [below], below
                out += [(run, list(tail), " ".join(w[0] for w in run + tail)) for run in runs]
    return out


def _dates(texts: list) -> set:
    """The joined texts that read as dates, while no head alone does: the usual shapes,
    or one notation induced from the texts that hold a digit and a month or a year."""
    plain = {t for t in texts if any(re.fullmatch(p, t, re.IGNORECASE) for p in DATE_PATTERNS)
             and not any(re.fullmatch(p, t.split(" ")[0], re.IGNORECASE)
                         for p in DATE_PATTERNS)}
    short = [t for t in texts if re.search(r"\d", t) and len(t.split(" ")) <= _LINES
             and len(t) <= 20]
    # stacks of a date's first two lines, or of one date's tail and the next one's head,
    # are joined texts too: each shape is a notation of its own, tried apart
    by_kind: dict = {}
    for t in short:
        by_kind.setdefault(datenotation.kinds_of(t), []).append(t)
    for group in by_kind.values():
        found = datenotation.induce(group) if len(group) >= _ENOUGH else None
        if found and (found["languages"] or "y" in found["roles"]):
            plain |= {t for t in group if re.fullmatch(found["pattern"], t, re.IGNORECASE)}
    return plain
