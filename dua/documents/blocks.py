"""Words -> lines -> blocks, in reading order: the layout half of seed 000.

A line is a run of words on one baseline with no wide gap (dua.documents.lines); a block
is a run of lines in one column with one font and no break in spacing, indent or list
edge. Tables come from dua.documents.tables, figures from dua.documents.figures, columns
and reading order from dua.documents.columns. Every word of the page lands in exactly one
block.
"""
from __future__ import annotations

from ..schemas import Block
from .columns import cut_at_gutter, find_band, mark_columns, reading_order
from .figures import figure_block, figure_regions, with_labels, words_inside
from .lines import Segment, body_size, center_in, rows_of, split_row
from .rules import GLUED_MARKER, MARKER
from .tables import extend_ruled, join_stacked, ruled_table, unruled_tables


def document_blocks(doc, tables: dict | None = None) -> list:
    """Blocks of every page of a ``dua.pdf.Document``, in reading order."""
    out = []
    for page in doc.pages:
        out.extend(page_blocks(page, (tables or {}).get(page.number, [])))
    return out


def page_blocks(page, tables: list = ()) -> list:
    """Blocks of one ``dua.pdf.Page``; ``tables`` are its ``dua.pdf.Table`` objects."""
    words = sorted(page.words, key=lambda w: (round(w.top, 1), w.x0))
    placed = []  # whole table and figure blocks
    tables = [extend_ruled(table, page.h_rules) for table in tables]
    for table in tables:
        inside, words = _take(words, table.bbox)
        if inside:
            placed.append(ruled_table(table, inside))
    body = body_size(words)
    for box in figure_regions(page, tables):
        box = with_labels(box, words, body)
        inside = words_inside(box, words)
        taken = set(map(id, inside))
        words = [w for w in words if id(w) not in taken]
        placed.append(figure_block(box, inside))
    rows = [split_row(row) for row in rows_of(words)]
    band = _gutter_of(rows, page.width)
    rows = cut_at_gutter(rows, band)
    gutter = None if band is None else (band[0] + band[1]) / 2
    rows, placed = _find_tables(rows, placed, gutter)
    items = _items(rows, placed)
    flows = mark_columns(items, gutter)
    blocks = _group(reading_order(items, flows))
    for i, block in enumerate(blocks, 1):
        block.id = f"p{page.number}-b{i}"
        block.page_number = page.number
    return blocks


def _take(words: list, box) -> tuple:
    """``(words centered in box, the others)``."""
    inside = [w for w in words if center_in(w, box)]
    taken = set(map(id, inside))
    return inside, [w for w in words if id(w) not in taken]


def _items(rows: list, placed: list) -> list:
    """``(top, row or block)`` sorted by top."""
    return sorted([(b.bbox[1], b) for b in placed] + [(min(s.top for s in r), r) for r in rows],
                  key=lambda it: it[0])


def _gutter_of(rows: list, width: float) -> tuple | None:
    """The gutter's band, judged on the rows no table takes: a table's two wide cells are no
    columns."""
    keep, _ = unruled_tables(rows)
    return find_band(keep, width)


def _find_tables(rows: list, placed: list, gutter: float | None) -> tuple:
    """Unruled tables, looked for column by column once the gutter is known, so a table in
    one column never takes the prose beside it. Rows keep their other segments."""
    mark_columns(_items(rows, placed), gutter)
    kept, found = set(), []
    for flow in ("full", "left", "right"):
        keep, tables = unruled_tables([mine for mine in ([s for s in r if s.flow == flow]
                                                         for r in rows) if mine])
        kept.update(id(w) for r in keep for s in r for w in s.words)
        found += tables
    rows = [[s for s in r if id(s.words[0]) in kept] for r in rows]
    rows = [r for r in rows if r]
    for seg in (s for r in rows for s in r):
        seg.flow = "full"  # marked again below, with the tables in place
    tables = join_stacked([b for b in placed if b.metadata["source_block_type"] == "table"] + found)
    return rows, tables + [b for b in placed if b.metadata["source_block_type"] != "table"]


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


def _breaks(prev: Segment, seg: Segment, block: list) -> bool:
    (top, _), (_, bottom) = seg.body, prev.body
    if seg.flow != prev.flow or top < bottom - 1:  # other column, or same row
        return True
    a, b = prev.line(), seg.line()
    size = max(a.size, b.size)
    left, right = min(s.x0 for s in block), max(s.x1 for s in block)
    if abs(a.size - b.size) > 0.6 or _style(a.font) != _style(b.font):
        if not _sentence_runs_on(a, b, right, top - bottom):
            return True
    if top - bottom > 0.6 * size:
        return True
    if seg.x1 < left or seg.x0 > right:
        return True
    return _wider_pitch(seg, block, size) or _leaves_list(seg, block) or \
        _indented_start(prev, seg, left, right, size)


# Sizes further apart than this share of the larger are a heading's and its text's, even
# where a sentence seems to run on from one to the other.
_RUN_ON_SIZE = 0.2


def _sentence_runs_on(a, b, right: float, gap: float) -> bool:
    """A sentence that goes on from a line that runs to the block's right edge into a line
    starting in lower case, at the usual leading: one paragraph, whatever font or size most
    of either line is set in (a line of code words, or of emphasis, inside a paragraph)."""
    size = max(a.size, b.size)
    text = a.text.rstrip()
    return (abs(a.size - b.size) <= _RUN_ON_SIZE * size and gap <= 0.6 * size
            and b.text[:1].islower() and not text.endswith((".", "!", "?", ":"))
            and a.bbox[2] >= max(right, b.bbox[2]) - size)


_PITCH_STEP = 0.3  # of the size: more leading than the block's own lines is a paragraph's space


def _wider_pitch(seg: Segment, block: list, size: float) -> bool:
    """The line stands further below the last one than the block's lines stand apart: the
    space a typesetter puts between paragraphs (or list items) even when it is small."""
    if len(block) < 2:
        return False
    pitch = min(b.body[0] - a.body[0] for a, b in zip(block, block[1:]))
    return seg.body[0] - block[-1].body[0] > pitch + _PITCH_STEP * size


def _leaves_list(seg: Segment, block: list) -> bool:
    """A line starting left of a list's first marker is no longer in the list (items and
    their run-on lines hang at or right of the marker; a wider marker set flush right, as
    "iii)" under "i)", starts an item of the same list)."""
    return _marked(block[0]) and not _marked(seg) and seg.x0 < block[0].x0 - 2


def _marked(seg: Segment) -> bool:
    word = seg.words[0].text
    return bool((MARKER.match(word) and len(seg.words) > 1) or GLUED_MARKER.match(word))


def _indented_start(prev: Segment, seg: Segment, left: float, right: float, size: float) -> bool:
    """A full line indented from the block's left edge after a line that stopped short is
    the first line of a new paragraph (paragraphs set apart by indent alone, as TeX does)."""
    if prev.x0 - left > 0.5 * size:
        return False  # the line before is indented too: a hanging indent, not a new start
    indent = seg.x0 - left
    return 0.8 * size <= indent <= 6 * size and prev.x1 < right - size and seg.x1 >= right - 0.5 * size


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
