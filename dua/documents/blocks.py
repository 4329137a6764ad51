"""Words -> lines -> blocks, in reading order: the layout half of seed 000.

A line is a run of words on one baseline with no wide gap; a block is a run of
lines in one column with one font and no large vertical gap. Ruled tables come
from pdfplumber's finder (through dua.pdf), unruled ones from rows of aligned
cells, figures from images and drawings (dua.documents.figures). Every word of the page lands in exactly one block.
"""
from __future__ import annotations

import collections
import dataclasses

from ..schemas import Block, Line
from .figures import figure_regions
from .rules import MARKER

_MARKER_GAP = 40.0  # points: a hanging list marker sits at most this far from its text


@dataclasses.dataclass
class _Seg:
    """One line in the making: its words, and the flow (column) it is read in."""

    words: list
    flow: str = "full"

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

    def line(self) -> Line:
        fonts = collections.Counter()
        sizes = collections.Counter()
        for w in self.words:
            fonts[w.font] += len(w.text)
            sizes[w.size] += len(w.text)
        return Line(" ".join(w.text for w in self.words),
                    (round(self.x0, 2), round(self.top, 2), round(self.x1, 2), round(self.bottom, 2)),
                    fonts.most_common(1)[0][0], float(sizes.most_common(1)[0][0]))


def document_blocks(doc, tables: dict | None = None) -> list:
    """Blocks of every page of a ``dua.pdf.Document``, in reading order."""
    out = []
    for page in doc.pages:
        out.extend(page_blocks(page, (tables or {}).get(page.number, [])))
    return out


def page_blocks(page, tables: list = ()) -> list:
    """Blocks of one ``dua.pdf.Page``; ``tables`` are its ``dua.pdf.Table`` objects."""
    words = sorted(page.words, key=lambda w: (round(w.top, 1), w.x0))
    items = []  # (top, kind, payload): rows of segments, and whole table / image blocks
    for table in tables:
        inside = [w for w in words if _center_in(w, table.bbox)]
        if inside:
            taken = set(map(id, inside))
            words = [w for w in words if id(w) not in taken]
            items.append((table.bbox[1], "block", _ruled_table(table, inside)))
    for box in figure_regions(page, tables):
        box = _with_labels(box, words)
        inside = [w for w in words if _center_in(w, box)]
        taken = set(map(id, inside))
        words = [w for w in words if id(w) not in taken]
        items.append((box[1], "block", _figure(box, inside)))
    rows = [_split(row) for row in _rows(words)]
    rows, unruled = _unruled_tables(rows)
    items += [(blk.bbox[1], "block", blk) for blk in unruled]
    items += [(min(s.top for s in row), "row", row) for row in rows]
    items.sort(key=lambda it: it[0])
    _mark_columns(items, page.width)
    blocks = _group(_ordered(items))
    for i, block in enumerate(blocks, 1):
        block.id = f"p{page.number}-b{i}"
        block.page_number = page.number
    return blocks


# --- words -> rows -> segments -------------------------------------------------------


def _rows(words: list) -> list:
    """Words sharing a baseline band, each row sorted left to right."""
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


def _split(row: list) -> list:
    """Cut a row into segments at gaps wider than a word space can be. A justified line
    stretches every space alike, so a gap counts against the row's narrowest one; a list
    marker stays with the text it is set apart from."""
    gaps = [b.x0 - a.x1 for a, b in zip(row, row[1:])]
    narrowest = min(gaps) if gaps else 0.0
    segs = [_Seg([row[0]])]
    for w, gap in zip(row[1:], gaps):
        prev = segs[-1].words[-1]
        size = max(w.size, prev.size)
        limit = max(9.0, 1.2 * size, min(2.0 * narrowest, 2.5 * size))
        if len(segs[-1].words) == 1 and MARKER.match(prev.text) and gap < _MARKER_GAP:
            limit = _MARKER_GAP
        if gap > limit:
            segs.append(_Seg([w]))
        else:
            segs[-1].words.append(w)
    return segs


def _center_in(w, box) -> bool:
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    return box[0] - 1 <= cx <= box[2] + 1 and box[1] - 1 <= cy <= box[3] + 1


# --- tables and figures -------------------------------------------------------------


def _ruled_table(table, words: list) -> Block:
    """Each word goes to the cell holding its center, or else to the nearest cell."""
    cells = [(r, c, box) for r, row in enumerate(table.rows) for c, box in enumerate(row) if box]
    grid = [[[] for _ in row] for row in table.rows]
    if not cells:  # every cell spanned: the whole table is one cell
        cells, grid = [(0, 0, table.bbox)], [[[]]]
    for w in words:
        r, c, _ = min(cells, key=lambda cell: _distance(w, cell[2]))
        grid[r][c].append(w)
    rows = [[_cell_text(cell) for cell in row] for row in grid]
    return _table_block(table.bbox, words, rows, ruled=True)


