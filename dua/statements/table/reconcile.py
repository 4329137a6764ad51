"""A statement's own arithmetic: which columns are balance and movements, and whether they add up.

Column roles are not read from the heading words (which may be in any language): every
assignment of the numeric columns to balance, signed amount or debit/credit pair is
tried, and the one under which the printed balances reconcile row by row is the answer.
Without a balance column, ``totals`` holds the rows against what the page prints of
them; this module finds those printed figures.
"""
from __future__ import annotations

import math
import re

from . import engine, wordlines
from .movements import _floats, _zero, halves, movement_options, numeric_columns

_PROBE = 8  # rows checked first: most wrong assignments fail at once


def _bad_rows(bal: list, moves: list, sign: float, newest_first: bool, rows) -> list:
    """Rows whose balance the movements since the last balance printed do not explain.
    Across a row that prints no balance the movements add up (a balance printed on a day's
    last row only); whether a missing balance is a fault is not judged here (``_holes``)."""
    out = []
    last = None  # the row of the last balance printed
    for i in rows:
        if math.isnan(bal[i - 1]) and last is None:
            continue
        if not math.isnan(bal[i - 1]):
            last = i - 1
        if math.isnan(bal[i]):
            continue
        between = moves[last + 1:i + 1] if not newest_first else moves[last:i]
        diff = (bal[i] + sign * sum(between) - bal[last] if newest_first
                else bal[last] + sign * sum(between) - bal[i])
        if abs(diff) > 0.005:
            out.append(i)
        last = i
    return out


def _best_convention(bal: list, moves: list) -> tuple:
    """(bad rows, sign, newest_first) of the convention that fits best."""
    n = len(bal)
    best = None
    for sign, newest in ((1.0, False), (-1.0, False), (1.0, True), (-1.0, True)):
        if _bad_rows(bal, moves, sign, newest, range(1, min(n, _PROBE))) and best is not None:
            continue  # fails on the first rows: cannot beat a convention already found
        bad = _bad_rows(bal, moves, sign, newest, range(1, n))
        if best is None or len(bad) < len(best[0]):
            best = (bad, sign, newest)
    return best


def _holes(bal: list, days: list | None = None) -> list:
    """Rows with no balance, but those a day's later row closes (``days``: each row's
    date in each column of dates the rows print, a booking and a value date): a balance
    printed on a day's last row only. The next balance printed still checks their amounts."""
    return [i for i, b in enumerate(bal) if math.isnan(b) and not (
        i + 1 < len(bal) and any(col[i] == col[i + 1] for col in days or ()))]


def _could_be_balance(bal: list, days: list | None = None) -> bool:
    """Printed on every row, or nearly, or on every day's last row: a balance that lost a
    cell or two is still the balance (and fails), while a debit or credit column is empty
    on many rows."""
    holes = len(_holes(bal, days))
    printed = len(bal) - sum(math.isnan(b) for b in bal)
    return printed >= 2 and (not holes or (holes <= 0.1 * len(bal) and printed >= 3))


def _days(frame) -> list:
    """Each row's day in every text column that repeats a value on neighbouring rows and is
    set on every row (a date: a booking date, a value date), of more than two values (no
    sign code)."""
    out = []
    for c in frame.columns:
        if str(frame[c].dtype) in ("float64", "int64"):
            continue
        values = frame[c].tolist()
        if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in values):
            continue
        if len(set(values)) > 2 and any(a == b for a, b in zip(values, values[1:])):
            out.append(values)
    return out


