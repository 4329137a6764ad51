"""The statement engine: pure functions over words, driven by one SETTINGS dict.

Copied verbatim, after ``amounts``, ``pagewords``, ``wordlines``, ``datewraps``, ``faces`` and
``pagebreaks``, before ``dataframe``, into every generated parser: standard library only.
Words are ``(text, x0, x1, top, bottom, size, font)``, one list per page (``pagewords`` makes
them from the reader's, a number wrapped over two lines with the top of its second as an
eighth field; ``wordlines`` groups them into lines and cells).

Every line of a page gets a kind: ``anchor`` (it starts a row), ``text`` (it may continue
one), ``furniture`` (no part of any row, for a reason the item states), ``money`` (it
prints an amount but is no row) or ``outside`` (above the table's heading). Items are
``[kind, top, cells, text, words, reason]`` (an anchor adds the sign of its section); the
ledger reads them to account for every word.
"""
from __future__ import annotations

import re

from .amounts import CURRENCY_CODES, amount_marker, looks_like_amount, parse_amount  # noqa: F401
from .datewraps import carry_dates, date_goes_on, wrapped_heads
from .faces import in_title_face, title_faces
from .pagebreaks import carried_over, leading_run, row_steps, trailing_run
from .pagewords import statement_pages  # noqa: F401
from .wordlines import (HEADING, _LABELLED, _is_header, _runs_on, _skip_reason, after_figures,
                        codes_only, column_of, date_tail, figures_only, foreign_heading,
                        group_lines, in_columns, is_rule, join_words, label_goes_on,
                        mark_running, names_the_columns, normalize, past_its_end, reading_key,
                        split_cells)


def _amount_cells(cells: list, settings: dict, kinds: list) -> list:
    return [i for i, k in enumerate(kinds)
            if k == "amount" and cells[i] and parse_amount(cells[i], settings) is not None]


def _moves(cells: list, settings: dict, kinds: list) -> bool:
    """Money in a column other than the balance: a line that prints only a balance moves
    nothing, and is no row (unless the answer key lists such lines as rows)."""
    balance = None if settings.get("balance_rows") else settings.get("balance_column")
    return any(i != balance for i in _amount_cells(cells, settings, kinds))


def is_anchor(cells: list, settings: dict, kinds: list) -> bool:
    """A line that starts a transaction: its date cell matches (or, with ``anchor`` set to
    ``amount``, is empty under a layout that prints each day's date once) and it has money."""
    date = cells[settings["date_column"]]
    if not date:
        return settings.get("anchor") == "amount" and _moves(cells, settings, kinds)
    pattern = settings.get("date_head_pattern") or settings["date_pattern"]
    if not re.fullmatch(pattern, date, re.IGNORECASE):
        return False
    return not settings.get("anchor_needs_amount", True) or _moves(cells, settings, kinds)


TITLE = "a section's title (it signs its rows)"


def _item(line: list, settings: dict, state: dict) -> list:
    """One line as ``[kind, top, cells, text, words, reason]`` (see the module docstring)."""
    text, top = join_words(line, settings["glue_gap"]), line[0][3]
    if _is_header(text, settings) or names_the_columns(line, settings):
        state["in_table"] = True
        return ["furniture", top, None, text, line, HEADING]
    norm = normalize(text)
    if norm in state["sections"]:  # above its section's heading, or inside the table
        state["sign"] = state["sections"][norm]
        return ["furniture", top, None, text, line, TITLE]
    if not state["in_table"]:
        where = state.get("outside", "above the table's heading")
        return ["outside", top, None, text, line, where]
    if is_rule(line):
        return ["furniture", top, None, text, line, "a rule drawn with text"]
    skipped = _skip_reason(text, settings["skip_patterns"]) or _skip_reason(
        after_figures(line, settings["glue_gap"]), settings["skip_patterns"])
    if skipped:
        return ["furniture", top, None, text, line, skipped]
    if foreign_heading(line, settings):
        state["in_table"] = False
        state["outside"] = "under another table's column heading"
        return ["outside", top, None, text, line,
                "another table's column heading: the transactions' table ends here"]
    if settings.get("date_groups") and re.fullmatch(settings["date_pattern"], text, re.IGNORECASE):
        state["date"] = text
        return ["furniture", top, None, text, line, "the date heading of the rows below it"]
    return _second_tier(_cells_item(line, text, top, settings, state), settings, state)


