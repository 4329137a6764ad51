"""Which way amounts go where the reading signed them by a guess (sections, two codes):
the daily balances decide, else the order the opening and closing balances print in."""
from __future__ import annotations

import unittest

import pandas as pd

from dua.statements.table import dataframe, reconcile
from dua.statements.verification import direction, verify

from ..table.test_engine import HEADER, line, row, settings

ROWS = (("01/02/24", "Salary", "100.00"), ("02/02/24", "Rent", "30.00"),
        ("03/02/24", "Coffee", "20.00"))


def section_statement(daily: bool = False, deposits: int = 1, above=("1,000.00",),
                      below=("1,050.00",), rows=ROWS):
    """A statement that signs its unsigned amounts by section: balances printed above the
    table (``above``) and under it (``below``), or daily balances under a table of their
    own below the rows."""
    s = settings(sections=[["deposits", deposits], ["withdrawals", -deposits]])
    s["columns"] = s["columns"][:3]
    s["columns"][2]["section_signed"] = True
    page = [w for k, v in enumerate(above) for w in line(8 + 10 * k, (100, "Balance"), (320, v))]
    # the second title where no row's text goes on (a title under a row, in the column its
    # text wraps in, may be that text: ``headings.left_behind``)
    page += (line(38, (100, "Deposits")) + HEADER + row(65, *rows[0])
             + line(80, (40, "Withdrawals")) + row(95, *rows[1]) + row(107, *rows[2]))
    if daily:
        page += (line(140, (40, "Date"), (100, "Daily"), (320, "Balance"))
                 + line(152, (40, "01/02/24"), (320, "1,100.00"))
                 + line(164, (40, "02/02/24"), (320, "1,070.00"))
                 + line(176, (40, "03/02/24"), (320, "1,050.00")))
    for k, v in enumerate(below):
        page += line(140 + 12 * k, (100, "Balance"), (320, v))
    return [page], s


def verdict(pages, s):
    return verify.intrinsic(dataframe.build_frame(pages, s), pages, s)


class PrintOrderTest(unittest.TestCase):
    def test_the_balance_printed_first_is_the_one_the_sections_lead_from(self):
        right = verdict(*section_statement())
        self.assertEqual(right["status"], "passed", right["summary"])
        self.assertIn("they lead from the printed 1000.0 to the 1050.0 printed after it",
                      right["summary"])
        wrong = verdict(*section_statement(deposits=-1))
        self.assertEqual(wrong["status"], "failed", wrong["summary"])
        self.assertIn("only back from a balance printed later (1050.0 to 1000.0)",
                      wrong["summary"])

    def test_a_balance_printed_both_before_and_after_the_other_decides_nothing(self):
        # the closing balance also stands over the table: each way leads forward somewhere
        for deposits in (1, -1):
            result = verdict(*section_statement(deposits=deposits,
                                                above=("1,050.00", "1,000.00")))
            self.assertEqual(result["status"], "unverified", result["summary"])
            self.assertIn("the sections add up as well", result["summary"])

    def test_rows_printed_newest_first_leave_the_print_order_saying_nothing(self):
        newest = tuple(zip(("03/02/24", "02/02/24", "01/02/24"), *list(zip(*ROWS))[1:]))
        result = verdict(*section_statement(rows=newest))
        self.assertEqual(result["status"], "unverified", result["summary"])

    def test_the_money_in_and_out_totals_are_no_pair_of_balances(self):
        # 100 in, 50 out: 50 + (100 - 50) = 100 whatever the rows or their way
        pairs = direction.balance_pairs([100.0, -30.0, -20.0], [50.0, 100.0, 1000.0, 1050.0])
        self.assertEqual(pairs, [(1000.0, 1050.0, True)])
        self.assertEqual(direction.balance_pairs([-100.0, 30.0, 20.0], [1000.0, 1050.0]),
                         [(1050.0, 1000.0, False)])

    def test_a_summary_printed_twice_still_puts_the_opening_before_the_closing(self):
        # over the table and under it: the first summary's closing stands right before
        # the second's opening, once; each opening right before its closing, twice
        moves = [100.0, -30.0, -20.0]
        self.assertEqual(direction.balance_pairs(moves, [1000.0, 1050.0] * 2),
                         [(1000.0, 1050.0, True)])
        self.assertEqual(direction.balance_pairs(moves, [1050.0, 1000.0, 1050.0]),
                         [(1000.0, 1050.0, None)])

    def test_each_accounts_rows_must_lead_forward_from_a_balance_of_their_own(self):
        rows = pd.DataFrame({"Amount": [100.0, -50.0, -30.0, 10.0]})
        printed = [1000.0, 1050.0, 500.0, 480.0]
        self.assertEqual(direction.pairs_of(rows, printed, [2]),
                         [(1000.0, 1050.0, True), (500.0, 480.0, True)])
        # the second account leads only back: neither account's pair is forward evidence
        self.assertEqual(direction.pairs_of(rows, [1000.0, 1050.0, 480.0, 500.0], [2]),
                         [(500.0, 480.0, False)])

    def test_the_amounts_a_line_prints_come_left_to_right(self):
        # '12 345.00' is one amount in two words: found after the one-word amounts, it
        # still comes first, where it stands
        words = line(10, (40, "12 345.00"), (200, "950.00"))
        self.assertEqual(reconcile.line_amounts(words, {}), [12345.0, 345.0, 950.0])


