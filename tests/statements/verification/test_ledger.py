"""The ledger on hand-made words: every word of the table pages in a cell, on a furniture
line with its reason, or unaccounted and named."""
from __future__ import annotations

import unittest

from dua.statements.verification import ledger

from ..table.test_engine import HEADER, in_sections, line, row, settings

COFFEE = row(65, "01/02/24", "Coffee", "3.50", "96.50")
TEA = row(90, "02/02/24", "Tea", "1.50", "95.00")


def furniture(book):
    """The furniture lines but the column heading the table opens with (every extent
    starts at it; ``test_extent.ExtentTest`` shows it)."""
    lines = [(f["page"], f["text"], f["reason"]) for f in book.furniture]
    return [f for n, f in enumerate(lines) if n or f[2] != "the table's column heading"]


def engine_extract(pages, s):
    from dua.statements.table import engine

    return engine.extract(pages, s)


def unaccounted(book):
    return [u["text"] for u in book.unaccounted]


class LeftBehindTitleTest(unittest.TestCase):
    def test_a_title_right_under_a_row_that_may_go_on_with_it_is_unaccounted(self):
        # the row's second line, beyond the reading's reach, read as a section's title: a
        # title starts a section over its rows, and this one may be the row's text
        s = settings(sections=[["money in", 1], ["loan instalment", 1]], continuation_gap=5.0)
        page = (HEADER + line(58, (40, "Money in")) + COFFEE + line(77, (100, "loan instalment"))
                + TEA)
        book = ledger.build([page], s)
        self.assertEqual(unaccounted(book), ["loan", "instalment"])
        self.assertIn("the row's words the reading left", book.unaccounted[0]["why"])
        # in the date column, where no row goes on, it stands as a title
        page = HEADER + line(58, (40, "Money in")) + COFFEE + line(77, (40, "Loan instalment"))
        self.assertEqual(unaccounted(ledger.build([page + TEA], s)), [])

    def test_a_title_set_in_a_face_no_row_is_set_in_is_accounted_where_a_row_may_go_on(self):
        s = settings(continuation="above", sections=[["money out", -1], ["money in", 1]])
        s["columns"][2]["section_signed"] = True
        book = ledger.build([in_sections("Bold")], s)
        self.assertEqual(unaccounted(book), [])
        self.assertEqual([f[1] for f in furniture(book)], ["Money out", "Money in"])
        # set as the rows are, 'Money in' under 'Cake' may be that row's words; and so may
        # a line in another face that signs the rows under it as those above are signed
        self.assertEqual(unaccounted(ledger.build([in_sections("Regular")], s)),
                         ["Money", "in"])
        s["sections"] = [["money out", -1], ["money in", -1]]
        self.assertEqual(unaccounted(ledger.build([in_sections("Bold")], s)), ["Money", "in"])
        # or where the amounts print their own signs, which no section turns
        s["sections"] = [["money out", -1], ["money in", 1]]
        s["columns"][2]["section_signed"] = False
        self.assertEqual(unaccounted(ledger.build([in_sections("Bold")], s)), ["Money", "in"])


