"""Printed amounts: every notation a statement uses, read as signed floats.

Copied verbatim, first of the engine's modules, into every generated parser: standard
library only. Which of '.' and ',' is the decimal mark, which currency codes stand beside
the numbers and what each sign marker means are settings learned from the document.
"""
from __future__ import annotations

import re

# A printed amount: sign markers, currency (a symbol, Rs., S$, or a code the settings
# name) before or after, and the number; which of '.' and ',' is the decimal mark is a
# setting (``decimal``), learned from the document.
_CURRENCY = r"(?:[A-Z]{0,3}\$|[€£¥₹]|Rs\.?|%s)"
_AMOUNT = (r"^(?P<open>\()?(?P<lead>[-+])?(?:%(cur)s)?(?P<lead2>[-+])?(?P<num>\d[\d.,'’]*|[.,]\d+)"
           r"(?:%(cur)s)?(?P<close>\))?(?P<trail>[-+])?(?P<drcr>(?i:dr|cr%(marks)s)\.?)?$")
_NUMBER = {".": re.compile(r"\d{1,3}(?:[,'’]\d{2,3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"),
           ",": re.compile(r"\d{1,3}(?:[.'’]\d{3})+(?:,\d+)?|\d+(?:,\d+)?|,\d+")}
CURRENCY_CODES = ("INR", "USD", "EUR", "GBP", "SGD")
# A space (or thin / no-break space) between digits groups thousands only before 3 digits.
_GROUP_SPACE = re.compile(r"(?<=\d)[ \u2009\u202f\xa0](?=\d{3}(?!\d))")
_SPACES = re.compile(r"[\s\u2009\u202f\xa0]+")
_AMOUNT_CACHE: dict = {}
# The same cell is read again for every candidate the writer tries: each text is matched once.
_MATCH_CACHE: dict = {}


def _amount_re(codes: tuple, marks: tuple = ()):
    if (codes, marks) not in _AMOUNT_CACHE:
        cur = _CURRENCY % "|".join(re.escape(c) for c in codes)
        extra = "".join("|" + re.escape(m) for m in marks)
        _AMOUNT_CACHE[(codes, marks)] = re.compile(_AMOUNT % {"cur": cur, "marks": extra})
    return _AMOUNT_CACHE[(codes, marks)]


def _number(num: str, decimal: str) -> float | None:
    if not _NUMBER[decimal].fullmatch(num):
        return None
    group = "," if decimal == "." else "."
    digits = re.sub(r"['’]", "", num).replace(group, "")
    return float(digits.replace(",", ".")) if decimal == "," else float(digits)


def _match_amount(text: str, settings: dict):
    codes = tuple(settings.get("currency_codes", CURRENCY_CODES))
    marks = tuple(settings.get("sign_marks", ()))  # learned sign words: S/H (Soll/Haben)
    key = (text, codes, marks)
    if key not in _MATCH_CACHE:
        if len(_MATCH_CACHE) > 50000:  # a long batch reads many statements: stay bounded
            _MATCH_CACHE.clear()
        _MATCH_CACHE[key] = _match(text, codes, marks)
    return _MATCH_CACHE[key]


def _match(text: str, codes: tuple, marks: tuple = ()):
    if len(text) >= 40:
        return None
    t = _GROUP_SPACE.sub("", text.strip().replace("\u2212", "-"))
    if re.search(r"\d\s+\d", t):
        return None  # two numbers, not one amount
    m = _amount_re(codes, marks).match(_SPACES.sub("", t))
    if not m or (bool(m.group("open")) != bool(m.group("close"))):
        return None
    return m


def parse_amount(text: str, settings: dict) -> float | None:
    """A printed amount as a signed float, or None when the text is not an amount.

    Handles 1,234.56, 1.234,56 (``decimal`` ","), 12 345.67, Indian grouping 1,00,102.03,
    (12.00), 12.00-, -12.00, +12.00, 12.00 Dr / Cr, glued 12.00Cr, currency symbols and
    codes before or after; the sign rules come from ``settings``.
    """
    m = _match_amount(text, settings)
    value = _number(m.group("num"), settings.get("decimal", ".")) if m else None
    if value is None:
        return None
    negative = bool(m.group("lead") == "-" or m.group("lead2") == "-")
    if m.group("open") and settings.get("parens_negative", True):
        negative = not negative
    if m.group("trail") == "-" and settings.get("trailing_minus_negative", True):
        negative = not negative
    drcr = (m.group("drcr") or "").lower().rstrip(".")
    if drcr and settings.get("drcr_signs", {}).get(drcr, 1) < 0:
        negative = not negative
    return -value if negative else value


def looks_like_amount(text: str, settings: dict | None = None) -> bool:
    """A token that a statement prints as money: decimals or digit grouping, not a bare integer."""
    m = _match_amount(text, settings or {})
    if not m or not re.search(r"[.,]", m.group("num")):
        return False
    marks = (settings or {}).get("decimal")
    return any(_number(m.group("num"), d) is not None for d in ((marks,) if marks else ".,"))


def amount_marker(text: str, settings: dict) -> str:
    """The sign marker an amount carries: '-', '+', '()', 'dr', 'cr' or '' (none)."""
    m = _match_amount(text, settings)
    if not m:
        return ""
    if m.group("open"):
        return "()"
    if m.group("drcr"):
        return m.group("drcr").lower().rstrip(".")
    return m.group("lead") or m.group("lead2") or m.group("trail") or ""


