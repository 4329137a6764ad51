"""Elements that run on: a paragraph cut by a column or page break, a list cut by one, or
split into runs of items by the spacing between them or by paragraphs of an item set in
past its markers, and a table cut by one (its parts keep its edges) become one element
again.

A paragraph runs on when its last line is full (a paragraph's last line is short unless
the column ended it) and the next body element, at the top of the next column or page,
is a paragraph in the same size. The later parts are kept in ``continued`` with their
page, box and word count, so every word is still counted where it is printed.
"""
from __future__ import annotations

from ..schemas import Block
from .rules import follows

_FURNITURE = ("header", "footer", "page_number")
_FULL = 0.8  # a last line wider than this share of its block's width is full


def join_continued(elements: list, blocks: list) -> list:
    """``elements`` (one per block, in reading order) with run-on parts joined."""
    by_id = {b.id: b for b in blocks}
    out: list = []
    last_body = None  # index in out of the last body element
    held = False  # the last body element is a list that took a paragraph into its last item
    for el in elements:
        if el["type"] in _FURNITURE:
            out.append(el)
            continue
        prev = out[last_body] if last_body is not None else None
        if prev is not None and prev["type"] == "list" and _in_item(prev, el, by_id):
            _append(prev, el)
            held = True
            continue
        if prev is not None and (_runs_on(prev, el, by_id) or
                                 held and _list_goes_on(prev, el, by_id)):
            _append(prev, el)
            continue
        out.append(el)
        last_body, held = len(out) - 1, False
    return out


def _in_item(a: dict, b: dict, by_id: dict) -> bool:
    """A paragraph set in past a list's markers belongs to the list's last item (a second
    paragraph of it, a display of code): the list goes on around it."""
    if b["type"] != "paragraph":
        return False
    size = _size(by_id[a["block_ids"][0]])
    box = a["bbox"]  # the markers' edge; within the list's column (the next is no indent)
    return box[0] + 0.5 * size <= b["bbox"][0] < box[2] - size


def _list_goes_on(a: dict, b: dict, by_id: dict) -> bool:
    """A list after paragraphs its last item held goes on when its first marker comes next
    after that item's ("3." after "2.", another bullet) at the same edge."""
    if b["type"] != "list" or not b["items"] or not a["items"]:
        return False
    size = _size(by_id[a["block_ids"][0]])
    if abs(b["bbox"][0] - a["bbox"][0]) > 0.5 * size:
        return False
    last = [i for i in a["items"] if i.get("level", 1) == 1][-1]
    return follows(last.get("marker", ""), b["items"][0].get("marker", ""))


def _runs_on(a: dict, b: dict, by_id: dict) -> bool:
    if a["type"] != b["type"] or a["type"] not in ("paragraph", "list", "table"):
        return False
    first, last = by_id[b["block_ids"][0]], by_id[a["block_ids"][-1]]
    end = _last_part(a)
    moved_up = b["page_number"] != end[0] or b["bbox"][1] < end[1][1]
    if a["type"] == "table":
        # A header of its own that differs from the table's names another table.
        other = b.get("header") and a.get("header") and b["header"] != a["header"]
        return moved_up and not other and _same_edges(end[1], b["bbox"], _size(last))
    if a["type"] == "list":
        if moved_up:
            return True  # a list goes on in the next column or page
        gap = b["bbox"][1] - end[1][3]
        # A marker set flush right ("iii)" under "i)") starts up to an em further left.
        return 0 <= gap < 1.6 * _size(last) and b["bbox"][0] >= end[1][0] - _size(last)
    if not moved_up or abs(_size(first) - _size(last)) > 0.6:
        return False
    line = last.lines[-1]
    width = last.bbox[2] - last.bbox[0]
    return len(last.lines) >= 2 and line.bbox[2] - last.bbox[0] >= _FULL * width and \
        not line.text.rstrip().endswith(":") and not _indented(first)


def _indented(block: Block) -> bool:
    """The block's first line is set in from its others: it starts a paragraph."""
    if len(block.lines) < 2:
        return False
    return block.lines[0].bbox[0] - block.bbox[0] > 0.5 * block.lines[0].size


def _same_edges(a, b, size: float) -> bool:
    """Two parts of a table cut by a page or column break keep its left and right edges."""
    return abs(a[0] - b[0]) <= size / 2 and abs(a[2] - b[2]) <= size / 2


def _size(block: Block) -> float:
    return block.lines[-1].size if block.lines else 0.0


def _last_part(el: dict) -> tuple:
    parts = el.get("continued") or []
    if parts:
        return parts[-1]["page_number"], parts[-1]["bbox"]
    return el["page_number"], el["bbox"]


def _words(el: dict) -> int:
    if el["type"] == "list":
        return sum(len(f"{i.get('marker', '')} {i['text']}".split()) for i in el["items"])
    if el["type"] == "table":
        rows = ([el["header"]] if el.get("header") else []) + el["rows"]
        return sum(len(str(c or "").split()) for row in rows for c in row)
    return len(el["text"].split())


def _append(a: dict, b: dict) -> None:
    """Join ``b`` onto ``a``: on the same page and column the box grows, elsewhere ``b``
    becomes a continued part."""
    page, box = _last_part(a)
    same_place = b["page_number"] == page and b["bbox"][1] >= box[1]
    if same_place:
        part = (a.get("continued") or [a])[-1]
        part["bbox"] = [min(part["bbox"][0], b["bbox"][0]), part["bbox"][1],
                        max(part["bbox"][2], b["bbox"][2]), max(part["bbox"][3], b["bbox"][3])]
        if part is not a:
            part["words"] += _words(b)
    else:
        a.setdefault("continued", []).append(
            {"page_number": b["page_number"], "bbox": list(b["bbox"]), "words": _words(b)})
    if a["type"] == "list" and b["type"] == "paragraph":  # a paragraph of the last item
        a["items"][-1] = dict(a["items"][-1], text=f"{a['items'][-1]['text']} {b['text']}")
    elif a["type"] == "list":
        a["items"] = a["items"] + b["items"]
    elif a["type"] == "table":
        # The later part's first row is a row of the table, even when it looked like a header.
        a["rows"] = a["rows"] + ([b["header"]] if b.get("header") else []) + b["rows"]
    else:
        a["text"] = f"{a['text']} {b['text']}"
    a["block_ids"] = a["block_ids"] + b["block_ids"]
