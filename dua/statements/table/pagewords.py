"""A statement's words from the reader's: split where glyphs stand apart, and set apart the
text that is no part of the table's lines (a watermark's glyphs, text turned on its side,
glyphs that map to no character), each with the reason a person can check.

Copied verbatim, after ``amounts``, into every generated parser: standard
library only. Reader words are ``(text, x0, x1, top, bottom, font, size, runs)``; the
engine's are ``(text, x0, x1, top, bottom, size, font)``.
"""
from __future__ import annotations

import re
import unicodedata

_CID = re.compile(r"(?:\(cid:\d+\))+")
_LEADER = re.compile(r"\.{3,}")  # a dot leader: 'DATE.......AMOUNT' is two names
# the dots between two names; in a scan, a speck in a leader reads as other marks
_DOTS = re.compile(r"(?<=[^\W\d_])(?:\.+|[^\w\s]*\.{3,}[^\w\s]*)(?=[^\W\d_])")
# A word's glyphs a tenth of an em apart or more are two words: every statement measured
# prints its words at least 0.15 em apart where its text layer has no space glyphs, and
# the glyphs inside a word touch (the reader records no run for gaps under 0.5 pt).
SPLIT_GAP = 0.1
# CJK fonts often map 月 and 日 to the look-alike Kangxi radicals (U+2F49, U+2F47): no
# statement prints a radical as such, so they are read as the characters they stand for.
_RADICALS = re.compile("[\u2e80-\u2fdf]")
WATERMARK_SIZE = 3.0  # glyphs this many times the page's usual size lie over the text
ON_ITS_SIDE = 2.0  # a word this many times taller than its glyphs runs down the page


SPACED = 0.02  # a page whose glyphs are this share spaces or more prints its word spaces
# On such a page a word is cut only at a gap as wide as the narrowest space a font prints
# (a fifth of an em; Times' is a quarter): two cells of a table that touch, not a word
# whose letters stand a little apart.
SPACED_SPLIT_GAP = 0.2


def statement_pages(pages: list, settings: dict, chars: list | None = None) -> tuple:
    """``(pages, apart)``: each page's engine words, and ``[(word, reason)]`` set apart.
    ``chars`` holds each page's count of glyphs, spaces included, where the reader gives
    it: the evidence of whether the page prints its word spaces."""
    out, apart = [], []
    for i, words in enumerate(pages):
        spaced = prints_spaces(words, chars[i] if chars and i < len(chars) else None)
        kept, aside = page_words(words, settings, spaced)
        out.append(kept)
        apart.append(aside)
    return out, apart


def prints_spaces(words: list, chars: int | None) -> bool:
    """Whether a page prints space glyphs between its words (its glyphs outnumber its
    words' letters): then the reader has cut its words at them already, and glyphs that
    stand apart inside a word are letter spacing, not a word gap. Unknown is no."""
    if not chars:
        return False
    return chars - sum(len(w[0]) for w in words) >= SPACED * chars


def page_words(words: list, settings: dict, spaced: bool = False) -> tuple:
    """One page's engine words and the words set apart, each with its reason. On a page
    that prints no spaces (``spaced`` False) a gap is the only sign of a word's end, and
    words are cut at ``split_gap``; on one that does, only at a space's width."""
    usual = _page_size(words)
    gap = settings.get("split_gap", SPLIT_GAP)
    if spaced and gap is not None:
        gap = max(gap, SPACED_SPLIT_GAP)
    kept, aside = [], []
    for w in words:
        if _RADICALS.search(w[0]):
            w = (_RADICALS.sub(lambda m: unicodedata.normalize("NFKC", m.group()), w[0]),
                 *w[1:])
        for piece in _leaders(_pieces(w, gap, usual)):
            reason = _apart(piece, usual)
            if reason:
                aside.append((piece, reason))
            else:
                kept.append(piece)
    return _wrapped_numbers(_stacked_on_its_side(kept, aside)), aside


_SIDE_EDGE = 0.1  # points: a line turned on its side sets every word at one left and right


