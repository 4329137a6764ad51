"""The table's columns: the rows' segments (``segments``) grouped under the names the
heading above them prints (``heading`` finds it).

Everything is found by where words stand: the rivers that the rows leave between
their cells, and the heading's phrases over those rivers.
"""
from __future__ import annotations

from . import wordlines
from .segments import figure_segments

LINE_TOLERANCE = 3.0
GLUE_GAP = 0.8
EDGE = 0.25  # of the narrower of a name and a segment: less overlap is an edge touching


def widen(segments: list, lines: list, header: list = ()) -> list:
    """Segments widened by the continuation lines whose text runs on past them.

    A wrapped description's second line can be longer than any first line; its words,
    chained by ordinary word spaces, belong to the segment the chain starts in, as long
    as the chain stops short of the next segment, and of the next name in the ``header``
    (a summary's labels under the table run on under other columns' names). Gutters are
    then placed beyond them.
    """
    out = [list(s) for s in segments]
    names = sorted(w[1] for ln in header for w in ln)
    for line in lines:
        for phrase in _phrases([line]):
            a, b = phrase[0][1], phrase[-1][2]
            home = [i for i, (s0, s1) in enumerate(out) if s0 - 1 <= a <= s1]
            if len(home) != 1:
                continue
            i = home[0]
            stop = min([x for x in names if x > segments[i][1]] + [float("inf")])
            # a chain of words runs over the narrow rivers inside its own column
            j = max(k for k in range(i, len(out)) if out[k][0] <= b)
            if b > out[j][1] and (j + 1 == len(out) or b < out[j + 1][0] - 1.0) and b < stop:
                out[j][1] = b
    return [tuple(s) for s in out]


