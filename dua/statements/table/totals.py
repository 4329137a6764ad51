"""Without a balance column: the rows' money against the totals the statement prints.

The movements must add up to an amount printed outside the rows (a total, or the new
balance less the previous one), each column of money accounted for; several accounts'
tables, each under its own heading, each add up to their own.
"""
from __future__ import annotations

from .movements import _floats, _movements, _zero, drcr_column, numeric_columns


def reconcile_totals(frame, printed: list, in_table: list | None = None,
                     between: bool = True, among: list = ()) -> dict:
    """Without a balance: the movements add up to a printed amount (or to one less another).

    Every column of money must be accounted for so: a debit total printed beside a credit
    column that no printed figure sums checks only half the money, and a row lost from the
    other half would pass unseen. Figures are matched by value alone, so one that matches
    nothing contradicts the rows only where it stands on the table's own lines
    (``in_table``, None when unknown): a summary elsewhere may count other things. With
    ``between`` False only a total counts, not two printed figures the rows lead from one
    to the other: a table's total less the rest of its rows is a row's own amount, which
    its line prints wherever the reading lost it. For the same reason no figure printed
    ``among`` the rows (between two of them) is one the rows lead from or to: a lost
    row's amount, or one section's total, which with the other's bounds any sum of both."""
    options = _movements(frame)
    printed = list(dict.fromkeys(round(v, 2) for v in printed))  # each where first printed
    if not len(frame) or not options or not printed:
        return {"name": "totals_reconcile", "passed": None,
                "detail": "no balance column and no printed total to reconcile"}
    found, covered, every = [], set(), set(numeric_columns(frame))
    for what, moves, columns in options:
        match = _total_of(moves, printed, columns == every and between, among)
        if match and not columns <= covered:
            found.append((what, moves, match, columns == every))
            covered |= columns
    halves = _halves(frame, printed) if not found else None
    if halves:
        found.append((halves[0], halves[1], (None, None), False))
        covered |= halves[3]
    if not found:
        added = f"the amounts add up to {sum(options[0][1]):.2f}"
        if in_table is None or in_table:
            return {"name": "totals_reconcile", "passed": False,
                    "detail": f"{added}; no printed total matches ({len(printed)} amounts "
                              "printed outside the rows)"}
        return {"name": "totals_reconcile", "passed": None,
                "detail": f"{added}, and none of the {len(printed)} amounts printed outside "
                          "the table's lines is their total: nothing on the page sums them"}
    detail = "; ".join(
        what if t is None else
        f"{what} adds up to the printed {t} ({_count(moves)})" if other is None
        else f"the printed {other} and {what} ({_count(moves)}) give the printed {t}"
        for what, moves, (t, other), _ in found)
    explained = {v for _, m, _, net in found for v in _explained(printed, sum(m), net)}
    if len(found) > 1 and covered == every and not any(net for *_, net in found):
        # each column summed by a total of its own: their net is proven too, and two printed
        # balances it leads from one to the other are the summary's opening and closing
        led = {pair for _, moves, columns in options if columns == every
               for pair in _sided_pairs(frame, moves, in_table or ())}
        explained |= {v for _, moves, columns in options if columns == every
                      for v in _explained(printed, sum(moves))}
        explained |= {v for (p, _), (q, _) in led for v in (p, q)}
        detail += "".join(f"; the rows lead from the {p} printed under {pc!r} to the {q} "
                          f"printed under {qc!r}" for (p, pc), (q, qc) in sorted(led))
    explained = sorted(explained | set(halves[4] if halves else ()))
    left = [c for c in numeric_columns(frame) if c not in covered]
    if left:
        return {"name": "totals_reconcile", "passed": None, "explained": explained,
                "detail": detail + f"; but no printed figure sums {', '.join(map(repr, left))}"
                          ", so its amounts are not checked"}
    return {"name": "totals_reconcile", "passed": True, "explained": explained,
            "detail": detail}


def _halves(frame, printed: list) -> tuple | None:
    """``(what, moves, printed totals, columns)`` where one column's money in adds up to one
    printed figure and its money out to another (a summary's total credits and total
    debits), the two told apart by their signs or by the codes beside them: both halves
    summed, a row lost from either shows. None otherwise."""
    columns, codes = numeric_columns(frame), drcr_column(frame)
    if len(columns) != 1:
        return None
    values = _zero(_floats(frame, columns[0]))
    # the two ways the column moves money: by its signs, or by the codes beside it
    way = [str(c).strip().lower() for c in frame[codes].tolist()] if codes is not None \
        else [v > 0 for v in values]
    kinds = sorted(set(k for k, v in zip(way, values) if v), key=str)
    parts = [abs(sum(v for k, v in zip(way, values) if k == kind)) for kind in kinds]
    hit = [next((t for t in printed if abs(abs(t) - part) < 0.005), None) for part in parts]
    if len(parts) != 2 or None in hit or hit[0] == hit[1]:
        return None
    what = (f"{columns[0]!r}: its amounts one way add up to the printed {hit[0]}, the other "
            f"way to the printed {hit[1]} ({_count(values)})")
    # the balances the net of the two leads from and to, whichever way is money in
    explained = {abs(t) for t in hit} | {v for net in (parts[0] - parts[1], parts[1] - parts[0])
                                         for v in _explained(printed, net)}
    return what, values, tuple(hit), {columns[0]}, sorted(explained)


def _one_way(frame, cuts: list) -> bool:
    """Whether the tables' money is one column whose amounts all share one sign: tables
    of money in and of money out (a section each) add up to their totals alike."""
    columns = numeric_columns(frame)
    if len(columns) != 1 or drcr_column(frame) is not None:
        return False
    values = [v for v in frame[columns[0]].tolist() if v == v and v]
    return all(v > 0 for v in values) or all(v < 0 for v in values)


