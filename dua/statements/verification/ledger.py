"""The accounting of one statement: every word of its table given exactly one owner.

Built once per statement from the engine's items (``engine.extract``): each word in the
table's extent (``_region``) is in a row's cell, on a line named as furniture with its
reason, or unaccounted. A line that prints money is furniture only when the rows' own
numbers say what it is (a balance they reach, a total of them), whatever its label.
Verification, the refine loop's diagnostics and the review page all read this ledger.
"""
from __future__ import annotations

import dataclasses
import math
import re

from ..table import engine, wordlines
from . import extent, gutters, headings
from .arithmetic import Arithmetic

_HEADER = "the page's header, above the table's column heading"
_GROUP = "a heading over the rows below it (a section, a card holder, a group)"
_LEFT_OUT = "a column the output leaves out"
_FOOT = "the page's foot: below its last row, out of a continuation's reach"
_ACCOUNT = "the title of an account whose balances start again right below it"
_AGAIN = wordlines.LETTERHEAD  # the reading marks it so too
_UNDER = "under another table's column heading"  # the engine's reason, as it words it


@dataclasses.dataclass
class Ledger:
    """Who owns each word of the table pages; boxes are ``[x0, top, x1, bottom]`` in points."""

    rows: list  # [{"row", "parts": [{"page", "box"}], "cells": [{"column", "page", "box"}]}]
    furniture: list  # [{"page", "box", "text", "reason"}]
    unaccounted: list  # [{"page", "box", "text"}]
    words_in_cells: int
    pages: list  # the 1-based pages the accounting covers

    @property
    def complete(self) -> bool | None:
        """True when every word is owned; None when there are no rows to account for."""
        return not self.unaccounted if self.rows else None

    def to_dict(self) -> dict:
        return {"words_in_cells": self.words_in_cells,
                "words_unaccounted": len(self.unaccounted), "pages": self.pages,
                "furniture": self.furniture, "unaccounted": self.unaccounted, "rows": self.rows}

    def reasons(self) -> dict:
        """How many furniture lines each reason covers."""
        out: dict = {}
        for line in self.furniture:
            out[line["reason"]] = out.get(line["reason"], 0) + 1
        return out

    def summary(self, limit: int = 5) -> str:
        """One line a person can check: words in cells, furniture by reason, what is left."""
        reasons = ", ".join(f"{n} {r}" for r, n in sorted(self.reasons().items(),
                                                          key=lambda kv: -kv[1]))
        if not self.rows:
            return "no rows: no table page to account for"
        head = (f"{self.words_in_cells} words in cells on page(s) "
                f"{_pages(self.pages)}; furniture lines: {reasons or 'none'}")
        if not self.unaccounted:
            return head + "; every word accounted for"
        shown = "; ".join(f"p{w['page']} {w['text']!r}" for w in self.unaccounted[:limit])
        more = len(self.unaccounted) - limit
        return (head + f"; {len(self.unaccounted)} word(s) no cell or furniture line accounts "
                f"for: {shown}" + (f" (and {more} more)" if more > 0 else ""))


def _between_row_and_money(items: list, k: int, owned: set, page: int,
                           settings: dict) -> bool:
    """Whether line ``k`` stands right under a row's line and right over the table's money
    (a row, or a total line: labelled, or figures with no date, where a summary of balances
    prints its days): there the table goes on, and the line is no page's foot, however far
    from the row (whose figure's wrapped tail the words joined onto its first line)."""
    if (page, k - 1) not in owned or k + 1 >= len(items):
        return False
    item = items[k + 1]
    return item[0] == "anchor" or (
        item[0] in ("furniture", "money")
        and any(engine.looks_like_amount(w[0], settings) for w in item[4])
        and (item[5].startswith(wordlines._LABELLED) if item[0] == "furniture"
             else not re.search(settings["date_pattern"], item[3], re.IGNORECASE)))


def _pages(pages: list) -> str:
    return ", ".join(str(p) for p in pages) if pages else "none"


def _box(words: list) -> list:
    return [round(min(w[1] for w in words), 2), round(min(w[3] for w in words), 2),
            round(max(w[2] for w in words), 2), round(max(w[4] for w in words), 2)]