def _distance(w, box) -> float:
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    dx = max(box[0] - cx, 0.0, cx - box[2])
    dy = max(box[1] - cy, 0.0, cy - box[3])
    return dx * dx + dy * dy


def _cell_text(words: list) -> str:
    ordered = sorted(words, key=lambda w: (round(w.top), w.x0))
    return " ".join(w.text for w in ordered)


def _table_block(bbox, words: list, rows: list, ruled: bool) -> Block:
    lines = [_Seg(row).line() for row in _rows(sorted(words, key=lambda w: (w.top, w.x0)))]
    return Block("", 0, tuple(round(v, 2) for v in bbox), lines, "\n".join(ln.text for ln in lines),
                 {"source_block_type": "table", "rows": rows, "ruled": ruled})


_LABEL_PAD = 16.0  # points around a drawing where its title, ticks and category names sit
_LABEL_WORDS = 4  # a label is a short run of words; prose lines are longer


def _with_labels(box: tuple, words: list) -> tuple:
    """Grow a drawing's box over the short runs of words just around it (a chart's title,
    axis ticks and category names sit outside its paths)."""
    for _ in range(2):
        pad = (box[0] - _LABEL_PAD, box[1] - _LABEL_PAD, box[2] + _LABEL_PAD, box[3] + _LABEL_PAD)
        near = [w for w in words if _center_in(w, pad)]
        for seg in (s for row in _rows(near) for s in _split(row)):
            if len(seg.words) <= _LABEL_WORDS and _within(seg, pad) and _alone(seg, words):
                box = (min(box[0], seg.x0), min(box[1], seg.top), max(box[2], seg.x1),
                       max(box[3], seg.bottom))
    return box


def _within(seg, box) -> bool:
    return seg.x0 >= box[0] and seg.x1 <= box[2] and seg.top >= box[1] and seg.bottom <= box[3]


def _alone(seg, words: list) -> bool:
    """No word of the page continues the run on its row (it is not the start of a prose line)."""
    taken = set(map(id, seg.words))
    return not any(id(w) not in taken and abs(w.top - seg.top) < 2 and
                   (0 <= w.x0 - seg.x1 < 12 or 0 <= seg.x0 - w.x1 < 12) for w in words)


def _figure(box, words: list) -> Block:
    """An image or drawing; the words inside it (a chart's labels) are its text."""
    lines = [_Seg(row).line() for row in _rows(sorted(words, key=lambda w: (w.top, w.x0)))]
    return Block("", 0, tuple(round(v, 2) for v in box), lines, "\n".join(ln.text for ln in lines),
                 {"source_block_type": "image"})


def _unruled_tables(rows: list) -> tuple:
    """Runs of two or more rows of three or more aligned cells become table blocks."""
    keep, tables, run = [], [], []

    def flush():
        if len(run) >= 2:
            tables.append(_aligned_table(run))
        else:
            keep.extend(run)
        run.clear()

    for row in rows:
        tabular = len(row) >= 3 or (len(row) == 2 and _short_pair(row))
        # Office tables pad their cells: rows may stand three line heights apart.
        near = run and row[0].top - max(s.bottom for s in run[-1]) < 3.0 * _height(run[-1]) \
            and (len(row) >= 3 or _aligned(row, run[-1]))
        if tabular and (not run or near):
            run.append(row)
            continue
        flush()
        if tabular:
            run.append(row)
        else:
            keep.append(row)
    flush()
    return keep, tables


_PAIR_WORDS = 6  # a label and its value are short; two columns of prose are not


def _short_pair(row: list) -> bool:
    """Two short cells far apart: a label and its value (a key-value table's row)."""
    return all(len(s.words) <= _PAIR_WORDS for s in row) and row[1].x0 - row[0].x1 > 12


def _aligned(row: list, prev: list) -> bool:
    """The row starts where the previous one starts, and one more of its cells stands over
    or under one of the previous row's: rows of one table, not prose that sits below."""
    if abs(row[0].x0 - prev[0].x0) > 6:
        return False
    return any(s.x0 < p.x1 and p.x0 < s.x1 for s in row[1:] for p in prev[1:])


def _height(row: list) -> float:
    return max(s.bottom for s in row) - min(s.top for s in row)


