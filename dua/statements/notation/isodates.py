"""ISO dates for a statement's rows: the year a row's date leaves out, from the statement's
own dates (its period, its heading), a December to January roll-over included.

Whether '03/04' is the 3rd of April is decided once for the statement, as ``dates`` does;
no bank's convention is looked up anywhere.
"""
from __future__ import annotations

import datetime

from .dates import DATE_SEARCH, parts_of

# A row's date sits near the statement's own dates: a posting date may follow the period's
# end by a few days, a statement rarely spans more than a few months.
_YEARS_AROUND = (-1, 0, 1)


def day_first(dates: list) -> bool:
    """Whether dates printed as two bare numbers ('03/04') put the day first: a number over
    12 decides, where one is printed; else day first (most of the world's notation)."""
    open_order = [p for p in (parts_of(d) for d in dates) if p and p[3] is None]
    if any(int(p[2]) > 12 for p in open_order) and not any(int(p[1]) > 12 for p in open_order):
        return False
    return True


def printed_dates(lines: list, first: bool, rows: tuple = ()) -> list:
    """Every date with its year printed on the statement's lines (texts): the period, the
    statement date, an opening balance's date. A match that starts with a row's own date
    printed without a year is that row's ('03 Sept 03 Sept': a date and the next cell)."""
    found = []
    for text in lines:
        for match in DATE_SEARCH.finditer(text):
            if match.group(0).lower().startswith(rows):
                continue
            parts = parts_of(match.group(0))
            day = _date(parts, first) if parts and parts[0] else None
            if day is not None:
                found.append(day)
    return found


def iso_dates(values: list, context: list) -> tuple:
    """``(dates, why)``: each printed row date as ``YYYY-MM-DD`` (None where unreadable), the
    year a date leaves out taken from ``context``, the statement's other lines (texts)."""
    texts = [None if v is None else str(v) for v in values]
    first = day_first([t for t in texts if t])
    parts = [parts_of(t) if t else None for t in texts]
    missing = [p for p in parts if p and not p[0]]
    yearless = tuple({t.strip().lower() for t, p in zip(texts, parts) if p and not p[0]})
    # the statement's own dates are read in the rows' order where the rows settle it
    # ('12/31' printed: its '01/09/14' is January 9th)
    printed = [m.group(0) for t in context for m in DATE_SEARCH.finditer(t)]
    anchors = printed_dates(context, day_first([t for t in texts if t] + printed), yearless)
    anchor = _anchor(missing, anchors, first) if missing else None
    out = []
    for p in parts:
        if p is None:
            out.append(None)
        elif p[0]:
            out.append(_iso(_date(p, first)))
        else:
            out.append(_iso(_nearest(p, anchor, first)) if anchor else None)
    why = (f"the year from the statement's own date {anchor.isoformat()}" if anchor
           else "no year printed on the statement" if missing else "the years as printed")
    return out, why


def _date(parts: tuple, first: bool):
    year, a, b, month_first = parts
    flag = first if month_first is None else not month_first
    day, month = (int(a), int(b)) if flag else (int(b), int(a))
    try:
        return datetime.date(year or 2000, month, day)
    except ValueError:
        return None


def _nearest(parts: tuple, anchor, first: bool):
    """The date with the year that puts it closest to ``anchor``."""
    best = None
    for shift in _YEARS_AROUND:
        day = _date((anchor.year + shift,) + tuple(parts[1:]), first)
        if day is not None and (best is None or abs(day - anchor) < abs(best - anchor)):
            best = day
    return best


def _anchor(rows: list, anchors: list, first: bool):
    """The statement's own date the rows sit closest to (the period's end, the statement
    date; not a 'records as of' date two years on)."""
    best, score = None, None
    for anchor in dict.fromkeys(anchors):
        days = [_nearest(p, anchor, first) for p in rows]
        total = sum(abs((d - anchor).days) for d in days if d is not None)
        if score is None or total < score:
            best, score = anchor, total
    return best


def _iso(day) -> str | None:
    return day.isoformat() if day is not None else None
