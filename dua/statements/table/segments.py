"""The rows' segments: the x-ranges their words cover between whitespace rivers, and what
each holds (money, bare whole numbers).

Only where words stand and what they read as; naming the segments from the heading above
them, and grouping them into columns, is ``columns``'s.
"""
from __future__ import annotations

import functools
import re

from ..notation.dates import DATE_SEARCH
from . import engine

_CODE = re.compile(r"[^\W\d_]{1,2}\.?")


def find_segments(lines: list) -> list:
    """x-ranges that the candidate lines' words cover, split at whitespace rivers."""
    step, changes = 0.5, {}
    for line in lines:
        # each line counts once where its words cover a half-point: count the edges of
        # the runs it covers, not each half-point (a wide table has a thousand of them)
        for a, b in _runs(sorted((int(w[1] / step), int(w[2] / step)) for w in line)):
            changes[a] = changes.get(a, 0) + 1
            changes[b + 1] = changes.get(b + 1, 0) - 1
    noise = len(lines) // 30
    segments, count, edges = [], 0, sorted(changes)
    for x, nxt in zip(edges, edges[1:]):
        count += changes[x]
        if count <= noise:
            continue
        if segments and x - segments[-1][1] <= 2:  # a river a point wide is no gutter
            segments[-1][1] = nxt - 1
        else:
            segments.append([x, nxt - 1])
    return [(a * step, (b + 1) * step) for a, b in segments]


def join_word_rivers(segments: list, lines: list, dates: tuple = ()) -> list:
    """Neighbouring segments of words joined where every line with words in both reads on
    from one to the other across a single space: the words of one column that happen to
    align on every row (a few rows of a fixed-pitch printout), not two columns. Money and
    dates never join: a gutter one space wide beside them is still a gutter. ``dates``: the
    patterns of the dates this statement prints, where learned ('02-06' as Rabobank prints
    its day and month), beside the usual shapes."""
    if len(segments) < 2:
        return segments
    space = word_space(lines)
    numeric = _numeric if not dates else functools.partial(
        _numeric, dates=re.compile("|".join(f"(?:{p})" for p in dates), re.IGNORECASE))
    out = [list(segments[0])]
    for seg in segments[1:]:
        if _reads_on(out[-1], seg, lines, space, numeric):
            out[-1][1] = seg[1]
        else:
            out.append(list(seg))
    return [tuple(s) for s in out]


def word_space(lines: list) -> float | None:
    """The lines' word space: the median gap between two words that is no wider than a
    letter (a proportional font sets its spaces narrower than its letters, a fixed-pitch
    one as wide); None where no two words stand so close."""
    words = [w for line in lines for w in line]
    pitch = sum(w[2] - w[1] for w in words) / max(1, sum(len(w[0]) for w in words))
    gaps = sorted(b[1] - a[2] for line in lines for a, b in zip(line, line[1:])
                  if 0 < b[1] - a[2] <= pitch)
    return gaps[len(gaps) // 2] if gaps else None


def _reads_on(left: list, right: tuple, lines: list, word: float | None = None,
              numeric=None) -> bool:
    """Whether every line with words in both segments reads on from one to the other across
    one space: at most a letter and a half of its words' pitch, and, where the lines' word
    space is known, at most one and a half of it (a date's 8 pt before a code, where its
    words are set 3 pt apart, is a gutter though the code's wide letters make it narrow)."""
    gaps = []
    for line in lines:
        a = [w for w in line if left[0] - 1 <= w[1] and w[2] <= left[1] + 1]
        b = [w for w in line if right[0] - 1 <= w[1] and w[2] <= right[1] + 1]
        if not a or not b:
            continue
        if _grouped(a, b):
            gaps.append(0.0)  # '7' and '562,40': one amount its thousands are spaced off
            continue
        if any((numeric or _numeric)(w[0]) for w in a + b):
            return False
        if all(_CODE.fullmatch(w[0]) for w in a):
            return False  # a column of codes ('S', 'Cr') beside money, not words read on
        space = sum(w[2] - w[1] for w in a + b) / max(1, sum(len(w[0]) for w in a + b))
        if space > 0:  # glyphs of no width (a damaged font) give no letter pitch to measure by
            gap = b[0][1] - a[-1][2]
            gaps.append(max(gap / space, gap / word if word else 0.0))
    return len(gaps) >= 2 and max(gaps) <= 1.5


def _grouped(a: list, b: list) -> bool:
    """One amount whose thousands stand a space apart: a group of digits, then the rest."""
    letter = (a[-1][2] - a[-1][1]) / max(1, len(a[-1][0]))
    return len(a) == 1 and len(b) == 1 and a[0][0].isdigit() and len(a[0][0]) <= 3 \
        and b[0][1] - a[0][2] <= letter and engine.looks_like_amount(f"{a[0][0]} {b[0][0]}")


def _numeric(text: str, dates=None) -> bool:
    return engine.looks_like_amount(text) or bool(DATE_SEARCH.fullmatch(text)) or \
        bool(dates and dates.fullmatch(text))


def money_segments(segments: list, lines: list) -> list:
    """For each segment, whether most of the words the lines print in it are amounts."""
    out = []
    for a, b in segments:
        words = [w for line in lines for w in line if a - 1 <= (w[1] + w[2]) / 2 <= b + 1]
        out.append(bool(words) and sum(engine.looks_like_amount(w[0]) for w in words)
                   >= 0.6 * len(words))
    return out


def figure_segments(segments: list, lines: list) -> list:
    """For each segment, whether every word the lines print in it is a bare whole number."""
    out = []
    for a, b in segments:
        words = [w[0] for line in lines for w in line if a - 1 <= (w[1] + w[2]) / 2 <= b + 1]
        out.append(bool(words) and all(w.isdigit() for w in words))
    return out


def _runs(spans: list) -> list:
    """Sorted inclusive integer spans merged where they overlap: the integers they cover."""
    out = []
    for a, b in spans:
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out
