"""Columns and reading order: a page's gutter (the band between two columns, and the
lines of both columns on one baseline cut there), which flow (full, left, right) each
segment and each table or figure is read in, and the order that follows (left column first).

Items are ``(top, payload)`` sorted by top; a payload is a row (a list of Segments) or a
whole Block (a table or a figure). A row's segments carry their flow; a block's flow is
returned in a dict keyed by ``id(block)``.
"""
from __future__ import annotations

from ..schemas import Block
from .lines import Segment, split_row


def find_band(rows: list, width: float) -> tuple | None:
    """``(left, right)``: the gap between two columns, where at least three rows agree that
    two wide runs of text stand either side of it. Such a row is one of two segments; two
    rows of one segment each, left and right by turns, whose lines overlap in height (each
    column's lines on their own baselines); or one segment that a single word gap much
    wider than its others cuts in two (columns set as close as a wide word space)."""
    pairs = [row for row in rows if not isinstance(row, Block) and len(row) == 2]
    pairs += _offset_pairs(rows) + _gapped(rows)
    centers = [(a.x1 + b.x0) / 2 for a, b in pairs if min(a.x1 - a.x0, b.x1 - b.x0) >= 0.18 * width]
    if len(centers) < 3:
        return None
    centers.sort()
    mid = centers[len(centers) // 2]
    agree = [(a, b) for a, b in pairs if a.x1 < mid < b.x0]
    if len(agree) < 3:
        return None
    # The band no agreeing line enters: a short left line (a list item) moves the median
    # of the centres towards the left column's edge, never the band.
    return max(a.x1 for a, _ in agree), min(b.x0 for _, b in agree)


def _offset_pairs(rows: list) -> list:
    """``[(left, right)]``: next rows of one segment each, side by side, whose lines overlap
    in height."""
    out = []
    for a, b in zip(rows, rows[1:]):
        if isinstance(a, Block) or isinstance(b, Block) or len(a) != 1 or len(b) != 1:
            continue
        left, right = sorted((a[0], b[0]), key=lambda s: s.x0)
        if left.x1 < right.x0 and b[0].top < a[0].bottom and a[0].top < b[0].bottom:
            out.append((left, right))
    return out


_GUTTER_GAP = 0.6  # of the size: narrower than this, a gap is a word space however it stands


def _gapped(rows: list) -> list:
    """``[(left, right)]``: rows of one segment whose widest word gap is twice as wide as
    most of its others, cut there."""
    out = []
    for row in rows:
        if isinstance(row, Block) or len(row) != 1 or len(row[0].words) < 4:
            continue
        words = row[0].words
        gaps = [b.x0 - a.x1 for a, b in zip(words, words[1:])]
        i = max(range(len(gaps)), key=gaps.__getitem__)
        rest = sorted(gaps[:i] + gaps[i + 1:])
        if gaps[i] >= max(_GUTTER_GAP * row[0].size, 2 * rest[len(rest) // 2]):
            out.append((Segment(words[:i + 1]), Segment(words[i + 1:])))
    return out


def cut_at_gutter(rows: list, band: tuple | None) -> list:
    """Rows whose words leave a gap covering the whole band, cut there and each side cut
    into segments on its own: a line of each column on one baseline (the side's own word
    spaces measure its gaps, not the other column's)."""
    if band is None:
        return rows
    out = []
    for row in rows:
        words = [w for seg in row for w in seg.words]
        cut = next((i for i, (a, b) in enumerate(zip(words, words[1:]))
                    if a.x1 <= band[0] + 1 and b.x0 >= band[1] - 1), None)
        out.append(row if cut is None else split_row(words[:cut + 1]) + split_row(words[cut + 1:]))
    return out


def mark_columns(items: list, gutter: float | None) -> dict:
    """Set the flow of the segments read column by column; ``{id(block): flow}`` for blocks."""
    flows: dict = {}
    if gutter is None:
        return flows
    run: list = []
    for _, payload in items + [(None, None)]:
        if payload is not None and not _crosses(payload, gutter):
            run.append(payload)
            continue
        _mark_run(run, gutter, flows)
        run = []
    return flows


def _spans(payload) -> list:
    """``[(x0, top, x1, bottom)]`` of a row's segments or of a block."""
    if isinstance(payload, Block):
        return [payload.bbox]
    return [(s.x0, s.top, s.x1, s.bottom) for s in payload]


_SPILL = 0.15  # a figure may spill this share of its width over the gutter and stay in its column


def _crosses(payload, gutter: float) -> bool:
    if isinstance(payload, Block):
        return _side(payload.bbox, gutter) is None
    return any(x0 < gutter < x1 for x0, _, x1, _ in _spans(payload))


def _side(box: tuple, gutter: float) -> str | None:
    """The column a table or figure is read in, or None when it spans both."""
    width = max(box[2] - box[0], 1e-6)
    if gutter - box[0] >= (1 - _SPILL) * width:
        return "left"
    if box[2] - gutter >= (1 - _SPILL) * width:
        return "right"
    return None


def _right(payload, gutter: float) -> list:
    if isinstance(payload, Block):
        return [payload.bbox] if _side(payload.bbox, gutter) == "right" else []
    return [b for b in _spans(payload) if b[0] >= gutter]


def _mark_run(run: list, gutter: float, flows: dict) -> None:
    """A run of items that leave the gutter free is read in two columns when two or more of
    its rows have text on both sides of it."""
    two_sided = sum(1 for p in run if _right(p, gutter) and len(_right(p, gutter)) < len(_spans(p)))
    two_sided += sum(1 for a, b in _offset_pairs(run) if a.x1 <= gutter <= b.x0)
    if two_sided < 2:
        return
    sided = [i for i, p in enumerate(run) if _right(p, gutter)]
    # Left-only rows before the first right-hand text end the full-width text above.
    first, end = sided[0], _columns_end(run, sided[-1], gutter)
    for payload in run[first:end]:
        if isinstance(payload, Block):
            flows[id(payload)] = _side(payload.bbox, gutter)
            continue
        for seg in payload:
            seg.flow = "left" if seg.x1 <= gutter else "right"


def _columns_end(run: list, last_right: int, gutter: float) -> int:
    """Where the columns end: left-only rows below the right column's last line that stand
    apart from the left column's text above (a heading under balanced columns) are read
    full width again, with what follows."""
    bottom = max(b[3] for b in _right(run[last_right], gutter))
    prev = max(b[3] for b in _spans(run[last_right]) if b[2] <= gutter) \
        if any(b[2] <= gutter for b in _spans(run[last_right])) else bottom
    for i in range(last_right + 1, len(run)):
        x0, top, x1, low = _spans(run[i])[0]
        if top > bottom and top - prev > 0.6 * (low - top):
            return i
        prev = max(b[3] for b in _spans(run[i]))
    return len(run)


def reading_order(items: list, flows: dict) -> list:
    """Segments and whole blocks in reading order: each column region left column first."""
    out, region = [], []
    for _, payload in items:
        if isinstance(payload, Block):
            flow = flows.get(id(payload), "full")
            if flow != "full":
                region.append((flow, payload))
                continue
            out += _flush(region) + [payload]
            region = []
            continue
        if any(s.flow != "full" for s in payload):
            region += [(s.flow, s) for s in payload]
            continue
        out += _flush(region) + payload
        region = []
    return out + _flush(region)


def _flush(region: list) -> list:
    return [p for f, p in region if f == "left"] + [p for f, p in region if f == "right"]
