"""What the pages print, told to a person where no table is read from them: the first
lines as printed, and what the search for dated lines of money looked for and found.
"""
from __future__ import annotations

from ..notation.dates import DATE_SEARCH
from ..table import engine, wordlines
from ..table.columns import GLUE_GAP, LINE_TOLERANCE

# What the analysis looks for, in words a person can check against the page.
DATE_SHAPES = ("02/01/25", "02-01-2025", "2025-01-02", "2025/01/02", "02.01.2025", "02 Jan 2025",
               "02-Apr-2025", "02MAY25", "Jan 02, 2025", "01/02",
               "15 ago 2024 in one of 20 languages, running in order", "2024年12月16日")
AMOUNT_SHAPES = ("1,234.56", "1.234,56", "12 345.67", "1,00,102.03", "-12.00", "+12.00",
                 "12.00-", "(12.00)", "12.00 Dr", "12.00Cr", "$12.00", "12.00 EUR")


def explain_no_table(pages: list) -> str:
    """Why no table was found: what was looked for, and what the pages do print."""
    dated = money = both = 0
    plain = []
    for words in pages:
        for line in wordlines.group_lines(words, LINE_TOLERANCE):
            text = wordlines.join_words(line, GLUE_GAP)
            has_date = bool(DATE_SEARCH.search(text))
            has_money = any(engine.looks_like_amount(w[0]) for w in line)
            dated, money, both = dated + has_date, money + has_money, both + (has_date and has_money)
            if not has_date and not has_money and len(line) >= 3 and len(plain) < 3:
                plain.append(text[:80])
    seen = f"; lines that look like headings: {plain}" if plain else ""
    return (f"looked for rows that print a date ({', '.join(DATE_SHAPES)}) and an amount "
            f"({', '.join(AMOUNT_SHAPES)}), or day headings over rows of amounts; of "
            f"{sum(len(p) for p in pages)} words on {len(pages)} page(s), {dated} line(s) "
            f"print a date, {money} an amount and {both} both{seen}")


def raw_sample(pages: list, limit: int = 40) -> list:
    """The first lines of the first pages as printed: what a person (or a model) reads to
    see what kind of document this is."""
    out = []
    for words in pages[:3]:
        for line in wordlines.group_lines(words, LINE_TOLERANCE):
            out.append(wordlines.join_words(line, GLUE_GAP))
            if len(out) >= limit:
                return out
    return out