def _second_tier(item: list, settings: dict, state: dict) -> list:
    """Under a two-tier heading every row prints a second line of other fields (a value
    date under the date, a reference under the details): the line after a row's first is
    that second line, cut by the heading's second tier. Cells of both tiers, one list."""
    second = settings.get("second_line")
    if not second:
        return item
    if item[0] in ("money", "text") and state.get("awaiting"):
        state["awaiting"] = False
        # a narrow cell's wrapped date, a description's next words: they go on in their own
        # column, under the row's first line, beside the second tier's fields
        wrapped = set(settings.get("wrapped_columns") or ()) | set(settings.get("tier_wraps", ()))
        tail = [w for w in item[4] if column_of(w, settings["columns"]) in wrapped]
        first = split_cells(tail, settings["columns"], settings["glue_gap"]) if tail \
            else [""] * len(settings["columns"])
        cells = split_cells([w for w in item[4] if w not in tail], second, settings["glue_gap"])
        return ["second", item[1], first + cells, item[3], item[4], ""]
    if item[0] != "furniture":  # a balance line between a row's two lines waits with it
        state["awaiting"] = item[0] == "anchor"
    for cells_of in [item] + (item[6:7] if item[0] != "anchor" else []):
        if cells_of[2] is not None:  # a line of figures keeps the row it may be, as wide
            cells_of[2] = cells_of[2] + [""] * len(second)
    return item


def item_columns(item: list, settings: dict) -> tuple:
    """``(columns, offset)``: the columns a line's words fall into, and where its cells
    start among a row's (a second-tier line's are after the first tier's)."""
    if item[0] == "second":
        return settings["second_line"], len(settings["columns"])
    return settings["columns"], 0


def _cells_item(line: list, text: str, top: float, settings: dict, state: dict) -> list:
    kinds, col = state["kinds"], settings["date_column"]
    cells = split_cells(line, settings["columns"], settings["glue_gap"], settings)
    dated = cells
    if settings.get("date_groups") and not cells[col] and state.get("date"):
        dated = cells[:col] + [state["date"]] + cells[col + 1:]
    # a line of figures alone with some in a column of words is a summary's values, no row
    summary = figures_only(line, settings) and any(
        cell and kinds[c] != "amount" for c, cell in enumerate(cells))
    anchor = ["anchor", top, dated, text, line, "", state["sign"]]
    if is_anchor(dated, settings, kinds):
        if not summary:
            return anchor
        # or a row whose day a narrow cell prints alone: the lines under it say (_classify)
        return _cells_kind(cells, top, text, line, settings, kinds) + [anchor]
    return _cells_kind(cells, top, text, line, settings, kinds)


def _cells_kind(cells: list, top: float, text: str, line: list, settings: dict,
                kinds: list) -> list:
    col = settings["date_column"]
    money = _amount_cells(cells, settings, kinds)
    balance_only = money and set(money) == {settings.get("balance_column")}
    if balance_only and not settings.get("balance_rows"):
        return ["furniture", top, cells, text, line, "a balance line (it prints only a balance)"]
    if money or re.fullmatch(settings["date_pattern"], cells[col], re.IGNORECASE):
        return ["money", top, cells, text, line, ""]  # money, or a date: no row of its own
    return ["text", top, cells, text, line, ""]


def _opens_with_heading(lines: list, settings: dict, state: dict) -> bool:
    """Whether the page prints the heading before any row or balance carried over."""
    trial = dict(state, in_table=True)
    for line in lines:
        item = _item(line, settings, trial)
        if item[5] == HEADING or item[0] == "anchor" or (
                item[0] == "furniture" and any(looks_like_amount(w[0]) for w in line)):
            return item[5] == HEADING
    return False


def _classify(lines: list, settings: dict, state: dict) -> list:
    """The items of one page's lines (``state`` carries the table, the day and the section)."""
    items = [_item(line, settings, state) for line in lines]
    for k, item in enumerate(items):
        if len(item) > 6 and item[0] != "anchor":  # figures alone, a day among them
            wraps = date_goes_on(lines, k, settings["date_column"], settings, None)
            items[k] = item[6] if wraps else item[:6]
    for above, item in zip(items, items[1:]):
        # 'Balance brought' over 'forward': the label goes on, and no row takes its words
        if above[0] == "furniture" and above[5].startswith(_LABELLED) and item[0] == "text" \
                and item[1] - above[1] <= settings.get("continuation_gap", 0.0):
            whole = label_goes_on(above[4], item[3], settings["skip_patterns"])
            if whole:
                item[0], item[5] = "furniture", f"the rest of the label above it ('{whole}')"
    return items


