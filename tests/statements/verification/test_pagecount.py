"""A statement cut short: the pages it numbers against the pages the file holds."""
from __future__ import annotations

import unittest

from dua.statements.verification import pagecount

from ..table.test_engine import line


def page(number: str, rows: int = 3) -> list:
    body = [w for k in range(rows) for w in line(100 + 12 * k, (40, "01/02/24"), (100, "Coffee"),
                                                    (320, "3.50"))]
    return line(20, (40, "Bank"), (100, "statement")) + body + line(700, (400, number))


class MissingPagesTest(unittest.TestCase):
    def test_a_first_page_of_two_alone_is_cut_short(self):
        said = pagecount.missing([page("1 of 2")])
        self.assertIn("numbered '1 of 2' and the file holds 1", said)

    def test_any_short_word_or_a_slash_joins_the_numbers(self):
        for printed in ("Seite 1 von 3", "page 1 sur 3", "1/3", "Page (1/3)"):
            with self.subTest(printed=printed):
                self.assertIn("the file holds 1", pagecount.missing([page(printed)]))

    def test_a_file_with_every_page_it_numbers_is_whole(self):
        self.assertEqual(pagecount.missing([page("1 of 2"), page("2 of 2")]), "")

    def test_numbers_that_do_not_count_with_the_pages_say_nothing(self):
        # '3 of 4' on the first page: an excerpt's or some other count, not this file's pages
        self.assertEqual(pagecount.missing([page("3 of 4")]), "")
        # totals that disagree page to page count no one set of pages
        self.assertEqual(pagecount.missing([page("1 of 3"), page("2 of 4")]), "")

    def test_a_count_printed_among_the_rows_is_no_page_number(self):
        rows = page("", rows=12) + line(400, (40, "01/02/24"), (100, "Instalment 1 of 2"),
                                         (320, "3.50"))
        self.assertEqual(pagecount.missing([sorted(rows, key=lambda w: w[3])]), "")


if __name__ == "__main__":
    unittest.main()
