"""``dua.statements.normalize`` on the reader's own words: what the statement says about
its rows outside them (the account each row stands under) and the library entry point."""
from __future__ import annotations

import os
import unittest

import dua
from dua import pdf
from dua.review.sources import parser_settings
from dua.statements import analysis, dataframe, engine, normalize

from .support import FIXTURES, engine_parser

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


class LibraryTest(unittest.TestCase):
    def test_dua_normalize_learns_the_columns_from_the_rows_when_no_settings_are_given(self):
        found = dua.normalize(os.path.join(PLAIN, "a.csv"), os.path.join(PLAIN, "a.pdf"))
        self.assertEqual(list(found.frame.columns[:8]), list(normalize.SCHEMA))
        self.assertTrue(found.frame["date"].str.fullmatch(r"2024-\d\d-\d\d").all())
        self.assertIn("balance", found.notes["amount"])
        self.assertFalse(found.owed)


if __name__ == "__main__":
    unittest.main()
