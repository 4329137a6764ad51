"""Two checks a scan's rows need that its arithmetic cannot make: its dates (a misread digit
of a date, '41-09-2024', breaks no balance) and its pages (a page whose heading OCR garbled
is no table page to the ledger, and its rows go unseen). Judges only, as the package is.
"""
from __future__ import annotations

import re

from ..notation.dates import DATE_PATTERNS, order_keys

# a page printing this many dates of the rows' shape holds rows (a summary prints two or so)
PAGE_DATES = 5
# the ledger's lines over groups of rows, each group listed in its own order: a section
# (deposits, then withdrawals), a card holder's, an account's
TITLES = ("a section's title (it signs its rows)",
          "a heading over the rows below it (a section, a card holder, a group)",
          "the title of an account whose balances start again right below it")


def dates_check(frame, result: dict | None = None) -> dict | None:
    """``ocr_dates``: every date cell a calendar day, and a date column in order, either way
    (the column the rows are listed by; a card's transaction dates beside its posting dates
    need not be). Under each title the ledger of ``result`` found over a group of rows the
    order starts again, the same way. None when the rows hold no date column."""
    import datetime  # lazy: keeps import dua fast

    shape = re.compile("|".join(f"(?:{p})" for p in DATE_PATTERNS), re.IGNORECASE)
    starts = _group_starts(result)
    broken, ordered = [], None  # the cell that breaks each date column's order; one in order
    for column in frame.columns:
        cells = [(i, str(v).strip()) for i, v in enumerate(frame[column].tolist())
                 if isinstance(v, str) and v.strip()]
        if not cells or not all(shape.fullmatch(c) for _, c in cells):
            continue
        keys = order_keys([c for _, c in cells])
        for (i, cell), key in zip(cells, keys or []):
            try:
                datetime.date(key[0] if key[0] > 0 else 2000, key[1], key[2])
            except ValueError:
                return _dates_failed(f"row {i}'s {column} {cell!r} is no calendar date")
        if not keys:
            continue
        group = [sum(1 for s in starts if s <= i) for i, _ in cells]
        within = [n for n in range(1, len(keys)) if group[n] == group[n - 1]]
        up = next((n for n in within if keys[n] < keys[n - 1]), None)
        down = next((n for n in within if keys[n] > keys[n - 1]), None)
        if up is None or down is None:
            ordered = ordered or column
        else:
            broken.append((column, cells[max(up, down)]))
    if ordered is not None:
        return {"name": "ocr_dates", "passed": True,
                "detail": f"every date is a calendar day; {ordered!r} in order"
                          + (f" under each of its {len(starts) + 1} titles" if starts else "")}
    if not broken:
        return None
    column, (i, cell) = broken[0]
    return _dates_failed(f"row {i}'s {column} {cell!r} breaks the order of the dates")


def _group_starts(result: dict | None) -> list:
    """The rows that open a group under a title (``TITLES``): each the first row below a
    title's line, on its page or a later one, by the ledger of ``result``."""
    accounting = (result or {}).get("accounting") or {}
    rows = [(r["parts"][0]["page"], r["parts"][0]["box"][1], r["row"])
            for r in accounting.get("rows") or [] if r.get("parts")]
    starts = set()
    for line in accounting.get("furniture") or []:
        if line.get("reason") in TITLES:
            below = [r for r in rows if (r[0], r[1]) > (line["page"], line["box"][1])]
            if below and min(below)[2] > 0:
                starts.add(min(below)[2])
    return sorted(starts)


def pages_check(frame, result: dict, answer: dict) -> dict | None:
    """``ocr_pages``: each OCR'd page that prints PAGE_DATES or more dates shaped as the rows'
    dates is a page rows were read from (the ledger's pages); None without such dates."""
    shapes = set()
    for column in frame.columns:
        for value in frame[column].tolist():
            if isinstance(value, str):
                shapes.update(p for p in DATE_PATTERNS if re.fullmatch(p, value.strip(), re.I))
    if not shapes:
        return None
    shape = re.compile("|".join(f"(?:{p})" for p in shapes), re.IGNORECASE)
    covered = set((result.get("accounting") or {}).get("pages") or [])
    for page in answer.get("pages", []):
        dated = sum(1 for t in answer.get("texts", {}).get(str(page), []) if shape.fullmatch(t))
        if dated >= PAGE_DATES and page not in covered:
            return {"name": "ocr_pages", "passed": False,
                    "detail": f"page {page} prints {dated} dates shaped as the rows' dates, "
                              f"yet no row was read from it (read by OCR: its heading misread?)"}
    return {"name": "ocr_pages", "passed": True,
            "detail": "every OCR'd page printing the rows' dates is a page rows were read from"}


def _dates_failed(detail: str) -> dict:
    return {"name": "ocr_dates", "passed": False,
            "detail": detail + " (read by OCR: a digit misread?)"}