def _stacked_on_its_side(kept: list, aside: list) -> list:
    """The words of a line turned on its side too short to show it ('09' reads as tall as it
    is wide): each one right above or below a word turned on its side, across exactly its
    left and right edges, is set aside with it (``aside`` grows); the rest are returned.
    Upright words of other lengths never share both edges so."""
    side = [w for w, why in aside if why == "text turned on its side"]
    while side:
        found = [w for w in kept if any(
            abs(w[1] - s[1]) <= _SIDE_EDGE and abs(w[2] - s[2]) <= _SIDE_EDGE
            and max(w[3], s[3]) - min(w[4], s[4]) <= w[2] - w[1] for s in side)]
        kept = [w for w in kept if not any(w is f for f in found)]
        aside += [(w, "text turned on its side") for w in found]
        side = found
    return kept


# A number a narrow cell wraps where a space groups its thousands: '181' over '081,39'.
_HEAD_DIGITS = re.compile(r"[-+(]?\d{1,3}")
_TAIL_GROUPS = re.compile(r"\d{3}(?:[.,'’]\d{3})*[.,]\d{1,2}\)?-?(?:[A-Za-z]{1,2})?")  # '436,35DR'
_CODE = re.compile(r"[A-Za-z]{1,2}")  # a sign code set after an amount ('H', 'Cr')
_WRAP_ALIGN = 1.5  # points: the two parts share the cell's left or right edge
_WRAP_STEP = 1.8  # line heights: the tail on the very next line


def _wrapped_numbers(words: list) -> list:
    """Each number cut over two lines at a thousands group, joined into one word on its
    first line: 1-3 digits with nothing after them, and right under them, sharing their
    cell's edge with nothing between, a run of 3-digit groups that ends in decimals.
    Where no number is cut so, the words are returned unchanged."""
    heads = [i for i, w in enumerate(words) if _HEAD_DIGITS.fullmatch(w[0])]
    if not heads:
        return words
    tails = [j for j, w in enumerate(words) if _TAIL_GROUPS.fullmatch(w[0])]
    joined, gone = {}, set()
    for i in heads:
        u = words[i]
        for j in tails:
            t = words[j]
            if j in gone or not 0 < t[3] - u[3] <= _WRAP_STEP * (u[4] - u[3]):
                continue
            if min(abs(t[1] - u[1]), abs(_cell_end(words, t) - u[2])) > _WRAP_ALIGN:
                continue
            if any(k not in (i, j) and w[3] > u[3] + 0.5 and w[3] < t[3] - 0.5
                   and min(w[2], t[2], u[2]) - max(w[1], min(t[1], u[1])) > 0
                   for k, w in enumerate(words)):
                continue  # something printed between them: two cells, not one
            lead = _groups_before(words, i)
            gone.update(lead)
            start = [words[k] for k in lead] + [u]
            # on its first line; its eighth field is where its last part stands, under
            # which the row's text goes on (``engine``)
            joined[i] = (" ".join(w[0] for w in start + [t]), min(start[0][1], t[1]),
                         max(u[2], t[2]), u[3], u[4], u[5], u[6] if len(u) > 6 else None, t[3])
            gone.add(j)
            break
    if not joined:
        return words
    return [joined.get(i, w) for i, w in enumerate(words) if i not in gone]


def _groups_before(words: list, i: int) -> list:
    """The indices of the groups a figure's head prints before its last ('1' of '1 023'
    over '742,77'), each 1-3 digits a narrow space before the next, in order."""
    lead, u = [], words[i]
    while re.fullmatch(r"\d{3}", u[0]):
        k = next((k for k, w in enumerate(words) if abs(w[3] - u[3]) < 0.5 and
                  re.fullmatch(r"\d{1,3}", w[0]) and 0 <= u[1] - w[2] <= (u[4] - u[3]) / 2), None)
        if k is None or k in lead:
            break
        lead.insert(0, k)
        u = words[k]
    return lead


