"""The table's heading: the plain line(s) standing over the columns just above the first row.

Found by where it stands (over the rivers between the rows' cells), with the plain lines
stacked against it when a heading cell wraps; a heading printed on every page keeps only the
lines that come with it every time. ``columns`` names the columns from it.
"""
from __future__ import annotations

import re

from ..notation.dates import DATE_SEARCH
from . import engine, faces, wordlines
from .columns import GLUE_GAP, LINE_TOLERANCE, _aligned_tier, _phrases, _split_at_rivers

# Used only when no river geometry is given (and as a hint): common English column words.
HEADER_WORDS = {
    "date", "description", "particulars", "narration", "details", "amount", "debit", "credit",
    "balance", "withdrawal", "withdrawals", "deposit", "deposits", "txn", "transaction", "value",
    "ref", "reference", "cheque", "chq", "remarks", "type", "dr", "cr", "posting", "post",
    "memo", "payee", "paid", "money", "in", "out", "no", "transactions", "tran", "trans",
}

_WORD_SPACE = 3.0  # pt: segments closer than this are one column's words, no gutter


def _header_score(line: list) -> int:
    words = wordlines.normalize(" ".join(w[0] for w in line)).split()
    return sum(1 for w in words if w in HEADER_WORDS)


def _plain(line: list) -> bool:
    """Words, but no date and no amount: a line that can be a heading.

    A line of dashes or equals signs under a printout's heading is a rule, not words.
    """
    text = " ".join(w[0] for w in line)
    return (any(ch.isalnum() for ch in text) and not DATE_SEARCH.search(text)
            and not any(engine.looks_like_amount(w[0]) for w in line))


def _numbered(line: list) -> bool:
    """A line printing a number of three digits or more: an account's number over its
    table ('Current Account 3892 5329 9950'), which names no column."""
    return any(re.search(r"\d{3}", w[0]) for w in line)


def _spans_table(line: list, segments: list) -> bool:
    """Words over at least two of the table's columns, across half of its width or more.

    A heading row labels the columns it stands over; a letterhead or address line
    above the table is narrower or stands over one column only. Over the first column and
    the last, it spans the table however wide the last column's text runs.
    """
    if not segments:
        return False
    # segments a word space apart are one column's words (a long description's last
    # words, an amount's 'Dr'): the last column is the last beyond a gutter
    joined = [list(segments[0])]
    for a, b in segments[1:]:
        if a - joined[-1][1] < _WORD_SPACE:
            joined[-1][1] = max(joined[-1][1], b)
        else:
            joined.append([a, b])
    segments = joined
    left, right = segments[0][0], segments[-1][1]
    hit = {i for w in line for i, (a, b) in enumerate(segments) if min(w[2], b) - max(w[1], a) > -3}
    width = max(w[2] for w in line) - min(w[1] for w in line)
    return len(hit) >= 2 and (width >= 0.5 * (right - left) or {0, len(segments) - 1} <= hit)


