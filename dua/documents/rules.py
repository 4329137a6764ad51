"""The built-in rule classifier, and the element builders every classifier shares.

Heading levels come from the document's numbering, then its font sizes and weight
(``levels``), list items from bullets and numbering, headers and footers from lines
repeated at one place across pages, page numbers from bare numbers that count with the
pages, captions from their patterns. ``build_element`` turns a block and a type
into an element whose text is the block's own words, so no classifier can drop one.
"""
from __future__ import annotations

import collections
import re

from ..schemas import Block, unclassified_text_block
from .levels import SECTION_NUMBER, HeadingLevels

# A glyph its font names no text for ("(cid:127)", as pdfminer reads it) standing alone
# before a line's text is a symbol font's bullet (WinAnsi maps its unused codes to one).
MARKER = re.compile(r"^(?:[\u2022\u25e6\u25aa\u2023\u00b7\u2013\u2014*\-]|\(?\d{1,3}[.)]|"
                    r"\(?[a-zA-Z][.)]|\(?[ivxIVX]{1,4}[.)]|\(cid:\d{1,5}\))$")
# A marker set against its text with a tab the PDF does not keep as a space: "(a)Preliminary".
GLUED_MARKER = re.compile(r"^(?:\(?[a-z]\)|\(?[ivx]{1,4}\)|\d{1,2}[.)]|[\u2022\u2013\u25e6])[A-Z]")
PAGE_NUMBER = re.compile(r"^(?:page\s+)?[-\u2013(\[]?\s*\d{1,4}\s*[-\u2013)\]]?"
                         r"(?:\s*(?:of|/)\s*\d{1,4})?$", re.I)
# "Figure 3: …", "Table 2. …" — the number and its punctuation, so "Table 2 shows" stays prose.
PAGE_OF = re.compile(r"\bpage\s*\d{1,4}\s*(?:of|/)\s*\d{1,4}$", re.I)
CAPTION = re.compile(r"^(?i:figure|fig\.|table|chart|exhibit|plate)\s+(?:\d+(?:\.\d+)*|[A-Z])\s*[.:\u2013\u2014-]")
# Why a block is unclassified when no rule applies to it and no model said otherwise.
NO_RULE = {"error_type": "NoRuleApplies",
           "message": "no rule can type a block with no visible text"}
_MARGIN_BAND = 0.09  # share of the page height where running headers and footers live
_HEADING_MAX_WORDS = 16
_SAME_PLACE = 6.0  # points: a running header may drift this much from page to page


class Profile:
    """Document-wide facts the rules need: body size, heading sizes, repeated lines."""

    def __init__(self, blocks: list, page_sizes: dict):
        self.page_sizes = page_sizes
        sizes = collections.Counter()
        for block in blocks:
            for line in block.lines:
                sizes[round(line.size, 1)] += len(line.text)
        self.body_size = sizes.most_common(1)[0][0] if sizes else 10.0
        bigger = sorted({s for s in sizes if s > self.body_size + 0.5}, reverse=True)
        self.heading_sizes = [s for s in bigger if _used_by_short_blocks(blocks, s)]
        self.repeated = _repeated_lines(blocks)
        self.row_mates = _row_mates(blocks)
        self.folios = _folios(blocks)
        self.levels = HeadingLevels([(" ".join(b.text.split()), b.lines[0].size) for b in blocks
                                     if b.lines and b.metadata.get("source_block_type", "text")
                                     == "text" and stands_as_heading(b, self)], self.level)

    def level(self, size: float) -> int:
        """1 for the largest heading size, then 2, 3…; body-size bold text comes last."""
        for i, s in enumerate(self.heading_sizes, 1):
            if abs(size - s) <= 0.5:
                return min(i, 6)
        return min(len(self.heading_sizes) + 1, 6)

    def band(self, block: Block) -> str:
        """'top' or 'bottom' when the block sits in the page's margin band, else ''."""
        height = self.page_sizes.get(block.page_number, (612.0, 792.0))[1]
        if block.bbox[3] <= height * _MARGIN_BAND:
            return "top"
        if block.bbox[1] >= height * (1 - _MARGIN_BAND):
            return "bottom"
        return ""


