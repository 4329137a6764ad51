"""A page's words as lines and a line's words as cells, what a line is by its words
alone (the heading's, a label of no transaction, a rule drawn with text), and which lines
every page prints in the same place (a running header or footer) or prints again from the
first page's letterhead.

Copied verbatim, after ``amounts`` and ``pagewords`` and before ``engine``, into every
generated parser: standard library only, never dua.
"""
from __future__ import annotations

import re

from .amounts import looks_like_amount, parse_amount

SPACE_RE = re.compile(r"\s+")
_DIGITS = re.compile(r"\d+")
HEADING = "the table's column heading"  # the reason a heading line is no row
RUNNING = "a running header or footer (the same text in the same place on other pages)"
_RULE = re.compile(r"([^\w\s])\1{2,}")  # one punctuation mark, three times or more
_SIGNS = ("-", "+", "\u2212")


def normalize(text: str) -> str:
    """Lower-case letters (of any script) and digits only: how header lines are recognised
    on every page."""
    return re.sub(r"[\W_]+", " ", text.lower()).strip()


def group_lines(words: list, tolerance: float) -> list:
    """Words of one page grouped into lines by ``top``; each line is a list sorted by x0."""
    lines, current, anchor = [], [], None
    for word in sorted(words, key=lambda w: (w[3], w[1])):
        if current and word[3] - anchor > tolerance:
            lines.append(sorted(current, key=lambda w: w[1]))
            current = []
        if not current:
            anchor = word[3]
        current.append(word)
    if current:
        lines.append(sorted(current, key=lambda w: w[1]))
    return lines


def join_words(words: list, glue_gap: float) -> str:
    """Join words left to right; fragments closer than ``glue_gap`` are one word (OCR splits)."""
    if len(words) < 2:  # most cells: nothing to order or glue
        return SPACE_RE.sub(" ", words[0][0]).strip() if words else ""
    out, last_x1 = "", None
    for word in sorted(words, key=lambda w: w[1]):
        if last_x1 is not None:
            out += "" if word[1] - last_x1 < glue_gap else " "
        out += word[0]
        last_x1 = word[2]
    return SPACE_RE.sub(" ", out).strip()


def column_of(word: tuple, columns: list) -> int:
    """Index of the column whose x-range holds the word's centre (first/last are open-ended)."""
    centre = (word[1] + word[2]) / 2.0
    for i, col in enumerate(columns[:-1]):
        if centre < columns[i + 1]["x0"]:
            return i
    return len(columns) - 1


def split_cells(line: list, columns: list, glue_gap: float, settings: dict | None = None) -> list:
    """The line's text per column ('' where the column is empty). A sign printed apart
    over a column of money, with an amount next in the line ('-' raised and set to the
    left of '£349.51'), is that amount's, whichever column it stands over. With
    ``settings``, a word that runs on from the one before it under a column of money or
    one no row fills, and is no amount, stays in that word's cell: a long description
    carried on under money."""
    buckets = [[] for _ in columns]
    at = 0
    for i, word in enumerate(line):
        before, at = at, column_of(word, columns)
        if word[0] in _SIGNS and columns[at].get("kind") == "amount" and i + 1 < len(line) \
                and looks_like_amount(line[i + 1][0]):
            at = column_of(line[i + 1], columns)
        elif settings is not None and _heads_amount(line, i, columns, settings):
            at = column_of(line[i + 1], columns)
        elif settings is not None and takes_no_run_on(columns[at]) \
                and _runs_on(line, i, settings):
            at = before
        buckets[at].append(word)
    if settings is not None:
        _date_run_on(line, buckets, settings)
    return [join_words(b, glue_gap) for b in buckets]


def _date_run_on(line: list, buckets: list, settings: dict) -> None:
    """Words a description runs on with, a word space apart, into a column of dates after
    it ('for the month' over a narrow gutter, the date beyond) go back to the description
    where the cell is a date without them: a longer line than the key's crosses the gutter.
    A value date the key taught as text is such a column too."""
    pattern = settings.get("date_head_pattern") or settings.get("date_pattern")
    if not pattern or len(line) < 3:
        return
    columns, glue = settings["columns"], settings.get("glue_gap", 0.0)
    for col, cell in enumerate(buckets[1:], 1):
        if len(cell) < 2 or (col != settings.get("date_column") and
                             columns[col].get("kind") != "text"):
            continue
        n = next(i for i, w in enumerate(line) if w is cell[0])
        # the geometry first: most cells run on from no earlier column, and need no pattern
        if not n or column_of(line[n - 1], columns) >= col or not _runs_on(line, n, settings) \
                or re.fullmatch(pattern, join_words(cell, glue), re.IGNORECASE):
            continue
        k = next((k for k in range(1, len(cell)) if re.fullmatch(
            pattern, join_words(cell[k:], glue), re.IGNORECASE)), None)
        if k and all(_runs_on(line, i, settings) for i in range(n, n + k)):
            buckets[column_of(line[n - 1], columns)].extend(cell[:k])
            del cell[:k]