def _fit(frame, openings: dict | None = None, tables: tuple = ()) -> tuple | None:
    """(bad rows, balance column, movements' description, newest first, balances, movements,
    sign: the balance moves by sign x movement) of the assignment that reconciles best. A
    column with holes counts only when every pair of rows it prints reconciles, but where
    another account's table starts (``reconcile``'s ``openings`` and ``tables``): then it
    is the balance, and its holes are the fault."""
    best = None
    days = _days(frame)
    for bal_col in numeric_columns(frame):
        bal = _floats(frame, bal_col)
        if not _could_be_balance(bal, days):
            continue
        for what, moves in movement_options(frame, exclude=(bal_col,)):
            bad, sign, newest = _best_convention(bal, moves)
            if any(math.isnan(b) for b in bal) and any(
                    newest or (not _opens_before(i, bal, tables)
                               and not _restarts(i, bal, moves, sign, openings)) for i in bad):
                continue
            bad = sorted(bad + _holes(bal, days))
            if sign < 0 and what.endswith(" out"):  # the pair moves the balance the other way
                money_in, money_out = what[:-len(" out")].split(" in, ")
                what = f"{money_out} in, {money_in} out"
            if best is None or len(bad) < len(best[0]):
                best = (bad, bal_col, what, newest, bal, moves, sign)
            if not bad:
                return best
    return best


def reconcile(frame, openings: dict | None = None, tables: tuple = ()) -> dict:
    """Running balances: some column is the balance and the others move it, to the cent.
    ``openings`` holds, by row, the amounts printed between it and the row before: a chain
    that breaks there restarts where one of them is the balance the row moves from (a
    second account's opening balance). ``tables``: rows that open a table of their own
    under its heading; a chain that breaks there, from no balance printed, leaves that
    row unchecked (another account's), not wrong."""
    if len(frame) < 2:
        return {"name": "balance_reconciles", "passed": None, "detail": "fewer than two rows"}
    best = _fit(frame, openings, tables)
    if best is None:
        return {"name": "balance_reconciles", "passed": None,
                "detail": "no balance column with movements to reconcile"}
    bad, bal_col, what, newest, bal, moves, sign = best
    starts = {} if newest else {i: _restart_row(i, bal, moves, sign, openings) for i in bad}
    restarts = sorted(t for t in starts.values() if t is not None)
    bad = [i for i in bad if starts.get(i) is None]
    if bad and not newest and all(_opens_before(i, bal, tables) for i in bad):
        firsts = [_opened_at(i, bal, tables) for i in bad]
        unchecked = ", ".join(map(str, sorted(
            {r for i, t in zip(bad, firsts) for r in range(t, i + 1)})))
        where = f"a table of its own starts under its heading at row(s) " \
            f"{', '.join(map(str, firsts))}, from no balance printed before it"
        # Where no figure stands around such a table (no opening, no summary, no line a
        # row the reading lost would print; the tables' own totals aside), it opens as the
        # statement's first row does: its first amounts lead to its first balance from
        # nothing a check could read.
        if not any(_unexplained(frame, t, (openings or {}).get(t), tables) for t in firsts):
            totals = " but the tables' own totals" if any(
                (openings or {}).get(t) for t in firsts) else ""
            return {"name": "balance_reconciles", "passed": True, "roles": [bal_col, what],
                    "restarts": sorted(restarts + bad), "way": sign,
                    "detail": f"the {sum(not math.isnan(b) for b in bal)} balances printed "
                              f"in {bal_col!r} follow one from another by {what} (in printed "
                              f"order); {where} and no figure around it{totals}: as the first "
                              f"row's, the amounts of row(s) {unchecked} lead to no balance "
                              "printed"}
        return {"name": "balance_reconciles", "passed": None, "roles": [bal_col, what],
                "restarts": sorted(restarts + bad),
                "detail": f"the balances printed in {bal_col!r} follow one from another by "
                          f"{what}, but {where}: the amounts of row(s) {unchecked} are not "
                          "checked"}
    if not bad:
        order = "newest first" if newest else "in printed order"
        again = f"; they start again at row(s) {', '.join(map(str, restarts))} from the " \
            "opening balance their table prints" if restarts else ""
        return {"name": "balance_reconciles", "passed": True, "roles": [bal_col, what],
                "restarts": restarts, "way": sign,
                "detail": f"the {sum(not math.isnan(b) for b in bal)} balances printed in "
                          f"{bal_col!r} follow one from another "
                          f"by {what} ({order}){again}"}
    i = bad[0]
    if math.isnan(bal[i]):
        detail = f"row {i} has no balance in {bal_col!r}"
    else:
        detail = (f"row {i}: {bal[i - 1]} with movement {moves[i]} does not give {bal[i]} "
                  f"in {bal_col!r}")
    return {"name": "balance_reconciles", "passed": False, "bad_rows": len(bad),
            "detail": f"{detail} ({len(bad)} rows do not reconcile)"}