def _phrases(header: list) -> list:
    """Header words grouped into labels: words one space apart belong to one column's name."""
    phrases = []
    for line in header:
        height = max(w[4] - w[3] for w in line)
        # One space: about 0.3 em in proportional fonts, a whole character cell in Courier.
        char = sum(w[2] - w[1] for w in line) / max(1, sum(len(w[0]) for w in line))
        gap = max(0.6 * height, 1.2 * char)
        # names a word space apart within, set further apart from each other: where the
        # line shows its own word space, a gap well over it parts two names ('Memo' and
        # 'Description', 6 pt apart where 'Ref No.' and 'Paid out' are 3)
        spaces = sorted(b[1] - a[2] for a, b in zip(line, line[1:]) if 0 <= b[1] - a[2] < gap)
        if len(spaces) >= 3:
            space = spaces[len(spaces) // 2]
            gap = min(gap, max(1.6 * space, space + 1.5))
        for w in line:
            # a bracket opens a qualifier of the name before it ('Amount (in Rs.)'), never a
            # name: a scan's box around its thin ink stands further off than a space
            near = gap * (2 if w[0][:1] in "([" else 1)
            if phrases and phrases[-1][-1] in line and w[1] - phrases[-1][-1][2] < near:
                phrases[-1].append(w)
            else:
                phrases.append([w])
    return phrases


def _split_at_rivers(phrases: list, segments: list, raw: list = (), starts: tuple = ()) -> list:
    """Heading phrases cut where a river of the rows runs between two of their words.

    Two heading cells can stand one space apart (a right-aligned 'Amount' beside a
    left-aligned 'Txn Date'); the rows' own river between them says they are two. Where
    the two words stand further apart than a word space, the rivers before any segments
    were joined say so too, and so does a column's left edge that the right word starts
    on ('Memo' over an empty column, then 'Date' where the dates start), or its right edge
    that the left word ends on ('Amount (EUR)' over right-aligned money, then 'Memo'), or
    ``starts``, where the rows' other lines begin their text ('Memo' over nothing, then
    'Details' where descriptions printed on lines of their own begin).
    """
    rivers = [(a[1] + b[0]) / 2 for a, b in zip(segments, segments[1:])]
    out = []
    for phrase in phrases:
        out.append([phrase[0]])
        for left, right in zip(phrase, phrase[1:]):
            if any(left[2] - 1 <= x <= right[1] + 1 for x in rivers) or \
                    _apart(left, right, list(raw or ()), starts):
                out.append([])
            out[-1].append(right)
    return out


def _apart(left: tuple, right: tuple, raw: list, starts: tuple = ()) -> bool:
    letter = (left[2] - left[1] + right[2] - right[1]) / max(1, len(left[0]) + len(right[0]))
    if right[1] - left[2] <= 0.8 * letter:  # a word space is about half a letter wide
        return False
    # gutters of the rows a letter wide or more (a date's glued parts cut apart are not):
    # a gutter between the two words, or a column's edge one of them is aligned on
    edge = (float("inf"),) * 2
    wide = [(a, b) for a, b in zip([(-edge[0],) * 2] + raw, raw + [edge]) if b[0] - a[1] >= letter]
    return any(left[2] - 1 <= (a[1] + b[0]) / 2 <= right[1] + 1 for a, b in wide) or any(
        (abs(right[1] - b[0]) <= 1.5 and left[2] < b[0])
        or (abs(left[2] - a[1]) <= 1.5 and right[1] > a[1]) for a, b in wide) or any(
        abs(right[1] - x) <= 1.5 for x in starts)


def _aligned_tier(line: list, best: list, slack: float = 1.5) -> bool:
    """Every word of ``line`` starts, ends or is centred where a word of ``best`` does, and
    no two of them on the same word."""
    taken = set()
    for w in line:
        match = next((i for i, b in enumerate(best) if i not in taken and (
            abs(w[1] - b[1]) <= slack or abs(w[2] - b[2]) <= slack
            or abs(w[1] + w[2] - b[1] - b[2]) <= 2 * slack)), None)
        if match is None:
            return False
        taken.add(match)
    return len(line) >= 2


def _tier_phrases(header: list) -> list:
    """The heading's phrases, where a tier whose every word is aligned with a word of the
    tier below it gives one phrase per word: 'TRANSACTION POSTING' over 'DATE DATE' names
    two columns, however narrow the space between its words."""
    phrases = []
    for i, line in enumerate(header):
        below = [ln for ln in header[i + 1:] if ln[0][3] > line[0][3]]
        if below and _aligned_tier(line, below[0]):
            phrases += [[w] for w in line]
        else:
            phrases += _phrases([line])
    return phrases


def _covered(segments: list, phrase: list) -> list:
    a, b = phrase[0][1], phrase[-1][2]
    hit = [i for i, (s0, s1) in enumerate(segments) if min(b, s1) - max(a, s0) > 0]
    if hit:
        return hit
    centre = (a + b) / 2
    return [min(range(len(segments)),
                key=lambda i: min(abs(centre - segments[i][0]), abs(centre - segments[i][1])))]


def _group(segments: list, header: list, numeric: list | None = None, raw: list = (),
           starts: tuple = ()) -> list:
    """``[x0, x1, phrases]`` groups: segments under one header phrase become one column."""
    groups = [[a, b, []] for a, b in segments]
    owner = list(range(len(segments)))
    money = [s for s, m in zip(segments, numeric or ()) if m]
    phrases = _split_at_rivers(_tier_phrases(header), segments, raw, starts)
    phrases, empty = _heads_of_nothing(phrases, segments, money)
    hits = _in_order([_covered(segments, p) for p in phrases], phrases, segments,
                     numeric or [False] * len(segments))
    for phrase, hit in zip(phrases, hits):
        first = owner[hit[0]]
        for i in range(hit[0], hit[-1] + 1):
            owner[i] = first
        groups[first][2].append(phrase)
    merged = []
    for i, g in enumerate(groups):
        if merged and owner[i] == owner[i - 1]:
            merged[-1][1] = g[1]
            merged[-1][2].extend(g[2])
        else:
            merged.append(g)
    # a column the heading names and no row fills stands where its name stands
    return sorted(merged + [[min(p[0][1] for p in cell), max(p[-1][2] for p in cell), cell]
                            for cell in empty], key=lambda g: g[0])


def _heads_of_nothing(phrases: list, segments: list, money: list = ()) -> tuple:
    """``(phrases, empty)``: where a heading cell stands over every segment of the rows'
    words, a cell over none of them names an empty column (a 'Branch' never filled). Where
    some segment has no cell over it, the cells are set off to the side of their values
    (left-aligned names over right-aligned money) and each names the segment it is near."""
    # a name over the ragged edge of money alone is over nothing: right-aligned money set
    # wider on a later page (Chromium: to 409 pt) reaches 2 pt under 'Chq' at 407. Not so
    # over words: a name wider than its column's words ('Cheque / Ref. No.' read by OCR
    # without its '/') reaches past them and is still theirs
    over = [[i for i, (s0, s1) in enumerate(segments)
             if min(p[-1][2], s1) - max(p[0][1], s0) > (EDGE * min(p[-1][2] - p[0][1], s1 - s0)
                                                         if (s0, s1) in money else 0)]
            for p in phrases]
    named = {i for hit in over for i in hit}
    # a segment a word space from a named one is that column's words run on, not one of
    # its own left without a name, and so is one a space from those (a long description)
    space = 0.6 * max((w[4] - w[3] for p in phrases for w in p), default=0.0)
    for order in (range(len(segments)), reversed(range(len(segments)))):
        for i in order:
            if any(j in named and _gap(segments, i, j) <= space for j in (i - 1, i + 1)):
                named.add(i)
    everyone = len(named) == len(segments)
    named = [p for p, hit in zip(phrases, over) if hit]
    empty = [cell for cell in _stacked([p for p, hit in zip(phrases, over) if not hit])
             if not any(_beside(p, q) for p in cell for q in named)
             and (everyone or _named_before(cell[0], phrases, over, _covered(segments, cell[0])))]
    return [p for p in phrases if not any(p is q for cell in empty for q in cell)], empty


def _gap(segments: list, i: int, j: int) -> float:
    """The width of the river between segments ``i`` and ``j`` (inf where ``j`` is none)."""
    if not 0 <= j < len(segments):
        return float("inf")
    a, b = sorted((i, j))
    return segments[b][0] - segments[a][1]


def _stacked(phrases: list) -> list:
    """Phrases one over the other gathered into cells: a name wrapped onto two lines
    ('Chq' over 'No.') is one cell."""
    cells: list = []
    for p in phrases:
        cell = next((c for c in cells if any(_beside(p, q) for q in c)), None)
        if cell is None:
            cells.append([p])
        else:
            cell.append(p)
    return cells


def _named_before(p: list, phrases: list, over: list, near: list) -> bool:
    """Whether the segments nearest an unplaced heading cell are named already by cells
    that start to its left: it is the next column's name, over words on other lines than
    the rows' first (a description printed above them), not a name set off beside its
    own values (those stand to the right of their name, under the next name)."""
    owners = [q for q, hit in zip(phrases, over) if set(hit) & set(near)]
    return bool(owners) and all(q[0][1] < p[0][1] for q in owners)


def _beside(p: list, q: list) -> bool:
    """Whether heading cells ``p`` and ``q`` share some of their width (one over the other)."""
    return min(p[-1][2], q[-1][2]) - max(p[0][1], q[0][1]) > 0


def _in_order(hits: list, phrases: list, segments: list, numeric: list) -> list:
    """Segments for the names of a one-line heading whose names collide: two over one
    segment of money, which one number fills and one name heads. A heading set off to one
    side of its columns' values ('Money out' over nothing, 'Money in' over the money out)
    still names them in order: each name takes its own segment, left to right, the names
    as near their segments as they can stand. Two names over a segment of words are two
    words of one name set a little apart ('TRANSACTION  DESCRIPTION')."""
    single_line = len({round(p[0][3]) for p in phrases}) == 1
    firsts = [h[0] for h in hits]
    collide = any(b <= a and numeric[b] for a, b in zip(firsts, firsts[1:]))
    if not single_line or not collide or len(phrases) > len(segments):
        return hits
    cost = [[max(0.0, s0 - p[-1][2], p[0][1] - s1) for s0, s1 in segments] for p in phrases]
    n, m = len(phrases), len(segments)
    best = [[float("inf")] * (m + 1) for _ in range(n + 1)]  # best[i][j]: i names, j segments
    best[0] = [0.0] * (m + 1)
    for i in range(1, n + 1):
        for j in range(i, m + 1):
            best[i][j] = min(best[i][j - 1], best[i - 1][j - 1] + cost[i - 1][j - 1])
    out, j = [], m
    for i in range(n, 0, -1):
        while best[i][j] == best[i][j - 1]:
            j -= 1
        out.append([j - 1])
        j -= 1
    return out[::-1]


def _merge_unlabeled(groups: list, money: list = (), figures: list = ()) -> list:
    """A segment with no header joins its nearer neighbour (a 'Rs.' prefix, a city
    sub-column). One of bare whole numbers (``figures``: a cheque's number printed without
    a heading) beside one column of money (``money``) joins the other neighbour: in the
    money's cell it would read as an amount, which the table never prints without decimals."""
    while len(groups) > 1 and any(not g[2] for g in groups):
        i = next(i for i, g in enumerate(groups) if not g[2])
        left = groups[i][0] - groups[i - 1][1] if i > 0 else float("inf")
        right = groups[i + 1][0] - groups[i][1] if i + 1 < len(groups) else float("inf")
        j = i - 1 if left <= right else i + 1
        held = [k for k in (i - 1, i + 1) if 0 <= k < len(groups) and _holds(groups[k], money)]
        if _holds(groups[i], figures) and len(held) == 1 and 0 < i < len(groups) - 1:
            j = 2 * i - held[0]
        lo, hi = min(i, j), max(i, j)
        groups[lo:hi + 1] = [[groups[lo][0], groups[hi][1], groups[lo][2] + groups[hi][2]]]
    return groups


def _holds(group: list, spans: list) -> bool:
    return any(group[0] <= a and b <= group[1] for a, b in spans)


def build_columns(segments: list, header: list, numeric: list | None = None,
                  raw: list | None = None, lines: list = (), rows: list = ()) -> list:
    """Columns named by the header phrases above them, with x0 halfway across each river;
    ``numeric`` says which segments hold money (one name each); ``raw``: the segments
    before words that read on were joined; ``lines``: the rows' other lines, whose text a
    column no row's first line fills reaches to; ``rows``: their first lines."""
    money = [s for s, m in zip(segments, numeric or ()) if m]
    figures = [s for s, f in zip(segments, figure_segments(segments, rows)) if f]
    groups = _merge_unlabeled(_group(segments, header, numeric, raw, _shared_starts(lines)),
                              money, figures)
    _reach_of_empty(groups, segments, lines)
    columns = []
    for i, (a, b, phrases) in enumerate(groups):
        x0 = (groups[i - 1][1] + a) / 2 if i else 0.0
        ordered = sorted(phrases, key=lambda p: (round(p[0][3]), p[0][1]))
        name = " ".join(wordlines.join_words(p, GLUE_GAP) for p in ordered) or f"Column {i + 1}"
        columns.append({"name": name, "x0": round(x0, 2), "kind": "text"})
        if not any(min(b, s1) - max(a, s0) > 0 for s0, s1 in segments):
            # named, and no row's first line prints under it: a long text running on over
            # it, a word space at a time, stays in its own cell
            columns[-1]["empty"] = True
    return columns


def _shared_starts(lines: list) -> tuple:
    """Where two phrases of the rows' other lines begin: a column's edge (text on own lines)."""
    starts = sorted(p[0][1] for p in _phrases(list(lines)))
    return tuple(x for x, y in zip(starts, starts[1:]) if y - x <= 1.0)


def _reach_of_empty(groups: list, segments: list, lines: list) -> None:
    """Each group no segment lies under widened, in place, to the end of the phrases of
    ``lines`` that start inside it and stop short of the next group: its text is printed on
    lines of its own, and may run wider than its name."""
    for i, group in enumerate(groups):
        a, b = group[0], group[1]
        if any(min(b, s1) - max(a, s0) > 0 for s0, s1 in segments):
            continue
        stop = groups[i + 1][0] - 1.0 if i + 1 < len(groups) else float("inf")
        ends = [p[-1][2] for p in _phrases(list(lines))
                if a - 1.0 <= p[0][1] <= b and p[-1][2] < stop]
        group[1] = max([b] + ends)
