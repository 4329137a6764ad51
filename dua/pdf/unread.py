"""Ink no word covers: where tesseract's page reading left printed marks unread.

Read as one column of lines (``--psm 4``), a page sometimes loses a line: a short word wrapped
under a row ('PUMP' between a row and its next line, 10 pt apart), or a row beside a panel
of other text whose lines tesseract merged with the table's (a card statement's whole row,
'JUL15 PAYMENT-THANKYOU -$211.00'). Such ink is found here, as the page's dark pixels that
no word's box covers, grouped into blocks of a line's height; ``secondlook`` reads each again.
"""
from __future__ import annotations

CELL_INCHES = 1 / 30  # the grid ink is grouped on: about a letter's stroke apart (2.4 pt)
COVER_INCHES = 1 / 50  # a word's box reaches this far past its ink (a comma, an accent)
DARK_MARGIN = 48  # grey levels below the paper at which a pixel is ink (anti-aliased print
# edges and a scan's noise stay paper)
INK_PIXELS = 4  # dark pixels from which a cell holds ink, not a speck of noise
TALL = 1.1  # a line's letters reach this many times its x_size above its baseline (tesseract's
# x_size holds its capitals and ascenders)
LINE_INCHES = (0.05, 0.3)  # a block of text is a line's height: 3.6 to 21.6 pt (smaller is a
# speck or a rule's end, taller a picture or a logo)
SPACE = 0.5  # of a line's x_size: a glyph closer than this to a word is the word's (a space
# between words is wider)


def regions(image, lines: list, dpi: float) -> list:
    """``[(x0, top, x1, bottom)]`` in pixels: blocks of ink no word of ``lines`` covers, each
    of a line's height; ``image`` a 2-D array of grey (the page as tesseract saw it)."""
    import numpy  # lazy: only OCR needs it

    height, width = image.shape
    dark = image < int(numpy.median(image)) - DARK_MARGIN
    reach = max(1, int(dpi * COVER_INCHES))
    for line in lines:
        for w in line.words:
            top, bottom = band(line, w)
            dark[max(0, int(top) - reach):int(bottom) + reach + 1,
                 max(0, int(w.x0) - reach):int(w.x1) + reach + 1] = False
    cell = max(2, int(dpi * CELL_INCHES))
    rows, cols = height // cell, width // cell
    counts = dark[:rows * cell, :cols * cell].reshape(rows, cell, cols, cell).sum(axis=(1, 3))
    inked = {(int(r), int(c)) for r, c in zip(*numpy.nonzero(counts >= INK_PIXELS))}
    low, high = dpi * LINE_INCHES[0], dpi * LINE_INCHES[1]
    out = []
    for block in _blocks(inked):
        top, bottom = min(r for r, _ in block) * cell, (max(r for r, _ in block) + 1) * cell
        if low <= bottom - top <= high:
            out.append((min(c for _, c in block) * cell, top,
                        (max(c for _, c in block) + 1) * cell, bottom))
    return out


def beside(image, lines: list) -> list:
    """``[(line, k, x0, x1)]``: words whose box stops short of a glyph printed beside it,
    closer than a space, apart from the word's own ink and from the next word's by paper,
    and nearer the word than the next; the box widened over it. Tesseract left out the last
    '1' of '$2,918.81' (read whole alone, at 92%) and the 'H' of 'HowardBank.com'."""
    import numpy  # lazy: only OCR needs it

    dark = image < int(numpy.median(image)) - DARK_MARGIN
    out = []
    for line in lines:
        space = SPACE * line.x_size
        for k, w in enumerate(line.words):
            top, bottom = (int(v) for v in band(line, w))
            ink = dark[max(0, top):max(top + 1, bottom)].sum(axis=0)
            left = line.words[k - 1].x1 if k else 0
            right = line.words[k + 1].x0 if k + 1 < len(line.words) else len(ink)
            after = _glyph(ink, int(w.x1), 1, w.x1 + space, right)
            before = _glyph(ink, int(w.x0), -1, w.x0 - space, left)
            x1 = after[1] if after and after[0] - w.x1 < right - after[1] else w.x1
            x0 = before[1] + 1 if before and w.x0 - before[0] < before[1] - left else w.x0
            if x0 < w.x0 or x1 > w.x1:
                out.append((line, k, x0, x1))
    return out


