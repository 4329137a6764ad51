"""The date shapes statements print, most specific first (ties in a vote go to the earlier)."""
from __future__ import annotations

import re

MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
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
