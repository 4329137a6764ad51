"""Without a key: a column whose own tokens share a shape and run in order is a column of
dates, whatever their language or script. What the date-like runs of a page's lines are,
which of them keep one column's order, and the notation that reads them.

It finds a notation and nothing more: where the table is, ``analysis`` says.
"""
from __future__ import annotations

import functools
import re

from . import months
from .datenotation import shape_of, induce, month_pattern, order_keys


def in_order(keys: list) -> bool:
    """Dates that run forward (or backward) through the column, a year's turn allowed
    where no year is printed, and a fresh start per eight dates (a second account's rows
    start again from the period's first day): dates in no order turn at every other step."""
    if len(keys) < 2:
        return False
    seq = [(y, m, d) for y, m, d in keys]
    starts = (len(seq) - 1) // 8
    turn = 1 if all(k[0] == 0 for k in seq) else 0
    back = sum(1 for a, b in zip(seq, seq[1:]) if b < a)
    forth = sum(1 for a, b in zip(seq, seq[1:]) if a < b)
    return back <= starts + turn or forth <= starts


@functools.lru_cache(maxsize=1)
def _search():
    """Date-like runs of any notation: a month word of any language beside numbers (a day
    with its ordinal's ending or without), CJK marks, or three numbers under one separator."""
    month = month_pattern(months.MONTHS)
    sep = r"[ .\-/,]*"
    day = r"\d{1,2}(?:[^\W\d_]{1,2}(?![^\W\d_]))?"  # an ordinal's ending allowed: '12th'
    shapes = (r"\d{2,4}\s*[年년]\s*\d{1,2}\s*[月월\u2f49]\s*\d{1,2}\s*[日일\u2f47]?",
              r"\d{1,2}\s*[月월\u2f49]\s*\d{1,2}\s*[日일\u2f47]",
              r"%s%s%s(?:%s\d{4}|%s\d{2}(?!\d))?" % (day, sep, month, sep, sep),
              r"%s%s%s(?:%s\d{4}|%s\d{2}(?!\d))?" % (month, sep, day, sep, sep),
              r"\d{1,4}([./-])\d{1,2}\1\d{1,4}",  # three numbers, any order: '24-7-18'
              r"\d{1,2}[./-]\d{1,2}\.?(?![./-]?\d)")  # day and month alone: kept if in order
    # no run starts in a number's decimals ('4.317,51 июл. 18 2025': the date is the month's)
    # nor ends in a number's first digits ('jun.-11 10.455,66': no year 10, a balance)
    return re.compile(r"(?<![\w/.-])(?<!\d,)(?:%s)(?![\w/-])(?![.,]\d)" % "|".join(shapes),
                      re.IGNORECASE)


def from_lines(lines: list, has_money) -> str | None:
    """Without a key: the date notation of the lines' dates, from the column's own tokens.

    The date-like runs that open the most lines with money share a shape; they are a date
    column when they run in order, and where a month word reads in several languages the
    languages in which they run in order are kept. None when no such column is found.
    """
    groups: dict = {}
    for line in lines:
        if not has_money(line):
            continue
        # Every date-like run of the line, gathered by shape and by where it starts: an
        # amount ('5.26') may read as a day and a month ahead of the date, and a value date
        # stands in a column of its own; only a column that keeps its order is dates.
        text = " ".join(w[0] for w in line)
        starts = [w[1] for w in line for _ in range(len(w[0]) + 1)]
        for m in _search().finditer(text):
            x = starts[m.start() + len(m.group(0)) - len(m.group(0).lstrip())]
            for run in _runs(m.group(0).strip(), text[m.end():]):
                kinds, _, seps = shape_of(run)
                shape = (kinds, tuple(s.strip() for s in seps))
                column = next((c for c in groups.setdefault(shape, []) if abs(c[0] - x) < 15),
                              None)
                if column is None:
                    groups[shape].append([x, []])
                    column = groups[shape][-1]
                column[1].append(run)
    columns = [values for found in groups.values() for _, values in found]
    # of the longest columns in order, the one that turns back least: a date read with the
    # next date's day for its year ('04 Février 06') turns back wherever the days do
    found = []
    for values in sorted(columns, key=len, reverse=True):
        if found and len(values) < found[0][0]:
            break  # only the longest columns in order compete
        pattern = in_order_pattern(values)
        if pattern:
            found.append((len(values), -_turns(values), pattern))
    return max(found, key=lambda f: f[:2])[2] if found else None


def _turns(values: list) -> int:
    """How often the dates of one shape step back through the column."""
    keys = order_keys(values, induce(values) or {"roles": []}) or []
    return sum(1 for a, b in zip(keys, keys[1:]) if b < a)


def _runs(run: str, after: str = "") -> list:
    """A date-like run, and the run without its last number (a day's width) where a word of
    letters stands before it and a month word right after it: two dates side by side ('04
    Février 06 Février') read as day, month and a year that is the next date's day; which
    is meant, the column's order says. Where a date follows whole ('06 février 25 06 février
    25') or a description does ('02 FEV. 25 Transfer'), the number is the run's own year."""
    words = run.split()
    if len(words) > 2 and words[-1].isdigit() and len(words[-1]) <= 2 \
            and re.search(r"[^\W\d_]", words[-2]) and _month_next().match(after):
        return [run, " ".join(words[:-1])]
    return [run]


@functools.lru_cache(maxsize=1)
def _month_next():
    """A month word of any language opening the text, a whole word."""
    return re.compile(r"\s*(?:%s)\.?(?![^\W\d_])" % month_pattern(months.MONTHS), re.IGNORECASE)


def in_order_pattern(values: list) -> str | None:
    """The pattern of dates of one shape, where they are a column of dates in order."""
    notation = induce(values)
    if notation is None or len(values) < 2:
        return None
    if not notation["languages"]:
        keys = order_keys(values, notation)
        # numbers alone: only many of them, running in order, make a column of dates
        enough = "y" in notation["roles"] or len(set(keys or [])) >= 4
        return notation["pattern"] if keys and enough and in_order(keys) else None
    fits = [lang for lang in notation["languages"]
            if in_order(order_keys(values, dict(notation, languages=[lang])) or [])]
    return _with_languages(notation, fits) if fits else None


def _with_languages(notation: dict, languages: list) -> str:
    return notation["pattern"].replace(month_pattern(notation["languages"]),
                                       month_pattern(languages))
