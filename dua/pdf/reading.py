"""Words as a reader sees them: the document pipeline's word rule (``dua extract``).

pdfplumber's rule (``wordrule``, the one generated parsers rely on) joins glyphs less than
3 pt apart, whatever the size: typeset text, whose word spaces TeX shrinks to 0.22 em, comes
out as ``thestandardstyles;``. This rule measures a gap against the glyphs' own size, as a
typesetter spaces them; it sets apart a mark raised or lowered at a smaller size (a
footnote's number before a word), keeps an accent drawn over its letter with it, reads a
mark set over or under a group of glyphs apart from them (an equation's wide hat, brace or
arrow), and reads turned text in the order it was drawn. A typesetter draws a word's glyphs
one after the other: two drawn apart join only where they touch, and symbols of one font
stepping off each other's baseline are a formula's pieces, not one word. Over the reader's
characters (``chars``), standard library only; never copied into parsers.
"""
from __future__ import annotations

import unicodedata
from bisect import bisect_left, bisect_right
from itertools import groupby
from operator import itemgetter

from .wordrule import _LIGATURES, _lines, _usual_size

# A gap wider than this share of the glyphs' size is a word space. Typefaces put no more
# between the letters of a word (kerns and italic corrections stay under 0.05 em); the
# narrowest word space they set is well above it (TeX shrinks cmr10's 0.333 em space to
# 0.222 em at most, Times' space is 0.25 em, a monospaced one a whole cell). poppler's
# pdftotext breaks at the same tenth of the size.
WORD_GAP = 0.1
# A glyph set at a size this many times another's, and standing off its baseline by more
# than SHIFT of the larger size, is a superscript or subscript: a word of its own.
SIZE_STEP = 1.1
SHIFT = 0.15
# A line of at least TRACKED glyphs that all stand apart is spaced out: a gap is a word
# space there when it is SPACED times the narrowest.
TRACKED = 6
SPACED = 2.0
STEP = 0.5  # points: symbols of one size whose baselines differ by more are pieces apart
APART = 0.1  # of WORD_GAP: glyphs not drawn one after the other part this far off
LAYERS = 8  # rows of marks over one another a line is searched for a mark's place
ACROSS = 3.0  # points: a glyph further across the line than this starts a word (pdfplumber's)


def reading_words(chars: list) -> list:
    """The words of a page's characters (``[text, x0, x1, top, bottom, font, size,
    upright, place]`` in the order drawn), as ``wordrule._words`` gives them: runs of upright
    and of turned glyphs apart, each cut into lines. An upright line is read left to right;
    a turned one in the order it was drawn, along the axis its glyphs advance on (a page
    turned a half or a quarter, or a font whose matrix flips its glyphs)."""
    words: list = []
    for upright, run in groupby(chars, itemgetter(7)):
        run = list(run)
        across = upright or not _advances_down(run)
        key, order = (3, itemgetter(1)) if upright else (3 if across else 1, itemgetter(8))
        for line in _lines(run, key):
            line.sort(key=order)
            if not upright:
                _cut(words, line, upright, across)
                continue
            for row in _unstacked(_accented(line)):
                _cut(words, row, upright, across)
    return words


def _advances_down(run: list) -> bool:
    """Whether most of a turned run's glyphs stand below or above the one drawn before
    rather than beside it: text set up or down the page."""
    down = sum(abs(b[3] - a[3]) > abs(b[1] - a[1]) for a, b in zip(run, run[1:]))
    return 2 * down > len(run) - 1


def _cut(words: list, line: list, upright: bool, across: bool) -> None:
    """Words of one line: a drawn space ends one, and so does a word space's gap: the gap
    between two boxes along the line against the larger glyph's size (its height on a line
    across the page, its width on one up or down it)."""
    least = _letter_spacing(line) if across else 0.0
    word: list = []
    last = None
    for c in line:
        if c[0].isspace():
            if word:
                _add_word(words, word)
                word = []
            continue
        if word:
            if across:  # inline: this runs once a glyph
                gap = c[1] - last[2]
                if gap < 0.0 and last[1] - c[2] > gap:
                    gap = last[1] - c[2]
                limit = WORD_GAP * (c[6] if c[6] > last[6] else last[6])
                starts = gap > (limit if limit > least else least) or \
                    abs(c[3] - last[3]) > ACROSS or \
                    (upright and c[6] != last[6] and _script(last, c)) or \
                    (c[8] != last[8] + 1 and gap > APART * limit) or \
                    (c[6] == last[6] and abs(c[4] - last[4]) > STEP and _pieces(last, c))
            else:
                gap = max(c[3] - last[4], last[3] - c[4])
                starts = gap > WORD_GAP * max(c[2] - c[1], last[2] - last[1])
            if starts:
                _add_word(words, word)
                word = []
        word.append(c)
        last = c
    if word:
        _add_word(words, word)