def takes_no_run_on(column: dict) -> bool:
    """A column that text runs on over rather than into: money, or one the heading names
    and no row fills (``columns.build_columns``)."""
    return column.get("kind") == "amount" or bool(column.get("empty"))


def _heads_amount(words: list, n: int, columns: list, settings: dict) -> bool:
    """Whether word ``n`` is the first group of the amount the next word ends ('3' of
    '3 683,91'), a narrow space before it, under the column before the amount's: money is
    set flush right, so a longer figure than the key's grows left across the gutter, and
    the whole figure is the column's its last group stands in."""
    if n + 1 >= len(words) or not re.fullmatch(r"\d{1,3}", words[n][0]):
        return False
    after = column_of(words[n + 1], columns)
    if after == column_of(words[n], columns) or columns[after].get("kind") != "amount":
        return False
    space = words[n + 1][1] - words[n][2]
    return 0 <= space <= (words[n][4] - words[n][3]) / 2 and \
        looks_like_amount(f"{words[n][0]} {words[n + 1][0]}", settings)


def _runs_on(words: list, n: int, settings: dict) -> bool:
    """Whether word ``n`` runs on from the word before it, a word space away, and is no
    amount, nor the head of one with the word after it ('71' of '71 162,48'): a long line
    of text carried on under a column of money, not a cell of its own."""
    if n == 0 or looks_like_amount(words[n][0], settings):
        return False
    if n + 1 < len(words) and looks_like_amount(f"{words[n][0]} {words[n + 1][0]}", settings):
        return False
    return words[n][1] - words[n - 1][2] <= words[n][4] - words[n][3]


def _is_header(line_text: str, settings: dict) -> bool:
    norm = normalize(line_text)
    return bool(norm) and (norm in settings["header"] or _retiered(norm, settings["header"]))


def date_tail(words: list, settings: dict) -> bool:
    """Whether every word is a part a date was read to wrap onto a line of its own (its
    month, its year: ``date_tails``); True where no tails were learned."""
    if "date_tails" not in settings:
        return True
    parts = {t for tail in settings["date_tails"] for t in tail.split()}
    return all(normalize(w[0]) in parts for w in words)


def foreign_heading(line: list, settings: dict) -> bool:
    """A line of plain words under three columns or more that is not the table's heading:
    another table's heading ('Date Amount Date Amount' over daily balances), where the
    transactions' table has ended. A wrapped description or a group's title stands under
    one or two columns."""
    if len(line) < 3 or not all(re.search(r"[^\W\d_]", w[0]) and not re.search(r"\d", w[0])
                                for w in line):
        return False
    date = [w for w in line if column_of(w, settings["columns"]) == settings["date_column"]]
    if date and normalize(join_words(date, settings["glue_gap"])) in settings.get(
            "date_tails", ()):
        return False  # a wrapped date's month, with the words wrapped beside it
    return len({column_of(w, settings["columns"]) for w in line}) >= 3


def names_the_columns(line: list, settings: dict) -> bool:
    """The table's heading in full, where the heading learned is a part's that leaves some
    columns out (the payments' heading learned, then the card's purchases under one that
    adds 'Purchase date'): every column's name in order and nothing else, each over its own
    column. A heading naming only some of them may be another table's (daily balances under
    'Date Amount Balance'), and ends the table as before."""
    columns = settings["columns"]
    tokens = [(t, w) for w in line for t in normalize(w[0]).split()]
    at, kept = 0, 0
    for c, column in enumerate(columns):
        name = normalize(column["name"]).split()
        if not name or [t for t, _ in tokens[at:at + len(name)]] != name:
            continue
        if column_of(tokens[at][1], columns) != c:
            return False
        at, kept = at + len(name), kept + 1
    named = sum(1 for c in columns if c.get("output", True))  # not a gap the key left unnamed
    return at == len(tokens) and kept == named >= 3


