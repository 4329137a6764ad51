"""What a line of money is, by the rows' own numbers: a balance they reach, the opening
balance before them, or a total of a run of them. The ledger asks it of every line that
prints money and is no row, whatever the line's label says.
"""
from __future__ import annotations

import bisect
import itertools
import re

from ..table import engine, wordlines

_CENT = 0.005
_CENTS = re.compile(r"\d[.,]\d\d(?!\d)")


class Arithmetic:
    """What a line of money is, by the rows' own numbers: a balance they reach, or a total
    of a run of rows just above it."""

    def __init__(self, rows: list, settings: dict, balances: set | None = None,
                 restarts: tuple = ()):
        self.settings, self.reached, self.restarts = settings, balances or set(), restarts
        kinds = [c["kind"] for c in settings["columns"]]
        self.columns = [i for i, k in enumerate(kinds) if k == "amount"]
        self.balance = settings.get("balance_column")
        self.values = [{i: self.amount(row[0][i], i) for i in self.columns} for row in rows]
        self._rows = rows
        self.starts = [row[3][0] for row in rows]  # in page order: each row's first line
        printed = [row[0][i] for row in rows for i in self.columns if row[0][i]]
        self.cents = bool(printed) and all(_CENTS.search(t) for t in printed)

    def is_money(self, text: str, column: int) -> bool:
        """A cell printed in the notation the rows print money in: where every row's
        amount shows its cents, a bare '2' (a page number under the column) is none."""
        if self.amount(text, column) is None:
            return False
        return not self.cents or bool(_CENTS.search(text))

    def amount(self, text: str, column: int):
        """A cell of amount column ``column`` as the output reads it (None: no amount)."""
        if not text:
            return None
        col = self.settings["columns"][column]
        settings = dict(self.settings, drcr_signs=col["drcr_signs"]) if "drcr_signs" in col \
            else self.settings
        return engine.parse_amount(text, settings)

    def amounts(self, item: list) -> list:
        """The amounts a line's cells print."""
        found = [engine.parse_amount(c, self.settings) for c in item[2] or [] if c]
        return [v for v in found if v is not None]

    def explain(self, item: list, page: int, k: int) -> str:
        """The reason a line of money is no row, or '' when its numbers say nothing."""
        found = self.amounts(item)
        if not found:
            return ""
        above = bisect.bisect_left(self.starts, (page, k))
        # a row whose lines run on past the line (its description above it, its amount on
        # the next page): the line carries the balance that row moves from
        within = above if above and self._rows[above - 1][3][-1] > (page, k) else None
        if all(self._is_balance(v, above, within) for v in found):
            return "a balance line (it prints the running balance the rows reach)"
        if all(self._is_total(v, above) for v in found):
            return "a total or subtotal (it sums the rows above it)"
        return ""

    def explain_anywhere(self, cells: list) -> str:
        """The reason a row-like line away from the rows is none: each of its amounts a
        balance some row reaches (or the one they open on), or a total of a run of rows."""
        # a count of the rows is no amount ('Number of transactions 8'); other whole
        # numbers a summary prints (an account's number, a bank's code) say nothing here
        found = [engine.parse_amount(c, self.settings) for c in self._figures(cells)
                 if not (c.isdigit() and int(c) in self._counts())]
        found = [abs(v) for v in found if v is not None]
        if not found:
            return ""
        reached = {abs(b) for b in self.reached} | self._balances()
        if all(round(v, 2) in reached for v in found):
            return "a balance the rows reach (a summary of balances)"
        if all(round(v, 2) in self.run_totals() for v in found):
            return "a total of a run of rows"
        if all(round(v, 2) in reached | self.run_totals() for v in found):
            return "a summary of the rows: balances they reach and totals of their money"
        return ""

    def _figures(self, cells: list) -> list:
        """The amounts among ``cells``, a run of words each where a space groups a figure's
        thousands ('26 208,56': groups of digits, then the one with the decimals)."""
        return [" ".join(cells[i:i + n]) for i, n in wordlines.amount_runs(cells, self.settings)]

    def _balances(self) -> set:
        """The balances the rows print, and the one before the first row (the opening
        balance a summary prints): the first balance less or plus the movements down to
        it (a statement may print a balance only on a day's last row)."""
        if self.balance is None:
            return set()
        out = {round(abs(v[self.balance]), 2) for v in self.values
               if v.get(self.balance) is not None}
        # each account's opening balance: where its chain starts again
        again = {abs(v) for r in self.restarts for v in self._before(r)}
        return out | {abs(v) for v in self._before(0)} | again

    def _counts(self) -> set:
        """How many rows the statement holds, and each account of it (a summary's 'Number
        of transactions')."""
        return {b - a for a, b in self._accounts()}

    def _accounts(self) -> list:
        """``(first, end)`` rows of the statement and of each account in it: the runs
        between the rows where the chain starts again."""
        cuts = [0] + sorted(r for r in self.restarts if 0 < r < len(self.values)) \
            + [len(self.values)]
        return [(0, len(self.values))] + [(a, b) for a, b in zip(cuts, cuts[1:])
                                          if (a, b) != (0, len(self.values))]

    def run_totals(self) -> set:
        """Every total of two or more consecutive rows in each column of money (on first
        use): a dated line that prints one row's amount again is that row, not a total."""
        if getattr(self, "_totals", None) is None:
            self._totals = set()
            for col in self.columns:
                if col == self.balance:
                    continue
                values = [v.get(col) or 0.0 for v in self.values]
                # a signed column's money in and money out, each summed apart, over the
                # statement and over each account in it
                ways = [[v > 0 for v in values], [v < 0 for v in values]] + [
                    [code == way for code in codes] for codes in self._codes()
                    for way in set(codes) - {""}]
                for a, b in self._accounts():
                    self._totals |= {round(abs(sum(v for v, on in zip(values[a:b], way[a:b])
                                                   if on)), 2) for way in ways}
                for i in range(len(values)):
                    total = values[i]
                    for v in values[i + 1:]:
                        total += v
                        self._totals.add(round(abs(total), 2))
        return self._totals

    def _codes(self) -> list:
        """Each column of two short codes that tells money in from money out ('Dr' and
        'Cr', 'D' and 'C'), as its cells read row by row ('' where a row prints none)."""
        if getattr(self, "_code_columns", None) is None:
            kinds = [c["kind"] for c in self.settings["columns"]]
            self._code_columns = []
            for i, kind in enumerate(kinds):
                cells = [row[0][i].strip().lower() if i < len(row[0]) else ""
                         for row in self._rows]
                if kind == "text" and len(set(cells) - {""}) == 2 and all(
                        len(c) <= 3 and c.isalpha() for c in cells if c):
                    self._code_columns.append(cells)
        return self._code_columns

    def _is_balance(self, value: float, above: int, within: int | None = None) -> bool:
        """The chain's value where the line stands: the balance of the row above or below
        it, the opening one before the first row, or one the rows reach day by day; inside
        row ``within - 1``, the balance that row moves from."""
        if round(abs(value), 2) in {round(abs(b), 2) for b in self.reached}:
            return True
        if self.balance is None:
            return False
        near = [self.values[i].get(self.balance) for i in (above - 1, above)
                if 0 <= i < len(self.values)]
        near += list(self._before(above)) + list(self._before(within - 1) if within else ())
        return any(b is not None and abs(abs(b) - abs(value)) < _CENT for b in near)

    def _before(self, row: int) -> set:
        """The balance a row moves from (the opening balance of a second account, printed
        over its first row): the first balance printed from it on, less or plus the
        movements down to it, under each way the columns of money move it."""
        printed = next((i for i in range(row, len(self.values))
                        if self.values[i].get(self.balance) is not None), None)
        if printed is None:
            return set()
        return {round(self.values[printed][self.balance] - sum(moves[row:printed + 1]), 2)
                for moves in self._movements()}

    def _movements(self) -> list:
        """Each way the columns of money may move the balance, a signed figure a row: each
        column added or taken away, or one column signed row by row by a column of two
        codes ('Dr' and 'Cr' beside an amount printed without its sign)."""
        moving = [c for c in self.columns if c != self.balance][:3]
        ways = [[sum(s * (v.get(c) or 0.0) for c, s in zip(moving, signs))
                 for v in self.values] for signs in itertools.product((1, -1), repeat=len(moving))]
        if len(moving) == 1:
            for codes in self._codes():
                first = sorted(set(codes) - {""})[0]
                ways += [[s * (1 if code == first else -1) * (v.get(moving[0]) or 0.0)
                          for v, code in zip(self.values, codes)] for s in (1, -1)]
        return ways

    def _is_total(self, value: float, above: int) -> bool:
        """The amount sums two rows or more just above the line (one row's amount printed
        again is that row, not a total)."""
        for col in self.columns:
            if col == self.balance:
                continue
            total = 0.0
            for n, i in enumerate(range(above - 1, -1, -1)):
                total += self.values[i].get(col) or 0.0
                if n and abs(abs(total) - abs(value)) < _CENT:
                    return True
        return False