def _add_word(words: list, chars: list) -> None:
    """The word of ``chars`` as ``wordrule._add_word`` makes it, less what only statements
    read (where its glyphs stand apart, its text in the order drawn): no runs, no stream."""
    if len(chars) == 1:
        c = chars[0]
        words.append((_LIGATURES.get(c[0], c[0]), c[1], c[2], c[3], c[4], c[5],
                      round(c[6], 2), (), ""))
        return
    texts, x0, x1, top, bottom, _, sizes, _, _ = zip(*chars)
    text = "".join(texts)
    if not text.isascii():
        text = "".join([_LIGATURES.get(t, t) for t in texts])
    size = sizes[0] if sizes.count(sizes[0]) == len(sizes) else _usual_size(sizes)
    words.append((text, min(x0), max(x1), min(top), max(bottom), chars[0][5],
                  round(float(size), 2), (), ""))


def _letter_spacing(line: list) -> float:
    """The least gap a word space can be on a line whose letters all stand apart (spaced
    out, as a title in capitals is): twice the narrowest gap between them; 0.0 on a line
    where two letters stand closer than a word space, as set text's do."""
    if len(line) < TRACKED:
        return 0.0
    glyphs = [c for c in line if not c[0].isspace()]
    if len(glyphs) < TRACKED:
        return 0.0
    narrowest = None
    for a, b in zip(glyphs, glyphs[1:]):
        gap = b[1] - a[2]
        if gap <= WORD_GAP * (a[6] if a[6] > b[6] else b[6]):
            return 0.0  # two letters touch: set text (most lines end here, at once)
        narrowest = gap if narrowest is None or gap < narrowest else narrowest
    return SPACED * narrowest


def _pieces(last: list, c: list) -> bool:
    """Two symbols of one font, as a formula builds a radical or a brace of pieces."""
    return c[5] == last[5] and unicodedata.category(c[0][0])[0] == "S" and \
        unicodedata.category(last[0][0])[0] == "S"


def _script(last: list, c: list) -> bool:
    """A superscript or subscript: another size on another baseline, not overlapping (an
    accent drawn over its letter overlaps it)."""
    small, big = sorted((c[6], last[6]))
    if small <= 0 or big < SIZE_STEP * small or c[1] < last[2] - 0.01 * big:
        return False
    return abs(c[4] - last[4]) > SHIFT * big


def _accented(line: list) -> list:
    """The line with each accent drawn apart over a letter composed with it ("e" and "´"
    as "é"), where Unicode has the composed letter; an accent standing alone stays."""
    if _COMBINING.keys().isdisjoint([c[0] for c in line]):
        return line  # no accent drawn apart (nearly every line)
    out: list = []
    for c in line:
        prev = out[-1] if out else None
        if prev is not None and c[0] in _COMBINING and _over(c, prev):
            composed = _composed(prev, c, prev)  # the accent drawn right of the letter's start
        elif prev is not None and prev[0] in _COMBINING and _over(prev, c):
            composed = _composed(c, prev, c)  # the accent starts left of its letter
        else:
            composed = None
        if composed:
            out[-1] = composed
        else:
            out.append(c)
    return out