def _retiered(norm: str, header: list) -> bool:
    """A tier of a heading of several whose names wrap otherwise on this page ('Transaction'
    over 'Details' here, beside it there): three of its words or more, none but the
    heading's, each no more often than the heading prints it."""
    if not isinstance(header, list) or len(header) < 2:
        return False
    words, names = norm.split(), " ".join(header).split()
    return len(words) >= 3 and all(
        words.count(w) <= names.count(w) for w in words)


_LABELLED = "a line the statement labels as no transaction"


def _skip_reason(line_text: str, patterns: list) -> str:
    """Why the statement labels this line as no transaction ('' when it does not)."""
    for p in patterns:
        found = re.search(p, line_text, re.IGNORECASE)
        if found:
            return f"{_LABELLED} ('{found.group(0).strip()}')"
    return ""


def label_goes_on(label: list, text: str, patterns: list) -> str:
    """The label where a line's every word carries on the label's words printed over it
    ('Balance brought 26,932.27' over 'forward'), as one of ``patterns`` reads a phrase
    from some word of the label to the line's end; else ''."""
    words = " ".join(w[0] for n, w in enumerate(label) if n not in _in_amounts(label))
    joined = f"{words} {text}"
    starts = [0] + [m.end() for m in re.finditer(r"\s+", words)]
    for i in starts:
        for p in patterns:
            found = re.match(p, joined[i:], re.IGNORECASE)
            if found and i + found.end() >= len(joined) - 1:
                return joined[i:].strip()
    return ""


def amount_runs(texts: list, settings: dict | None = None) -> list:
    """``(start, count)`` of each amount among ``texts``: one to three words, where a space
    groups a figure's thousands ('1 126 579,34': groups of digits, then the one with the
    decimals), the longest run first."""
    out, i = [], 0
    while i < len(texts):
        n = next((n for n in (3, 2, 1) if i + n <= len(texts)
                  and all(t.isdigit() for t in texts[i:i + n - 1])
                  and looks_like_amount(" ".join(texts[i:i + n]), settings)), 0)
        if n:
            out.append((i, n))
        i += max(n, 1)
    return out


def _in_amounts(words: list) -> set:
    """Indices of the words that are amounts, or groups of one ('1 126 579,34')."""
    return {k for i, n in amount_runs([w[0] for w in words]) for k in range(i, i + n)}


def after_figures(line: list, glue_gap: float) -> str:
    """The line's text after the figures it opens with ('133'738.32 211'821.22 Total', where
    the money is printed before the words): its label, read from its first word."""
    figures = _in_amounts(line)
    lead = next((n for n in range(len(line)) if n not in figures), len(line))
    return join_words(line[lead:], glue_gap) if lead else ""


def past_its_end(words: list, above: list, columns: list) -> bool:
    """Whether a line starts right of where the words over it end in that column: a cell's
    wrapped line starts at its left edge, so a line set further right ('Money in' flush with
    the table's right edge) wraps no cell. Where the row prints nothing in that column its
    text may start anywhere in it (descriptions on lines of their own)."""
    c = column_of(words[0], columns)
    ends = [w[2] for w in above if column_of(w, columns) == c]
    return bool(ends) and words[0][1] > max(ends)


def in_columns(words: list, columns, settings: dict) -> bool:
    """Whether a word stands in one of ``columns`` (indices)."""
    return bool(columns) and any(column_of(w, settings["columns"]) in columns for w in words)


def codes_only(words: list, settings: dict) -> bool:
    """Whether every word is a sign code the statement prints ('Dr', 'S')."""
    codes = settings.get("drcr_signs") or {}
    return all(w[0].lower().rstrip(".") in codes for w in words)


def reads_as_row(line: list, settings: dict) -> bool:
    """Whether a line prints a date in the date column and an amount in a column of money."""
    cells, col = split_cells(line, settings["columns"], settings["glue_gap"]), \
        settings.get("date_column")
    if col is None or col >= len(cells) or not settings.get("date_pattern"):
        return False
    return bool(re.fullmatch(settings["date_pattern"], cells[col], re.IGNORECASE)) and any(
        c["kind"] == "amount" and parse_amount(cell, settings) is not None
        for c, cell in zip(settings["columns"], cells) if cell)


def reading_key(settings: dict) -> str:
    """``settings`` as the engine reads them, the key its last readings are kept by: the
    heading's lines are looked up, not walked (their order and repeats read the same); no
    sections read as none; a dict is read by its keys, in whatever order it was built."""
    same = dict(settings, sections=settings.get("sections", []))
    if isinstance(same.get("header"), list) and all(isinstance(h, str) for h in same["header"]):
        same["header"] = sorted(set(same["header"]))
    return _in_order(same)