def _owner(items: list, i: int, step: int, gap: float) -> tuple:
    """The anchor reached from text line ``i`` going ``step`` (±1) through close text lines."""
    j = i
    while 0 <= j + step < len(items) and _lower_by(items[j], items[j + step]) <= gap:
        j += step
        if items[j][0] == "anchor":
            return j, abs(items[j][1] - items[i][1])
        if items[j][0] not in ("text", "second"):  # a row's second line is the row's
            break
    return None, float("inf")


def _lower_by(a: list, b: list) -> float:
    """How far the lower item stands under the upper one's last line: a narrow cell's
    amount wrapped onto a second line ('13' over '856,38-') is one word on the row's line,
    and the row's text goes on under its second (``pagewords._wrapped_numbers``)."""
    upper, lower = (a, b) if a[1] <= b[1] else (b, a)
    return lower[1] - max([upper[1]] + [w[7] for w in upper[4] if len(w) > 7])


def continues(item: list, settings: dict) -> bool:
    """Whether a text line may continue a row: its words stand in the columns rows wrap in
    (learned from the answer key), or at least none in the date column, where a heading
    over a group of rows starts and a wrapped description does not, and no money in a
    column of money (a long wrapped line may run on under one, its words no amounts)."""
    allowed = settings.get("continuation_columns")
    columns = settings["columns"]
    words = item[4]
    if figures_only(words, settings):
        return False  # a line of figures (a summary's values) wraps no row's words
    if codes_only(words, settings):
        return True  # a narrow cell's sign ('Dr') wrapped under its amount
    if allowed is None:
        date = settings["date_column"]
        money = {i for i, c in enumerate(columns) if c["kind"] == "amount"}
        dated = {date, *settings.get("carry_columns", ())}  # no date column wraps other words
        barred = set() if settings.get("date_groups") else dated
        tails = barred & set(settings.get("wrapped_columns", ()))  # narrow: a date wraps in it
        barred -= tails  # and nothing else (an account's title at the table's left edge)
        return not any(column_of(w, columns) in barred or (
            column_of(w, columns) in tails and not date_tail([w], settings)) or (
            column_of(w, columns) in money and not _runs_on(words, n, settings)
            and not codes_only([w], settings))  # the sign, beside a wrapped line
            for n, w in enumerate(words))
    return all(column_of(w, columns) in allowed for w in item[4])


def row_below(items: list, k: int, settings: dict) -> bool:
    """Whether a row starts right under line ``k``: the next line that is no furniture is
    an anchor, or, where rows print their description above it, that description."""
    above = settings.get("continuation") == "above"
    for item in items[k + 1:]:
        if item[0] == "furniture":
            continue
        if above and item[0] == "text" and continues(item, settings):
            continue
        return item[0] == "anchor"
    return False


def _page_parts(items: list, settings: dict, titles: frozenset = frozenset()) -> tuple:
    """``({anchor: [item indices]}, [text items before the first anchor (after the last,
    where descriptions stand above), left unowned], row_steps)``."""
    # a line a whole reach under its row stands there: its coordinates' last bits are noise
    gap = settings["continuation_gap"] + 1e-6
    mode = settings.get("continuation", "below")  # where a row's wrapped lines stand
    parts: dict = {i: [i] for i, item in enumerate(items) if item[0] == "anchor"}
    first = min(parts) if parts else len(items)
    leading = []
    for i, item in enumerate(items):
        if item[0] == "second":
            above = [a for a in parts if a < i]
            if above:
                parts[max(above)].append(i)
            else:
                leading.append(i)  # a row's second line on the page after its first
            continue
        if item[0] != "text" or not continues(item, settings) or in_title_face(items, i, titles):
            continue  # no row's, or set in a title's face (``faces``)
        over = max((a for a in parts if a < i), default=None) if mode == "above" else None
        if over is not None and codes_only(item[4], settings):
            parts[over].append(i)  # the sign a narrow cell wraps under its amount
            continue
        # a narrow cell's wrapped date goes on under its row's first line, whatever side
        # the row's description wraps to; other words there are no row's (a section's title)
        tail = mode == "above" and in_columns(item[4], settings.get("wrapped_columns"), settings)
        if tail and not date_tail(item[4], settings):
            continue
        none = (None, float("inf"))
        up, d_up = _owner(items, i, -1, gap) if mode != "above" or tail else none
        down, d_down = _owner(items, i, 1, gap) if mode != "below" and not tail else none
        owner = up if d_up <= d_down else down
        row = [w for j in parts.get(up, ()) for w in items[j][4]] if owner == up else ()
        owner = None if row and past_its_end(item[4], row, settings["columns"]) else owner
        if owner is not None:
            parts[owner].append(i)
        elif (i < first and mode == "below") or (i > first and mode == "above"):
            leading.append(i)  # above: over a row that the page break carries to the next page
    if mode == "above":
        return parts, trailing_run(items, leading), []
    return parts, leading_run(items, leading, first), row_steps(items, parts)