def build(pages: list, settings: dict, apart: list | None = None,
          extraction: tuple | None = None, balances: set | None = None,
          restarts: tuple = ()) -> Ledger:
    """The ledger of ``pages`` (engine words) read with ``settings``; ``apart`` holds the
    words ``pagewords`` set apart, page by page, with their reasons, and ``extraction``
    what ``engine.extract`` already returned for them; ``balances`` those the arithmetic
    found the rows reach day by day (a statement with no balance column); ``restarts`` the
    rows whose balances the arithmetic found starting again from one printed above them."""
    rows, items = extraction or engine.extract(pages, settings)
    titles = _before(rows, items, restarts, settings)
    owned = {ref: n for n, row in enumerate(rows) for ref in row[3]}
    left, edges = extent.rows_left(rows), gutters.row_edges(rows, items, settings)
    own_starts = extent.own_lines_starts(rows, items, settings)
    wrapped = extent.wrap_starts(rows, items)
    region = extent.region_of(rows, items, lambda words: gutters.printed_as_row(words, edges, settings))
    money = Arithmetic(rows, settings, balances, restarts)
    ledger = Ledger(_rows(rows, items, settings), [], [], 0, sorted(p + 1 for p in region))
    reach = settings.get("continuation_gap", 0.0)
    stray = headings.misplaced(items, settings, rows)
    first = min(region) if region else 0
    parted, seen = extent.carried_over(items, region, owned, settings, rows), set()
    for page, (low, high, last_row) in sorted(region.items()):
        heading = min([item[1] for item in items[page] if item[0] == "furniture"
                       and item[5] == "the table's column heading"] or [float("-inf")])
        # the page's own top ends at a balance it carries over: under it, the lines are the
        # table's (a row's words the page break carried), not the page's header
        heading = min([heading] + [item[1] for item in items[page] if item[1] < heading
                                   and item[0] == "furniture"
                                   and any(engine.looks_like_amount(w[0]) for w in item[4])])
        tops = [items[page][k][1] for p, k in owned if p == page]
        opens, closes = min(tops, default=math.inf), max(tops, default=-math.inf)
        for k, item in enumerate(items[page]):
            if not low <= item[1] <= high:
                continue
            if (page, k) in owned:
                row = rows[owned[(page, k)]]
                if item[0] in ("text", "furniture") and page != first and \
                        row[3][0][0] < page and item[1] < (heading if heading > -math.inf
                                                           else math.inf) and \
                        wordlines.letterhead(item[4], items[first], region[first][0]) \
                        and not _dates_tail(item[4], row, settings):
                    # a row carried over the page, given the page's own header (above the
                    # heading the page prints again: under it, the table's lines go on)
                    _unaccount(ledger, page, item[4], "the first page's header printed again, "
                                                      "read as the row's words")
                    continue
                _cells(ledger, page, item, row, settings, money)
                continue
            seen.add((page, k))
            if (page, k) in parted:
                _unaccount(ledger, page, item[4], parted[(page, k)])
                continue
            # over the heading a later page prints again: the page's own top, wherever the
            # table is read to go on without its heading
            above = page != first and item[0] == "text" and item[1] < heading
            reason = item[5] or (_HEADER if item[0] == "outside" or above else "")
            if reason in (wordlines.HEADING, engine.TITLE) and (page, k) in stray:
                _unaccount(ledger, page, item[4], stray[(page, k)])
                continue
            if item[0] == "outside" and (
                    (page != first and (extent.row_like(item[4], settings)
                                        or gutters.printed_as_row(item[4], edges, settings)))
                    or (item[5] == _UNDER and gutters.on_row_edges(item[4], edges, settings))):
                # over the heading a later page prints, or under what the reading took for
                # another table's: a line printed as a row is one the reading left out,
                # unless the rows' numbers say what it is
                reason = money.explain_anywhere([w[0] for w in item[4]])
                if not reason:
                    _unaccount(ledger, page, item[4], "printed as a row (a date and money) "
                                                      "where the reading saw no table")
                    continue
            if item[0] == "furniture" and opens - reach <= item[1] <= closes + reach and \
                    extent.learned_label(item, settings):
                _unaccount(ledger, page, item[4], extent.LEARNED_LABEL)
                continue
            if item[0] in ("money", "furniture") and reason not in _STRUCTURAL:
                reason, why = _money_reason(item, page, k, reason, settings, money)
                if why:
                    _unaccount(ledger, page, item[4], why)
                    continue
            if not reason and item[0] == "text" and extent.heads_rows(items[page], k, settings,
                                                                left, own_starts):
                reason = _GROUP
            if not reason and item[0] == "text" and (page, k) in titles \
                    and not wordlines.figures_only(item[4], settings):
                reason = _ACCOUNT  # its summary's figures, the rows' numbers explain
            # a summary's figures stand where its own labels put them, not in the columns
            if not reason and item[0] in ("money", "text") and (
                    money.amounts(item) or wordlines.figures_only(item[4], settings)):
                reason = money.explain_anywhere([w[0] for w in item[4]])
            if not reason and item[0] == "text" and page != first and item[1] < opens and \
                    wordlines.letterhead(item[4], items[first], region[first][0]):
                reason = _AGAIN
            wordy = item[0] == "text" or (item[0] == "money" and not money.amounts(item))
            if not reason and wordy and item[1] > last_row + reach and \
                    not _between_row_and_money(items[page], k, owned, page, settings) and \
                    not extent.may_go_on(item, last_row, reach, wrapped):
                reason = _FOOT  # beyond any continuation's reach, on a page the table leaves
            _own(ledger, page, item[4], item[3], reason)
        for word, reason in (apart[page] if apart and page < len(apart) else []):
            if low <= word[3] <= high:
                _own(ledger, page, [word], word[0], reason)
    _loose_rows(ledger, items, region, owned, settings, money, rows)
    for (page, k), why in sorted(parted.items()):  # out of the table's extent on its page
        if (page, k) not in seen:
            _unaccount(ledger, page, items[page][k][4], why)
    _groups_of_one(ledger, len(rows))
    return ledger


