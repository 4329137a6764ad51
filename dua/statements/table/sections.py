"""Sections of a statement: the titles printed over each repetition of the table's heading,
and the sign a section gives the unsigned amounts printed in it.

A statement that lists its credits and its debits under two titles ('DEPOSITS AND OTHER
CREDITS', 'OTHER DEBITS') prints every amount unsigned: the section says which way it
moves the balance. The titles are found by where they stand (the plain line right above
the column heading); the signs by evidence, the answer key's or the arithmetic's, never by
what the titles say.
"""
from __future__ import annotations

import re

from . import engine, faces, wordlines
from .columns import GLUE_GAP, LINE_TOLERANCE


def titles(pages: list, settings: dict) -> list:
    """``(page, line, title)`` of each section title, in page order; ``title`` normalized.

    A title is a plain line (no date, no amount) standing right above a line of the table's
    heading, within two and a half of its own heights; or a line of words inside the table
    that no row continues and the next rows stand under (a group's heading).
    """
    out = set(_over_headings(pages, settings))
    if settings.get("columns"):
        out |= set(_over_rows(pages, settings))
    return sorted(t for t in out if not _running(pages, t, out)
                  and not _letterhead_again(pages, t, settings))


def _letterhead_again(pages: list, title: tuple, settings: dict) -> bool:
    """Whether a later page's title is the first page's letterhead printed again (the
    bank's and the holder's names over that page's heading): the page's header, printed
    on one page alone where a running header is printed on two, and no section."""
    header = set(settings.get("header") or [])
    lines = wordlines.group_lines(pages[0], LINE_TOLERANCE) if pages else []
    tops = [ln[0][3] for ln in lines
            if wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) in header]
    if title[0] == 0 or not tops:
        return False
    first = [[None, ln[0][3], None, "", ln] for ln in lines]
    words = wordlines.group_lines(pages[title[0]], LINE_TOLERANCE)[title[1]]
    return wordlines.letterhead(words, first, min(tops))


def _running(pages: list, title: tuple, found: set) -> bool:
    """Whether a title is the page's running header: the same words at the same height on
    two pages or more, where a section's title stands wherever its section starts."""
    tops = {round(wordlines.group_lines(pages[p], LINE_TOLERANCE)[k][0][3])
            for p, k, t in found if t == title[2]}
    pages_with = {p for p, _, t in found if t == title[2]}
    return len(pages_with) >= 2 and max(tops) - min(tops) <= 2


def _over_headings(pages: list, settings: dict) -> list:
    header = set(settings.get("header") or [])
    out = []
    for p, words in enumerate(pages):
        lines = wordlines.group_lines(words, LINE_TOLERANCE)
        norms = [wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in lines]
        for k in range(1, len(lines)):
            if norms[k] not in header or norms[k - 1] in header or not norms[k - 1]:
                continue
            above, line = lines[k - 1], lines[k]
            height = max(w[4] - w[3] for w in above)
            close = line[0][3] - above[0][3] <= 2.5 * height
            if close and not any(engine.looks_like_amount(w[0]) for w in above):
                out.append((p, k - 1, norms[k - 1]))
    return out


def _over_rows(pages: list, settings: dict) -> list:
    try:
        found, items_by_page = engine.extract(pages, dict(settings, sections=[]))[:2]
    except (KeyError, ValueError, TypeError, IndexError):
        return []
    owned = {place for row in found for place in row[3]}
    rows = [w for items in items_by_page for item in items if item[0] == "anchor"
            for w in item[4]]
    if not rows:
        return []
    # a line beside the table (a guide's sidebar on the rows' baselines) titles none of its
    # rows; the table reaches as far as its heading names columns (an empty 'Remarks')
    rows += [w for items in items_by_page for item in items
             if item[0] == "furniture" and item[5] == wordlines.HEADING for w in item[4]]
    left, right = min(w[1] for w in rows), max(w[2] for w in rows)
    out, words = [], row_words(found, items_by_page)
    titles = faces.title_faces(items_by_page)
    for p, items in enumerate(items_by_page):
        for k, item in enumerate(items):
            # a line no row took: one no row may continue, or one apart from every row
            # (under the heading, under a total), or one set in a title's face
            if item[0] != "text" or (p, k) in owned or k and left_by_row(
                    items[k - 1], item, settings, words.get((p, k - 1))) and \
                    not faces.in_title_face(items, k, titles):
                continue
            beside = (item[4][-1][2] < left or item[4][0][1] > right) and \
                not _own_line(items, k, p, owned)
            worded = re.search(r"[^\W\d_]", item[4][0][0])  # not a wrapped date's year
            if worded and not beside and (engine.row_below(items, k, settings)
                                          or _opens_next_page(items_by_page, p, k, settings)):
                out.append((p, k, wordlines.normalize(item[3])))
    return out