def _row(items: list, order: list, page: int, sign: int) -> list:
    """``[cells, lines, sign, refs]``: a row's cells joined over its lines in page order."""
    width = len(items[order[0]][2])
    cells = [" ".join(items[k][2][c] for k in order if items[k][2][c]) for c in range(width)]
    return [cells, [items[k][4] for k in order], sign, [(page, k) for k in order]]


_READ: list = []  # the last few readings: the analysis reads one page set with one
# settings from several places (columns, sections, tiers, the balance); callers never
# change what they are given back


def extract(pages: list, settings: dict) -> tuple:
    """``(rows, items)``: every transaction in printed order as ``[cells, lines, sign,
    refs]`` (``refs``: the ``(page, item)`` of its lines), and each page's items."""
    key = reading_key(settings)
    for held, known, result in _READ:
        if held is pages and known == key:
            return result
    result = _extract(pages, settings)
    _READ.append((pages, key, result))
    del _READ[:-4]
    return result


def _extract(pages: list, settings: dict) -> tuple:
    tolerance = settings["line_tolerance"]
    lines_by_page = [group_lines(words, tolerance) for words in pages]
    settings = wrapped_heads(lines_by_page, settings)
    state = {"in_table": not settings.get("require_header", False), "date": None, "sign": 1,
             "sections": dict(settings.get("sections", [])),
             "kinds": [c["kind"] for c in settings["columns"]]}
    items_by_page = []
    for lines in lines_by_page:
        if settings.get("header_once") and items_by_page and _opens_with_heading(
                lines, settings, state):  # what stands over the heading is the page's own
            state["in_table"], state["outside"] = False, "above the table's heading"
        items_by_page.append(_classify(lines, settings, state))
        # "once": pages after the first header continue the table without repeating it.
        if not settings.get("header_once"):
            state["in_table"] = not settings.get("require_header", False)
            state["outside"] = "above the table's heading"
    if settings.get("running", True):
        mark_running(items_by_page, settings)
    rows, above, carried = [], settings.get("continuation") == "above", None
    titles = title_faces(items_by_page)
    paged = [_page_parts(items, settings, titles) for items in items_by_page]
    widest = max((s for *_, steps in paged for s, next_to in steps if next_to), default=0.0)
    gap = settings["continuation_gap"] + 1e-6
    for page, (items, (parts, leading, steps)) in enumerate(zip(items_by_page, paged)):
        if not above:
            first = min(parts, default=len(items))
            leading = carried_over(items, leading, first, steps, widest, gap)
        if carried and any(item[5] == TITLE for item in items[:min(parts, default=0)]):
            carried = None  # a section starts over the page's first row: none goes on into it
        if leading and rows and settings.get("carry_rows", True) and not above:
            _extend(rows[-1], items, leading, page)
        for anchor in sorted(parts):
            order = sorted(parts[anchor], key=lambda k: items[k][1])
            rows.append(_row(items, order, page, items[anchor][6]))
            if carried:  # the row's first lines, printed at the foot of the page before
                _extend(rows[-1], *carried, first=True)
                carried = None
        if leading and above and settings.get("carry_rows", True):
            carried = (items, leading, page)
    carry_dates(rows, settings)
    return rows, items_by_page


def _extend(row: list, items: list, lines: list, page: int, first: bool = False) -> None:
    """``row`` continued by ``lines`` of ``page`` (``first``: opening it, from the page before)."""
    for c, cell in enumerate(row[0]):
        more = " ".join(items[k][2][c] for k in lines if items[k][2][c])
        row[0][c] = " ".join(t for t in ((more, cell) if first else (cell, more)) if t)
    at = 0 if first else len(row[1])
    row[1][at:at] = [items[k][4] for k in lines]
    row[3][at:at] = [(page, k) for k in lines]
