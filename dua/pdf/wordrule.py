"""pdfplumber's word rule over characters read by pdfium: lines, words, ligatures.

The lowest module of the word reader (``words``, ``chars`` and ``fonts`` import it; it
imports none of them). Copied verbatim with them into every generated parser: standard
library only.
"""
from __future__ import annotations


class _PdfiumUnmapped(Exception):
    """Characters pdfium reads but cannot map onto pdfminer's: pdfplumber reads them."""


def _usual_size(sizes):
    """A word's most common size: one odd glyph (an OCR layer's) does not decide it."""
    sizes = [round(float(s), 2) for s in sizes]
    return max(set(sizes), key=sizes.count)


_LIGATURES = {"\ufb00": "ff", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb01": "fi", "\ufb02": "fl",
              "\ufb06": "st", "\ufb05": "st"}  # pdfplumber expands these in words
_LIGATURE_OF = {v: k for k, v in _LIGATURES.items()}


# pdfium places glyphs in single precision and pdfminer in double: where a decision of
# the word rule turns on less than this (points; measured errors stay under 0.00025), the
# page falls back rather than guess which side pdfminer's sums land on
_NEAR = 0.001


def _char_lines(chars):
    """pdfplumber's lines, as ``(line of each top, lines)``: tops chained within 3 pt,
    each line's characters by x0, ties in reading order as pdfplumber keeps them."""
    from operator import itemgetter

    line_of, line, last = {}, -1, None
    for top in sorted({c[3] for c in chars}):
        if last is None or top > last + 3:
            line += 1
        if last is not None and abs(top - last - 3) < _NEAR:
            raise _PdfiumUnmapped("two lines 3 pt apart, within the readers' rounding")
        line_of[top], last = line, top
    lines = [[] for _ in range(line + 1)]
    for c in chars:
        lines[line_of[c[3]]].append(c)
    for row in lines:
        row.sort(key=itemgetter(1))
    return line_of, lines


def _cluster_words(lines):
    """pdfplumber's default word rule: in a line, a word ends at a blank, a gap over 3 pt
    or a 3 pt jump in top (a step back cannot happen once the line is sorted by x0)."""
    words = []
    for row in lines:
        word, end, top, last = [], 0.0, 0.0, row[0]
        for c in row:
            if c[1] - last[1] < _NEAR and c is not last:
                _check_tie(last, c)
            last = c
            if c[0].isspace():
                if word:
                    _add_word(words, word)
                    word = []
            else:
                if word and (c[1] > end + 3 or abs(c[3] - top) > 3):
                    _add_word(words, word)
                    word = []
                if word and (abs(c[1] - end - 3) < _NEAR or abs(abs(c[3] - top) - 3) < _NEAR):
                    raise _PdfiumUnmapped("a gap of 3 pt, within the readers' rounding")
                word.append(c)
                end, top = c[2], c[3]
        if word:
            _add_word(words, word)
    return words


def _check_tie(first, second):
    """Two glyphs at one x keep the order they were drawn in, as pdfminer's do, only where
    pdfminer's x is the same too: after a glyph of no width, in one text object."""
    if first[1] != second[1] or first[7] != second[7]:
        raise _PdfiumUnmapped("two glyphs at nearly one x, whose order pdfminer's sums decide")


def _add_word(words, chars):
    first = chars[0]
    text, x0, x1, top, bottom, _, sizes, _ = zip(*chars)  # the columns, in one C call
    runs = _runs(text, x0, x1, top, bottom, sizes) if len(chars) > 1 else ()
    text = "".join(text)
    if not text.isascii():
        text = "".join([_LIGATURES.get(t, t) for t in text])
    size = first[6]
    if sizes.count(size) != len(sizes):
        size = _usual_size(sizes)
    words.append((text, first[1], max(x1), min(top), max(bottom), first[5],
                  round(float(size), 2), runs))


# Glyphs of one word further apart than this, or of sizes further apart than _RUN_SIZE
# times, start a new run: a word pdfplumber joined across a gap a statement needs (words
# told apart only by gaps, text touching across a column's edge, a watermark's glyph).
_RUN_GAP = 0.5
_RUN_SIZE = 1.5


def _runs(texts, x0s, x1s, tops, bottoms, sizes):
    """The runs of a word's glyphs, as ``(offset in the word's text, x0, x1, top, bottom,
    size)``; ``()`` when the word is one run, as nearly every word is."""
    cuts = [i for i in range(1, len(texts)) if x0s[i] - x1s[i - 1] > _RUN_GAP
            or not sizes[i] * _RUN_SIZE >= sizes[i - 1] >= sizes[i] / _RUN_SIZE]
    if not cuts:
        return ()
    out, offset, bounds = [], 0, [0] + cuts + [len(texts)]
    for a, b in zip(bounds, bounds[1:]):
        out.append((offset, x0s[a], max(x1s[a:b]), min(tops[a:b]), max(bottoms[a:b]),
                    round(float(_usual_size(sizes[a:b])), 2)))
        offset += sum(len(_LIGATURES.get(t, t)) for t in texts[a:b])
    return tuple(out)