def _dates_tail(words: list, row: list, settings: dict) -> bool:
    """Whether ``words`` stand in the row's date cell and make it a date it is not without
    them ('FÉVR.' over '2023' under a day the page break left on the page before)."""
    date = settings.get("date_column")
    cell = row[0][date] if date is not None and date < len(row[0]) else ""
    tail = " ".join(w[0] for w in words)
    pattern = settings.get("date_pattern") or r"(?!)"
    rest = " ".join(cell.replace(tail, "", 1).split())
    return bool(tail) and tail in cell and bool(re.fullmatch(pattern, cell, re.I)) \
        and not re.fullmatch(pattern, rest, re.I)

def _before(rows: list, items: list, restarts, settings: dict) -> set:
    """``(page, line)`` of the lines between each row in ``restarts`` and the row before it:
    where a second account's chain starts, its title and number stand. Not the lines that
    go on from the row before at the rows' own pitch, where its text starts, under it, under
    the balance the next page carries over or atop the next page: that row's words the page
    break parted."""
    out, gap, columns = set(), settings.get("continuation_gap", 0.0), settings.get("columns", [])
    for r in restarts:
        if not 0 < r < len(rows):
            continue
        (p0, k0), (p1, k1) = rows[r - 1][3][-1], rows[r][3][0]
        last = (p0, items[p0][k0][1])
        starts = [w[1] for ln in rows[r - 1][1] for w in ln  # where its words of text start
                  if columns[wordlines.column_of(w, columns)].get("kind") == "text"]
        for page in range(p0, p1 + 1):
            start = k0 + 1 if page == p0 else 0
            stop = k1 if page == p1 else len(items[page])
            if page != p0 and last is not None:
                last = (page, None)  # the next page opens with what the break carried
            for k in range(start, stop):
                item = items[page][k]
                if item[0] == "furniture" and any(engine.looks_like_amount(w[0]) for w in item[4]):
                    last = (page, item[1])  # the balance carried over: the table goes on
                elif item[0] == "text" and last and last[0] == page and \
                        (last[1] is None or item[1] - last[1] <= gap) and \
                        any(abs(item[4][0][1] - x) <= 2.0 for x in starts):
                    last = (page, item[1])  # the row's words run on, where its words start
                else:  # a page's own header keeps its top open to what the break carried
                    atop = last is not None and last[1] is None and item[0] == "outside"
                    last = last if item[0] == "furniture" or atop else None
                    out.add((page, k))
    return out


def _groups_of_one(ledger: Ledger, rows: int) -> None:
    """Headings over groups of rows are fewer than the rows: a line over nearly every row
    is some part of each row the reading left out (a date's year wrapped onto its own
    line), named, not passed as a heading."""
    heads = [f for f in ledger.furniture if f["reason"] == _GROUP]
    if len(heads) < 3 or len(heads) <= rows // 2:
        return
    ledger.furniture = [f for f in ledger.furniture if f["reason"] != _GROUP]
    ledger.unaccounted += [{"page": f["page"], "box": f["box"], "text": f["text"],
                            "why": f"one of {len(heads)} lines that would head groups of "
                                   f"{rows} rows: part of the rows, not a heading over them"}
                           for f in heads]


