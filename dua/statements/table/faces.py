"""The typefaces a statement sets its lines in, as evidence of what a line is: a section's
title set in a face no row is set in ('Money out' in bold over rows in a regular face) is no
row's wrapped text, wherever it stands (over the description a row prints above its
amounts, flush right in the last column, alone in a column the rows leave empty).

Copied verbatim, after ``datewraps`` and before ``engine``, into every generated parser:
standard library only, never dua.
"""
from __future__ import annotations


def face_of(words: list) -> str | None:
    """The font a line's words share; None where they mix fonts or one names none (a
    word some other reading than the reader's made)."""
    found = {w[6] if len(w) > 6 else None for w in words}
    return found.pop() if len(found) == 1 else None


def in_title_face(items: list, k: int, titles: frozenset) -> bool:
    """Whether line ``k`` of a page's items is set in one of ``titles`` on a line of its
    own: a word of a row set in another font a little off the row's line (a patched
    payee's name) overlaps that line, and is the row's."""
    words = items[k][4]
    if face_of(words) not in titles:
        return False
    top, bottom = min(w[3] for w in words), max(w[4] for w in words)
    return not any(0 <= j < len(items) and items[j][0] == "anchor"
                   and min(bottom, max(w[4] for w in items[j][4]))
                   > max(top, min(w[3] for w in items[j][4])) for j in (k - 1, k + 1))


def title_faces(items_by_page: list) -> frozenset:
    """The fonts that no row's first line is set in and that fewer of the table's lines of
    words (its text and its furniture: the heading, titles, labels) are set in than half
    the rows: titles' faces. A row's wrapped text is set as its first line is, or in a face
    most rows print a line in (a bold payee's name over each row)."""
    anchors = [item for items in items_by_page for item in items if item[0] == "anchor"]
    rows = {w[6] for item in anchors for w in item[4] if len(w) > 6}
    lines: dict = {}
    for items in items_by_page:
        for item in items:
            face = face_of(item[4]) if item[0] in ("text", "furniture") else None
            if face is not None and face not in rows:
                lines[face] = lines.get(face, 0) + 1
    return frozenset(face for face, n in lines.items() if 2 * n < len(anchors))
