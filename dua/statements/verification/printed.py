"""What a statement prints about its rows outside them, held against the rows.

A summary (a box above the table, lines below it) that prints the balance the rows start
from speaks about these rows. Where it leads from that balance, by amounts it prints, to
another that is not the rows' closing balance (nor any balance a row prints), it sums
other rows than these (a page missing, rows lost): the summary contradicts them. Figures are matched by value, never by the words
printed beside them, so the check reads any language.
"""
from __future__ import annotations

_CENT = 0.005


def check(outside: list, settings: dict, frame, lines: list = ()) -> dict:
    """``{"name", "passed", "detail"}`` from the amounts printed on lines that are no row
    (``reconcile.amounts_outside_rows``; ``lines``, the words of those lines, for the count
    a summary prints beside the balances): None when none starts from their opening
    balance."""
    printed = [v for v in outside if v is not None]
    closing = _closing(frame, settings)
    starts = sorted(v for v in _opening(frame, settings) if _has(printed, v))
    if not starts or closing is None:
        return {"name": "summary_agrees", "passed": None,
                "detail": "nothing printed outside the rows starts from their opening balance"}
    if _has(printed, closing):
        totals = _totals(frame, settings)
        complete = bool(totals) and all(_has(printed, t) for t in totals)
        also = (f", and the totals of their money, {', '.join(f'{t:,.2f}' for t in totals)}"
                if complete else "")
        count = _count(lines, settings, starts, closing, len(frame))
        if count is not None and count != len(frame):
            return {"name": "summary_agrees", "passed": False,
                    "detail": f"the summary that prints the rows' opening and closing balances "
                              f"counts {count} transactions beside them, and there are "
                              f"{len(frame)} rows: it counts other rows than these"}
        also += f", and their count, {count}" if count is not None else ""
        return {"name": "summary_agrees", "passed": True, "complete": complete,
                "detail": f"outside the rows the statement prints the balance they open on, "
                          f"{starts[0]:,.2f}, and the one they close on, {closing:,.2f}"
                          + also}
    reached = {round(abs(v), 2) for v in _balances(frame, settings) if v == v}
    for opening in starts:
        chain = _chain(printed, opening, reached)
        if chain:
            by, end = chain
            return {"name": "summary_agrees", "passed": False,
                    "detail": f"the summary printed outside the rows goes from their opening "
                              f"balance {opening:,.2f} by {by} to {end:,.2f}, and the rows "
                              f"close on {closing:,.2f}: it sums other rows than these (a "
                              "page or rows missing, or rows that are not the statement's)"}
    return {"name": "summary_agrees", "passed": True,
            "detail": f"outside the rows the statement prints the balance they open on, "
                      f"{starts[0]:,.2f}, and no other balance it leads to"}


def balances_as_printed(settings: dict, arithmetic: dict) -> dict | None:
    """A failed check where the column the arithmetic found to be the balance is signed by
    the section its rows stand in: a balance prints its own sign, and every amount and
    balance of a section turned over together still chain (an account's title read as a
    section that moves money out)."""
    roles = arithmetic.get("roles") or []
    if not roles or not any(c["name"] == roles[0] and c.get("section_signed")
                            for c in settings.get("columns") or []):
        return None
    return {"name": "balances_as_printed", "passed": False,
            "detail": f"the balances in {roles[0]!r} are read with the sign of the section "
                      "they stand in, not the one they print"}


def signs_as_marked(rows: list, settings: dict, arithmetic: dict) -> dict | None:
    """A failed check where the balance moves against the amounts as their Dr and Cr sign
    them: a marker's way is a convention (a card's 'Cr' lowers the balance owed, a bank's
    raises the balance held) that the running balance settles, so a column whose amounts
    print Dr or Cr and no sign of their own moves it the way they are read, and so does one
    the search signed by a guess. A column that prints its own minus keeps it, whichever
    way the balance goes (a card's purchases printed negative beside a balance owed)."""
    from ..table import amounts  # late: the engine's modules load with the verification

    roles = arithmetic.get("roles") or []
    # one column moved the balance: the arithmetic names it as repr does
    column = next((i for i, c in enumerate(settings.get("columns") or [])
                   if len(roles) > 1 and repr(c["name"]) == roles[1]), None)
    if arithmetic.get("way", 1) > 0 or column is None:
        return None
    marks = {amounts.amount_marker(r[0][column], settings) for r in rows if r[0][column]}
    guessed = settings["columns"][column].get("sign_guessed")
    if not guessed and (not marks & {"dr", "cr"} or marks & {"-", "+", "()"}):
        return None
    return {"name": "signs_as_marked", "passed": False,
            "detail": f"the balances in {roles[0]!r} move against {roles[1]} as its Dr and Cr "
                      "sign them: read as the balance moves, the marked amounts go the other "
                      "way"}


