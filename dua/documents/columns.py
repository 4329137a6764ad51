"""Columns and reading order: a page's gutter, which flow (full, left, right) each segment
and each table or figure is read in, and the order that follows (left column first).

Items are ``(top, payload)`` sorted by top; a payload is a row (a list of Segments) or a
whole Block (a table or a figure). A row's segments carry their flow; a block's flow is
returned in a dict keyed by ``id(block)``.
"""
from __future__ import annotations

from ..schemas import Block


def find_gutter(rows: list, width: float) -> float | None:
    """Median gap center of rows made of two wide segments, if at least three agree."""
    centers = []
    for row in rows:
        if len(row) == 2 and min(s.x1 - s.x0 for s in row) >= 0.18 * width:
            centers.append((row[0].x1 + row[1].x0) / 2)
    if len(centers) < 3:
        return None
    centers.sort()
    mid = centers[len(centers) // 2]
    agree = [row for row in rows if len(row) == 2 and row[0].x1 < mid < row[1].x0]
    return mid if len(agree) >= 3 else None


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