class StrayHeadingTest(unittest.TestCase):
    def test_a_heading_line_between_rows_without_the_headings_names_is_unaccounted(self):
        # the heading took in a row's last line ('agreed'); where another row prints the
        # same word, it is that row's, not the heading printed again
        s = settings(header=["date description amount balance", "agreed"])
        page = (HEADER + line(58, (100, "agreed")) + COFFEE + line(77, (100, "agreed")) + TEA)
        book = ledger.build([page], s)
        self.assertEqual(unaccounted(book), ["agreed"])
        self.assertIn("where the heading's names are not printed", book.unaccounted[0]["why"])

    def test_the_heading_printed_again_in_other_tiers_is_the_heading(self):
        # the first page prints '(GBP)' under 'Amount' and 'Balance'; the next (a scan whose
        # tiers came back a point apart) prints 'Description' down beside them: its two
        # tiers together print every name, the heading again, not a row's words taken in
        s = settings(header=["date description amount balance", "gbp gbp"])
        first = (HEADER + line(58, (310, "(GBP)"), (410, "(GBP)"))
                 + row(70, "01/02/24", "Coffee", "3.50", "96.50"))
        second = (line(44, (40, "Date"), (310, "Amount"), (410, "Balance"))
                  + line(52, (100, "Description"), (310, "(GBP)"), (410, "(GBP)")) + TEA)
        book = ledger.build([first, second], s)
        self.assertEqual(unaccounted(book), [])


    def test_a_heading_line_where_the_first_rows_text_would_stand_is_unaccounted(self):
        # rows print their text over the date line and the heading once: the first row's
        # first lines, read as the heading's lower tiers, lose that row's text unseen
        s = settings(header=["date description amount balance", "transfer from d kowalski"],
                     header_once=True, continuation="above", continuation_gap=13.0)
        page = (HEADER + line(62, (100, "Transfer from D Kowalski")) + line(74, (100, "month"))
                + row(86, "01/02/24", "", "3.50", "96.50") + line(98, (100, "Tea"))
                + row(110, "02/02/24", "", "1.50", "95.00"))
        book = ledger.build([page], s)
        self.assertEqual(unaccounted(book), ["Transfer", "from", "D", "Kowalski"])
        self.assertIn("may be the first row's wrapped lines", book.unaccounted[0]["why"])
        # a heading that prints it on every page says it is the heading's
        self.assertEqual(unaccounted(ledger.build([page], dict(s, header_once=False))), [])

    def test_a_heading_line_where_no_rows_wrapped_line_stands_is_the_headings(self):
        # 'No.' under 'Ref': the rows wrap their text in 'Description' only
        columns = settings()["columns"][:2] + [{"name": "Ref No.", "x0": 200.0, "kind": "text"}] \
            + settings()["columns"][2:]
        s = settings(columns=columns, header=["date description ref amount balance", "no"],
                     header_once=True, continuation="above", continuation_gap=13.0)
        head = line(50, (40, "Date"), (100, "Description"), (205, "Ref"), (310, "Amount"),
                    (410, "Balance"))
        page = (head + line(62, (205, "No.")) + line(74, (100, "Coffee"))
                + line(86, (40, "01/02/24"), (205, "A1"), (320, "3.50"), (420, "96.50"))
                + line(98, (100, "Tea"))
                + line(110, (40, "02/02/24"), (205, "A2"), (320, "1.50"), (420, "95.00")))
        self.assertEqual(unaccounted(ledger.build([page], s)), [])


class CellsTest(unittest.TestCase):
    def test_the_words_of_row_lines_are_in_cells(self):
        book = ledger.build([HEADER + COFFEE + TEA], settings())
        self.assertEqual((book.words_in_cells, book.complete), (8, True))
        self.assertEqual([r["row"] for r in book.rows], [0, 1])

    def test_a_cell_of_money_that_reads_as_no_amount_leaves_its_words_unaccounted(self):
        book = ledger.build([HEADER + COFFEE + row(90, "02/02/24", "Tea", "n/a", "95.00")],
                            settings())
        self.assertEqual([(w["text"], w["why"]) for w in book.unaccounted],
                         [("n/a", "in 'Amount', whose cell 'n/a' reads as no amount")])

    def test_a_column_the_output_leaves_out_is_furniture(self):
        s = settings()
        s["columns"][3]["output"] = False
        book = ledger.build([HEADER + COFFEE + TEA], s)
        self.assertEqual(furniture(book), [(1, "96.50", "a column the output leaves out"),
                                           (1, "95.00", "a column the output leaves out")])
        self.assertEqual(book.words_in_cells, 6)

    def test_no_rows_leave_the_accounting_undecided(self):
        book = ledger.build([HEADER], settings())
        self.assertIsNone(book.complete)
        self.assertEqual(book.summary(), "no rows: no table page to account for")