def _folios(blocks: list) -> set:
    """Ids of the bare numbers standing first or last on their page that count with the
    pages: the printed number less the page's is the same on two pages or more (a page
    number, wherever the margins put it; "3" alone in a list is none)."""
    by_page = collections.defaultdict(list)
    for b in blocks:
        if b.lines and b.metadata.get("source_block_type", "text") == "text":
            by_page[b.page_number].append(b)
    offsets = collections.defaultdict(set)  # (numerals, printed - page number) -> pages
    found = []
    for page, mine in by_page.items():
        for b in _edge_blocks(mine):
            folio = folio_value(" ".join(b.text.split()))
            if folio is not None:
                key = (folio[0], folio[1] - page)
                offsets[key].add(page)
                found.append((b.id, key))
    return {ident for ident, key in found if len(offsets[key]) >= 2}


def _edge_blocks(page: list) -> list:
    """The blocks with no other text block above them, or none below."""
    return [b for b in page if not any(o.bbox[3] <= b.bbox[1] for o in page) or
            not any(o.bbox[1] >= b.bbox[3] for o in page)]


_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}


def folio_value(text: str) -> tuple | None:
    """``(numerals, number)`` a page's folio prints: "12" and "- 12 -" arabic, "xiv" roman
    (front matter, counted apart); None for any other text."""
    text = text.strip("-\u2013\u2014 []()")
    if text.isdigit() and len(text) <= 4:
        return "arabic", int(text)
    lower = text.lower()
    if not lower or len(lower) > 7 or any(ch not in _ROMAN for ch in lower) or \
            text not in (lower, text.upper()):
        return None
    total = 0
    for ch, nxt in zip(lower, lower[1:] + " "):
        value = _ROMAN[ch]
        total += -value if nxt in _ROMAN and _ROMAN[nxt] > value else value
    return "roman", total


def _used_by_short_blocks(blocks: list, size: float) -> bool:
    return any(len(b.lines) <= 3 and abs(b.lines[0].size - size) <= 0.5 for b in blocks if b.lines)


def _row_mates(blocks: list) -> dict:
    """Block id -> the other text blocks beside it on its row (labels, column headers…)."""
    by_page = collections.defaultdict(list)
    for b in blocks:
        if b.lines and b.metadata.get("source_block_type", "text") == "text":
            by_page[b.page_number].append(b)
    mates = collections.defaultdict(list)
    for page in by_page.values():
        page.sort(key=lambda b: b.bbox[1])
        for i, b in enumerate(page):
            for o in page[i + 1:]:
                if o.bbox[1] >= b.bbox[3]:
                    break  # sorted by top: nothing further down can share b's row
                if _same_row(b.bbox, o.bbox) and not _other_columns(b, o):
                    mates[b.id].append(o)
                    mates[o.id].append(b)
    return mates


def _other_columns(a: Block, b: Block) -> bool:
    """Blocks read in two different columns of the page are neighbours by chance."""
    cols = {a.metadata.get("column", "full"), b.metadata.get("column", "full")}
    return cols == {"left", "right"}


def _same_row(a: tuple, b: tuple) -> bool:
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap > 0.5 * min(a[3] - a[1], b[3] - b[1])


def _key(text: str) -> str:
    return re.sub(r"\d+", "#", " ".join(text.lower().split()))


def _repeated_lines(blocks: list) -> set:
    """Ids of one-line blocks whose text (digits masked) recurs at about the same height
    on two or more pages: running headers and footers."""
    places = collections.defaultdict(set)  # (text key, height bucket) -> pages
    for b in blocks:
        if len(b.lines) == 1:
            places[(_key(b.text), round(b.bbox[1] / _SAME_PLACE))].add(b.page_number)
    out = set()
    for b in blocks:
        if len(b.lines) == 1:
            key, k = _key(b.text), round(b.bbox[1] / _SAME_PLACE)
            # Neighbouring buckets too, so a line drifting across a bucket edge still matches.
            if len(places.get((key, k - 1), set()) | places[(key, k)] |
                   places.get((key, k + 1), set())) >= 2:
                out.add(b.id)
    return out


