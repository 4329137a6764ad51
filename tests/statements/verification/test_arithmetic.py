"""What a line of money outside the rows is, by the rows' own numbers (``Arithmetic``):
a balance they reach or open on, a total of a run of them."""
from __future__ import annotations

import unittest

from ..table.test_engine import HEADER, line, row, settings


class SpacedFiguresTest(unittest.TestCase):
    def test_a_summarys_figures_grouped_by_spaces_are_read_whole(self):
        # '1 096,50' is one balance, a thousand and more: read word by word, '096,50'
        # would be a figure no row reaches
        from dua.statements.table import engine
        from dua.statements.verification.arithmetic import Arithmetic

        s = settings(decimal=",")
        page = HEADER + row(65, "01/02/24", "Coffee", "-3,50", "1 093,00") + row(
            77, "02/02/24", "Rent", "-2,00", "1 091,00")
        money = Arithmetic(engine.extract([page], s)[0], dict(s, balance_column=3), set(), ())
        self.assertTrue(money.explain_anywhere(["1", "096,50", "1", "091,00"]))
        self.assertFalse(money.explain_anywhere(["1", "096,50", "1", "091,01"]))


class BalanceLinesTest(unittest.TestCase):
    def test_the_opening_balance_is_reached_through_amounts_signed_by_their_code_column(self):
        # 'Cr' adds, 'Dr' takes away, and the balance is printed at the day's end only:
        # 100.00 + 20.00 - 5.00 = 115.00, which no column added or taken away as a whole gives
        from dua.statements.table import engine
        from dua.statements.verification.arithmetic import Arithmetic

        columns = [{"name": "Date", "x0": 0.0, "kind": "date"},
                   {"name": "Description", "x0": 90.0, "kind": "text"},
                   {"name": "Amount", "x0": 300.0, "kind": "amount"},
                   {"name": "DrCr", "x0": 360.0, "kind": "text"},
                   {"name": "Balance", "x0": 400.0, "kind": "amount"}]
        s = settings(columns=columns, header=["date description amount drcr balance"])
        head = line(50, (40, "Date"), (100, "Description"), (310, "Amount"), (362, "DrCr"),
                    (410, "Balance"))
        page = head + line(65, (40, "01/02/24"), (100, "Salary"), (320, "20.00"), (362, "Cr")) \
            + line(77, (40, "01/02/24"), (100, "Rent"), (320, "5.00"), (362, "Dr"),
                   (420, "115.00")) \
            + line(89, (40, "02/02/24"), (100, "Tea"), (320, "1.50"), (362, "Dr"), (420, "113.50"))
        money = Arithmetic(engine.extract([page], s)[0], dict(s, balance_column=4), set(), ())
        self.assertEqual(money.explain_anywhere(["Opening", "100.00"]),
                         "a balance the rows reach (a summary of balances)")
        self.assertFalse(money.explain_anywhere(["Opening", "110.00"]))

    def test_a_line_inside_a_row_broken_by_the_page_carries_the_balance_that_row_moves_from(self):
        # 'Rent' prints its description above the page's end and its amount on the next
        # page, under the balance carried forward: 85.00 + 10.00
        from dua.statements.verification.arithmetic import Arithmetic

        rows = [[["01/02/24", "Coffee", "-3.50", "96.50"], None, None, [(0, 1)]],
                [["02/02/24", "Tea", "-1.50", ""], None, None, [(0, 2)]],
                [["02/02/24", "Rent", "-10.00", "85.00"], None, None, [(0, 3), (1, 1)]]]
        carried = ["furniture", None, ["", "Balance carried forward", "", "95.00"]]
        money = Arithmetic(rows, settings(balance_column=3), set(), ())
        self.assertEqual(money.explain(carried, 0, 4),
                         "a balance line (it prints the running balance the rows reach)")
        rows[2][3] = [(0, 3)]  # the row ends above the line: 95.00 is no balance there
        self.assertEqual(Arithmetic(rows, settings(balance_column=3), set(), ()).explain(
            carried, 0, 4), "")


if __name__ == "__main__":
    unittest.main()