class BetweenRowsTest(unittest.TestCase):
    def test_a_furniture_line_carries_the_engines_reason(self):
        book = ledger.build([HEADER + COFFEE + line(77, (100, "-----")) + TEA], settings())
        self.assertEqual(furniture(book), [(1, "-----", "a rule drawn with text")])

    def test_a_line_no_rule_explains_is_unaccounted_and_named(self):
        book = ledger.build([HEADER + COFFEE + line(77, (100, "Fee waived"), (320, "7.77")) + TEA],
                            settings())
        self.assertFalse(book.complete)
        self.assertEqual(sorted(unaccounted(book)), ["7.77", "Fee", "waived"])
        self.assertIn("3 word(s) no cell or furniture line accounts for: p1 'Fee'",
                      book.summary())

    def test_a_line_of_words_only_a_learned_pattern_labels_between_rows_is_unaccounted(self):
        # 'mandate for rent' left out of the key's cell: the pattern learned from that key
        # is the only evidence it is no row's words; 'Continued' the usual vocabulary reads
        s = settings(skip_patterns=settings()["skip_patterns"] + [r"\bmandate for rent\b"])
        book = ledger.build([HEADER + COFFEE + line(77, (100, "mandate for rent")) + TEA], s)
        self.assertEqual(unaccounted(book), ["mandate", "for", "rent"])
        self.assertIn("learned from the rows given", book.unaccounted[0]["why"])
        book = ledger.build([HEADER + COFFEE + line(77, (100, "Page 1 of 2")) + TEA], s)
        self.assertEqual(unaccounted(book), [])

    def test_a_line_where_the_rows_text_set_apart_starts_heads_no_group(self):
        # each row's text on lines of its own over its figures, the text column first: a
        # line the reading left out, starting where that text starts, is the rows'
        s = settings(continuation="above", continuation_gap=11.0,
                     header=["description date amount balance"])
        s["columns"] = [{"name": "Description", "x0": 0.0, "kind": "text"},
                        {"name": "Date", "x0": 200.0, "kind": "date"},
                        {"name": "Amount", "x0": 300.0, "kind": "amount"},
                        {"name": "Balance", "x0": 400.0, "kind": "amount"}]
        s["date_column"] = 1
        head = line(50, (40, "Description"), (210, "Date"), (310, "Amount"), (410, "Balance"))
        page = head
        rent = ["Rent payment for the month of may and June", "for the flat"]  # runs past x 200
        for n, (texts, amount, balance) in enumerate(((["Coffee"], "-3.50", "96.50"),
                                                      (rent, "-1.50", "95.00"),
                                                      (["Tea"], "-2.00", "93.00"),
                                                      (["Cake"], "-1.00", "92.00"))):
            top = 62 + 40 * n
            for k, text in enumerate(texts):
                page += line(top + 12 * k - 12 * (len(texts) - 1), (40, text))
            page += line(top + 10, (210, f"0{n + 1}/02/24"), (320, amount), (420, balance))
        book = ledger.build([page], s)
        self.assertNotIn(ledger._GROUP, [f["reason"] for f in book.furniture])

    def test_words_in_the_date_column_over_a_row_are_a_group_heading(self):
        book = ledger.build([HEADER + COFFEE + line(77, (40, "JOHN"), (100, "SMITH")) + TEA],
                            settings())
        self.assertEqual(furniture(book), [(1, "JOHN SMITH", ledger._GROUP)])

    def test_a_title_over_a_row_whose_balances_start_again_is_an_accounts_title(self):
        title = line(82, (100, "Savings Account 2940 1660"))
        pages = [HEADER + COFFEE + title + row(100, "02/02/24", "Tea", "1.50", "501.50")]
        self.assertEqual(sorted(unaccounted(ledger.build(pages, settings()))),
                         ["1660", "2940", "Account", "Savings"])
        book = ledger.build(pages, settings(), restarts=(1,))
        self.assertEqual(furniture(book), [(1, "Savings Account 2940 1660", ledger._ACCOUNT)])

    def test_a_line_starting_inside_the_date_column_but_not_at_its_edge_is_no_heading(self):
        # a description wrapped from under its date, read as no part of any row
        book = ledger.build([HEADER + COFFEE + line(77, (60, "shop"), (100, "London")) + TEA],
                            settings())
        self.assertEqual(sorted(unaccounted(book)), ["London", "shop"])

    def test_text_opening_the_page_after_the_tables_last_in_a_rows_columns_is_unaccounted(self):
        after = line(62, (100, "shop London")) + line(90, (40, "Terms"), (100, "apply"))
        book = ledger.build([HEADER + COFFEE, after], settings())
        self.assertEqual(sorted(unaccounted(book)), ["London", "shop"])

    def test_and_so_it_is_under_the_pages_own_heading_of_a_line_or_two(self):
        # the bank and the holder over what the page break carried, a summary below it
        after = (line(30, (40, "Kestrel Bank - Ms Ada Lind")) + line(62, (100, "shop London"))
                 + line(90, (40, "Opening balance"), (200, "Closing balance")))
        book = ledger.build([HEADER + COFFEE, after], settings())
        self.assertEqual(sorted(unaccounted(book)), ["London", "shop"])

    def test_text_opening_a_page_the_table_goes_on_to_in_a_rows_columns_is_unaccounted(self):
        # the last row's words the break carried, under the bank's name, over the next
        # account's title and the heading printed again (s298005 262 b: passed as the
        # page's own header)
        heading = line(80, (40, "Date"), (100, "Description"), (310, "Amount"), (410, "Balance"))
        page = (line(30, (40, "Kestrel Bank - Ms Ada Lind")) + line(42, (100, "shop London"))
                + line(60, (40, "Savings Account 2535")) + heading
                + row(95, "02/02/24", "Tea", "1.50", "95.00"))
        book = ledger.build([HEADER + COFFEE, page], settings())
        self.assertEqual(sorted(unaccounted(book)), ["London", "shop"])
        # where the first page's own header starts its lines, a row's words cannot be told
        # from the page's: the page's own (c11: descriptions set at the margin)
        first = line(20, (100, "Quill Bank plc")) + line(35, (40, "Period")) + HEADER + COFFEE
        book = ledger.build([first, page], settings())
        self.assertEqual(unaccounted(book), [])

    def test_a_line_in_the_date_column_over_nearly_every_row_is_no_group_heading(self):
        page = HEADER
        for i in range(4):  # each row's year wrapped onto a line of its own, over the next
            page = page + row(65 + 24 * i, f"0{i + 1} Feb", "Tea", "1.50") + line(
                77 + 24 * i, (40, "24"))
        page = page + row(161, "05 Feb", "Cake", "2.00")
        book = ledger.build([page], settings(date_pattern=r"\d{2} [A-Z][a-z]+"))
        self.assertEqual(unaccounted(book), ["24"] * 4)

    def test_a_line_printing_the_total_of_the_rows_above_is_a_total(self):
        page = (HEADER + COFFEE + row(77, "02/02/24", "Tea", "1.50", "95.00")
                + line(89, (100, "Sum of purchases"), (320, "5.00"))
                + row(101, "03/02/24", "Cake", "2.00", "93.00"))
        self.assertEqual(furniture(ledger.build([page], settings(balance_column=3))),
                         [(1, "Sum of purchases 5.00",
                           "a total or subtotal (it sums the rows above it)")])

    def test_a_line_printing_one_rows_amount_again_is_no_total(self):
        page = (HEADER + COFFEE + row(77, "02/02/24", "Tea", "1.50", "95.00")
                + line(89, (100, "USD"), (320, "1.50"))
                + row(101, "03/02/24", "Cake", "2.00", "93.00"))
        book = ledger.build([page], settings(balance_column=3))
        self.assertEqual(furniture(book), [])
        self.assertEqual([w["text"] for w in book.unaccounted], ["USD", "1.50"])

    def test_a_line_printing_the_balance_the_rows_reach_is_a_balance_line(self):
        page = (HEADER + COFFEE + row(77, "02/02/24", "Tea", "1.50", "95.00")
                + line(89, (100, "Carried"), (320, "95.00"))
                + row(101, "03/02/24", "Cake", "2.00", "93.00"))
        self.assertEqual(furniture(ledger.build([page], settings(balance_column=3))),
                         [(1, "Carried 95.00",
                           "a balance line (it prints the running balance the rows reach)")])


