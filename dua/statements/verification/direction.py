"""Which way the amounts go where the reading signed them by a guess: sections' titles,
two codes after the amounts, or a lone Dr or Cr beside bare amounts, whose way no balance
told. Both ways must be tried; where both add up, the balances a summary prints day by day
say which is right, else the order an opening and a closing balance print in (the opening
first, on rows printed oldest first; for a lone marker, the one the totals follow); where
neither tells, the verdict says so.
"""
from __future__ import annotations

from ..table.movements import _movements, halves, numeric_columns


def signed_by_guess(frame, settings: dict) -> tuple:
    """``(columns, what)``: the columns of money whose signs the reading gave by a guess
    the arithmetic must prove, sections' titles or two codes after the amounts whose way
    no balance told (every column of money but the balance)."""
    columns = settings.get("columns") or []
    if settings.get("sign_marks_guessed"):
        codes = " and ".join(map(repr, settings.get("sign_marks") or ()))
        return [c["name"] for i, c in enumerate(columns) if c["kind"] == "amount" and i !=
                settings.get("balance_column") and c["name"] in frame.columns], \
            f"the amounts, their codes {codes} read the other way, add up"
    lone = [c["name"] for c in columns if lone_marker(c) and c["name"] in frame.columns]
    if lone:
        return lone, LONE
    return [c["name"] for c in columns if c.get("section_signed") and c.get("output", True)
            and c["name"] in frame.columns and settings.get("sections")], "the sections add up"


LONE = "the amounts, their lone Dr or Cr read the other way, add up"


def lone_marker(column: dict) -> bool:
    """A column of money that marks one way alone (a lone 'Cr') whose way no running
    balance told the reading (``notation.one_sided_ways``): a card's payment, or a bank's
    money in, by a guess; or one the search signed by a guess (``sign_guessed``)."""
    signs = column.get("drcr_signs") or {}
    return column.get("kind") == "amount" and (bool(column.get("sign_guessed")) or (
        bool(signs) and signs.get("dr") == signs.get("cr") and "sign" not in column))


def decide(result: dict, mirrored: dict, what: str, pairs: tuple = ((), ()),
           opened: bool = False) -> dict:
    """The amounts' signs come from sections, codes or a lone marker, and both ways add up:
    the daily balances decide, if any; else the order the two balances print in
    (``pairs``: the balance pairs each way leads between, ``balance_pairs``), or with
    ``opened`` the balance the totals follow (``opened_pairs``)."""
    if not mirrored["passed"]:
        return with_running(result)
    mine = len((result.get("running") or {}).get("reached", []))
    theirs = len((mirrored.get("running") or {}).get("reached", []))
    if mine > theirs:
        return with_running(result)
    if theirs > mine:
        return dict(result, passed=False, bad_rows=theirs - mine,
                    detail=result["detail"] + f"; but signed the other way round the rows "
                    f"reach {theirs} of the daily balances printed, and {mine} as they stand")
    mine, theirs = ([p for p in way if p[2] is True] for way in pairs)
    back = (lambda way: "from no balance the totals follow") if opened else _back
    if mine and not theirs:
        return with_running(dict(result, detail=result["detail"] + "; they lead from "
                                 f"{_ahead(mine, opened)}; signed the other way round, "
                                 f"{back(pairs[1])}"))
    if theirs and not mine:
        return dict(result, passed=False, bad_rows=1, detail=result["detail"] + "; but signed "
                    f"the other way round they lead from {_ahead(theirs, opened)}; as they "
                    "stand, " + back(pairs[0]))
    return dict(result, passed=None, detail=result["detail"] + f"; but signed the other way "
                f"round {what} as well, so the arithmetic cannot tell which way they move "
                "the balance")


def _ahead(pairs: list, opened: bool = False) -> str:
    a, b, _ = pairs[0]
    if opened:
        return f"the printed {a}, which the totals of their money follow, to the printed {b}"
    return f"the printed {a} to the {b} printed after it"


