"""The ledger's stand-in: a statement's accounting rebuilt from the rows dua's engine finds.

The statements engine is getting one ledger per statement (``dua.statements.ledger``) that
gives every printed word exactly one owner; until a run hands the review that ledger, this
module builds the same JSON form from ``engine.extract_rows`` with the parser's settings:

    {"words_in_cells": int,
     "rows": [{"row": i, "parts": [{"page": p, "box": [x0, top, x1, bottom]}],
               "cells": [{"column": name, "page": p, "box": [...]}]}],
     "furniture": [{"page": p, "box": [...], "text": str, "reason": str}],
     "unaccounted": [{"page": p, "box": [...], "text": str}]}

Pages count from 1; boxes are PDF points from the page's top-left, as pdfplumber measures.
Furniture here is only what the settings name (the column heading, the lines the parser
skips, a date printed as a group heading); a word is unaccounted for when it stands on a
page with rows, between that page's first and last row, in no row and no such line.
"""
from __future__ import annotations

import re

from ..statements import engine

_REASONS = (  # a skipped line's text -> the furniture it is, as the issue names them
    (re.compile(r"\bpage\b", re.IGNORECASE), "running footer"),
    (re.compile(r"\btotal", re.IGNORECASE), "total line"),
    (re.compile(r"balance|\bb/?f\b|\bc/?f\b|forward", re.IGNORECASE), "balance line"),
)


def accounting(pages: list, settings: dict) -> dict:
    """The accounting of ``pages`` (engine words ``(text, x0, x1, top, bottom)`` per page).

    Raises:
        KeyError, IndexError, TypeError, ValueError, re.error: the settings are not the
        engine's (a parser dua did not write, or an older engine's).
    """
    page_of = {id(w): n for n, words in enumerate(pages, 1) for w in words}
    columns = settings["columns"]
    rows, owned = [], set()
    for i, (_, lines) in enumerate(engine.extract_rows(pages, settings)):
        words = [w for line in lines for w in line]
        owned.update(id(w) for w in words)
        parts = _union(words, lambda w: page_of[id(w)])
        cells = _union(words, lambda w: (engine.column_of(w, columns), page_of[id(w)]))
        rows.append({"row": i, "parts": [{"page": p, "box": b} for p, b in parts.items()],
                     "cells": [{"column": columns[c]["name"], "page": p, "box": b}
                               for (c, p), b in cells.items()]})
    in_cells = len(owned)
    furniture = _furniture(pages, settings, owned)
    return {"words_in_cells": in_cells, "rows": rows, "furniture": furniture,
            "unaccounted": _unaccounted(pages, rows, owned)}


def _union(words: list, key) -> dict:
    """key -> the box around the words of that key, in the order the keys first appear."""
    boxes: dict = {}
    for w in words:
        k = key(w)
        b = boxes.get(k)
        boxes[k] = [w[1], w[3], w[2], w[4]] if b is None else \
            [min(b[0], w[1]), min(b[1], w[3]), max(b[2], w[2]), max(b[3], w[4])]
    return boxes


def reason(text: str, settings: dict) -> str:
    """Why a line that is in no row is furniture, or '' when the settings do not say."""
    if engine.normalize(text) in settings.get("header", []):
        return "column heading"
    if settings.get("date_groups") and re.fullmatch(settings["date_pattern"], text, re.IGNORECASE):
        return "group heading"
    if engine.is_skipped(text, settings.get("skip_patterns", [])):
        return next((name for pattern, name in _REASONS if pattern.search(text)), "skipped line")
    return ""


def _furniture(pages: list, settings: dict, owned: set) -> list:
    out = []
    for n, words in enumerate(pages, 1):
        for line in engine.group_lines(words, settings["line_tolerance"]):
            if any(id(w) in owned for w in line):
                continue
            text = engine.join_words(line, settings["glue_gap"])
            why = reason(text, settings)
            if why:
                owned.update(id(w) for w in line)
                out.append({"page": n, "box": _union(line, lambda w: 0)[0], "text": text,
                            "reason": why})
    return out


def _unaccounted(pages: list, rows: list, owned: set) -> list:
    spans: dict = {}  # page -> (top of its first row, bottom of its last)
    for row in rows:
        for part in row["parts"]:
            top, bottom = part["box"][1], part["box"][3]
            lo, hi = spans.get(part["page"], (top, bottom))
            spans[part["page"]] = (min(lo, top), max(hi, bottom))
    out = []
    for n, words in enumerate(pages, 1):
        if n not in spans:
            continue
        lo, hi = spans[n]
        for w in sorted(words, key=lambda w: (w[3], w[1])):
            if id(w) not in owned and w[3] >= lo - 0.5 and w[4] <= hi + 0.5:
                out.append({"page": n, "box": [w[1], w[3], w[2], w[4]], "text": w[0]})
    return out