def _reach(lines: list, anchor: list, segments: list | None) -> tuple | None:
    """How far the table runs across: its columns, and the lines in the rows' own size
    under its first row (a description printed over its row's figures), 60 pt beyond."""
    if not segments:
        return None
    size = sorted(w[4] - w[3] for w in anchor)[len(anchor) // 2]
    below = [w for ln in lines if ln[0][3] > anchor[0][3] for w in ln][:400]
    own = [w for w in below if abs((w[4] - w[3]) - size) <= 0.25 * size] + list(anchor)
    return (min([segments[0][0]] + [w[1] for w in own]) - 60,
            max([segments[-1][1]] + [w[2] for w in own]) + 60)


def _in_reach(line: list, reach: tuple | None) -> list:
    """The words of ``line`` within the table's reach: a sidebar's text that shares the
    heading's baseline in a size of its own (a guide's notes beside the table) names no
    column. A word set as the heading's others are is the heading's, however far out it
    stands (a column no row fills, at the page's edge)."""
    return line if reach is None else [w for w in line if w[2] > reach[0] and w[1] < reach[1]]


def _whole(block: list, lines: list) -> list:
    """The heading's lines with the words the reach set apart that name a column no row
    fills, at the page's edge: set as the heading's words are, with nothing printed under
    them. A sidebar's text is set in a size of its own, or goes on below."""
    out = []
    for part in block:
        k = next((k for k, ln in enumerate(lines) if part[0] in ln), None)
        if k is None:
            out.append(part)
            continue
        size = sorted(w[4] - w[3] for w in part)[len(part) // 2]
        under = [w for ln in lines[k + 1:k + 4] for w in ln]
        out.append([w for w in lines[k] if w in part or (
            abs((w[4] - w[3]) - size) <= 0.15 * size
            and not any(u[1] < w[2] and u[2] > w[1] for u in under))])
    return out


def find_header(pages: list, first: tuple, segments: list | None = None) -> list:
    """The heading line(s) above the first table row, found by where they stand.

    Going up from the first row, lines that print a date or money (an opening balance,
    a day heading) are passed over; the first plain line that stands over the table's
    columns is the heading, with the plain lines stacked against it (a heading cell
    wrapped on two or three lines). Without ``segments`` a line needs two column
    words instead (the old test of a heading).
    """
    index, anchor = first
    every = wordlines.group_lines(pages[index], LINE_TOLERANCE)
    reach = _reach(every, anchor, segments)
    lines = [ln for ln in (_in_reach(ln, reach) for ln in every) if ln]
    above = [ln for ln in lines if ln[0][3] < anchor[0][3] - 0.5]
    best = None
    for ln in reversed(above[-12:]):
        if not _plain(ln):
            continue
        if (_spans_table(ln, segments) if segments else _header_score(ln) >= 2):
            best = ln
            break
    if best is None:
        return []
    stack = _stack(lines, best, segments, reach, faces.face_of(anchor))
    whole = _whole(stack, every)
    return _repeated_with(pages, whole[stack.index(best)], whole)


def _repeated_with(pages: list, best: list, block: list) -> list:
    """The stacked lines a heading printed more than once keeps wherever it is printed: a
    cell's wrapped words come with it every time, a section's title above it ('Deposits',
    then 'Withdrawals') does not."""
    key = wordlines.normalize(wordlines.join_words(best, GLUE_GAP))
    places = []
    for words in pages:
        lines = wordlines.group_lines(words, LINE_TOLERANCE)
        norms = [wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) for ln in lines]
        places += [set(norms[max(0, k - 3):k + 4]) for k, n in enumerate(norms) if n == key]
    if len(places) < 2:
        return block
    return [ln for ln in block if ln is best or all(
        wordlines.normalize(wordlines.join_words(ln, GLUE_GAP)) in near for near in places)]


def _stack(lines: list, best: list, segments: list | None, reach: tuple | None = None,
           rows_face: str | None = None) -> list:
    """``best`` and the plain lines that touch it above and below (a wrapped heading),
    within the table's ``reach`` where known: its rows' lines, descriptions printed on
    lines of their own included, not only the columns of their first lines. A line set in
    the face of the rows (``rows_face``), where the heading is set in another, is a row's
    (the first row's description, printed above its amounts)."""
    height = max(w[4] - w[3] for w in best)
    block = [best]
    own = rows_face if rows_face != faces.face_of(best) else None
    grew = True
    while grew:
        grew = False
        for ln in lines:
            if any(ln is b for b in block) or not _plain(ln) or _numbered(ln) or (
                    own is not None and faces.face_of(ln) == own):
                continue
            # a heading cell wraps right under (or over) its own words: a line under a cell
            # whose next line down is empty is the first row's text, not a third tier; a
            # cell over no word of the block (set on lines of its own) touches the block
            touched = [b for b in block if any(min(w[2], h[2]) - max(w[1], h[1]) > -5
                                               for w in ln for h in b)]
            if not touched and _beyond(ln, block, segments):
                continue
            near = touched or block
            gap = min(max(ln[0][3] - max(w[4] for w in b), b[0][3] - max(w[4] for w in ln))
                      for b in near)
            under = all(any(min(w[2], h[2]) - max(w[1], h[1]) > -5 for h in best) for w in ln)
            # A wrapped heading word may reach past a narrow right-aligned column.
            left, right = reach or ((segments[0][0] - 60, segments[-1][1] + 60)
                                    if segments else (float("-inf"), float("inf")))
            # a column no row fills ('Chq No.' over blanks) lies past the rows' reach,
            # within the heading's own
            inside = ln[0][1] >= min(left, best[0][1]) and ln[-1][2] <= max(right, best[-1][2])
            # within the cells of the heading's lines it touches, not only the names': a
            # title over the upper tier runs across two of its cells
            cells = all(_within_cells(ln, b, segments) for b in near + [best])
            if gap < 0.6 * height and inside and cells and (
                    segments or _header_score(ln) or under):
                block.append(ln)
                grew = True
    return sorted(block, key=lambda ln: ln[0][3])


def _beyond(line: list, block: list, segments: list | None) -> bool:
    """The line stands past the heading's ends, over no column of the rows: a title set
    beside the table ('Money in' flush right, over nothing, its section's rows below and
    'Money out' further down), no heading cell of its own."""
    ends = (min(w[1] for b in block for w in b), max(w[2] for b in block for w in b))
    past = line[0][1] > ends[1] or line[-1][2] < ends[0]
    return bool(segments) and past and not any(
        min(w[2], b) - max(w[1], a) > 0 for w in line for a, b in segments)


def _within_cells(line: list, best: list, segments: list | None = None) -> bool:
    """Each phrase of ``line`` stands over at most one phrase of the heading ``best``, or
    each of its words is aligned with a word of ``best`` of its own (a heading's upper
    tier: 'TRANSACTION' over 'DATE', 'POSTING' over the next 'DATE').

    A heading cell wraps inside its own column; a section title printed just above the
    heading runs across several columns, its words aligned with nothing, and is no part
    of it.
    """
    if _aligned_tier(line, best):
        return True
    cells = _split_at_rivers(_phrases([best]), segments) if segments else _phrases([best])
    for phrase in _phrases([line]):
        a, b = phrase[0][1], phrase[-1][2]
        if sum(1 for c in cells if min(b, c[-1][2]) - max(a, c[0][1]) > 0) > 1:
            return False
    return True