def _loose_rows(ledger: Ledger, items: list, region: dict, owned: dict, settings: dict,
                money: "Arithmetic", rows: list) -> None:
    """Lines outside the table's span that print a date and money as a row does (a first
    or last transaction under another heading, a row the reading never reached): owned
    only where the arithmetic says what they are, a balance or a total of the rows."""
    edges = gutters.row_edges(rows, items, settings)
    for page, lines in enumerate(items):
        low, high = region.get(page, (0.0, -1.0, 0.0))[:2]
        for k, item in enumerate(lines):
            if (page, k) in owned or low <= item[1] <= high:
                continue
            if item[0] == "anchor" or (item[0] == "furniture" and item[5] in _STRUCTURAL):
                continue  # some row's anchor, or the page's structure (a label is no proof)
            if not (extent.row_like(item[4], settings, anywhere=item[0] in ("money", "text"))
                    or gutters.on_row_edges(item[4], edges, settings)):
                continue
            reason = money.explain_anywhere([w[0] for w in item[4]])
            if reason:
                _own(ledger, page, item[4], item[3], reason)
            else:
                _unaccount(ledger, page, item[4], "a line outside the table's rows that "
                                                  "prints a date and money as a row does")


def _cells(ledger: Ledger, page: int, item: list, row: list, settings: dict,
           money: "Arithmetic") -> None:
    """A row line's words: each in a cell whose value the output keeps, or said otherwise.
    An amount column's cell that reads as no amount keeps nothing of its words."""
    columns, offset = engine.item_columns(item, settings)
    for w in item[4]:
        c = wordlines.column_of(w, columns) + offset
        col = (settings["columns"] + settings.get("second_line", []))[c]
        if not col.get("output", True):
            _own(ledger, page, [w], w[0], _LEFT_OUT)
        elif col["kind"] == "amount" and row[0][c] and money.amount(row[0][c], c) is None:
            ledger.unaccounted.append({"page": page + 1, "box": _box([w]), "text": w[0],
                                       "why": f"in {col['name']!r}, whose cell "
                                              f"{row[0][c]!r} reads as no amount"})
        else:
            ledger.words_in_cells += 1


# Furniture whose reason is the page's structure, not the rows' numbers.
_STRUCTURAL = ("the table's column heading", "a section's title (it signs its rows)",
               "a rule drawn with text")


def _money_reason(item: list, page: int, k: int, reason: str, settings: dict,
                  money: "Arithmetic") -> tuple:
    """``(reason, why not)`` for a line inside the table that prints money and is no row.
    Whatever named it (a label such as 'Closing balance', a pattern learned from the key,
    a balance alone on its line), it stands only when the rows' own numbers say what it
    is: a balance they reach or a total of them. A label alone would let a lost row pass
    as furniture."""
    cells = item[2] if item[2] is not None else wordlines.split_cells(
        item[4], settings["columns"], settings["glue_gap"])
    kinds = [c["kind"] for c in settings["columns"]]
    cells = [c if i < len(kinds) and kinds[i] == "amount" and money.is_money(c, i)
             else "" for i, c in enumerate(cells)]
    if not any(cells):
        return reason, ""  # no money in the table's columns: the label is the reason
    explained = money.explain(["money", item[1], cells] + item[3:], page, k) \
        or money.explain_anywhere([c for c in cells if c])
    if explained:
        return explained, ""
    said = f" (named: {reason})" if reason else ""
    return "", (f"a line that prints money in the table's columns{said}, and its amounts "
                "are neither a balance the rows reach nor a total of the rows above it")


def _own(ledger: Ledger, page: int, words: list, text: str, reason: str) -> None:
    if reason:
        ledger.furniture.append({"page": page + 1, "box": _box(words), "text": text,
                                 "reason": reason})
    else:
        ledger.unaccounted += [{"page": page + 1, "box": _box([w]), "text": w[0]}
                               for w in words]


def _unaccount(ledger: Ledger, page: int, words: list, why: str) -> None:
    ledger.unaccounted += [{"page": page + 1, "box": _box([w]), "text": w[0], "why": why}
                           for w in words]


def _rows(rows: list, items: list, settings: dict) -> list:
    names = [c["name"] for c in settings["columns"] + settings.get("second_line", [])]
    out = []
    for n, row in enumerate(rows):
        parts: dict = {}
        cells = []
        for page, k in row[3]:
            words = items[page][k][4]
            parts.setdefault(page, []).extend(words)
            by_col: dict = {}
            columns, offset = engine.item_columns(items[page][k], settings)
            for w in words:
                by_col.setdefault(wordlines.column_of(w, columns) + offset, []).append(w)
            cells += [{"column": names[c], "page": page + 1, "box": _box(ws)}
                      for c, ws in sorted(by_col.items())]
        out.append({"row": n, "parts": [{"page": p + 1, "box": _box(ws)}
                                        for p, ws in sorted(parts.items())], "cells": cells})
    return out