def _unstacked(line: list) -> list:
    """The line's rows: the line itself, less the marks set over or under a group of its
    glyphs or built of pieces (a wide hat over 'bcd', a brace under 'aaaaa', an arrow over
    'dr'), which are rows of their own, one for each layer of marks: read in the line's
    order, such a mark falls between the letters it spans ('b^cd'). A combining mark alone
    over one glyph is written after that glyph, as Unicode writes a mark after its letter,
    at whatever height the line holds it."""
    if not any(_is_mark(c) for c in line if not c[0].isascii()) or \
            not any(map(_stacked, line, line[1:])):
        return [line]  # no mark, or none drawn over another glyph (nearly every line)
    base = [c for c in line if not c[0].isspace() and not _is_mark(c)]
    starts = [c[1] for c in base]
    widest = max([c[2] - c[1] for c in base], default=0.0)
    layers: list = []
    carried: dict = {}
    moved: set = set()
    for run in _mark_runs(line):
        under = [] if len(run) > 1 else _under(run[0], base, starts, widest)
        if len(run) > 1 or len(under) > 1:
            _into_layers(layers, run)
        elif under and unicodedata.category(run[0][0][0]) == "Mn":
            carried[id(under[0])] = carried.get(id(under[0]), "") + run[0][0]
        else:
            continue
        moved.update(id(m) for m in run)
    row = [[c[0] + carried[id(c)]] + c[1:] if id(c) in carried else c
           for c in line if id(c) not in moved]
    return [row] + layers


def _under(mark: list, base: list, starts: list, widest: float) -> list:
    """Up to two of the glyphs ``mark`` is drawn over (``base``, in the line's order, starts
    at ``starts``, none wider than ``widest``): no more are needed to tell a group."""
    found = []
    for glyph in base[bisect_left(starts, mark[1] - widest):bisect_right(starts, mark[2])]:
        if _stacked(mark, glyph):
            found.append(glyph)
            if len(found) == 2:
                break
    return found


def _mark_runs(line: list) -> list:
    """The line's marks and symbols, in runs of those that touch the one before."""
    runs: list = []
    for c in line:
        if _is_mark(c):
            if runs and min(runs[-1][-1][2], c[2]) >= max(runs[-1][-1][1], c[1]):
                runs[-1].append(c)
            else:
                runs.append([c])
    return runs


def _into_layers(layers: list, marks: list) -> None:
    """Each mark into the first layer whose last mark it is not drawn over, or a new one;
    past LAYERS deep (no equation stacks so many) a new one at once, in linear time."""
    for mark in marks:
        layer = next((layer for layer in layers[:LAYERS] if not _stacked(layer[-1], mark)),
                     None)
        if layer is None:
            layers.append([mark])
        else:
            layer.append(mark)


def _is_mark(c: list) -> bool:
    """A mark, an accent or a symbol: what may be set over or under letters. ASCII's are
    operators and signs, which stand among letters, or accents ``_accented`` composes."""
    return not c[0].isascii() and unicodedata.category(c[0][0])[0] in "MS"


def _stacked(a: list, b: list) -> bool:
    """Whether one glyph is drawn over the other rather than beside it: they overlap by more
    than half the narrower one, or one of no width stands inside the other."""
    wide_a, wide_b = a[2] - a[1], b[2] - b[1]
    if wide_a > 0 and wide_b > 0:
        return min(a[2], b[2]) - max(a[1], b[1]) > 0.5 * min(wide_a, wide_b)
    point, span = (a, b) if wide_a <= 0 else (b, a)
    return span[1] < point[1] < span[2]


def _composed(letter: list, mark: list, fields: list) -> list | None:
    base = _DOTTED.get(letter[0], letter[0])  # TeX sets \^\i as a dotless i under the accent
    text = unicodedata.normalize("NFC", base + _COMBINING[mark[0]])
    if len(text) != 1:
        return None  # no such letter: the accent stays a glyph of its own
    return [text, min(letter[1], mark[1]), max(letter[2], mark[2]), min(letter[3], mark[3]),
            max(letter[4], mark[4])] + fields[5:]


def _over(mark: list, letter: list) -> bool:
    """The accent's box stands over the letter's: most of its width within the letter's."""
    inside = min(mark[2], letter[2]) - max(mark[1], letter[1])
    return inside > 0.5 * (mark[2] - mark[1])


# Spacing accents as fonts draw them, and the combining marks they stand for.
_COMBINING = {"\u00b4": "\u0301", "`": "\u0300", "\u02c6": "\u0302", "^": "\u0302",
              "\u02dc": "\u0303", "~": "\u0303", "\u00a8": "\u0308", "\u02d8": "\u0306",
              "\u02c7": "\u030c", "\u02da": "\u030a", "\u00b8": "\u0327", "\u02db": "\u0328",
              "\u02d9": "\u0307", "\u00af": "\u0304", "\u02dd": "\u030b"}
_DOTTED = {"\u0131": "i", "\u0237": "j"}
