"""Two accounts' tables, each between its opening and its closing balance, and a balance
line read as a row: where the verdict looks beyond the sums."""
from __future__ import annotations

import unittest

from dua.statements.learning import analysis
from dua.statements.table import dataframe, engine
from dua.statements.verification import dated, verify

from ..table.test_engine import HEADER, line, row, settings


def _account(top: float, opening: str, moves: list, closing: str) -> tuple:
    """An account's heading, its opening balance under it, its rows (date, text, debit,
    credit) and its closing balance: ``(words, the next free top)``."""
    out = line(top, (40, "Date"), (110, "Details"), (300, "Debit"), (380, "Credit"))
    out += line(top + 16, (110, "BALANCE ON 31/08"), (380, opening))
    y = top + 30
    for day, text, debit, credit in moves:
        out += line(y, (40, f"{day:02d}/09/2024"), (110, text),
                    *([(300, debit)] if debit else []), *([(380, credit)] if credit else []))
        y += 12
    return out + line(y + 4, (40, "Ref: 009"), (110, "BALANCE ON 30/09"), (380, closing)), y + 40


_FIRST = [(2, "Rent", "700.00", ""), (3, "Salary", "", "2,100.00"), (5, "Coffee", "3.50", ""),
          (8, "Books", "12.00", ""), (9, "Refund", "", "12.00")]
_SECOND = [(4, "Transfer in", "", "300.00"), (6, "Fee", "2.00", ""), (7, "Interest", "", "1.25")]


def _verdict(settings_change: dict | None = None) -> dict:
    first, y = _account(60, "1,000.00", _FIRST, "2,396.50")
    second, _ = _account(y, "50.00", _SECOND, "349.25")
    pages = [first + line(y - 12, (40, "Savings account 12345")) + second]
    settings = dict(analysis.analyze_pages(pages).settings, **(settings_change or {}))
    frame = dataframe.build_frame(pages, settings)
    return verify.intrinsic(frame, pages, settings)


class TableEndsTest(unittest.TestCase):
    def test_each_table_leads_from_the_balance_above_it_to_the_one_below(self):
        result = _verdict()
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("1000.0 right above its first row to the printed 2396.5", result["summary"])

    def test_a_balance_line_read_as_its_tables_first_row_is_not_passed(self):
        # read as a row (date printed once a day), the opening balance is money in from
        # nothing, and every sum still holds: only its missing day tells
        result = _verdict({"anchor": "amount"})
        self.assertNotEqual(result["status"], "passed", result["summary"])
        dated = next(c for c in result["checks"] if c["name"] == "rows_dated")
        self.assertIn("row 1 prints no date", dated["detail"])

    def test_a_date_cell_holding_more_than_a_date_is_no_date_of_the_rows(self):
        # a wrapped date's year carried to the wrong row: '15 jan.' there, '2024 16 jan.
        # 2024' here, and both rows still anchored by the dates in them
        page = HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50") + \
            row(90, "02/02/24", "Tea", "1.50", "95.00")
        rows, items = engine.extract([page], settings())
        self.assertTrue(dated.check(rows, items, settings())["passed"])
        rows[1][0][0] = "24 02/02/24"
        found = dated.check(rows, items, settings())
        self.assertIsNone(found["passed"])
        self.assertIn("row 2's date '24 02/02/24' is no date", found["detail"])

    def test_dates_that_each_wrap_a_tail_of_one_shape_read_as_the_rows_dates(self):
        # the notation learned from the date lines ('01/02'), the year on a line of its own
        # under each: read with it, but one row without it is no date of the rows
        page = HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50") + \
            row(90, "02/02/24", "Tea", "1.50", "95.00")
        s = settings(date_pattern=r"\d{2}/\d{2}")
        rows, items = engine.extract([page], settings())
        rows[0][0][0], rows[1][0][0] = "01/02 2024", "02/02 2024"
        found = dated.check(rows, items, s)
        self.assertTrue(found["passed"], found["detail"])
        self.assertIn("a tail of one shape", found["detail"])
        rows[1][0][0] = "02/02"
        self.assertIsNone(dated.check(rows, items, s)["passed"])
        rows[1][0][0] = "2024 02/02 2024"
        self.assertIsNone(dated.check(rows, items, s)["passed"])


class LostUnderAHeadingTest(unittest.TestCase):
    def test_a_row_printed_after_a_heading_that_ended_the_table_is_no_opening_balance(self):
        # the fees' part opens under its own heading, read as another table's: its row's
        # 0.02 and the rows' sum would give the printed total as if 0.02 were a balance
        page = (line(50, (40, "Date"), (100, "Description"), (310, "Amount"))
                + line(62, (40, "01/10/25"), (100, "Coop"), (310, "30.30"))
                + line(74, (40, "02/10/25"), (100, "Cinema"), (310, "19.90"))
                + line(92, (40, "Booked"), (100, "Details"), (310, "Charge"))
                + line(104, (40, "23/10/25"), (100, "Rounding"), (310, "0.02"))
                + line(124, (100, "Balance due"), (310, "50.22")))
        cols = settings(columns=[{"name": "Date", "x0": 0.0, "kind": "date"},
                                 {"name": "Description", "x0": 90.0, "kind": "text"},
                                 {"name": "Amount", "x0": 300.0, "kind": "amount"}],
                        header=["date description amount"])
        result = verify.intrinsic(dataframe.build_frame([page], cols), [page], cols)
        self.assertNotEqual(result["checks"][0]["passed"], True, result["summary"])
        self.assertNotEqual(result["status"], "passed")


if __name__ == "__main__":
    unittest.main()