class OutsideTheRowsTest(unittest.TestCase):
    def build(self, *above, balances=None):
        words = [w for ln in above for w in ln]
        return ledger.build([words + HEADER + COFFEE + TEA], settings(balance_column=3),
                            balances=balances)

    def test_a_dated_line_of_money_outside_the_rows_is_unaccounted(self):
        book = self.build(line(20, (40, "01/02/24"), (100, "Other"), (320, "12.34")))
        self.assertEqual(unaccounted(book), ["01/02/24", "Other", "12.34"])
        self.assertEqual(book.unaccounted[0]["why"], "a line outside the table's rows that "
                                                     "prints a date and money as a row does")

    def test_unless_it_prints_the_opening_balance_or_a_total_of_a_run_of_rows(self):
        book = self.build(line(20, (40, "31/01/24"), (100, "Opening"), (320, "100.00")),
                          line(30, (40, "02/02/24"), (100, "Purchases"), (320, "5.00")))
        self.assertEqual(furniture(book), [
            (1, "31/01/24 Opening 100.00", "a balance the rows reach (a summary of balances)"),
            (1, "02/02/24 Purchases 5.00", "a total of a run of rows")])
        self.assertEqual(unaccounted(book), [])

    def test_or_a_summary_of_balances_and_totals_together_but_no_other_figure(self):
        # opening 100.00, the money moved 5.00, closing 95.00, on one dated line
        book = self.build(line(20, (40, "02/02/24"), (100, "100.00 5.00 95.00")))
        self.assertEqual(furniture(book)[0][2], "a summary of the rows: balances they reach "
                                                "and totals of their money")
        other = self.build(line(20, (40, "02/02/24"), (100, "100.00 5.00 94.00")))
        self.assertEqual(unaccounted(other), ["02/02/24", "100.00", "5.00", "94.00"])

    def test_or_a_balance_the_arithmetic_found_the_rows_reach_day_by_day(self):
        daily = line(20, (40, "03/02/24"), (100, "Balance"), (320, "1,050.00"))
        self.assertEqual(len(self.build(daily).unaccounted), 3)
        self.assertEqual(self.build(daily, balances={1050.0}).unaccounted, [])

    def test_a_dated_line_repeating_one_rows_amount_is_no_total_but_a_row_missed(self):
        book = self.build(line(20, (40, "01/02/24"), (100, "Coffee"), (320, "3.50")))
        self.assertEqual(unaccounted(book), ["01/02/24", "Coffee", "3.50"])

    def test_under_the_heading_a_line_with_a_date_anywhere_and_money_is_row_like(self):
        slipped = line(102, (100, "Refund"), (160, "02/02/24"), (320, "7.77"))
        book = ledger.build([HEADER + COFFEE + TEA + slipped], settings(balance_column=3))
        self.assertEqual(unaccounted(book), ["Refund", "02/02/24", "7.77"])

    def test_a_summary_box_with_a_due_date_amid_its_amounts_is_not_row_like(self):
        box = line(20, (40, "9.99"), (100, "Due"), (140, "15/02/24"), (320, "56.78"))
        self.assertEqual(self.build(box).unaccounted, [])