def full_stops(image, words: list) -> list:
    """Of ``words`` (``[(line, k)]``), those whose first glyph is a full stop, within the
    word's box or before it nearer than a space: a blot no taller or wider than a third of
    the line's letters, on its baseline, paper after it, then the word's ink. Tesseract
    leaves a decimal point before digits out: RBC's '.15' came back '15' (its box over the
    point), at 89-97%, read alone and at any size."""
    import numpy  # lazy: only OCR needs it

    dark = image < int(numpy.median(image)) - DARK_MARGIN
    out = []
    for line, k in words:
        w = line.words[k]
        if not line.x_size:
            continue
        top = max(0, int(band(line, w)[0]))
        bottom = int(line.baseline(w.x0) + line.descent) + 1  # a comma reaches below
        left = int(line.words[k - 1].x1) + 1 if k else 0
        start = max(left, int(w.x0 - SPACE * line.x_size))
        rows = dark[top:max(top + 1, bottom), start:max(start, int(w.x1))]
        inked = rows.any(axis=0)
        if not inked.any():
            continue
        a = int(numpy.argmax(inked))
        b = a + int(numpy.argmin(inked[a:])) if not inked[a:].all() else len(inked)
        if not inked[b:].any():
            continue  # the blot is all the word holds
        ys = numpy.nonzero(rows[:, a:b].any(axis=1))[0]
        small = line.x_size / 3
        if b - a <= small and ys[-1] - ys[0] < small and \
                abs(top + ys[-1] - line.baseline(w.x0)) <= small / 2:
            out.append((line, k))
    return out


def _glyph(ink, edge: int, step: int, start: float, limit: float):
    """``(near, far)``: the columns where a glyph beyond a box's ``edge`` (going ``step``)
    starts and ends, past the word's own ink and a gap of paper: it starts before ``start``
    and ends before ``limit`` (the next word's box); None when there is none."""
    inside = (lambda i, end: i < end) if step > 0 else (lambda i, end: i > end)
    at = edge
    while inside(at, limit) and 0 <= at < len(ink) and ink[at]:  # the word's own ink
        at += step
    while inside(at, start) and 0 <= at < len(ink) and not ink[at]:
        at += step
    near, total = at, 0
    while inside(at, limit) and 0 <= at < len(ink) and ink[at]:
        total += int(ink[at])
        at += step
    if not inside(near, start) or not inside(at, limit) or total < INK_PIXELS:
        return None  # none, or it runs on into the next word
    return float(near), float(at)


def band(line, word) -> tuple:
    """(top, bottom) of ``word``'s box within its line's height: a box that runs over the line
    above ('PAYMENT' 64 px tall in a line of 31, the wrapped 'PUMP' over it) covers no ink
    of that line."""
    if not line.x_size:
        return word.top, word.bottom
    base = line.baseline(word.x0)
    return (max(word.top, base - TALL * line.x_size),
            min(word.bottom, base + line.descent))


def _blocks(inked: set) -> list:
    """The groups of cells that touch, a cell's width of paper between letters bridged (a word
    space is about one or two cells: the words of a line stay one block)."""
    seen, out = set(), []
    for start in sorted(inked):
        if start in seen:
            continue
        seen.add(start)
        block, todo = [], [start]
        while todo:
            r, c = todo.pop()
            block.append((r, c))
            for dr in (-1, 0, 1):
                for dc in (-3, -2, -1, 0, 1, 2, 3):
                    near = (r + dr, c + dc)
                    if near in inked and near not in seen:
                        seen.add(near)
                        todo.append(near)
        out.append(block)
    return out
