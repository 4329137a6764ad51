"""The table's extent on each page: where it opens, where a page's top and foot stand
apart from it, and what lies just beyond the last row's reach."""
from __future__ import annotations

import unittest

from dua.statements.verification import ledger

from ..table.test_engine import HEADER, line, row, settings
from .test_ledger import COFFEE, TEA, engine_extract, furniture, unaccounted


class ExtentTest(unittest.TestCase):
    def test_the_extent_opens_at_the_column_heading_and_runs_to_the_pages_end(self):
        book = ledger.build([HEADER + COFFEE + TEA + line(400, (100, "Thank you"))], settings())
        lines = [(f["text"], f["reason"]) for f in book.furniture]
        self.assertEqual(lines[0], ("Date Description Amount Balance",
                                    "the table's column heading"))
        self.assertEqual(lines[-1], ("Thank you", ledger._FOOT))

    def test_a_row_line_below_the_last_row_read_is_unaccounted_whatever_its_label(self):
        s = settings()
        s["skip_patterns"] = [r"\bMilk\b"]  # a label learned from rows that lost this one
        book = ledger.build([HEADER + COFFEE + TEA + row(115, "03/02/24", "Milk", "2.00",
                                                         "93.00")], s)
        self.assertEqual(unaccounted(book), ["03/02/24", "Milk", "2.00", "93.00"])
        self.assertIn("neither a balance the rows reach nor a total", book.unaccounted[0]["why"])