class DailyBalancesTest(unittest.TestCase):
    def test_the_daily_balances_printed_decide_which_way_the_sections_sign(self):
        right = verdict(*section_statement(daily=True, below=()))
        self.assertEqual(right["status"], "passed", right["summary"])
        wrong = verdict(*section_statement(daily=True, deposits=-1, below=()))
        self.assertEqual(wrong["status"], "failed")
        self.assertIn("signed the other way round the rows reach 3", wrong["summary"])


if __name__ == "__main__":
    unittest.main()


def lone_marker_statement(summary: list, rows: tuple, sign: int | None = None) -> tuple:
    """Amounts that mark one way alone ('Cr') beside bare ones, no balance column, and the
    figures ``summary`` prints (``(top, [(x, text), ...])`` each) around the table."""
    s = settings()
    s["columns"] = s["columns"][:3]
    s["columns"][2]["drcr_signs"] = {"dr": -1, "cr": -1}  # a lone Cr: a card's, by a guess
    if sign is not None:
        s["columns"][2].update(sign=sign, sign_guessed=True)
    page = [w for top, cells in summary for w in line(top, *cells)]
    page += HEADER + [w for k, r in enumerate(rows) for w in row(65 + 12 * k, *r)]
    return [page], s


class LoneMarkerTest(unittest.TestCase):
    # a bank's money in marked 'Cr', its money out bare: 1,000 + 100 - 30 - 20 = 1,050
    BANK = (("01/02/24", "Salary", "100.00 Cr"), ("02/02/24", "Rent", "30.00"),
            ("03/02/24", "Coffee", "20.00"))
    OPEN_TOTALS_CLOSE = [(20, [(40, "Opening"), (100, "1,000.00"), (160, "In"), (200, "100.00"),
                               (250, "Out"), (300, "50.00"), (350, "Closing"), (420, "1,050.00")])]

    def test_read_as_a_cards_credits_a_banks_money_in_fails_where_the_summary_says_so(self):
        result = verdict(*lone_marker_statement(self.OPEN_TOTALS_CLOSE, self.BANK))
        self.assertEqual(result["status"], "failed", result["summary"])
        self.assertIn("which the totals of their money follow", result["summary"])

    def test_read_as_money_in_the_same_statement_passes(self):
        result = verdict(*lone_marker_statement(self.OPEN_TOTALS_CLOSE, self.BANK, sign=-1))
        self.assertEqual(result["status"], "passed", result["summary"])

    def test_a_card_printing_its_balance_due_first_leads_from_the_balance_its_totals_follow(self):
        # the due 1,050 atop the page, then 'Previous 1,000, Purchases 100, Credits 50 Cr':
        # the order of the two balances alone would read the card backwards
        card = (("01/02/24", "Shop", "100.00"), ("02/02/24", "Payment", "30.00 Cr"),
                ("03/02/24", "Refund", "20.00 Cr"))
        summary = [(8, [(40, "Due"), (100, "1,050.00")]),
                   (20, [(40, "Previous"), (100, "1,000.00"), (160, "Purchases"),
                         (230, "100.00"), (280, "Credits"), (340, "50.00 Cr")])]
        result = verdict(*lone_marker_statement(summary, card))
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("they lead from the printed 1000.0, which the totals", result["summary"])


class MarkedWayTest(unittest.TestCase):
    """A running balance settles the way of amounts signed by their Dr or Cr."""

    def statement(self, amounts: tuple, balances: tuple, **column) -> tuple:
        s = settings()
        s["columns"][2].update(column)
        page = HEADER + [w for k, (a, b) in enumerate(zip(amounts, balances))
                         for w in row(65 + 12 * k, f"0{k + 1}/02/24", "Item", a, b)]
        return [page], s

    def test_amounts_read_against_the_way_their_cr_moves_the_balance_fail(self):
        # a bank's lone 'Cr' raises the balance: read as a card's credit, every row moves
        # the balance against its sign
        pages, s = self.statement(("100.00 Cr", "30.00", "20.00"),
                                  ("1,100.00", "1,070.00", "1,050.00"),
                                  drcr_signs={"dr": 1, "cr": -1})
        result = verdict(pages, s)
        self.assertEqual(result["status"], "failed", result["summary"])
        self.assertIn("signs_as_marked", result["summary"])
        pages, s = self.statement(("100.00 Cr", "30.00", "20.00"),
                                  ("1,100.00", "1,070.00", "1,050.00"), sign=-1,
                                  drcr_signs={"dr": 1, "cr": -1}, sign_guessed=True)
        self.assertEqual(verdict(pages, s)["status"], "passed")

    def test_amounts_printing_their_own_minus_keep_it_whichever_way_the_balance_goes(self):
        # a card's purchases printed negative beside the balance owed, which they raise
        pages, s = self.statement(("-100.00", "-30.00", "20.00"),
                                  ("1,100.00", "1,130.00", "1,110.00"))
        result = verdict(pages, s)
        self.assertEqual(result["status"], "passed", result["summary"])