def _own_line(items: list, k: int, page: int, owned: set) -> bool:
    """Whether line ``k`` takes a line of the table's own: the lines right over and under it
    are the heading's or the rows' (``owned``), and stand further apart than one and a half
    of the rows' leading. A sidebar set beside the table between two rows' lines pushes
    them no further apart, and its lines stand over and under one another."""
    def table_line(j: int) -> bool:
        return 0 <= j < len(items) and ((page, j) in owned or items[j][0] == "furniture"
                                        and items[j][5] == wordlines.HEADING)

    rows = sorted(it[1] for j, it in enumerate(items) if (page, j) in owned)
    leading = min((b - a for a, b in zip(rows, rows[1:]) if b - a > 0.5), default=None)
    return bool(leading) and table_line(k - 1) and table_line(k + 1) and \
        items[k + 1][1] - items[k - 1][1] >= 1.5 * leading


def row_words(rows: list, items_by_page: list) -> dict:
    """``(page, line) -> the words of the row that line is of``, every line's."""
    out = {}
    for row in rows:
        words = [w for p, k in row[3] for w in items_by_page[p][k][4]]
        out.update({place: words for place in row[3]})
    return out


def left_by_row(above: list, item: list, settings: dict, row: list | None) -> bool:
    """Whether text line ``item`` may be text the reading left of the row over it: under one
    of its lines (``row``: the row's words, every line's) or under a line of money no row
    took, in the columns rows go on in, and starting where a wrap of theirs would, however
    far under (a wrap pushed down past the rows' reach). A section's title so placed is no
    evidence of a section."""
    if row is None and above[0] != "money":
        return False
    return engine.continues(item, settings) and \
        not wordlines.past_its_end(item[4], row or above[4], settings["columns"])


def _opens_next_page(items_by_page: list, p: int, k: int, settings: dict) -> bool:
    """Whether line ``k`` is the last of its page's table (only the page's foot under it)
    and the next page's table opens with a row, under the heading printed again or, where
    the heading is printed once, under the page's own header: a section's title the page
    break parted from its first row."""
    if any(item[0] not in ("furniture", "outside") for item in items_by_page[p][k + 1:]):
        return False
    if p + 1 >= len(items_by_page):
        return False
    items = items_by_page[p + 1]
    heading = [i for i, item in enumerate(items) if item[0] == "furniture"
               and item[5] == wordlines.HEADING]
    if heading:
        return engine.row_below(items, heading[0], settings)
    first = next((i for i, item in enumerate(items) if item[0] not in ("furniture", "outside")),
                 None)
    return first is not None and items[first][0] == "anchor"


def in_heading(pages: list, settings: dict, header: list) -> list | None:
    """The heading's lines without the lowest where it stands as a section's title stands
    further down the table (its first words at the same place, at the same height, one
    phrase): 'Money out' set close under the column heading is the first section's title,
    not a wrapped heading cell. None when it does not stand so."""
    if len(header) < 2:
        return None
    lines = [wordlines.group_lines(words, LINE_TOLERANCE) for words in pages]
    inside = set(_over_rows(pages, settings))  # titles between rows, not over a heading
    starts = titles(pages, settings)
    found = [lines[p][k] for p, k, t in starts if (p, k, t) in inside]
    low = header[-1]  # a title stands under the heading, never between its tiers
    text = wordlines.join_words(low, GLUE_GAP)
    if _titles_nothing(lines, header, {(p, k) for p, k, _ in starts}) or not any(
            _same_place(low, t) and wordlines.join_words(t, GLUE_GAP) != text for t in found):
        return None
    return header[:-1]


def _titles_nothing(lines: list, header: list, starts: set) -> bool:
    """Whether the heading's lowest line stands somewhere with a section's title right
    under it: a title heads rows, and a line heading none there is the heading's own
    ('Trans.' over 'Date', then 'Money in' under both)."""
    norm = [wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in header]
    for p, page in enumerate(lines):
        texts = [wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in page]
        if any(texts[k:k + len(norm)] == norm and (p, k + len(norm)) in starts
               for k in range(len(texts))):
            return True
    return False


def _same_place(line: list, title: list) -> bool:
    height = max(w[4] - w[3] for w in line)
    return (_aligned(line, title, 1.5)
            and abs(height - max(w[4] - w[3] for w in title)) <= 0.5 and _phrase(line))


