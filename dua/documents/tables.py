"""Table blocks: ruled ones from pdfplumber's finder (through dua.pdf), unruled ones from
runs of rows whose cells line up, and a table cut in two by a change of ruling made one.

Nothing here decides reading order or columns: unruled tables are looked for in the rows
of one column at a time (dua.documents.columns says which).
"""
from __future__ import annotations

from ..schemas import Block
from .lines import Segment, words_block

_RULE_REACH = 10.0  # points: rules running this far past a table's last rule make a column
_PAIR_WORDS = 6  # a label and its value are short; two columns of prose are not


# --- ruled tables --------------------------------------------------------------------------


def extend_ruled(table, h_rules: list):
    """The table grown over the columns its row rules reach past its outer vertical rule
    (a grid whose last border was clipped off still rules that column's rows)."""
    x0, top, x1, bottom = table.bbox
    reach = [r for r in h_rules if top - 1 <= r[2] <= bottom + 1 and r[0] <= x1 + 2]
    right = max((r[1] for r in reach), default=x1)
    if len(reach) < 2 or right - x1 < _RULE_REACH:
        return table
    rows = []
    for row in table.rows:
        cells = [c for c in row if c]
        if not cells:
            rows.append(list(row) + [None])
            continue
        rows.append(list(row) + [(max(c[2] for c in cells), cells[0][1], right, cells[0][3])])
    return type(table)((x0, top, right, bottom), rows)


def ruled_table(table, words: list) -> Block:
    """Each word goes to the cell holding its center, or else to the nearest cell."""
    cells = [(r, c, box) for r, row in enumerate(table.rows) for c, box in enumerate(row) if box]
    grid = [[[] for _ in row] for row in table.rows]
    if not cells:  # every cell spanned: the whole table is one cell
        cells, grid = [(0, 0, table.bbox)], [[[]]]
    for w in words:
        r, c, _ = min(cells, key=lambda cell: _distance(w, cell[2]))
        grid[r][c].append(w)
    rows = [[_cell_text(cell) for cell in row] for row in grid]
    return words_block(table.bbox, words, {"source_block_type": "table", "rows": rows, "ruled": True})


def _distance(w, box) -> float:
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    dx = max(box[0] - cx, 0.0, cx - box[2])
    dy = max(box[1] - cy, 0.0, cy - box[3])
    return dx * dx + dy * dy


def _cell_text(words: list) -> str:
    ordered = sorted(words, key=lambda w: (round(w.top), w.x0))
    return " ".join(w.text for w in ordered)


# --- unruled tables ------------------------------------------------------------------------


def unruled_tables(rows: list) -> tuple:
    """``(rows left, table blocks)``: runs of two or more rows of aligned cells (rows of one
    column, top to bottom) become tables."""
    keep, tables, run = [], [], []

    def flush():
        if len(run) >= 2:
            _take_head(keep, run)
            tables.append(_aligned_table(run))
        else:
            keep.extend(run)
        run.clear()

    for row in rows:
        tabular = _tabular(row)
        if run and not tabular and _near(row, run[-1]):
            cut = _split_at_columns(row, run)
            if len(cut) > len(row) and all(len(s.words) <= _PAIR_WORDS for s in cut):
                row, tabular = cut, True  # its cells start where the run's cells start
        near = run and _near(row, run[-1]) and (len(row) >= 3 or _aligned(row, run[-1]))
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


def _take_head(keep: list, run: list) -> None:
    """The row right above a table whose words start where the table's cells start is its
    first row, though set closer than a cell gap (the widest label of a key-value table)."""
    if not keep or not _near(run[0], keep[-1]):
        return
    cut = _split_at_columns(keep[-1], run[:1])
    if len(cut) > len(keep[-1]) and all(len(s.words) <= _PAIR_WORDS for s in cut):
        keep.pop()
        run.insert(0, cut)


def _tabular(row: list) -> bool:
    return len(row) >= 3 or (len(row) == 2 and _short_pair(row))


def _near(row: list, prev: list) -> bool:
    # Office tables pad their cells: rows may stand three line heights apart.
    return row[0].top - max(s.bottom for s in prev) < 3.0 * _height(prev)


def _short_pair(row: list) -> bool:
    """Two short cells far apart: a label and its value (a key-value table's row). Far is
    12 points, or less in small type: TeX sets cells two 6 pt paddings apart, and a row
    split in two already stands apart by more than a word space."""
    size = max(w.size for s in row for w in s.words)
    return all(len(s.words) <= _PAIR_WORDS for s in row) and \
        row[1].x0 - row[0].x1 > min(12.0, 0.8 * size)


def _split_at_columns(row: list, run: list) -> list:
    """Cut a row where the run's cells start, at a gap wider than half a character: a label
    and its value set closer than a cell gap usually is are still two cells of the table."""
    if abs(row[0].x0 - run[-1][0].x0) > 2:
        return row
    starts = {round(s.x0) for r in run for s in r[1:]}
    words = [w for s in row for w in s.words]
    out = [Segment([words[0]], row[0].flow)]
    for prev, w in zip(words, words[1:]):
        if any(abs(w.x0 - x) <= 1.5 for x in starts) and w.x0 - prev.x1 > 0.5 * w.size:
            out.append(Segment([w], row[0].flow))
        else:
            out[-1].words.append(w)
    return out


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
    return words_block(bbox, words, {"source_block_type": "table", "rows": rows, "ruled": False})


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


# --- one table in two parts ----------------------------------------------------------------


def join_stacked(tables: list) -> list:
    """Tables standing one right under the other with as many columns, the lower one within
    the upper one's edges, are one table (a zebra table whose first rows the finder saw as
    ruled)."""
    out: list = []
    for t in sorted(tables, key=lambda b: b.bbox[1]):
        prev = next((o for o in out if _stacked(o, t)), None)
        if prev is None:
            out.append(t)
            continue
        out[out.index(prev)] = _joined(prev, t)
    return out


def _stacked(a: Block, b: Block) -> bool:
    rows_a, rows_b = a.metadata.get("rows") or [], b.metadata.get("rows") or []
    if not rows_a or not rows_b or len(rows_a[-1]) != len(rows_b[0]):
        return False
    size = max((ln.size for ln in a.lines + b.lines), default=10.0)
    gap = b.bbox[1] - a.bbox[3]
    # A ruled box is wider than its words by its cell padding: the words below stay inside it.
    return -1 <= gap < 1.5 * size and a.bbox[0] - size <= b.bbox[0] <= a.bbox[0] + size and \
        b.bbox[2] <= a.bbox[2] + size


def _joined(a: Block, b: Block) -> Block:
    bbox = (min(a.bbox[0], b.bbox[0]), a.bbox[1], max(a.bbox[2], b.bbox[2]), b.bbox[3])
    meta = dict(a.metadata, rows=[list(r) for r in a.metadata["rows"] + b.metadata["rows"]])
    return Block("", 0, bbox, a.lines + b.lines, f"{a.text}\n{b.text}", meta)
