"""Whether the file holds every page the statement numbers.

A statement that prints '1 of 2' (or 'Page 1 / 2', 'Seite 1 von 2', '1/2') on a file of
one page was cut short: rows printed on the missing pages are not there to check, and a
summary that counts them cannot agree with the rows that are. The numbering is read by
its shape, never by its words, so any language reads: two numbers at a page's top or
foot, joined by one short word or a slash, the first counting with the pages and the
second the same on each. The engine's words are ``(text, x0, x1, top, bottom, size)``.
"""
from __future__ import annotations

import re

_NUMBER = re.compile(r"[1-9]\d{0,2}")
_SLASHED = re.compile(r"([1-9]\d{0,2})/([1-9]\d{0,2})")
_JOIN = re.compile(r"[^\W\d_]{1,4}|/")  # 'of', 'von', 'sur', 'de', 'из', '/'
_EDGE_LINES = 3  # how many lines at a page's top and at its foot may print its number
_MONEY = re.compile(r"\d[.,]\d\d(?!\d)")  # a line printing money is a row ('Instalment 1 of 2')


def missing(pages: list) -> str:
    """What the numbering says is missing (empty when nothing is, or nothing is numbered):
    ``"the pages are numbered '1 of 2' and the file holds 1"``."""
    if not pages:
        return ""
    seen = {}
    for index, words in enumerate(pages):
        for first, total, text in _numbers(words):
            if first == index + 1 and total >= first:
                seen.setdefault(index, (total, text))
                break
    totals = {total for total, _ in seen.values()}
    if len(totals) != 1:  # unnumbered, or numbers that do not count one set of pages
        return ""
    total = totals.pop()
    if total <= len(pages):
        return ""
    text = seen[min(seen)][1]
    return (f"the pages are numbered {text!r} and the file holds {len(pages)}: "
            f"{total - len(pages)} page(s) of the statement are not in it")


def _numbers(words: list) -> list:
    """``(n, m, text)`` for each 'n of m' printed on the page's top or foot lines."""
    lines: dict = {}
    for w in words:
        lines.setdefault(round(w[3]), []).append(w)
    tops = sorted(lines)
    edge = tops[:_EDGE_LINES] + tops[-_EDGE_LINES:]
    found = []
    for top in dict.fromkeys(edge):
        texts = [w[0].strip("()[].,") for w in sorted(lines[top], key=lambda w: w[1])]
        if any(_MONEY.search(w[0]) for w in lines[top]):
            continue
        for i, text in enumerate(texts):
            slashed = _SLASHED.fullmatch(text)
            if slashed:
                found.append((int(slashed[1]), int(slashed[2]), text))
            elif i + 2 < len(texts) and _NUMBER.fullmatch(text) \
                    and _JOIN.fullmatch(texts[i + 1]) and _NUMBER.fullmatch(texts[i + 2]):
                found.append((int(text), int(texts[i + 2]), " ".join(texts[i:i + 3])))
    return found