def _unexplained(frame, t: int, figures: list | None, tables: tuple) -> list:
    """The figures printed around the table starting at row ``t`` that are neither its
    own totals nor the table above's (each column of money summed over its rows): those
    are about rows the reading has, where a lost row's amount would be about none."""
    cuts = sorted({0, len(frame), *tables})
    start = max(s for s in cuts if s < t)
    end = min(s for s in cuts if s > t)
    totals = {round(abs(sum(_zero(_floats(frame, c))[a:b])), 2)
              for c in numeric_columns(frame) for a, b in ((start, t), (t, end))}
    return [v for v in figures or () if round(abs(v), 2) not in totals]


def _opens_before(i: int, bal: list, tables: tuple) -> bool:
    """Whether a table of its own starts after the last balance printed before row ``i``
    and by row ``i``: the chain breaks there where the new table prints its first balance
    (its first rows may print none, a balance printed at each day's end)."""
    return _opened_at(i, bal, tables) is not None


def _opened_at(i: int, bal: list, tables: tuple) -> int | None:
    """The row that table starts at (``_opens_before``), or None."""
    last = max((j for j in range(i) if not math.isnan(bal[j])), default=-1)
    return next((t for t in sorted(tables) if last < t <= i), None)


def _restarts(i: int, bal: list, moves: list, sign: float, openings: dict | None) -> bool:
    """Whether row ``i``'s balance follows from an opening printed above it (``_restart_row``)."""
    return _restart_row(i, bal, moves, sign, openings) is not None


def _restart_row(i: int, bal: list, moves: list, sign: float,
                 openings: dict | None) -> int | None:
    """The row whose chain starts again from an amount printed right above it, leading to
    row ``i``'s balance: ``i`` itself, or a row since the last balance printed (a balance
    printed at each day's end only); None where no such amount leads there."""
    if math.isnan(bal[i]):
        return None
    last = max((j for j in range(i) if not math.isnan(bal[j])), default=-1)
    return next((t for t in range(last + 1, i + 1) for v in (openings or {}).get(t, ())
                 if abs(v + sign * sum(m for m in moves[t:i + 1] if m == m) - bal[i]) < 0.005
                 and not (last >= 0 and _carried(bal[last], v, openings[t]))), None)


def _carried(before: float, opening: float, printed: list) -> bool:
    """Whether another figure printed beside ``opening`` moves the balance before it to it:
    then the line is a row the reading lost (its movement and its balance), not a second
    account's opening (an OCR'd date misread to no date left such a row out)."""
    return any(abs(abs(before - opening) - abs(u)) < 0.005 and u != opening for u in printed)


def oriented(frame) -> tuple | None:
    """``(balance column, what moves it, movements, bad rows)``: each row's movement signed
    the way it moves the printed balance (a balance that grows by it: positive), under the
    assignment of the columns that reconciles best; None when no column is a balance."""
    if len(frame) < 2:
        return None
    best = _fit(frame)
    if best is None:
        return None
    bad, bal_col, what, _, bal, moves, sign = best
    if not bad:  # one column alone may reconcile where the others print only before the
        # first balance: an assignment that moves it by every column, where one fits, wins
        others = [c for c in numeric_columns(frame) if c != bal_col]
        for option, values in movement_options(frame, exclude=(bal_col,)):
            if all(repr(c) in option for c in others):
                wrong, way, _ = _best_convention(bal, values)
                if not wrong:
                    what, moves, sign = option, values, way
                    break
    return bal_col, what, [sign * m for m in moves], len(bad)