def _count(lines: list, settings: dict, starts: list, closing: float,
           rows: int) -> int | None:
    """The one whole number a line of figures only prints beside both the rows' opening
    and closing balances (its count of transactions), or two that add up to ``rows`` (the
    debits and the credits counted apart); None where it prints none, or two that do not
    (they may count something else)."""
    from ..table import reconcile, wordlines  # late: pandas loads with them

    for words in lines:
        if not wordlines.figures_only(words, settings):
            continue  # a line of words ('Page 2 of 3') prints no count of these rows
        values = reconcile.line_amounts(words, settings)
        if any(_has(values, s) for s in starts) and _has(values, closing):
            counts = reconcile.counts_on(words, settings)
            if len(counts) == 1:
                return counts[0]
            if len(counts) == 2:  # money out and money in counted apart: only their sum
                return sum(counts) if sum(counts) == rows else None
    return None


def _chain(printed: list, opening: float, reached: set) -> tuple | None:
    """``(how, end)``: a printed amount the opening balance reaches by one or two other
    printed amounts (in less out), that no row's balance is: a summary's closing."""
    values = sorted({round(abs(v), 2) for v in printed} - {round(abs(opening), 2)})
    ends = set(values) - reached
    for x in values:
        for y in [0.0] + values:
            if y == x:
                continue
            for sign in (1, -1):
                end = round(abs(opening) + sign * (x - y), 2)
                if end in ends and end not in (x, y):
                    how = f"{x:,.2f}" + (f" and {y:,.2f}" if y else "")
                    return how, end
    return None


def _totals(frame, settings: dict) -> list:
    """What each column of money adds up to (money in and money out apart, in a column of
    signed amounts): where a summary prints these and both balances, no row is missing."""
    columns = settings.get("columns") or []
    out = []
    for i, c in enumerate(columns):
        if c["kind"] != "amount" or i == settings.get("balance_column") \
                or not c.get("output", True) or c["name"] not in frame:
            continue
        values = [float(v) for v in frame[c["name"]].tolist() if v is not None and v == v]
        out += [t for t in (sum(v for v in values if v > 0), -sum(v for v in values if v < 0))
                if t >= _CENT]
    return out


def _has(printed: list, value: float) -> bool:
    return any(abs(abs(p) - abs(value)) < _CENT for p in printed)


def _balances(frame, settings: dict) -> list:
    """The balance column's cells (NaN where a row prints none), or []."""
    balance = settings.get("balance_column")
    columns = settings.get("columns") or []
    if balance is None or balance >= len(columns) or columns[balance]["name"] not in frame:
        return []
    return [float("nan") if v is None else float(v)
            for v in frame[columns[balance]["name"]].tolist()]


def _closing(frame, settings: dict) -> float | None:
    printed = [v for v in _balances(frame, settings) if v == v]
    return printed[-1] if printed else None


def _opening(frame, settings: dict) -> set:
    """The balance before the first row: the first balance printed less the movements
    down to it, under each way the columns of money can move it."""
    from ..table.movements import movement_options  # late, as above

    bal = _balances(frame, settings)
    first = next((i for i, v in enumerate(bal) if v == v), None)
    if first is None:
        return set()
    name = settings["columns"][settings["balance_column"]]["name"]
    return {round(bal[first] - s * sum(moves[:first + 1]), 2)
            for _, moves in movement_options(frame, exclude=(name,)) for s in (1, -1)}



