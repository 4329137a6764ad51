"""The date shapes statements print, most specific first (ties in a vote go to the earlier)."""
from __future__ import annotations

import re


def _prefixes(name: str) -> str:
    """A pattern for ``name`` cut after its third letter or any later one: 'sep', 'sept',
    'september'; never a word that only starts like it ('Novak', 'Marketplace')."""
    tail = ""
    for ch in reversed(name[3:]):
        tail = f"(?:{ch}{tail})?"
    return name[:3] + tail


# English month names, whole or cut short: the shapes read before any notation is learned
MONTHS = "(?:%s)\\.?" % "|".join(_prefixes(m) for m in (
    "january", "february", "march", "april", "may", "june", "july", "august", "september",
    "october", "november", "december"))
DATE_PATTERNS = (
    r"\d{4}-\d{1,2}-\d{1,2}",
    r"\d{4}/\d{1,2}/\d{1,2}",
    r"\d{1,2}[/-]\d{1,2}[/-]\d{2,4}",
    r"\d{1,2}\.\d{1,2}\.\d{2,4}",
    r"\d{1,2}[ -]?" + MONTHS + r"[ ,-]*\d{2,4}",
    MONTHS + r" ?\d{1,2},? \d{4}",
    r"\d{1,2}[ -]" + MONTHS,
    MONTHS + r" \d{1,2}",
    r"\d{1,2}/\d{1,2}",
    r"\d{1,2}\.\d{1,2}\.",  # a value date printed without its year
)
# A time printed after the date ("01/08/2024 10:32", "2024-08-01T10:32:05") stays in the cell.
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?: ?[AaPp][Mm])?)?"
DATE_PATTERNS = tuple(p + _TIME for p in DATE_PATTERNS)
DATE_SEARCH = re.compile(r"(?<![\w/.-])(?:%s)(?![\w/-])" % "|".join(DATE_PATTERNS), re.IGNORECASE)


def pattern_of(date: str) -> str:
    """The first pattern that matches the whole of ``date``."""
    return next(p for p in DATE_PATTERNS if re.fullmatch(p, date, re.IGNORECASE))


def match_of(date: str) -> str | None:
    """The first pattern that matches the whole of ``date``, or None."""
    return next((p for p in DATE_PATTERNS if re.fullmatch(p, date, re.IGNORECASE)), None)


_MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")


def order_keys(dates: list) -> list | None:
    """Sortable ``(year, month, day)`` keys for dates as one statement prints them, or None
    when they cannot all be read. Whether '03/04' is the 3rd of April or March 4th is
    decided for the whole statement: by a number over 12 in one place, else day first."""
    parts = [parts_of(d) for d in dates]
    if not parts or any(p is None for p in parts):
        return None
    open_order = [p for p in parts if p[3] is None]  # two numbers, order not printed
    day_first = any(int(p[1]) > 12 for p in open_order) or not any(
        int(p[2]) > 12 for p in open_order)
    out, wrap, top = [], 0, 0
    for year, a, b, month_first in parts:
        first = day_first if month_first is None else not month_first
        day, month = (int(a), int(b)) if first else (int(b), int(a))
        if not year:  # no year printed: a month far below the latest seen is the next year
            wrap += month + 6 < top
            top = month if month + 6 < top else max(top, month)
        out.append((year or wrap, month, day))
    return out


def _month_number(token: str) -> int | None:
    """The month a word names in every language it is a month of, or None."""
    from .datenotation import month_of  # late: the month names load with the first date

    numbers = {n for _, n in month_of(token)} if not token.isdigit() else set()
    return numbers.pop() if len(numbers) == 1 else None


def parts_of(text: str):
    """``(year, a, b, month_first)`` of one date: ``a`` and ``b`` the day and the month in
    the order printed; ``month_first`` None when the date alone does not say."""
    tokens = re.findall(r"\d+|[^\W\d_]+", text.lower())
    names = [_MONTH_NAMES.index(t[:3]) + 1 for t in tokens if t[:3] in _MONTH_NAMES]
    names = names or [n for n in map(_month_number, tokens) if n]  # another language's
    numbers = [t for t in tokens if t.isdigit()]
    year = next((int(t) for t in numbers if len(t) == 4), 0)
    rest = [t for t in numbers if len(t) != 4]
    if names:
        month = names[0]
        if not rest:
            return None
        if not year and len(rest) == 2:  # 02MAY25, 2 May 25: the second number a year
            year = 2000 + int(rest[1])
        return (year, rest[0], month, False)
    if not year and len(rest) == 3:  # 02/01/25: a two-digit year last
        year, rest = 2000 + int(rest[2]), rest[:2]
    if len(rest) != 2:
        return None
    iso = bool(tokens) and len(tokens[0]) == 4 and tokens[0].isdigit()
    return (year, rest[0], rest[1], True if iso else None)
