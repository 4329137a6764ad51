"""``dua.statements.output.normalize`` on the reader's own words: what the statement says about
its rows outside them (the account each row stands under) and the library entry point."""
from __future__ import annotations

import os
import unittest

import dua
from dua import pdf
from dua.review.sources import parser_settings
from dua.statements.notation import isodates
from dua.statements.table import dataframe, engine
from dua.statements.learning import analysis
from dua.statements.output import normalize

from ...support import FIXTURES, engine_parser

PLAIN = os.path.join(FIXTURES, "statements", "plain_western")


def _words(path: str) -> list:
    reading = pdf.start_reading(path)
    try:
        return analysis.reader_pages(reading.document())
    finally:
        reading.cancel()


def _renumbered(words: list, number: str) -> list:
    """The page as printed for another account: its account number ('Account XXXXXX0407'
    in the heading) replaced."""
    return [(number,) + w[1:] if w[0] == "XXXXXX0407" else w for w in words]


class AccountTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.settings, _ = parser_settings(engine_parser())
        cls.page = _words(os.path.join(PLAIN, "a.pdf"))[0]

    def normalized(self, pages: list):
        engine_pages, _ = engine.statement_pages(pages, self.settings)
        frame = dataframe.build_frame(engine_pages, self.settings)
        return normalize.normalize(frame, pages, self.settings).frame

    def test_rows_under_two_accounts_name_theirs(self):
        self.assertIn("XXXXXX0407", [w[0] for w in self.page])
        rows = self.normalized([_renumbered(self.page, "XXXXXX1111"),
                                _renumbered(self.page, "XXXXXX2222")])
        half = len(rows) // 2
        self.assertEqual(set(rows["account"][:half]), {"XXXXXX1111"})
        self.assertEqual(set(rows["account"][half:]), {"XXXXXX2222"})
        self.assertEqual(rows["page"].tolist(), [1] * half + [2] * half)

    def test_one_account_printed_on_every_page_leaves_the_column_empty(self):
        rows = self.normalized([self.page, self.page])
        self.assertTrue(rows["account"].isna().all(), rows["account"])


class YearTest(unittest.TestCase):
    def iso(self, rows: list, context: list) -> list:
        return isodates.iso_dates(rows, context)[0]

    def test_a_december_to_january_statement_rolls_the_year_over(self):
        self.assertEqual(self.iso(["Dec 20", "Dec 31", "Jan 02"],
                                  ["Statement period Dec 15, 2024 to Jan 14, 2025"]),
                         ["2024-12-20", "2024-12-31", "2025-01-02"])

    def test_the_statements_own_date_wins_over_a_later_records_date(self):
        self.assertEqual(self.iso(["Dec 30"], ["For Dec 1 to Dec 31, 2022",
                                               "The names shown are as of April 2, 2024."]),
                         ["2022-12-30"])

    def test_a_rows_date_and_the_next_cell_are_no_year(self):
        self.assertEqual(self.iso(["03 Sept"], ["03 Sept 03 Sept Interest Purchases 6.30",
                                                "Statement Period: 20/07/2025 to 19/08/2025"]),
                         ["2025-09-03"])

    def test_a_month_first_statement_reads_its_statement_date_month_first(self):
        self.assertEqual(self.iso(["12/31", "12/13"], ["STATEMENT DATE 01/09/14"]),
                         ["2013-12-31", "2013-12-13"])

    def test_printed_years_are_kept_and_no_year_anywhere_is_said(self):
        self.assertEqual(self.iso(["02/01/25"], []), ["2025-01-02"])
        dates, why = isodates.iso_dates(["JUL 15"], ["no date here"])
        self.assertEqual((dates, why), ([None], "no year printed on the statement"))


class LibraryTest(unittest.TestCase):
    def test_dua_normalize_learns_the_columns_from_the_rows_when_no_settings_are_given(self):
        found = dua.normalize(os.path.join(PLAIN, "a.csv"), os.path.join(PLAIN, "a.pdf"))
        self.assertEqual(list(found.frame.columns[:8]), list(normalize.SCHEMA))
        self.assertTrue(found.frame["date"].str.fullmatch(r"2024-\d\d-\d\d").all())
        self.assertIn("balance", found.notes["amount"])
        self.assertFalse(found.owed)


if __name__ == "__main__":
    unittest.main()
