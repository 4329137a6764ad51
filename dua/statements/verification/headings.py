"""Lines that print the table's heading again, or a section's title: where they are what
they say, and where they are not (a row's words the heading or a title took in). The page's
own header printed again is the reading's to mark (``wordlines.letterhead``).
"""
from __future__ import annotations

from collections import Counter

from ..table import engine, faces, sections, wordlines

_ELSEWHERE = ("reads as a line of the heading, but stands where the heading's names are not "
              "printed")
_FIRST_ROW = ("reads as a line of the heading, but may be the first row's wrapped lines: rows "
              "here print theirs above the date line, and the heading is printed once")
_LEFT_BEHIND = ("reads as a section's title, but stands right under a row's line where that "
                "row's text goes on: the row's words the reading left")


def misplaced(items: list, settings: dict, rows: list) -> dict:
    """``(page, line) -> why`` for the lines the reading took for its heading or a section's
    title that may be a row's words instead."""
    out = {at: _ELSEWHERE for at in stray(items, settings)}
    out.update({at: _FIRST_ROW for at in over_first_row(items, settings, rows)})
    out.update({at: _LEFT_BEHIND for at in left_behind(items, settings, rows)})
    return out


def left_behind(items: list, settings: dict, rows: list) -> set:
    """``(page, line)`` of section titles right under a row's line, or a line of money no row
    took, that the row may go on with: a section starts over its rows, and a title that may
    be the row's text is no evidence of one (``sections`` reads titles so too), unless it
    turns the sign in a title's face (``_turning``)."""
    words, turning = sections.row_words(rows, items), _turning(items, settings)
    return {(page, k) for page, lines in enumerate(items) for k in range(1, len(lines))
            if lines[k][0] == "furniture" and lines[k][5] == engine.TITLE
            and (page, k) not in turning
            and sections.left_by_row(lines[k - 1], lines[k], settings, words.get((page, k - 1)))}


def _turning(items: list, settings: dict) -> set:
    """``(page, line)`` of the section titles set in a title's face (``faces``) that turn
    the sign of the amounts the sections sign: the rows under one are read with the other
    sign from the rows above it. A title may stand where a row's text would; a row's line
    set in another face than the rows (a foreign amount's rate) signs no rows, and one that
    heads no row turns nothing."""
    if not any(c.get("section_signed") for c in settings.get("columns") or ()):
        return set()
    titles, signs = faces.title_faces(items), dict(settings.get("sections") or ())
    out, pending, section, current = set(), None, None, None
    for page, lines in enumerate(items):
        for k, item in enumerate(lines):
            if item[0] == "furniture" and item[5] == engine.TITLE:
                section = signs.get(wordlines.normalize(item[3]))
                pending = (page, k) if faces.face_of(item[4]) in titles else None
            elif item[0] == "anchor":
                if pending and current is not None and section != current:
                    out.add(pending)
                pending, current = None, section
    return out


def stray(items: list, settings: dict) -> set:
    """``(page, line)`` of the heading's lines printed where its names are not: a run of
    heading lines that does not print, in one tier or across its tiers, every word of the
    line that names the most columns is no heading printed again ('agreed', a description's
    last word the heading took in where a row's text stood over the first row)."""
    header = settings.get("header") or []
    if not header or not isinstance(header, list):
        return set()
    names = Counter(max(header, key=lambda h: len(h.split())).split())
    out = set()
    for page, lines in enumerate(items):
        run: list = []
        for k, item in enumerate(lines + [None]):
            if item is not None and item[0] == "furniture" and item[5] == wordlines.HEADING:
                run.append(k)
                continue
            printed = Counter(w for j in run for w in wordlines.normalize(lines[j][3]).split())
            if run and names - printed:
                out |= {(page, j) for j in run}
            run = []
    return out


def over_first_row(items: list, settings: dict, rows: list = ()) -> set:
    """``(page, line)`` of the heading's lines that may be the first row's wrapped lines:
    where rows print theirs above the date line, a heading line under another whose words
    all stand in the columns of text, and that runs on to the line under it at the rows'
    own reach, is the first row's description as much as a tier of the heading. Nothing
    on the page tells which, unless the heading prints that line again on a later page."""
    if settings.get("continuation") != "above" or not settings.get("header_once"):
        return set()
    columns, reach = settings.get("columns") or [], settings.get("continuation_gap", 0.0)
    texts = {c for c, col in enumerate(columns) if col.get("kind") == "text"}
    # a row's wrapped line stands where the rows' wrapped lines stand: a word in a column
    # none of them prints in ('No.' under 'Chq', 'Date' under 'Effective') is the heading's
    wrapping = texts & {wordlines.column_of(w, columns) for row in rows for p, k in row[3]
                        if items[p][k][0] == "text" for w in items[p][k][4]}
    out = set()
    for page, lines in enumerate(items):
        for k in range(1, len(lines) - 1):
            line, over, under = lines[k], lines[k - 1], lines[k + 1]
            if _heading(line) and _heading(over) and under[1] - line[1] <= reach and \
                    under[0] in ("furniture", "text", "anchor") and \
                    all(wordlines.column_of(w, columns) in wrapping for w in line[4]):
                out.add((page, k))
    return out


def _heading(item: list) -> bool:
    return item[0] == "furniture" and item[5] == wordlines.HEADING
