"""How a statement writes its money, learned from the page's own amounts.

The decimal mark (1,234.56 or 1.234,56), the currency codes printed beside amounts
(12.00 EUR, USD 12.00), and per amount column the sign convention its markers imply.
Nothing here is a list of banks: each answer is a vote over the document's tokens.
"""
from __future__ import annotations

import collections
import re

from . import amounts, engine, wordlines

_CODE = re.compile(r"[^\W\d_]{1,3}\.?")


def decimal_mark(pages: list) -> str:
    """'.' or ',': the separator that has exactly two digits after it in most amounts.

    A separator followed by three digits groups thousands in either notation, so only
    two-digit tails vote.
    """
    votes = collections.Counter()
    for words in pages:
        for w in words:
            m = amounts._match_amount(w[0], {})
            tail = re.search(r"([.,])(\d+)$", m.group("num")) if m else None
            if tail and len(tail.group(2)) == 2:
                votes[tail.group(1)] += 1
    return "," if votes[","] > votes["."] else "."


def currency_codes(pages: list, line_tolerance: float) -> list:
    """Currency marks printed right beside amounts: a code (EUR) or a short unit (kr, zł),
    apart or glued to the number (R2 922.27, CHF1'234.50).

    A mark is a short word that stands one space or less from an amount three times or
    more, and almost nowhere else (a description's short words stand beside other words);
    a glued mark is letters that open three amounts or more.
    """
    beside, total = collections.Counter(), collections.Counter()
    for words in pages:
        for line in wordlines.group_lines(words, line_tolerance):
            _glued(line, beside, total)
            for i, w in enumerate(line):
                if not _CODE.fullmatch(w[0]) or w[0].lower().rstrip(".") in ("dr", "cr"):
                    continue
                total[w[0]] += 1
                gap = 0.6 * (w[4] - w[3])
                near = [n for n in (line[i - 1] if i else None,
                                    line[i + 1] if i + 1 < len(line) else None)
                        if n and min(abs(w[1] - n[2]), abs(n[1] - w[2])) <= gap]
                if any(engine.looks_like_amount(n[0]) for n in near):
                    beside[w[0]] += 1
    found = {c.split(":", 1)[-1] for c, n in beside.items() if n >= 3 and n >= 0.8 * total[c]}
    return sorted(found)


_GLUED = re.compile(r"([^\W\d_]{1,3})(\d[\d.,'’]*)")


def _glued(line: list, beside, total) -> None:
    """Count letters glued before a number that, alone or with the next word (a group of
    three digits after a space), reads as an amount."""
    for i, w in enumerate(line):
        m = _GLUED.fullmatch(w[0])
        if not m or m.group(1).lower() in ("dr", "cr"):
            continue
        rest = m.group(2)
        nxt = line[i + 1][0] if i + 1 < len(line) else ""
        key = "glued:" + m.group(1)
        total[key] += 1
        if engine.looks_like_amount(rest) or engine.looks_like_amount(f"{rest} {nxt}"):
            beside[key] += 1


def drcr_signs(cells: list, settings: dict) -> dict | None:
    """The Dr/Cr convention of one amount column, from the markers its cells carry.

    Both markers: Dr is money out, Cr money in. One marker beside unmarked amounts
    marks the exception and is the negative one (a card's '45.00 Cr' credit, a
    balance's '12.00 Dr' overdraft). None when the column has no Dr/Cr at all.
    """
    marks = collections.Counter(engine.amount_marker(c, settings) for c in cells if c)
    has_dr, has_cr, bare = marks["dr"] > 0, marks["cr"] > 0, marks[""] > 0
    if not (has_dr or has_cr):
        return None
    if has_cr and not has_dr and bare:
        return {"dr": -1, "cr": -1}
    return {"dr": -1, "cr": 1}


def one_sided_ways(by_col: list, columns: list, settings: dict) -> None:
    """Where a column marks one way alone (Dr or Cr) and leaves the other way bare, the
    running balance says which way each moves it: the column's amounts are then signed as
    they move it. A card's lone 'Cr' is a payment that lowers the balance owed, negative;
    a bank's lone 'Cr' (FNB's 'Kt' likewise) is money in that raises the balance held,
    with its bare debits negative. ``drcr_signs`` alone guesses the first; this reads."""
    for c, col in enumerate(columns):
        signs = col.get("drcr_signs") or {}
        if col["kind"] != "amount" or signs.get("dr") != signs.get("cr"):
            continue  # no lone marker (or both): nothing to read
        split = [_marked(cell, settings) for cell in by_col[c]]
        marks = {code for _, code in split} - {"bare", None}
        for b, other in enumerate(columns):
            if b == c or other["kind"] != "amount" or len(marks) != 1:
                continue
            balances = [engine.parse_amount(cell, settings) if cell else None
                        for cell in by_col[b]]
            way = _lone_way(split, balances, marks.pop())
            if way:  # the marked amounts parse negative: the bare ones go as the column
                col["sign"] = way
                return


def _lone_way(split: list, balances: list, mark: str) -> int:
    """The sign the bare amounts move the balance by (the marked ones the other way), in
    printed order or the reverse: one way must reach some printed balances and the other
    next to none. Rows the search for dated lines left out (a day's later rows) break some
    runs for either way alike. 0 where the balances do not tell."""
    fits = {}
    for order in (1, -1):
        pairs = list(zip(split, balances))[::order]
        for bare in (1, -1):
            fits[bare] = max(fits.get(bare, 0), _spans_fit(pairs, {mark: -bare, "bare": bare})[0])
    way = max(fits, key=fits.get)
    return way if fits[way] >= 3 and fits[-way] * 3 <= fits[way] else 0


