"""The ledger's stand-in: a statement's accounting built from the lines dua's engine classifies.

The statements engine is getting one ledger per statement (``dua.statements.ledger``) that
gives every printed word exactly one owner; until a run hands the review that ledger, this
module builds the same JSON form from ``engine.extract`` (every line's kind and reason) and
``engine.statement_pages`` (the words set apart, with theirs), run with the parser's settings:

    {"words_in_cells": int,
     "rows": [{"row": i, "parts": [{"page": p, "box": [x0, top, x1, bottom]}],
               "cells": [{"column": name, "page": p, "box": [...]}]}],
     "furniture": [{"page": p, "box": [...], "text": str, "reason": str}],
     "unaccounted": [{"page": p, "box": [...], "text": str}]}

Pages count from 1; boxes are PDF points from the page's top-left, as pdfplumber measures.
A word is unaccounted for when it stands between the first transaction and the last, in
no row, on no line the engine names as furniture, and was not set apart with a reason.
"""
from __future__ import annotations

from ..statements import engine


def accounting(reader_pages: list, settings: dict) -> dict:
    """The accounting of a statement: ``reader_pages`` holds the reader's words per page
    (``(text, x0, x1, top, bottom, font, size, runs)``, as a generated parser reads them).

    Raises:
        KeyError, IndexError, TypeError, ValueError, re.error: the settings are not this
        engine's (a parser dua did not write, or an older engine's).
    """
    pages, apart = engine.statement_pages(reader_pages, settings)
    found, items_by_page = engine.extract(pages, settings)
    columns, rows, owned = settings["columns"], [], set()
    for i, row in enumerate(found):
        words = [(page + 1, w) for page, k in row[3] for w in items_by_page[page][k][4]]
        owned.update(id(w) for _, w in words)
        parts = _union(words, lambda pw: pw[0])
        cells = _union(words, lambda pw: (engine.column_of(pw[1], columns), pw[0]))
        rows.append({"row": i, "parts": [{"page": p, "box": b} for p, b in parts.items()],
                     "cells": [{"column": columns[c]["name"], "page": p, "box": b}
                               for (c, p), b in cells.items()]})
    furniture = []
    for page, items in enumerate(items_by_page, 1):
        for item in items:
            if item[0] == "furniture":
                box = _union([(page, w) for w in item[4]], lambda pw: 0)[0]
                furniture.append({"page": page, "box": box, "text": item[3], "reason": item[5]})
    for page, aside in enumerate(apart, 1):
        furniture += [{"page": page, "box": [w[1], w[3], w[2], w[4]], "text": w[0],
                       "reason": reason} for w, reason in aside]
    return {"words_in_cells": len(owned), "rows": rows, "furniture": furniture,
            "unaccounted": _unaccounted(items_by_page, rows, owned)}


def _union(words: list, key) -> dict:
    """key -> the box around the ``(page, word)`` pairs of that key, in first-seen order."""
    boxes: dict = {}
    for pair in words:
        w, k = pair[1], key(pair)
        b = boxes.get(k)
        boxes[k] = [w[1], w[3], w[2], w[4]] if b is None else \
            [min(b[0], w[1]), min(b[1], w[3]), max(b[2], w[2]), max(b[3], w[4])]
    return boxes


def _unaccounted(items_by_page: list, rows: list, owned: set) -> list:
    """Words of the lines that are neither rows nor furniture, from the first transaction to
    the last (a line above the table's heading is outside it)."""
    if not rows:
        return []
    first, last = rows[0]["parts"][0], rows[-1]["parts"][-1]
    start, end = (first["page"], first["box"][1]), (last["page"], last["box"][3])
    out = []
    for page, items in enumerate(items_by_page, 1):
        for item in items:
            if item[0] not in ("text", "money"):
                continue
            for w in item[4]:
                if id(w) not in owned and start <= (page, w[3] + 0.5) and (page, w[4] - 0.5) <= end:
                    out.append({"page": page, "box": [w[1], w[3], w[2], w[4]], "text": w[0]})
    return out