def _cell_end(words: list, t: tuple) -> float:
    """Where the cell of the amount ``t`` ends: after its sign code, where one follows it a
    space away on its line ('289,68' 'H')."""
    code = [w for w in words if _CODE.fullmatch(w[0]) and abs(w[3] - t[3]) < 0.5
            and 0 <= w[1] - t[2] <= 0.5 * (t[4] - t[3])]
    return max([t[2]] + [w[2] for w in code])


def _page_size(words: list) -> float:
    """The size most of the page's glyphs are printed in (a word counts once per glyph)."""
    count: dict = {}
    for w in words:
        size = round(float(w[6]), 1) if len(w) > 6 else round(w[4] - w[3], 1)
        count[size] = count.get(size, 0) + len(w[0])
    return max(count, key=count.get) if count else 0.0


def _size(w: tuple) -> float:
    return float(w[6]) if len(w) > 6 and w[6] else float(w[4] - w[3])


def _pieces(w: tuple, gap: float | None, usual: float) -> list:
    """The word cut where its glyphs stand ``gap`` em apart or change between the page's
    usual size and a watermark's; one engine word when nothing cuts it."""
    runs = w[7] if len(w) > 7 else ()
    font = w[5] if len(w) > 6 and isinstance(w[5], str) else None
    if len(w) > 8 and w[8]:  # glyphs of no width stacked: the text in the order drawn
        return [(w[8], w[1], w[2], w[3], w[4], _size(w), font)]
    if not runs:
        return [(w[0], w[1], w[2], w[3], w[4], _size(w), font)]
    cuts = [0]
    for i in range(1, len(runs)):
        a, b = runs[i - 1], runs[i]
        far = gap is not None and b[1] - a[2] >= gap * max(a[5], b[5])
        # a capital drawn over the letter before it: two names overlapping ('MemoMoney')
        over = b[1] < a[2] and w[0][b[0] - 1:b[0]].islower() and w[0][b[0]:b[0] + 1].isupper()
        if far or over or _outsized(a[5], usual) != _outsized(b[5], usual):
            cuts.append(i)
    cuts.append(len(runs))
    out = []
    for i, j in zip(cuts, cuts[1:]):
        start = runs[i][0]
        end = runs[j][0] if j < len(runs) else len(w[0])
        group = runs[i:j]
        out.append((w[0][start:end], group[0][1], max(r[2] for r in group),
                    min(r[3] for r in group), max(r[4] for r in group),
                    max(r[5] for r in group), font))
    return [p for p in out if p[0].strip()]


def _leaders(pieces: list) -> list:
    """A word that joins names with dot leaders, as a mainframe's heading does
    ('DATE..........AMOUNT.TRANSACTION'), cut into its names; each name placed by its
    share of the word's characters (exact in the fixed-pitch fonts that print them)."""
    out = []
    for w in pieces:
        if not _LEADER.search(w[0]):
            out.append(w)
            continue
        step = (w[2] - w[1]) / max(1, len(w[0]))
        start = 0
        for m in list(_DOTS.finditer(w[0])) + [None]:
            end = m.start() if m else len(w[0])
            name = w[0][start:end].strip(".")
            if name:
                lead = start + len(w[0][start:end]) - len(w[0][start:end].lstrip("."))
                out.append((name, w[1] + lead * step, w[1] + (lead + len(name)) * step,
                            *w[3:7]))
            start = m.end() if m else end
    return out


def _outsized(size: float, usual: float) -> bool:
    return usual > 0 and size >= WATERMARK_SIZE * usual


def _apart(w: tuple, usual: float) -> str:
    """Why a word is no part of the table's lines, or '' when it is."""
    if _CID.fullmatch(w[0]):
        return "glyphs that map to no character (the font has no Unicode map)"
    if _outsized(w[5], usual):
        return f"watermark: text {w[5] / usual:.0f} times the size of the page's text"
    height = w[4] - w[3]
    if len(w[0]) > 1 and w[5] and height >= ON_ITS_SIDE * w[5] and height > w[2] - w[1]:
        return "text turned on its side"
    return ""
