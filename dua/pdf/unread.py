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