def _count(moves: list) -> str:
    """'3 amounts': how many rows move money in ``moves`` (a row that prints none moves none)."""
    n = sum(1 for m in moves if m and m == m)
    return f"{n} amount" + ("s" if n != 1 else "")


def _total_of(moves: list, printed: list, net: bool, among: list = ()) -> tuple | None:
    """``(t, other)``: the printed ``t`` the movements add up to (``other`` None), or, when
    they are the ``net`` movement of every column of money, lead to from the printed
    ``other`` (one balance to the next: a column of money in alone leads from no balance
    to another); None when no printed amount is their total."""
    total = sum(moves)
    if abs(total) < 0.005:
        return None  # nothing moved: any two equal printed amounts would "reconcile"
    for t in printed:
        # A total is often printed without its sign; one balance and the movements give
        # another (which of the two is the earlier, the page does not always say).
        if abs(abs(total) - abs(t)) < 0.005:
            return t, None
        if any(abs(t - a) < 0.005 for a in among):
            continue  # no balance every row leads to
        other = next((p for p in printed if p != t and abs(p + total - t) < 0.005
                      and not any(abs(p - a) < 0.005 for a in among)), None)
        if other is not None and net:
            return t, other
    return None


def _explained(printed: list, total: float, pairs: bool = True) -> list:
    """The printed amounts the movements' total accounts for: the total itself, and (with
    ``pairs``) each pair of balances it leads from one to the other (a previous and a new
    balance)."""
    out = {abs(t) for t in printed if abs(abs(total) - abs(t)) < 0.005}
    for p in printed if pairs else ():
        for q in printed:
            if p != q and abs(p + total - q) < 0.005:
                out |= {abs(p), abs(q)}
    return sorted(out)


def _sided_pairs(frame, moves: list, in_table: list) -> set:
    """``((amount, column), (amount, column))`` for each two balances printed on the table's
    lines in its columns of money (``in_table``) that ``moves`` lead from the one to the
    other, each signed the way its column moves money: an overdrawn account's opening
    balance printed under 'Debit' is money owed, the rows lead from it to a closing one
    printed under 'Credit'."""
    signs = _column_signs(frame, moves)
    sided = [(v, c) for v, c in dict.fromkeys(in_table) if c in signs]
    net = sum(moves)
    return {((abs(v), c), (abs(w), d)) for v, c in sided for w, d in sided
            if (v, c) != (w, d) and abs(signs[c] * v + net - signs[d] * w) < 0.005}


def _column_signs(frame, moves: list) -> dict:
    """Each column of money's sign in ``moves``, read off a row that prints money in it
    alone: +1 where its amounts go in as printed, -1 where they go out."""
    columns = numeric_columns(frame)
    values = {c: _zero(_floats(frame, c)) for c in columns}
    signs = {}
    for r, move in enumerate(moves):
        printed = [c for c in columns if values[c][r]]
        if len(printed) == 1 and printed[0] not in signs and move:
            signs[printed[0]] = 1.0 if (move > 0) == (values[printed[0]][r] > 0) else -1.0
    return signs


def totals_by_table(frame, printed: list, starts: list, in_table: list | None = None,
                    ends: dict | None = None) -> dict:
    """Rows of several accounts, each table under its own heading with its own totals: the
    rows cut where a heading stands over them, so that each run adds up to figures printed
    for it. Every run must, or nothing is proven (one run that sums to no printed figure
    may be a run with a row lost). ``ends``: each run's first row -> the amounts printed
    right above it and right below its last row (``tablestarts.table_ends``)."""
    cuts, start = [], 0
    for stop in list(starts) + [len(frame)]:
        if stop <= start:
            continue
        found = reconcile_totals(frame.iloc[start:stop], printed, in_table, between=False)
        if not found["passed"] and (ends or {}).get(start):
            found = _led(frame.iloc[start:stop], *ends[start]) or found
        if found["passed"] or stop == len(frame):
            if not found["passed"]:
                return {}
            cuts.append((start, stop, found["detail"], found.get("explained", [])))
            start = stop
    if len(cuts) < 2:
        return {}
    if _one_way(frame, cuts):
        return {"name": "totals_reconcile", "passed": None,
                "detail": "table by table under their own headings, each adds up to a "
                          "printed total; but every amount prints without a sign, so which "
                          "tables move money in and which out, no figure says"}
    return {"name": "totals_reconcile", "passed": True,
            "explained": sorted({v for cut in cuts for v in cut[3]}),
            "restarts": [a for a, *_ in cuts if a],  # each account's rows, its title over them
            "detail": "table by table under their own headings: " + "; ".join(
                f"rows {a + 1}-{b}: {detail}" for a, b, detail, _ in cuts)}


def _led(frame, above: list, below: list) -> dict | None:
    """The run's net movement leads from a balance printed right above its first row to one
    printed right below its last: where they stand, no lost row's amount can pose as either
    (a lost row prints its amount between two rows)."""
    every = set(numeric_columns(frame))
    for what, moves, columns in _movements(frame):
        net = sum(moves)
        if columns != every or abs(net) < 0.005:
            continue
        pair = next(((a, b) for a in above for b in below if abs(a + net - b) < 0.005), None)
        if pair:
            return {"name": "totals_reconcile", "passed": True, "explained": [abs(v) for v in pair],
                    "detail": f"{what} ({_count(moves)}) lead from the printed {pair[0]} right "
                              f"above its first row to the printed {pair[1]} right below its last"}
    return None
