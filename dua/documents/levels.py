"""Heading levels: the document's own numbering first (1, 1.1, 1.1.1), its sizes second.

A numbered heading's depth fixes its place under its siblings; an unnumbered one is placed
by its size against the numbered ones: above them where a heading of its size stands
before the numbering begins and is set larger (a title, a part, a chapter whose number is
printed elsewhere), beside or below them otherwise (an appendix after the last section).
Knows nothing of blocks: ``rules.Profile`` hands it the headings' texts and sizes.
"""
from __future__ import annotations

import collections
import re

SECTION_NUMBER = re.compile(r"^(\d{1,2}(?:\.\d{1,2}){0,4})\.?\s+\S")
_SAME_SIZE = 0.5  # points: sizes closer than this are one size
_DEEPEST = 6


def depth(text: str) -> int | None:
    """1 for "2 Methods", 2 for "2.3. Results"; None for an unnumbered heading."""
    m = SECTION_NUMBER.match(text)
    return m.group(1).count(".") + 1 if m else None


class HeadingLevels:
    """Levels for the headings of one document, given in reading order as ``(text, size)``;
    ``size_level`` ranks a size among the document's heading sizes (the fallback where the
    document numbers no heading)."""

    def __init__(self, headings: list, size_level) -> None:
        self.size_level = size_level
        sizes = collections.defaultdict(collections.Counter)
        first = None  # where the numbering begins
        for i, (text, size) in enumerate(headings):
            d = depth(text)
            if d is not None:
                sizes[d][round(size, 1)] += 1
                first = i if first is None else first
        self.depth_sizes = {d: c.most_common(1)[0][0] for d, c in sizes.items()}
        self.shallowest = min(self.depth_sizes, default=None)
        top = self.depth_sizes.get(self.shallowest, 0.0)
        # sizes set larger than the numbered headings and used before the numbering begins,
        # and any larger still (a part's, first used later)
        before = [size for text, size in headings[:first or 0]
                  if depth(text) is None and size > top + _SAME_SIZE]
        least = min(before, default=float("inf")) - _SAME_SIZE
        above = {round(size, 1) for text, size in headings if depth(text) is None and size >= least}
        self.above = _distinct(above)

    def level(self, text: str, size: float) -> int:
        """The level of a heading of ``text`` set at ``size``."""
        if self.shallowest is None:
            return self.size_level(size)
        k = len(self.above)
        d = depth(text)
        if d is not None:
            return min(k + 1 + max(d - self.shallowest, 0), _DEEPEST)
        for i, s in enumerate(self.above, 1):
            if abs(size - s) <= _SAME_SIZE or size > s:
                return min(i, _DEEPEST)
        # under the numbered depths set larger, beside the first one that is not
        larger = sum(1 for s in self.depth_sizes.values() if s > size + _SAME_SIZE)
        return min(k + 1 + larger, _DEEPEST)


def _distinct(sizes: set) -> list:
    """Sizes, largest first, with those closer than _SAME_SIZE to a larger one left out."""
    out: list = []
    for s in sorted(sizes, reverse=True):
        if not out or out[-1] - s > _SAME_SIZE:
            out.append(s)
    return out
