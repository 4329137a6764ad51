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


def page_shifts(candidates: list) -> dict:
    """``{page: dx}``: the distance each page's rows stand from the page with the most rows,
    where their first two columns' left edges both moved by it; pages that did not move,
    or moved their columns apart, are left out."""
    by_page = {}
    for page, line in candidates:
        by_page.setdefault(page, []).append(line)
    if len(by_page) < 2:
        return {}
    edges = {p: _left_edges(lines) for p, lines in by_page.items()}
    main = max(by_page, key=lambda p: len(by_page[p]))
    if edges[main] is None:
        return {}
    shifts = {}
    for page, found in edges.items():
        if page == main or found is None:
            continue
        first, second = (found[i] - edges[main][i] for i in (0, 1))
        if abs(first - second) <= _AGREE and abs(first) > _AGREE:
            shifts[page] = (first + second) / 2
    return shifts


def aligned(candidates: list) -> list:
    """The candidate lines, each page's moved into the frame of the page with the most rows."""
    shifts = page_shifts(candidates)
    return [[(w[0], w[1] - shifts[p], w[2] - shifts[p]) + tuple(w[3:]) for w in line]
            if p in shifts else line for p, line in candidates]


def _left_edges(lines: list) -> tuple | None:
    """The median left edge of the rows' first and second words (None: too few rows)."""
    two = [ln for ln in lines if len(ln) >= 2]
    if len(two) < 2:
        return None
    return statistics.median(ln[0][1] for ln in two), statistics.median(ln[1][1] for ln in two)