def is_bold(font: str) -> bool:
    name = font.lower()
    return "bold" in name or "black" in name or "heavy" in name


def rule_type(block: Block, profile: Profile) -> tuple:
    """``(element type, heading level or None)`` for one block; ``(None, None)`` when no
    rule can say (a block with no visible text)."""
    kind = block.metadata.get("source_block_type", "text")
    if kind in ("table", "image"):
        return ("table" if kind == "table" else "figure"), None
    if not block.lines or not block.text.strip():
        # No visible text, nothing for a rule to read (the pipeline drops blank words, but a
        # caller of the classifier may pass such a block): the rules cannot say what it is.
        return None, None
    text = " ".join(block.text.split())
    band = profile.band(block)
    if block.id in profile.folios or band and (PAGE_NUMBER.match(text) or PAGE_OF.search(text)):
        return "page_number", None
    repeated = block.id in profile.repeated
    if CAPTION.match(text) and not repeated:  # a caption may sit low, in the footer band
        return "caption", None
    if band and (repeated or block.lines[0].size < profile.body_size - 0.5):
        return ("header" if band == "top" else "footer"), None
    first = block.lines[0]
    if stands_as_heading(block, profile):
        return "heading", profile.levels.level(text, first.size)
    if (MARKER.match(first.text.split()[0]) and len(first.text.split()) > 1) or \
            GLUED_MARKER.match(first.text):
        return "list", None
    return "paragraph", None


def stands_as_heading(block: Block, profile: Profile) -> bool:
    """A heading stands alone on its row, or beside one other heading (two columns); three
    bold words on a row are column headers, and "TOTAL  702.10" is a label and its value."""
    mates = profile.row_mates.get(block.id, [])
    return looks_like_heading(block, profile) and len(mates) <= 1 and \
        all(looks_like_heading(m, profile) for m in mates)


def looks_like_heading(block: Block, profile: Profile) -> bool:
    first = block.lines[0]
    if len(block.lines) > 3 or len(block.text.split()) > _HEADING_MAX_WORDS:
        return False
    if not any(c.isalpha() for c in block.text):
        return False
    larger = first.size > profile.body_size + 0.5
    return larger or (is_bold(first.font) and not block.text.rstrip().endswith((".", ":", ",")))


# --- building elements from blocks ----------------------------------------------------


def build_element(block: Block, kind: str, level: int | None = None, caption: str = "") -> dict:
    """The element of ``kind`` made of ``block``'s own words (nothing is re-typed or dropped).

    Raises:
        ValueError: ``kind`` cannot hold this block's words (a figure for a text block).
    """
    base = {"type": kind, "bbox": list(block.bbox), "page_number": block.page_number,
            "block_ids": [block.id]}
    text = " ".join(block.text.split())
    if kind == "heading":
        base.update(text=text, level=int(level or 1))
    elif kind == "list":
        base["items"] = list_items(block)
    elif kind == "table":
        rows = block.metadata.get("rows") or [[ln.text] for ln in block.lines]
        rows = [list(r) for r in rows]
        bold_top = bool(block.lines) and is_bold(block.lines[0].font)
        if len(rows) > 1 and (bold_top or _labels_over_figures(rows)):
            base["header"] = rows.pop(0)
        base["rows"] = rows
    elif kind == "figure":
        if text and block.metadata.get("source_block_type") != "image":
            raise ValueError(f"block {block.id} holds text; a figure element cannot carry it")
        if text:
            base["text"] = text  # the labels drawn inside the figure
        if caption:
            base["caption"] = caption  # a reference: the words belong to the caption element
    else:
        base["text"] = text
    return base


