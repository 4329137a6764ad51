"""The reading rules a statement's settings switch on, each said with what switches it on.

A rule that changes how words are read or grouped fires only where its trait is on the
page or in the answer key; the review page lists the ones that fired, so a person can see
why a word landed where it did. Settings only: the words are read elsewhere.
"""
from __future__ import annotations

from ..table import pagewords


def fired(settings: dict | None, words_by_page: list | None = None,
          chars_by_page: list | None = None) -> list:
    """One plain sentence per rule that reads this statement, in reading order."""
    if not settings or not settings.get("columns"):
        return []
    names = [c["name"] for c in settings["columns"]]
    out = _spacing(words_by_page, chars_by_page) + _rows(settings) + _cells(settings, names)
    return out + _signs(settings)


def _spacing(words_by_page: list | None, chars_by_page: list | None) -> list:
    """Where words are cut at small gaps, and why: pages that print no space glyphs."""
    if not words_by_page:
        return []
    chars = chars_by_page or [None] * len(words_by_page)
    bare = [n for n, (w, c) in enumerate(zip(words_by_page, chars), 1)
            if not pagewords.prints_spaces(w, c)]
    spaced = [n for n in range(1, len(words_by_page) + 1) if n not in bare]
    out = []
    if bare:
        out.append(f"words cut at gaps of {pagewords.SPLIT_GAP} em on page(s) {_pages(bare)}: "
                   "their text layer prints no space glyphs, so a gap is a word's only end")
    if spaced:
        out.append(f"words cut only at a space's width ({pagewords.SPACED_SPLIT_GAP} em) on "
                   f"page(s) {_pages(spaced)}: the page prints its word spaces")
    return out


def _rows(settings: dict) -> list:
    """How lines are gathered into rows."""
    mode, gap = settings.get("continuation", "below"), settings.get("continuation_gap")
    side = {"above": "over its date line (the table's first row prints its text above it)",
            "nearest": "on the side of the nearer row (text both above and below rows)",
            "below": "under its first line"}.get(mode, mode)
    out = [f"a row's wrapped lines are read {side}, up to {gap} pt from the line before"]
    if settings.get("anchor") == "amount":
        fill = "is left blank" if settings.get("date_fill") == "blank" else "takes the date above"
        out.append(f"a date may be printed once, on a day's first row: a row without one {fill}")
    if settings.get("date_groups"):
        out.append("dates are printed as headings over their day's rows")
    if settings.get("header_once"):
        out.append("the table's heading is printed once: the pages after it continue the table")
    if settings.get("row_order") == "reversed":
        out.append("the rows are written newest first, as the answer key lists them")
    return out


def _cells(settings: dict, names: list) -> list:
    """How cells are read beyond their column's band."""
    out = []
    for i in settings.get("wrapped_columns", ()):
        if i < len(names):
            out.append(f"{names[i]!r} wraps in a narrow cell: it goes on under the row's first line")
    for i in settings.get("carry_columns", ()):
        if i < len(names):
            out.append(f"{names[i]!r} is printed on a day's first row only: its blanks take the "
                       "value above")
    for col in settings["columns"] + settings.get("second_line", []):
        if col.get("labels"):
            out.append(f"{col['name']!r}: {', '.join(map(repr, col['labels']))} printed before "
                       "every value is a label, left out of the cells")
    for col in settings.get("blank_columns", ()):
        out.append(f"{col['name']!r} is named by the answer key and printed nowhere: kept, empty")
    if settings.get("second_line"):
        shown = ", ".join(repr(c["name"]) for c in settings["second_line"])
        out.append(f"each row's second line holds {shown}, under the heading's second tier")
    allowed = settings.get("continuation_columns")
    if allowed:
        shown = ", ".join(repr(names[i]) for i in allowed if i < len(names))
        out.append(f"wrapped lines may stand under {shown} (the answer key's long descriptions "
                   "run on under a column of money)")
    return out


def _signs(settings: dict) -> list:
    """Signs that come from somewhere else than the amount's own marks."""
    out = []
    for name, sign in settings.get("sections") or ():
        way = "money out" if sign < 0 else "money in"
        out.append(f"amounts under the section titled {name!r} are {way}")
    for col in settings["columns"]:
        if col.get("sign", 1) < 0:
            out.append(f"{col['name']!r} prints money out unsigned: read as negative")
    return out


def _pages(numbers: list) -> str:
    return ", ".join(map(str, numbers[:12])) + (" …" if len(numbers) > 12 else "")