def _marked(cell: str, settings: dict) -> tuple:
    """``(size, 'dr' | 'cr' | 'bare')`` of an amount cell; ``(None, None)`` when empty."""
    if not cell:
        return None, None
    value = engine.parse_amount(cell, settings)
    return (abs(value) if value is not None else None,
            engine.amount_marker(cell, settings) or "bare")


def code_signs(by_col: list, columns: list, settings: dict) -> tuple:
    """Without a key: ``(column, {word: sign})`` where two short words follow a column's
    amounts ('S' and 'H'), each giving the sign another column of money, read as the
    running balance, moves by line to line (in printed order or the reverse). ``(None,
    {})`` where no column prints two such words, or no balance says which is which."""
    for c, split, codes in _two_codes(by_col, columns, settings):
        for b, other in enumerate(columns):
            if b == c or other["kind"] != "amount":
                continue
            balances = [engine.parse_amount(cell, settings) if cell else None for cell in by_col[b]]
            signs = _moved_by(split, balances)
            if signs and set(signs) == codes and len(set(signs.values())) == 2:
                return c, signs
    return None, {}


def coded_column(by_col: list, columns: list, settings: dict) -> tuple:
    """``(column, (code, code))`` of the first column whose amounts print one of two short
    words after them on most rows, whether or not a balance says which is money out;
    ``(None, ())`` where none does."""
    return next(((c, tuple(sorted(codes))) for c, _, codes in
                 _two_codes(by_col, columns, settings)), (None, ()))


def _two_codes(by_col: list, columns: list, settings: dict):
    """``(column, its cells split into amount and code, the two codes)`` of each column
    whose cells print one of two short words after an amount on half of them or more."""
    for c, col in enumerate(columns):
        if c == settings.get("date_column"):
            continue
        split = [_coded(cell, settings) for cell in by_col[c]]
        codes = {code for _, code in split if code}
        if len(codes) == 2 and sum(1 for cell, (v, code) in zip(by_col[c], split)
                                   if cell and not code) <= 0.5 * len(split):
            yield c, split, codes


def _coded(cell: str, settings: dict) -> tuple:
    """``(amount, code)`` of a cell that prints an amount then one short word ('116,33 S',
    or glued to it: '116,33S')."""
    glued = _CODE_GLUED.fullmatch(cell) if cell else None
    parts = cell.rsplit(" ", 1) if cell and " " in cell.strip() else \
        ([glued.group(1), glued.group(2)] if glued else [])
    if len(parts) != 2 or not _SIGN_WORD.fullmatch(parts[1]) or \
            parts[1].lower().rstrip(".") in ("dr", "cr"):
        return (engine.parse_amount(cell, settings) if cell else None), ""
    return engine.parse_amount(parts[0], settings), parts[1].lower().rstrip(".")


def _moved_by(split: list, balances: list) -> dict:
    """code -> sign where, from each printed balance to the next, the balance moves by the
    amounts between signed that way (in printed order or the reverse): a balance printed
    on a day's last row only is reached by the day's amounts together. A run that misses
    (a row the search for dated lines left out) counts against the way, not out of it."""
    codes = sorted({code for _, code in split if code})
    if len(codes) != 2:
        return {}
    tried = []
    for order in (1, -1):
        pairs = list(zip(split, balances))[::order]
        for first in (1, -1):
            signs = {codes[0]: first, codes[1]: -first}
            tried.append((_spans_fit(pairs, signs), signs))
    (fits, misses), signs = max(tried, key=lambda t: t[0][0] - t[0][1])
    return signs if fits >= 3 and misses * 3 <= fits else {}


def _spans_fit(pairs: list, signs: dict) -> tuple:
    """``(fits, misses)``: the runs from one printed balance to the next that the signed
    amounts between reach, and those they do not (a run with an amount of no code says
    nothing)."""
    last, moved, known, fits, misses = None, 0.0, True, 0, 0
    for (value, code), balance in pairs:
        if value is not None:
            moved += signs[code] * value if code else 0.0
            known = known and bool(code)
        if balance is None:
            continue
        if last is not None and known:
            if abs(balance - last - moved) < 0.005:
                fits += 1
            else:
                misses += 1
        last, moved, known = balance, 0.0, True
    return fits, misses


_SIGN_WORD = re.compile(r"[^\W\d_]{1,2}\.?")
_CODE_GLUED = re.compile(r"(.*\d)([^\W\d_]{1,2}\.?)")  # '116,33S': an amount, its code


def sign_words(lines_of, rows: list, kinds: list, signs: list) -> dict:
    """Short words printed right after the key's amounts whose sign they tell ('S' and 'H',
    Soll and Haben): word -> -1 or 1, learned when each word stands beside amounts of one
    sign only in the key. ``lines_of(row)`` gives a row's anchor line, ``signs[row][c]``
    the key's sign of its amount in column ``c`` (None when empty)."""
    tally = collections.defaultdict(collections.Counter)
    for row in rows:
        line = lines_of(row)
        for c, words in row.cells.items():
            sign = signs[row.index][c] if kinds[c] == "amount" else None
            i = next((i for i, w in enumerate(line) if w is words[-1]), None)
            if sign is None or i is None or i + 1 >= len(line):
                continue
            nxt = line[i + 1]
            if _SIGN_WORD.fullmatch(nxt[0]) and nxt[1] - words[-1][2] < 1.5 * (nxt[4] - nxt[3]) \
                    and nxt[0].lower().rstrip(".") not in ("dr", "cr"):
                tally[nxt[0].lower().rstrip(".")][sign] += 1
    out = {w: (-1 if n[-1] else 1) for w, n in tally.items()
           if sum(n.values()) >= 2 and len(n) == 1}
    return out if out and len(out) == len(tally) else {}