def running_balances(frame, printed: list, date_column: str | None) -> dict | None:
    """The balances the rows reach, day by day, from an opening balance printed outside
    them: a summary of daily balances proves the direction the movements go (a total alone
    reads the same either way). None when fewer than two printed balances are reached.

    Returns ``{"opening", "what", "reached": [...], "balances": set}``.
    """
    from ..notation.dates import order_keys

    if date_column is None or date_column not in frame.columns or len(frame) < 2:
        return None
    keys = order_keys([str(v) for v in frame[date_column].tolist()])
    if keys is None:
        return None
    order = sorted(range(len(frame)), key=lambda i: keys[i])
    printed = list(dict.fromkeys(round(v, 2) for v in printed))
    best = None
    for what, moves in movement_options(frame):
        # the money in's own total is no opening: from it, taking the money in away and
        # adding the money out reaches the money out's total (and nothing, once every
        # amount in is taken) whatever the rows; so is the money out's, the other way
        totals = halves(moves)
        for opening in printed:
            if round(abs(opening), 2) in totals:
                continue
            balances, total = set(), opening
            for n, i in enumerate(order):
                total += moves[i]
                if n + 1 == len(order) or keys[order[n + 1]] != keys[i]:
                    balances.add(round(total, 2))  # the day's last balance
            reached = sorted((balances & set(printed)) - {opening})
            if best is None or len(reached) > len(best["reached"]):
                best = {"opening": opening, "what": what, "reached": reached,
                        "balances": balances}
    if not best or len(best["reached"]) < 2:
        return None
    best["balances"].add(best["opening"])  # the day before the first row's
    return best


def amounts_outside_rows(pages: list, settings: dict) -> list:
    """Every amount printed on a line that is not a transaction (summary, totals, b/f).

    Runs of up to three words are read too: '12 345.67' and '1,234.56 Cr' print as two.
    """
    return [v for words in lines_outside_rows(pages, settings)
            for v in line_amounts(words, settings)]


def lines_outside_rows(pages: list, settings: dict) -> list:
    """The words of every line that is not a transaction, page by page."""
    return [item[4] for items in engine.extract(pages, dict(settings, require_header=False))[1]
            for item in items if item[0] != "anchor"]


def counts_on(words: list, settings: dict) -> list:
    """The whole numbers a line of figures prints beside its amounts, no part of any of
    them: a count ('Number of transactions 14'), where every amount prints decimals."""
    texts = [w[0] for w in words]
    taken = set()
    for size in (3, 2, 1):
        for i in range(len(texts) - size + 1):
            parts = texts[i:i + size]
            # a run is one amount where a space groups its thousands ('4 249,10')
            if taken & set(range(i, i + size)) or not all(
                    _GROUP.fullmatch(p) for p in parts[1:]):
                continue
            token = " ".join(parts)
            if any(ch in parts[-1] for ch in ".,") and engine.looks_like_amount(token, settings):
                taken |= set(range(i, i + size))
    return [int(t) for i, t in enumerate(texts) if i not in taken and t.isdigit() and len(t) <= 5]


_GROUP = re.compile(r"\d{3}(?:[.,]\d+)?")  # a group of thousands, the last with its decimals


def line_amounts(words: list, settings: dict) -> list:
    """Every amount a line prints, in runs of one to three words, left to right (which of
    two balances a statement prints first may tell its opening from its closing)."""
    texts, found = [w[0] for w in words], []
    for size in (1, 2, 3):
        for i in range(len(texts) - size + 1):
            token = " ".join(texts[i:i + size])
            if engine.looks_like_amount(token, settings):
                value = engine.parse_amount(token, settings)
                if value is not None:
                    found.append((i, size, value))
    return [value for *_, value in sorted(found)]


def amounts_in_table(extraction: tuple, settings: dict) -> list:
    """The amounts printed on the table's own lines that are no row (a total, a balance
    line, a subtotal between rows): figures about the rows by where they stand, each as
    ``(amount, the name of the column of money it stands in, or None)``."""
    columns = settings["columns"]
    found = []
    for items in extraction[1]:
        for item in items:
            if item[0] not in ("money", "furniture") or item[5] == wordlines.HEADING:
                continue
            for w in item[4]:
                value = engine.parse_amount(w[0], settings) \
                    if engine.looks_like_amount(w[0], settings) else None
                if value is not None:
                    col = columns[wordlines.column_of(w, columns)]
                    found.append((value, col["name"] if col["kind"] == "amount" else None))
    return found