def opened_pairs(frame, printed: list) -> list:
    """``balance_pairs`` of the rows, ``forward`` True where ``p`` is printed right before
    a total of their money (a summary's own sum: the balance it opens on, then what came in
    and went out), else None. A card prints the balance due atop its first page, before the
    previous balance: the order of the two alone would read it backwards."""
    moves = net_moves(frame)
    totals = halves(moves)
    order = [round(v, 2) for v in printed]
    after: dict = {}
    for a, b in zip(order, order[1:]):
        after.setdefault(a, set()).add(abs(b))
    return [(p, t, True if after.get(p, set()) & totals else None)
            for p, t, _ in balance_pairs(moves, printed)]


def _back(pairs: list) -> str:
    """How the other way leads: only back from a balance printed later, between two
    printed in either order alike, or nowhere."""
    back = [p for p in pairs if p[2] is False]
    if back:
        return f"only back from a balance printed later ({back[0][0]} to {back[0][1]})"
    if pairs:
        return f"only between {pairs[0][0]} and {pairs[0][1]}, printed in either order alike"
    return "between no two printed balances"


def balance_pairs(moves: list, printed: list) -> list:
    """``(p, t, forward)`` for each two printed balances the net of ``moves`` leads from
    one (``p``) to the other. ``printed`` is in reading order, where an opening balance
    prints before its closing one: ``forward`` is True where ``p`` comes right before ``t``
    more often than after it (a summary printed twice puts one's closing before the
    other's opening, once), False where less often, None where as often. The money in's
    own total and the money out's are no such pair: in less out leads from one to the
    other whatever the rows, and either way round."""
    net = sum(moves)
    totals = halves(moves)
    order = [round(v, 2) for v in printed]
    return [(p, t, _before(order, p, t)) for p in dict.fromkeys(order) for t in
            dict.fromkeys(order) if p != t and abs(p + net - t) < 0.005 and abs(net) >= 0.005
            and {abs(p), abs(t)} != totals]


def _before(order: list, p: float, t: float):
    """True where ``p`` comes right before ``t`` (neither printed between) more often than
    ``t`` before ``p``, False where less often, None where as often."""
    seen = [v for v in order if v in (p, t)]
    ahead = sum(a == p and b == t for a, b in zip(seen, seen[1:]))
    back = sum(a == t and b == p for a, b in zip(seen, seen[1:]))
    return None if ahead == back else ahead > back


def with_running(result: dict) -> dict:
    """The result, its detail saying how many of the balances printed day by day the rows
    reach from the opening one."""
    run = result.get("running")
    if run:
        result = dict(result, detail=result["detail"] + f"; from the printed {run['opening']} "
                      f"the rows reach {len(run['reached'])} of the balances printed by day")
    return result


def pairs_of(frame, printed: list, restarts=()) -> list:
    """``balance_pairs`` of the rows, or of each account's rows where the tables restart
    (``restarts``: each later table's first row): forward only where every table leads
    forward from a balance of its own."""
    cuts = [0, *restarts, len(frame)]
    parts = [balance_pairs(net_moves(frame.iloc[a:b]), printed) for a, b in zip(cuts, cuts[1:])]
    if len(parts) == 1:
        return parts[0]
    ahead = all(any(p[2] is True for p in part) for part in parts)
    return [p for part in parts for p in part if p[2] is ahead]


def net_moves(frame) -> list:
    """Each row's movement of every column of money together (the first way the columns
    move the balance that sums them all), or ``[]``."""
    every = set(numeric_columns(frame))
    return next((moves for _, moves, columns in _movements(frame) if columns == every), [])


def oldest_first(frame, date: str | None) -> bool:
    """Whether the rows print oldest first, their dates rising more often than they fall
    (a section starting again from the period's first day falls once): only then does
    the page's order say which balance came first."""
    from ..notation.dates import order_keys

    if date is None or date not in frame.columns:
        return False
    keys = order_keys([str(v) for v in frame[date].tolist()])
    if keys is None:
        return False
    rises = sum(a < b for a, b in zip(keys, keys[1:]))
    return rises > sum(a > b for a, b in zip(keys, keys[1:]))