class AccountTitleTest(unittest.TestCase):
    def test_the_rows_words_the_page_break_carries_are_no_title_of_the_next_account(self):
        # page two: the balance carried over, the last row's description going on under
        # it, then the next account's title and the rows that start again
        words = lambda text, top: line(top, (40, text))  # noqa: E731
        items = [[["anchor", 700.0, [], "", [], ""]],
                 [["furniture", 57.0, None, "Balance brought forward 31,542.63",
                   words("Balance brought forward 31,542.63", 57), "a balance line"],
                  ["text", 71.0, [], "invoice for insurance", words("invoice for", 71), ""],
                  ["text", 81.0, [], "taxes", words("taxes", 81), ""],
                  ["text", 99.0, [], "Savings Account 2535", words("Savings Account 2535", 99),
                   ""],
                  ["anchor", 157.0, [], "", [], ""]]]
        rows = [[[], [line(700, (40, "Salary"))], 1, [(0, 0)]], [[], [], 1, [(1, 4)]]]
        s = {"continuation_gap": 14.0, "columns": [{"name": "Details", "x0": 0.0,
                                                     "kind": "text"}]}
        self.assertEqual(ledger._before(rows, items, [1], s), {(1, 3)})
        items[1][3][4] = line(99, (60, "Savings Account 2535"))  # set in, as a title is
        items[1][3][1] = 83.0  # within the rows' pitch of the words above it
        self.assertEqual(ledger._before(rows, items, [1], s), {(1, 3)})
        # where the row's date, not its text, starts, the title starts no text of the row
        s["columns"] = [{"name": "Date", "x0": 0.0, "kind": "date"},
                        {"name": "Details", "x0": 58.0, "kind": "text"}]
        rows[0][1] = [line(700, (40, "02/06"), (60, "Salary"))]
        items[1][1][4], items[1][2][4] = line(71, (60, "invoice for")), line(81, (60, "taxes"))
        items[1][3][4] = line(83, (40, "Savings Account 2535"))
        self.assertEqual(ledger._before(rows, items, [1], s), {(1, 3)})

    def test_the_rows_words_atop_the_next_page_under_its_header_are_no_title_either(self):
        # page two: the bank's name over its heading printed again, the last row's
        # description going on right under it, the first account's closing balance, then
        # the next account's title (s318107 283 b: the words were passed as that title)
        words = lambda text, top, x=40: line(top, (x, text))  # noqa: E731
        items = [[["anchor", 700.0, [], "", [], ""]],
                 [["outside", 40.0, None, "Northfield Bank", words("Northfield Bank", 40),
                   "above the table's heading"],
                  ["furniture", 57.0, None, "Date Details", words("Date Details", 57),
                   "the table's column heading"],
                  ["text", 71.0, [], "loan instalment", words("loan instalment", 71, 60), ""],
                  ["furniture", 84.0, None, "Closing balance 162072.77",
                   words("Closing balance 162072.77", 84, 60), "a balance line"],
                  ["text", 102.0, [], "Savings Account 9172", words("Savings Account 9172",
                                                                    102), ""],
                  ["anchor", 144.0, [], "", [], ""]]]
        rows = [[[], [line(700, (40, "02/06"), (60, "Card purchase"))], 1, [(0, 0)]],
                [[], [], 1, [(1, 5)]]]
        s = {"continuation_gap": 15.0, "columns": [{"name": "Date", "x0": 0.0, "kind": "date"},
                                                   {"name": "Details", "x0": 58.0,
                                                    "kind": "text"}]}
        self.assertEqual(ledger._before(rows, items, [1], s), {(1, 0), (1, 1), (1, 4)})
        # a line of the page's own under its header, before the words: the run is broken
        items[1][1:1] = [["text", 50.0, [], "Statement", words("Statement", 50), ""]]
        rows[1][3] = [(1, 6)]
        self.assertIn((1, 3), ledger._before(rows, items, [1], s))


if __name__ == "__main__":
    unittest.main()
