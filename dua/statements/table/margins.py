"""Pages that print the same table at another left margin.

A statement printed for both sides of the paper sets its even pages a few points over
from its odd ones: the same columns, every one moved by the same distance. The rivers
between columns are found on all pages' rows at once, so a table moved by more than a
narrow gutter fills its own rivers. Only the search for rivers is moved into one frame;
each word keeps where it stands, and cells are still cut by where words start.
"""
from __future__ import annotations

import statistics

_AGREE = 1.0  # points: two columns moved by the same distance, to the rounding of a glyph
_MOST = 0.8  # of a page's rows share an edge: a column every row fills, not money in or out
_SPACE = 0.5  # heights: a gap this wide between two columns' words is a gutter, no word space


def page_shifts(candidates: list) -> dict:
    """``{page: dx}``: the distance each page's rows stand from the page with the most rows,
    where both sides of the first gutter its rows share (``_gutter``) moved by it, and
    moving the page lays more of the edges its columns share on the main page's than
    leaving it; pages that did not move, or moved their columns apart, are left out."""
    by_page = {}
    for page, line in candidates:
        by_page.setdefault(page, []).append(line)
    if len(by_page) < 2:
        return {}
    edges = {p: _edges(lines) for p, lines in by_page.items()}
    gutters = {p: _gutter(by_page[p], edges[p]) for p in by_page}
    main = max(by_page, key=lambda p: len(by_page[p]))
    if gutters[main] is None:
        return {}
    shifts = {}
    for page, found in gutters.items():
        if page == main or found is None:
            continue
        first, second = (found[i] - gutters[main][i] for i in (0, 1))
        dx = (first + second) / 2
        if abs(first - second) <= _AGREE and abs(first) > _AGREE and \
                _laid(edges[page], edges[main], dx) > _laid(edges[page], edges[main], 0.0):
            shifts[page] = dx
    return shifts


def aligned(candidates: list) -> list:
    """The candidate lines, each page's moved into the frame of the page with the most rows."""
    shifts = page_shifts(candidates)
    return [[(w[0], w[1] - shifts[p], w[2] - shifts[p]) + tuple(w[3:]) for w in line]
            if p in shifts else line for p, line in candidates]


def _edges(lines: list) -> list:
    """``[(x, 'start' or 'end')]``: where nearly every row starts a word (a date, a
    description) or ends one (money set flush right), left to right."""
    if len(lines) < 2:
        return []
    return sorted([(x, "end") for x in _shared(lines, 2)] +
                  [(x, "start") for x in _shared(lines, 1)])


def _gutter(lines: list, edges: list) -> tuple | None:
    """The two sides of the first gutter the rows share: one column's words end there, the
    next column's start, wider apart than a word space and with no word across."""
    if not lines:
        return None
    heights = sorted(w[4] - w[3] for line in lines for w in line)
    space = _SPACE * heights[len(heights) // 2]
    for (left, kind), (right, other) in zip(edges, edges[1:]):
        middle = (left + right) / 2
        if (kind, other) == ("end", "start") and right - left > space and \
                not any(w[1] < middle < w[2] for line in lines for w in line):
            return left, right
    return None


def _laid(edges: list, main: list, dx: float) -> int:
    """How many of ``edges``, moved back ``dx``, stand on an edge of the same kind in ``main``."""
    return sum(1 for x, kind in edges
               if any(k == kind and abs(x - dx - m) <= _AGREE for m, k in main))


def _shared(lines: list, side: int) -> list:
    """Where words start (``side`` 1) or end (2) on nearly every line, to a glyph's rounding."""
    out: list = []
    for x in sorted({round(w[side]) for line in lines for w in line}):
        near = [[w[side] for w in line if abs(w[side] - x) <= _AGREE / 2] for line in lines]
        if sum(1 for n in near if n) >= _MOST * len(lines) and \
                not any(abs(x - o) <= _AGREE for o in out):
            out.append(statistics.median(v for n in near for v in n))
    return out
