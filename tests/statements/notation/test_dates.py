"""Dates read into sortable keys, decided per statement as it prints them."""
from __future__ import annotations

import unittest

from dua.statements.notation.dates import DATE_SEARCH, order_keys


class OrderKeysTest(unittest.TestCase):
    def test_day_or_month_first_is_decided_by_a_number_over_twelve_anywhere_in_the_statement(self):
        self.assertEqual(order_keys(["01/02/24", "13/02/24"]), [(2024, 2, 1), (2024, 2, 13)])
        self.assertEqual(order_keys(["02/01/24", "02/13/24"]), [(2024, 2, 1), (2024, 2, 13)])

    def test_an_iso_date_prints_its_month_before_its_day(self):
        self.assertEqual(order_keys(["2024-03-04", "2024-03-05"]), [(2024, 3, 4), (2024, 3, 5)])

    def test_named_months_are_read_with_and_without_a_year(self):
        self.assertEqual(order_keys(["02MAY25", "3 Jun 2025", "15 Jul 2024"]),
                         [(2025, 5, 2), (2025, 6, 3), (2024, 7, 15)])
        self.assertEqual(order_keys(["Jul 15", "Aug 2"]), [(0, 7, 15), (0, 8, 2)])

    def test_yearless_dates_that_run_past_december_sort_into_the_next_year(self):
        keys = order_keys(["12/30", "12/31", "01/02"])
        self.assertEqual(keys, [(0, 12, 30), (0, 12, 31), (1, 1, 2)])
        self.assertEqual(sorted(keys), keys)


class MonthNamesTest(unittest.TestCase):
    def test_a_month_is_its_name_whole_or_cut_short(self):
        for text in ("Nov 2", "Sept 12", "September 3", "Mar. 4", "3 Dec 2024", "May 1"):
            self.assertTrue(DATE_SEARCH.fullmatch(text), text)

    def test_a_word_that_only_starts_like_a_month_is_none(self):
        # a payee and a shop beside an amount read as dates would make a row of every
        # description line ('Transfer to T Novak 2,37')
        for text in ("Novak 2", "Marketplace 6", "Decathlon 5", "Mayor 3", "12 Octopus"):
            self.assertIsNone(DATE_SEARCH.search(text), text)


if __name__ == "__main__":
    unittest.main()
