"""Words -> rows -> segments: the lines every block of a page is built from.

A row is the words sharing a baseline band; a segment is a run of a row's words with no
gap wider than a word space can be (a column gutter or a table's cell gap cuts it).
"""
from __future__ import annotations

import collections
import dataclasses

from ..schemas import Block, Line
from .rules import MARKER

_MARKER_GAP = 40.0  # points: a hanging list marker sits at most this far from its text
_SENTENCE_END = (".", "!", "?", ":", ";")


@dataclasses.dataclass
class Segment:
    """One line in the making: its words, and the flow (column) it is read in."""

    words: list
    flow: str = "full"
    # what ``body`` and ``line`` worked out, kept with the word count it was worked out for:
    # grouping asks each line for them again and again (a block's pitch, every pair)
    _memo: dict = dataclasses.field(default_factory=dict, repr=False, compare=False)

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def x1(self) -> float:
        return max(w.x1 for w in self.words)

    @property
    def top(self) -> float:
        return min(w.top for w in self.words)

    @property
    def bottom(self) -> float:
        return max(w.bottom for w in self.words)

    @property
    def size(self) -> float:
        return max(w.size for w in self.words)

    @property
    def body(self) -> tuple:
        """``(top, bottom)`` of most of the line's characters: a raised or lowered glyph
        (TeX's lowered E, a footnote's mark) does not move the line, as it moves its box."""
        memo = self._memo.get("body")
        if memo is None or memo[0] != len(self.words):
            spans = collections.Counter()
            for w in self.words:
                spans[(round(w.top, 1), round(w.bottom, 1))] += len(w.text)
            memo = self._memo["body"] = (len(self.words), spans.most_common(1)[0][0])
        return memo[1]

    def line(self) -> Line:
        memo = self._memo.get("line")
        if memo is None or memo[0] != len(self.words):
            memo = self._memo["line"] = (len(self.words), self._line())
        return memo[1]

    def _line(self) -> Line:
        fonts = collections.Counter()
        sizes = collections.Counter()
        for w in self.words:
            fonts[w.font] += len(w.text)
            sizes[w.size] += len(w.text)
        return Line(" ".join(w.text for w in self.words),
                    (round(self.x0, 2), round(self.top, 2), round(self.x1, 2), round(self.bottom, 2)),
                    fonts.most_common(1)[0][0], float(sizes.most_common(1)[0][0]))


def rows_of(words: list) -> list:
    """Words sharing a baseline band, each row sorted left to right (``words`` top-sorted)."""
    rows, cur, lo, hi = [], [], 0.0, 0.0
    for w in words:
        mid = (w.top + w.bottom) / 2
        if cur and lo <= mid <= hi:
            cur.append(w)
            continue
        if cur:
            rows.append(sorted(cur, key=lambda w: w.x0))
        cur, lo, hi = [w], w.top, w.bottom
    if cur:
        rows.append(sorted(cur, key=lambda w: w.x0))
    return rows


def split_row(row: list) -> list:
    """Cut a row into segments at gaps wider than a word space can be. A justified line
    stretches every space alike, so a gap counts against the row's narrowest one; a list
    marker stays with the text it is set apart from."""
    gaps = [b.x0 - a.x1 for a, b in zip(row, row[1:])]
    narrowest = min(gaps) if gaps else 0.0
    segs = [Segment([row[0]])]
    for w, gap in zip(row[1:], gaps):
        prev = segs[-1].words[-1]
        size = max(w.size, prev.size)
        limit = max(9.0, 1.2 * size, min(2.0 * narrowest, 2.5 * size))
        if prev.text.endswith(_SENTENCE_END) and w.text[:1].isupper():
            # the wider space a typesetter puts after a sentence, stretched three times as
            # much as the others (TeX's space factor)
            limit = max(limit, min(4.0 * narrowest, 2.5 * size))
        if len(segs[-1].words) == 1 and MARKER.match(prev.text) and gap < _MARKER_GAP:
            limit = _MARKER_GAP
        if gap > limit:
            segs.append(Segment([w]))
        else:
            segs[-1].words.append(w)
    return segs


def center_in(w, box) -> bool:
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    return box[0] - 1 <= cx <= box[2] + 1 and box[1] - 1 <= cy <= box[3] + 1


def body_size(words: list) -> float:
    """The size most of the page's characters are set in (0.0 on a page with no words)."""
    sizes = collections.Counter()
    for w in words:
        sizes[round(w.size, 1)] += len(w.text)
    return sizes.most_common(1)[0][0] if sizes else 0.0


def words_block(bbox, words: list, metadata: dict) -> Block:
    """A block of ``words`` read row by row (a table's or a figure's)."""
    lines = [Segment(row).line() for row in rows_of(sorted(words, key=lambda w: (w.top, w.x0)))]
    return Block("", 0, tuple(round(v, 2) for v in bbox), lines, "\n".join(ln.text for ln in lines),
                 metadata)