def _labels_over_figures(rows: list) -> bool:
    """A first row of words with no digit over rows that hold numbers: column names, as in
    statements that print their header in the body font (Date | Description | Balance)."""
    first = [str(c or "").strip() for c in rows[0]]
    if sum(1 for c in first if c) < 2 or any(ch.isdigit() for c in first for ch in c):
        return False
    return any(ch.isdigit() for row in rows[1:] for c in row for ch in str(c or ""))


def list_items(block: Block) -> list:
    """Items start at lines opening with a marker at the list's left edge; a marker set in
    further starts an item nested under the one before, ``level`` 2, 3… by how far in its
    edge stands (where it opens a list of its own: a bullet, "1.", "a)", or the marker
    after the last nested one; a line of the item that happens to open with "3." does not)."""
    left = min(ln.bbox[0] for ln in block.lines)
    items: list = []
    edges = [left]  # the edges items start at, outermost first
    for line in block.lines:
        words = line.text.split()
        glued = bool(GLUED_MARKER.match(words[0]))
        marked = bool(MARKER.match(words[0]) or glued)
        x = line.bbox[0]
        level = 1 if abs(x - left) <= 2.0 else _nested_level(edges, x, words[0], items) \
            if marked and len(words) > 1 and items and x > left else 0
        if (marked and level) or not items:
            # A glued marker stays in its word: the element keeps the page's words as printed.
            starts = marked and not glued
            item = {"marker": words[0] if starts else "",
                    "text": " ".join(words[1:] if starts else words)}
            if level > 1:
                item["level"] = level
            items.append(item)
        else:
            items[-1]["text"] = f"{items[-1]['text']} {line.text}".strip()
    return items


def _nested_level(edges: list, x: float, marker: str, items: list) -> int:
    """The level of a marker set in to ``x`` (0: no item starts there)."""
    for i, edge in enumerate(edges):
        if abs(x - edge) <= 2.0:
            level = i + 1
            break
    else:
        if x < edges[-1]:
            return 0  # between two edges: a line of the item, not a marker
        edges.append(x)
        level = len(edges)
    before = next((it["marker"] for it in reversed(items) if it.get("level", 1) == level), None)
    opens = any(n == 1 for _, n in marker_readings(marker)) or \
        marker_readings(marker) == [("\u2022", 0)]
    return level if (before is None and opens) or (before and follows(before, marker)) else 0


def marker_readings(marker: str) -> list:
    """What a list marker counts: ``[(kind, n)]``, ("1", 3) for "3." or "(3)", ("a", 2) for
    "b)", ("i", 4) for "iv."; "i)" reads both as a letter and a roman one; a bullet is
    ("•", 0); [] for no marker."""
    if not MARKER.match(marker):
        return []
    core = marker.strip("().")
    if core.isdigit():
        return [("1", int(core))]
    out = []
    if len(core) == 1 and core.isalpha():
        out.append(("a", ord(core.lower()) - ord("a") + 1))
    folio = folio_value(core) if core and set(core.lower()) <= set("ivx") else None
    if folio is not None:
        out.append(("i", folio[1]))
    return out or [("\u2022", 0)]


def follows(before: str, after: str) -> bool:
    """Whether the marker ``after`` comes next after ``before`` in one list (the same
    bullet again, or the next number, letter or roman numeral)."""
    if marker_readings(before) == [("\u2022", 0)]:
        return before == after
    return any(k == j and m == n + 1 for k, n in marker_readings(before)
               for j, m in marker_readings(after))


def classify_with_rules(blocks: list, profile: Profile) -> list:
    """Elements for ``blocks``, in order; seed 000's unclassified_text_block for a block no
    rule can type (nothing is dropped)."""
    out = []
    for block in blocks:
        kind, level = rule_type(block, profile)
        out.append(build_element(block, kind, level) if kind else
                   unclassified_text_block(block, NO_RULE))
    return out
