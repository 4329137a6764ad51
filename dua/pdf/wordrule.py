"""pdfplumber's word rule over pdfminer's characters: lines, words, ligatures, and what
a statement needs beyond pdfplumber's word (where its glyphs stand apart; its text in the
order drawn).

The lowest module of the word reader (``words``, ``chars``, ``content`` and ``fonts`` import
it; it imports none of them). Copied verbatim with them into every generated parser:
standard library only.
"""
from __future__ import annotations


class _Refused(Exception):
    """What the reader does not read as pdfminer does: pdfplumber reads the page (or the
    file) instead, and the message says why."""


def _usual_size(sizes):
    """A word's most common size: one odd glyph (an OCR layer's) does not decide it."""
    sizes = [round(float(s), 2) for s in sizes]
    return max(set(sizes), key=sizes.count)


_LIGATURES = {"\ufb00": "ff", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb01": "fi", "\ufb02": "fl",
              "\ufb06": "st", "\ufb05": "st"}  # pdfplumber expands these in words


def _words(chars):
    """pdfplumber's ``extract_words()`` with its default settings, over characters in the
    order pdfminer drew them: runs of upright and of turned glyphs apart, each cut into
    lines, each line sorted and cut into words."""
    from itertools import groupby
    from operator import itemgetter

    words = []
    for upright, run in groupby(chars, itemgetter(7)):
        # a turned run's lines stand by x0, its glyphs in them by top then bottom
        key, order = (3, itemgetter(1)) if upright else (1, itemgetter(3, 4))
        for line in _lines(list(run), key):
            line.sort(key=order)
            _cut(words, line, upright)
    return words


def _lines(chars, key):
    """pdfplumber's ``cluster_objects``: values chained within 3 pt are one line; lines in
    the order of their values, the characters of each in their own order."""
    line_of, line, last = {}, -1, None
    for value in sorted({c[key] for c in chars}):
        if last is None or value > last + 3:
            line += 1
        line_of[value], last = line, value
    lines = [[] for _ in range(line + 1)]
    for c in chars:
        lines[line_of[c[key]]].append(c)
    return lines


def _cut(words, line, upright):
    """pdfplumber's word rule: a blank ends a word; a glyph starts one where it stands
    before the last glyph's start, more than 3 pt past its end, or more than 3 pt across
    from it (along x0, x1 and across top on an upright line; along top, bottom and across
    x0 on a turned one)."""
    start, end, across = (1, 2, 3) if upright else (3, 4, 1)
    word, last = [], None
    for c in line:
        if c[0].isspace():
            if word:
                _add_word(words, word)
                word = []
            continue
        if word and (c[start] < last[start] or c[start] > last[end] + 3
                     or abs(c[across] - last[across]) > 3):
            _add_word(words, word)
            word = []
        word.append(c)
        last = c
    if word:
        _add_word(words, word)


def _add_word(words, chars):
    if len(chars) == 1:  # a word of one glyph: its own box
        c = chars[0]
        words.append((_LIGATURES.get(c[0], c[0]), c[1], c[2], c[3], c[4], c[5],
                      round(c[6], 2), (), ""))
        return
    texts, x0, x1, top, bottom, _, sizes, _, places = zip(*chars)  # the columns, in one call
    runs = _runs(texts, x0, x1, top, bottom, sizes)
    stream = _stream(texts, x0, x1, places)
    text = "".join(texts)
    if not text.isascii():
        text = "".join([_LIGATURES.get(t, t) for t in texts])
    size = sizes[0]
    size = round(float(size if sizes.count(size) == len(sizes) else _usual_size(sizes)), 2)
    words.append((text, min(x0), max(x1), min(top), max(bottom), chars[0][5], size, runs,
                  stream))


def _stream(texts, x0s, x1s, places):
    """The word's text in the order its glyphs were drawn, where it holds two or more
    glyphs of no width and that order is not the order along the line; else ''.
    Glyphs of no width stand where the next is drawn, so that x sorts such a stack
    in any order (a statement prints 'cc@google.co' that pdfplumber reads 'o.cegoogl@cc')."""
    from operator import eq

    if sum(map(eq, x0s, x1s)) < 2 or list(places) == sorted(places):
        return ""
    ordered = sorted(zip(places, texts))
    return "".join(_LIGATURES.get(t, t) for _, t in ordered)


# Glyphs of one word further apart than this, or of sizes further apart than _RUN_SIZE
# times, start a new run: a word pdfplumber joined across a gap a statement needs (words
# told apart only by gaps, text touching across a column's edge, a watermark's glyph).
_RUN_GAP = 0.5
_RUN_SIZE = 1.5
_OVERLAP = 0.5  # pt a glyph may be drawn over the one before it in one word


def _runs(texts, x0s, x1s, tops, bottoms, sizes):
    """The runs of a word's glyphs, as ``(offset in the word's text, x0, x1, top, bottom,
    size)``; ``()`` when the word is one run, as nearly every word is. A capital drawn over
    the lower-case letter before it also starts a run: two names set too close ('Memo'
    left-aligned in a narrow column, 'Money' right-aligned beside it, 1.2 pt over its 'o');
    a word's own letters touch, or overlap by a kerning pair's few tenths."""
    from operator import sub

    gaps = list(map(sub, x0s[1:], x1s))
    if sizes.count(sizes[0]) == len(sizes) and max(gaps) <= _RUN_GAP and \
            min(gaps) >= -_OVERLAP:
        return ()  # one size, no gap: one run (most words)
    cuts = [i for i in range(1, len(texts)) if gaps[i - 1] > _RUN_GAP
            or not sizes[i] * _RUN_SIZE >= sizes[i - 1] >= sizes[i] / _RUN_SIZE
            or (gaps[i - 1] < -_OVERLAP and texts[i - 1].islower() and texts[i].isupper())]
    if not cuts:
        return ()
    out, offset, bounds = [], 0, [0] + cuts + [len(texts)]
    for a, b in zip(bounds, bounds[1:]):
        out.append((offset, x0s[a], max(x1s[a:b]), min(tops[a:b]), max(bottoms[a:b]),
                    round(float(_usual_size(sizes[a:b])), 2)))
        offset += sum(len(_LIGATURES.get(t, t)) for t in texts[a:b])
    return tuple(out)