class PageEdgesTest(unittest.TestCase):
    def test_the_page_header_above_a_repeated_heading_is_furniture(self):
        title = line(20, (100, "Statement"))
        book = ledger.build([title + HEADER + COFFEE, title + HEADER + TEA], settings())
        self.assertEqual(furniture(book), [(2, "Statement", "above the table's heading"),
                                           (2, "Date Description Amount Balance",
                                            "the table's column heading")])
        self.assertTrue(book.complete)

    def test_a_row_under_what_the_reading_took_for_another_tables_heading_is_unaccounted(self):
        # wrapped words across three columns read as another table's heading; the rows
        # printed under it stand on the rows' edges
        words = line(76, (40, "september"), (100, "september"), (320, "taxes"))
        book = ledger.build([HEADER + COFFEE + words + TEA], settings())
        self.assertEqual(unaccounted(book), ["02/02/24", "Tea", "1.50", "95.00"])

    def test_a_later_pages_header_of_the_first_pages_letterhead_words_is_furniture(self):
        letterhead = line(10, (100, "Harbour Bank")) + line(22, (100, "Ms Okoye"))
        s = settings(header_once=True)
        again = ledger.build([letterhead + HEADER + COFFEE,
                              line(20, (100, "Harbour Bank - Ms Okoye")) + TEA], s)
        self.assertIn((2, "Harbour Bank - Ms Okoye", ledger._AGAIN), furniture(again))
        other = ledger.build([letterhead + HEADER + COFFEE,
                              line(20, (100, "Harbour Bank - terms apply")) + TEA], s)
        self.assertEqual(unaccounted(other), ["Harbour", "Bank", "-", "terms", "apply"])

    def test_a_row_over_a_heading_a_later_page_prints_again_is_unaccounted(self):
        # the first account's last row opens page 2, over the second account's heading
        lost = row(20, "02/02/24", "Tea", "1.50", "95.00")
        book = ledger.build([HEADER + COFFEE, lost + HEADER + row(65, "03/02/24", "Cake",
                                                                  "2.00", "93.00")], settings())
        self.assertEqual(unaccounted(book), ["02/02/24", "Tea", "1.50", "95.00"])

    def test_the_first_pages_header_read_as_a_carried_rows_words_is_unaccounted(self):
        # page 2 opens with the bank's name again; the reading carries the last row on
        from dua.statements.table import engine

        s = settings(header_once=True)
        pages = [line(10, (100, "Harbour Bank")) + HEADER + COFFEE + TEA,
                 line(20, (100, "Harbour Bank")) + row(40, "03/02/24", "Milk", "2.00", "93.00")]
        rows, items = engine.extract(pages, s)
        rows[1][3].append((1, 0))  # the reading carried Tea's row on into the page's header
        book = ledger.build(pages, s, extraction=(rows, items))
        self.assertEqual(unaccounted(book), ["Harbour", "Bank"])
        self.assertIn("read as the row's words", book.unaccounted[0]["why"])

    def test_under_the_heading_a_later_page_prints_again_a_carried_rows_words_are_its_own(self):
        # 'Harbour' opens the first page's header, and the row carried over prints it too,
        # under the heading page 2 prints again: the table's line, not the page's header
        from dua.statements.table import engine

        s = settings(header_once=True)
        pages = [line(10, (100, "Harbour")) + HEADER + COFFEE + TEA,
                 HEADER + line(62, (100, "Harbour")) + row(80, "03/02/24", "Milk", "2.00", "93.00")]
        rows, items = engine.extract(pages, s)
        k = next(k for k, item in enumerate(items[1]) if item[4][0][0] == "Harbour")
        rows[1][3].append((1, k))
        rows[1][0][1] += " Harbour"
        self.assertEqual(unaccounted(ledger.build(pages, s, extraction=(rows, items))), [])

    def test_a_carried_rows_date_tail_in_the_first_pages_header_words_is_the_dates(self):
        # '13' on page 1, 'MAR.' over '2023' opening page 2: the period in the first page's
        # header prints both words, but without them the row's date is no date
        s = settings(header_once=True, date_pattern=r"\d{2} [A-Z]{3}\. \d{4}",
                     date_head_pattern=r"\d{2} [A-Z]{3}\. \d{4}|13")
        pages = [line(10, (100, "Period 01 MAR. 2023")) + HEADER
                 + line(65, (40, "01 MAR. 2023"), (100, "Coffee"), (320, "3.50"), (420, "96.50"))
                 + line(77, (40, "13"), (100, "Tea"), (320, "1.50"), (420, "95.00")),
                 line(20, (40, "MAR.")) + line(30, (40, "2023"))
                 + line(45, (40, "14 MAR. 2023"), (100, "Milk"), (320, "2.00"), (420, "93.00"))]
        rows, items = engine_extract(pages, s)
        for k in (0, 1):  # the reading carried Tea's row on into them
            items[1][k][0], items[1][k][5] = "text", ""
            rows[1][3].append((1, k))
        rows[1][0][0] = "13 MAR. 2023"
        self.assertEqual(unaccounted(ledger.build(pages, s, extraction=(rows, items))), [])
        rows[1][0][0] = "13 MAR. 2023 2023"  # a date without them too: the header's words
        self.assertEqual(unaccounted(ledger.build(pages, s, extraction=(rows, items))),
                         ["MAR.", "2023"])

    def test_a_later_page_of_rows_without_their_dates_or_the_heading_is_the_tables_too(self):
        # the day's date printed once, on page 1; page 2 prints the day's last row under
        # no heading: its amounts end where the rows' amounts and balances end
        book = ledger.build([HEADER + COFFEE + TEA,
                             line(20, (100, "Milk"), (320, "2.00"), (420, "93.00"))], settings())
        self.assertEqual(book.pages, [1, 2])
        self.assertEqual(unaccounted(book), ["Milk", "2.00", "93.00"])
        self.assertIn("printed as a row", book.unaccounted[0]["why"])
        dated = ledger.build([HEADER + COFFEE + TEA, row(20, "03/02/24", "Milk", "2.00")],
                             settings())  # one amount, where the rows' dates and amounts stand
        self.assertEqual(unaccounted(dated), ["03/02/24", "Milk", "2.00"])
        fees = ledger.build([HEADER + COFFEE + TEA, line(20, (100, "Card fee"), (320, "2.00"))],
                            settings())
        self.assertEqual(fees.pages, [1])  # one amount on a rows' edge prints no row

    def test_a_later_page_of_rows_dated_month_first_under_no_heading_is_the_tables_too(self):
        # 'FEB 03': the word where the rows' dates start prints no digit, the next one does
        s = settings(date_pattern=r"[A-Z]{3} \d{2}")
        first = HEADER + row(65, "FEB 01", "Coffee", "3.50", "96.50") + row(
            90, "FEB 02", "Tea", "1.50", "95.00")
        book = ledger.build([first, row(20, "FEB 03", "Milk", "2.00")], s)
        self.assertEqual(book.pages, [1, 2])
        self.assertEqual(unaccounted(book), ["FEB", "03", "Milk", "2.00"])
        # a currency before an amount is no month before a day: no row, no page of the table
        rate = line(20, (40, "EUR"), (70, "1.000,00"), (100, "11,73 % p.a."), (320, "2.00"))
        self.assertEqual(ledger.build([first, rate], s).pages, [1])

    def test_words_under_a_balance_carried_over_are_no_header_of_the_page(self):
        # page 2 opens with the balance carried over and the last row's words going on,
        # then the heading again: under the figure the page's own top has ended
        s = settings(header_once=True, skip_patterns=[r"\bbrought forward\b"])
        carried = line(20, (100, "Balance brought forward"), (420, "96.50"))
        book = ledger.build([HEADER + COFFEE, carried + line(32, (100, "at the station"))
                             + HEADER + TEA], s)
        self.assertEqual(unaccounted(book)[-3:], ["at", "the", "station"])

    def test_an_accounts_title_over_a_later_pages_heading_is_still_the_pages_top(self):
        # page 2 goes on with a row, then the next account's title and summary over its
        # heading: a row's figures end no page's top, only a balance carried over does
        s = settings(header_once=True)
        top = (row(10, "02/02/24", "Tea", "1.50", "95.00") + line(30, (100, "Savings 5477"))
               + line(42, (100, "Opening balance")) + line(54, (100, "12,211.85")))
        book = ledger.build([HEADER + COFFEE, top + line(70, (40, "Date"), (100, "Description"),
                                                           (310, "Amount"), (410, "Balance"))
                             + row(85, "03/02/24", "Cake", "2.00", "93.00")], s)
        self.assertNotIn("12,211.85", unaccounted(book))

    def test_the_foot_of_a_page_the_table_leaves_is_furniture_beyond_a_continuations_reach(self):
        first = (HEADER + COFFEE + line(75, (40, "See"), (100, "overleaf"))
                 + line(700, (100, "Bank plc registered office")))
        book = ledger.build([first, HEADER + TEA], settings())
        self.assertEqual(furniture(book)[0], (1, "Bank plc registered office", ledger._FOOT))
        self.assertEqual(unaccounted(book), ["See", "overleaf"])  # a continuation could be
        # over the table's total line a line out of reach is no foot: the table goes on
        total = line(120, (100, "reference CGQ98X6J")) + line(135, (100, "Total"), (320, "5.00"))
        book = ledger.build([HEADER + COFFEE + TEA + total], settings())
        self.assertEqual(unaccounted(book)[:2], ["reference", "CGQ98X6J"])
        total = line(120, (100, "Total"), (320, "5.00"))  # under a total, not a row: the foot
        book = ledger.build([HEADER + COFFEE + TEA + total + line(140, (100, "ACTIVITY"))
                             + line(155, (100, "Total"), (320, "5.00"))], settings())
        self.assertEqual(unaccounted(book), [])


class BeyondTheReachTest(unittest.TestCase):
    def test_a_line_just_beyond_the_reach_where_rows_wrap_their_text_is_unaccounted(self):
        # a row a line taller than its top says (a figure wrapped in its cell) leaves its
        # description's last line just beyond the reach: where wrapped lines start, it may
        # be that row's, and no foot of the page
        wrapped = row(65, "01/02/24", "Coffee", "3.50", "96.50") + line(77, (100, "shop"))
        for x, left in ((100, ["invoice", "ABC"]), (250, [])):
            with self.subTest(x=x):
                page = HEADER + wrapped + TEA + line(114, (x, "invoice"), (x + 40, "ABC"))
                self.assertEqual(unaccounted(ledger.build([page], settings())), left)


if __name__ == "__main__":
    unittest.main()