def _aligned(line: list, title: list, slack: float = 2.0) -> bool:
    """Two lines set flush on one edge, left or right ('Money out' and 'Money in' set
    right under a date column that stands at the table's right)."""
    return (abs(line[0][1] - title[0][1]) <= slack
            or abs(line[-1][2] - title[-1][2]) <= slack)


def _phrase(line: list) -> bool:
    """One short phrase, as a title is: not a heading's names spread over its columns."""
    return line[-1][1] - line[0][2] < 3 * max(w[4] - w[3] for w in line)


def guess(pages: list, settings: dict) -> list:
    """``[[title, 1], ...]`` when two different titles or more head the table's sections,
    else ``[]``. Every section starts unsigned (+1); the search flips them by evidence."""
    found = list(dict.fromkeys(t for _, _, t in titles(pages, settings)))
    return [[t, 1] for t in found] if len(found) >= 2 else []


def of_lines(pages: list, settings: dict, starts: list | None = None) -> dict:
    """``(page, line) -> title`` of the section each line of the document stands in
    (``starts``: the titles' ``(page, line, title)``, found here when not given)."""
    starts = titles(pages, settings) if starts is None else starts
    out, current, i = {}, None, 0
    for p, words in enumerate(pages):
        for k in range(len(wordlines.group_lines(words, LINE_TOLERANCE))):
            while i < len(starts) and starts[i][:2] <= (p, k):
                current = starts[i][2]
                i += 1
            out[(p, k)] = current
    return out


def flipped(settings: dict, found: list) -> list:
    """Settings with one section's sign flipped, for each section (the search's moves);
    ``found`` are the titles the layout shows, used when the settings sign no section yet.
    The amount columns other than the balance are signed by their section from then on.
    The last section is flipped first: where the arithmetic cannot tell the two ways apart,
    the section printed first keeps its amounts as printed (and the verdict says so). Then
    every section at once: the rows the other way round, where the arithmetic says they
    lead back from the balance printed later."""
    current = settings.get("sections") or [[t, 1] for t in found]
    out = []
    ways = [[i] for i in reversed(range(len(current)))]
    if len(current) > 1:
        ways.append(list(range(len(current))))
    for flip in ways:
        flips = [[t, -sign if i in flip else sign] for i, (t, sign) in enumerate(current)]
        columns = [dict(c, section_signed=True) if c["kind"] == "amount"
                   and n != settings.get("balance_column") else c
                   for n, c in enumerate(settings["columns"])]
        out.append(dict(settings, sections=flips, columns=columns))
    return out


def unclaimed(pages: list, rows: list, settings: dict) -> list:
    """``(page, line, title)`` of the lines of words alone (no digit) that stand inside the
    table, under its heading or between rows, and that no row of the key claims. The
    heading's lowest line is one too where it starts where such a title does: the first
    section's title set close under the heading ('Money out'), the next one between rows.
    Such a line leaves the heading, and is a title wherever it stands (under the heading
    a later page prints again, over the next account's rows)."""
    claimed = {(r.page, k) for r in rows for k in r.lines}
    glue = settings["glue_gap"]
    out, lowest = _inside(pages, claimed, set(settings.get("header") or []), glue)
    edges = [pages[p].lines[k] for p, k, _ in out]
    titles = set()
    for p, k, line in lowest:
        below = [ln for ln in pages[p].lines[k + 1:k + 3]
                 if wordlines.normalize(wordlines.join_words(ln, glue)) in settings["header"]]
        if below and any(_aligned(below[-1], t) for t in edges) and \
                _phrase(below[-1]) and not re.search(r"\d", wordlines.join_words(below[-1], glue)):
            titles.add(wordlines.normalize(wordlines.join_words(below[-1], glue)))
    if not titles:
        return out
    settings["header"] = [h for h in settings["header"] if h not in titles]
    return _inside(pages, claimed, set(settings["header"]), glue)[0]


def _inside(pages: list, claimed: set, header: set, glue: float) -> tuple:
    """``(titles, lowest)``: the unclaimed lines of words inside the table, and the first
    line of each page's heading, ``(page, line, words)``."""
    last = max(claimed)
    out, lowest = [], []
    for p, page in enumerate(pages):
        inside = False
        for k, line in enumerate(page.lines):
            if (p, k) > last:
                break
            text = wordlines.join_words(line, glue)
            if wordlines.normalize(text) in header:
                inside, lowest = True, lowest + [(p, k, line)] if not inside else lowest
                continue
            inside = inside or (p, k) in claimed
            if inside and (p, k) not in claimed and not re.search(r"\d", text) \
                    and re.search(r"[^\W\d_]", text):
                out.append((p, k, wordlines.normalize(text)))
    return sorted(out), lowest