def _aligned_table(run: list) -> Block:
    """Columns are the x-ranges of the cells, merged where they overlap across rows."""
    spans = sorted((s.x0, s.x1) for row in run for s in row)
    cols = [list(spans[0])]
    for x0, x1 in spans[1:]:
        if x0 <= cols[-1][1]:
            cols[-1][1] = max(cols[-1][1], x1)
        else:
            cols.append([x0, x1])
    rows = []
    for row in run:
        cells = [[] for _ in cols]
        for seg in row:
            k = next(i for i, (a, b) in enumerate(cols) if a <= seg.x0 <= b)
            cells[k].extend(seg.words)
        rows.append([" ".join(w.text for w in cell) for cell in cells])
    rows = _merge_sparse_columns(rows)
    words = [w for row in run for s in row for w in s.words]
    bbox = (min(w.x0 for w in words), min(w.top for w in words),
            max(w.x1 for w in words), max(w.bottom for w in words))
    return _table_block(bbox, words, rows, ruled=False)


def _merge_sparse_columns(rows: list) -> list:
    """Merge neighbour columns never filled in the same row (a left-aligned header over
    right-aligned numbers)."""
    k = 0
    while k + 1 < len(rows[0]):
        if any(row[k] and row[k + 1] for row in rows):
            k += 1
            continue
        for row in rows:
            row[k:k + 2] = [row[k] or row[k + 1]]
    return rows


# --- columns and reading order --------------------------------------------------------


def _mark_columns(items: list, width: float) -> None:
    """Find a gutter shared by several two-column rows; mark the rows read column by column."""
    gutter = _gutter([p for _, kind, p in items if kind == "row"], width)
    if gutter is None:
        return
    run = []
    for _, kind, payload in items + [(None, "end", None)]:
        crosses = kind != "row" or any(s.x0 < gutter < s.x1 for s in payload)
        if not crosses:
            run.append(payload)
            continue
        agreeing = sum(1 for row in run if _two_sided(row, gutter))
        # Left-only rows before the first right-hand text end the full-width text above.
        first = next((i for i, row in enumerate(run) if any(s.x0 >= gutter for s in row)), 0)
        for row in run[first:] if agreeing >= 2 else ():
            for seg in row:
                seg.flow = "left" if seg.x1 <= gutter else "right"
        run = []


def _gutter(rows: list, width: float) -> float | None:
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


def _two_sided(row: list, gutter: float) -> bool:
    return any(s.x1 <= gutter for s in row) and any(s.x0 >= gutter for s in row)


def _ordered(items: list) -> list:
    """Segments and whole blocks in reading order: column regions left column first."""
    out, region = [], []
    for _, kind, payload in items:
        if kind == "row" and any(s.flow != "full" for s in payload):
            region.extend(payload)
            continue
        out += _flush_region(region)
        region = []
        out += payload if kind == "row" else [payload]
    return out + _flush_region(region)


def _flush_region(segs: list) -> list:
    left = [s for s in segs if s.flow == "left"]
    right = [s for s in segs if s.flow == "right"]
    return left + right


def _group(ordered: list) -> list:
    """Consecutive segments join a block unless a gap, font, column or row change splits them."""
    blocks, cur = [], []
    for item in ordered:
        if isinstance(item, Block):
            blocks += [_text_block(cur)] if cur else []
            blocks.append(item)
            cur = []
            continue
        if cur and _breaks(cur[-1], item, cur):
            blocks.append(_text_block(cur))
            cur = []
        cur.append(item)
    return blocks + ([_text_block(cur)] if cur else [])


def _breaks(prev: _Seg, seg: _Seg, block: list) -> bool:
    if seg.flow != prev.flow or seg.top < prev.bottom - 1:  # other column, or same row
        return True
    a, b = prev.line(), seg.line()
    if abs(a.size - b.size) > 0.6 or _style(a.font) != _style(b.font):
        return True
    if seg.top - prev.bottom > 0.6 * max(a.size, b.size):
        return True
    left, right = min(s.x0 for s in block), max(s.x1 for s in block)
    return seg.x1 < left or seg.x0 > right


def _style(font: str) -> tuple:
    name = font.lower()
    return ("bold" in name or "black" in name or "heavy" in name,
            "italic" in name or "oblique" in name)


def _text_block(segs: list) -> Block:
    lines = [s.line() for s in segs]
    bbox = (min(ln.bbox[0] for ln in lines), min(ln.bbox[1] for ln in lines),
            max(ln.bbox[2] for ln in lines), max(ln.bbox[3] for ln in lines))
    return Block("", 0, bbox, lines, "\n".join(ln.text for ln in lines),
                 {"source_block_type": "text", "column": segs[0].flow})