def _in_order(value) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_in_order(v)}" for k, v in
                               sorted(value.items(), key=lambda kv: repr(kv[0]))) + "}"
    if isinstance(value, (list, tuple)):  # a list and a tuple stay apart, as repr has them
        inner = ", ".join(_in_order(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner},)"
    return repr(value)


def is_rule(line: list) -> bool:
    """A rule drawn with text: every word one punctuation mark repeated ('-----', '====')."""
    return all(_RULE.fullmatch(w[0]) for w in line)


def figures_only(words: list, settings: dict) -> bool:
    """Two amounts or more and nothing but figures: a summary's values, no row's words."""
    return sum(1 for w in words if looks_like_amount(w[0], settings)) >= 2 and all(
        looks_like_amount(w[0], settings) or w[0].isdigit() for w in words)


def _carries_balance(item: list) -> bool:
    """A line of no row that prints a figure: a balance brought forward, a balance line."""
    return item[5].startswith((_LABELLED, "a balance line")) and any(
        looks_like_amount(w[0]) for w in item[4])


def mark_running(items_by_page: list, settings: dict | None = None) -> None:
    """Text lines printed in the same place on other pages, and nowhere else, outside the band
    of their page's rows become furniture: a running header or footer ('Page 2 of 5'). A line
    between two rows of its page is the table's own text, however often it repeats; so is one
    over a page's first row where rows print their text above (the same text by chance)."""
    seen: dict = {}
    above = (settings or {}).get("continuation") == "above"
    reach = (settings or {}).get("continuation_gap", 0.0)
    for p, items in enumerate(items_by_page):
        tops = [item[1] for item in items if item[0] == "anchor"]
        k = next((k for k, item in enumerate(items) if item[0] == "anchor"), 0)
        while above and k and items[k - 1][0] == "text" and items[k][1] - items[k - 1][1] <= reach:
            k -= 1
            tops.insert(0, items[k][1])  # the first row's text: the band opens there
        # the band opens at the table's heading, or at a balance carried over where the
        # page prints no heading: a first row's words printed over its anchor line are the
        # table's, even where the next page's first row prints the same
        heads = [item[1] for item in items if item[0] == "furniture" and (
            item[5] == HEADING or _carries_balance(item))]
        low = min(heads + tops[:1], default=0.0)
        for k, item in enumerate(items):
            if item[0] in ("text", "money", "furniture", "outside") and item[3]:
                key = _DIGITS.sub("#", normalize(item[3]))
                outside = not tops or item[1] < low or item[1] > tops[-1]
                seen.setdefault(key, []).append((p, k, item[1], outside and item[0] in
                                                 ("text", "money")))
    # a running header or footer is printed on every page, but perhaps the first or the
    # last: the same row's text atop two pages of many is a coincidence of the data
    enough = max(2, len(items_by_page) - 1)
    for places in seen.values():
        tops = [t for _, _, t, _ in places]
        if len({p for p, _, _, _ in places}) < enough or max(tops) - min(tops) > 2.0:
            continue
        if not all(free for _, _, _, free in places):
            continue  # printed among one page's rows: a row's words, wherever else it stands
        for p, k, _, free in places:
            if free:
                items_by_page[p][k][0] = "furniture"
                items_by_page[p][k][5] = RUNNING
    _mark_letterhead(items_by_page)


LETTERHEAD = "the page's header: words the first page prints above the table"


def letterhead(words: list, first_page: list, top: float) -> bool:
    """Whether every word of a later page's line is printed above the table on its first
    page (the bank's and the holder's names again): the page's own header, no row's part."""
    above = {w[0].strip(",.:;").lower() for item in first_page if item[1] < top
             for w in item[4]}
    own = [w[0].strip(",.:;").lower() for w in words if any(c.isalnum() for c in w[0])]
    return bool(own) and all(t in above for t in own)


def _mark_letterhead(items_by_page: list) -> None:
    """Text lines that open a later page, over anything of the table, in the first page's
    letterhead's words: the page's own header, printed on that page alone where a running
    header needs two (the page a two-page statement's rows run on to)."""
    outside = [item[1] for item in items_by_page[0] if item[0] == "outside"] \
        if items_by_page else []
    if not outside:
        return
    for items in items_by_page[1:]:
        for item in items:
            if item[0] == "text" and letterhead(item[4], items_by_page[0], max(outside) + 1.0):
                item[0], item[5] = "furniture", LETTERHEAD
            elif item[0] not in ("outside", "furniture") or item[5] == HEADING \
                    or _carries_balance(item):
                break  # the table goes on from here: its heading, a row, a balance carried
