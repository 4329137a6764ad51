"""The parsing engine on hand-made words: amounts in every form, lines, rows, skips."""
from __future__ import annotations

import re
import unittest

from dua.statements.table import dataframe, engine, wordlines

SETTINGS = {"parens_negative": True, "trailing_minus_negative": True,
            "drcr_signs": {"dr": -1, "cr": 1}}


def word(text, x0, top, width=None, height=8.0):
    return (text, x0, x0 + (width or 5.0 * len(text)), top, top + height)


def line(top, *cells):
    """Words at the given x positions on one line: line(10, (40, '01/02/24'), (100, 'Coffee'))."""
    out = []
    for x, text in cells:
        for part in text.split(" "):
            out.append(word(part, x, top))
            x += 5.0 * len(part) + 3.0
    return out


def settings(**changes):
    s = {
        "columns": [{"name": "Date", "x0": 0.0, "kind": "date"},
                    {"name": "Description", "x0": 90.0, "kind": "text"},
                    {"name": "Amount", "x0": 300.0, "kind": "amount"},
                    {"name": "Balance", "x0": 400.0, "kind": "amount"}],
        "date_column": 0, "date_pattern": r"\d{2}/\d{2}/\d{2}",
        "header": ["date description amount balance"], "require_header": True,
        "line_tolerance": 3.0, "glue_gap": 0.8, "continuation_gap": 14.0,
        "skip_patterns": [r"^\s*total\b", r"\bpage\s+\d+\s+of\s+\d+\b"],
        "anchor_needs_amount": True, **SETTINGS,
    }
    s.update(changes)
    return s


HEADER = line(50, (40, "Date"), (100, "Description"), (310, "Amount"), (410, "Balance"))


class AmountParsingTest(unittest.TestCase):
    def test_every_printed_form_becomes_a_signed_float(self):
        cases = {
            "1,234.56": 1234.56, "1,00,102.03": 100102.03, "(12.00)": -12.0, "12.00-": -12.0,
            "-12.00": -12.0, "12.00 Dr": -12.0, "12.00 Cr": 12.0, "12.00DR": -12.0,
            "$1,234.56": 1234.56, "-$1,234.56": -1234.56, "£12.00 Dr": -12.0,
            "Rs. 1,23,456.78": 123456.78, "S$22,058.11": 22058.11, "1234.5": 1234.5, "500": 500.0,
        }
        for text, value in cases.items():
            with self.subTest(text=text):
                self.assertEqual(engine.parse_amount(text, SETTINGS), value)

    def test_words_that_are_not_amounts_return_none(self):
        for text in ("Coffee", "01/02/24", "(12.00", "12.00)", "", "ABC 12.00"):
            with self.subTest(text=text):
                self.assertIsNone(engine.parse_amount(text, SETTINGS))

    def test_sign_rules_come_from_the_settings(self):
        plain = {"parens_negative": False, "trailing_minus_negative": False,
                 "drcr_signs": {"dr": 1, "cr": 1}}
        for text in ("(12.00)", "12.00-", "12.00 Dr"):
            self.assertEqual(engine.parse_amount(text, plain), 12.0)

    def test_bare_integers_do_not_look_like_money(self):
        self.assertFalse(engine.looks_like_amount("2024"))
        self.assertTrue(engine.looks_like_amount("2,024"))
        self.assertTrue(engine.looks_like_amount("20.24"))


class LinesTest(unittest.TestCase):
    def test_words_within_the_tolerance_share_a_line(self):
        words = [word("b", 50, 11.5), word("a", 10, 10), word("c", 10, 20)]
        lines = wordlines.group_lines(words, 3.0)
        self.assertEqual([[w[0] for w in ln] for ln in lines], [["a", "b"], ["c"]])

    def test_ocr_fragments_are_glued_and_spaced_words_are_not(self):
        words = [("IN", 10, 20, 0, 8), ("TERNET", 20.1, 50, 0, 8), ("BANKING", 52.5, 90, 0, 8)]
        self.assertEqual(wordlines.join_words(words, 0.8), "INTERNET BANKING")


class PageRowsTest(unittest.TestCase):
    def page(self):
        return (line(20, (40, "Statement of account")) + HEADER
                + line(65, (40, "01/02/24"), (100, "Coffee shop"), (320, "3.50"), (420, "96.50"))
                + line(75, (100, "Main Street branch"))
                + line(90, (40, "02/02/24"), (100, "Refund"), (320, "(1.50)"), (420, "98.00"))
                + line(105, (100, "Total"), (320, "2.00"))
                + line(700, (300, "Page 1 of 1")))

    def test_two_columns_of_one_name_are_both_kept(self):
        # a heading that printed 'DATE' over a transaction date and a posting date (its upper
        # tier lost): the second is 'DATE.1', as pandas reads such a CSV back, never dropped
        s = settings()
        s["columns"][1]["name"] = "Date"
        frame = dataframe.build_frame([self.page()], s)
        self.assertEqual(list(frame.columns), ["Date", "Date.1", "Amount", "Balance"])
        self.assertEqual(frame["Date.1"].tolist(), ["Coffee shop Main Street branch", "Refund"])

    def test_rows_join_continuations_and_skip_furniture(self):
        frame = dataframe.build_frame([self.page()], settings())
        self.assertEqual(list(frame.columns), ["Date", "Description", "Amount", "Balance"])
        self.assertEqual(frame["Description"].tolist(), ["Coffee shop Main Street branch", "Refund"])
        self.assertEqual(frame["Amount"].tolist(), [3.5, -1.5])
        self.assertEqual(str(frame["Amount"].dtype), "float64")

    def test_lines_above_the_header_are_ignored_when_the_header_is_required(self):
        page = line(32, (40, "01/01/24"), (100, "Summary"), (320, "9.99")) + self.page()
        self.assertEqual(len(dataframe.build_frame([page], settings())), 2)
        self.assertEqual(len(dataframe.build_frame([page], settings(require_header=False))), 3)

    def test_a_header_printed_once_opens_the_table_for_the_later_pages(self):
        page2 = line(40, (40, "03/02/24"), (100, "Bakery"), (320, "2.00"), (420, "96.00"))
        every_page = dataframe.build_frame([self.page(), page2], settings())
        once = dataframe.build_frame([self.page(), page2], settings(header_once=True))
        self.assertEqual((len(every_page), len(once)), (2, 3))
        self.assertEqual(once["Description"].tolist()[-1], "Bakery")

    def test_a_far_line_is_not_a_continuation(self):
        frame = dataframe.build_frame([self.page()], settings(continuation_gap=5.0))
        self.assertEqual(frame["Description"].tolist(), ["Coffee shop", "Refund"])

    def test_a_line_a_whole_reach_under_its_row_continues_it_whatever_its_rounding(self):
        # 290.8525 - 278.8525 is 12.00000000000004 in floating point: still the reach
        page = HEADER + line(278.85249999999996, (40, "01/02/24"), (100, "Transfer"),
                             (320, "3.50")) + line(290.8525, (100, "reference AB12"))
        frame = dataframe.build_frame([page], settings(continuation_gap=12.0))
        self.assertEqual(frame["Description"].tolist(), ["Transfer reference AB12"])

    def test_text_under_a_rows_wrapped_amount_continues_the_row(self):
        # '181' over '081.39' is one word on the row's line that says where its second line
        # stands: the description goes on under that, a line's reach from the row's last line
        amount = [("181 081.39", 320, 345, 65, 73, 8.0, None, 75)]
        page = (HEADER + line(65, (40, "01/02/24"), (100, "Transfer")) + amount
                + line(87, (100, "reference AB12")))
        frame = dataframe.build_frame([page], settings(continuation_gap=12.0))
        self.assertEqual(frame["Description"].tolist(), ["Transfer reference AB12"])

    def test_an_empty_statement_gives_an_empty_frame_with_the_columns(self):
        frame = dataframe.build_frame([HEADER], settings())
        self.assertEqual((len(frame), list(frame.columns)[0]), (0, "Date"))

    def test_columns_marked_not_output_are_dropped(self):
        s = settings()
        s["columns"][3]["output"] = False
        self.assertEqual(list(dataframe.build_frame([self.page()], s).columns),
                         ["Date", "Description", "Amount"])



def row(top, date, description, amount, balance=None):
    """One transaction's first line under HEADER's columns."""
    cells = [(40, date), (100, description), (320, amount)]
    return line(top, *(cells + [(420, balance)] if balance else cells))


def set_in(face, words):
    """``words`` as the reader gives the engine a face: size, then font."""
    return [w[:5] + (8.0, face) for w in words]


def in_sections(face):
    """Five rows whose descriptions stand above them, under 'Money out' and 'Money in' set
    in ``face`` (the rows are set in 'Regular')."""
    rows = [line(72, (100, "Coffee")) + row(82, "01/02/24", "", "3.50"),
            line(94, (100, "Tea")) + row(104, "02/02/24", "", "1.50"),
            line(116, (100, "Cake")) + row(126, "03/02/24", "", "2.00"),
            line(150, (100, "Salary")) + row(160, "04/02/24", "", "900.00"),
            line(172, (100, "Refund")) + row(182, "05/02/24", "", "9.00")]
    page = set_in("Regular", HEADER + rows[0] + rows[1] + rows[2] + rows[3] + rows[4])
    return page + set_in(face, line(62, (100, "Money out")) + line(138, (100, "Money in")))


def descriptions(pages, s):
    return [r[0][1] for r in engine.extract(pages, s)[0]]


def kinds(items):
    return [(item[0], item[3]) for item in items]


class FurnitureTest(unittest.TestCase):
    def test_a_rule_drawn_with_text_is_furniture_and_never_glued_to_a_description(self):
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                + line(75, (100, "-----"), (200, "=== ==="))
                + row(90, "02/02/24", "Tea", "1.50", "95.00"))
        rows, items = engine.extract([page], settings())
        self.assertEqual([r[0][1] for r in rows], ["Coffee", "Tea"])
        self.assertEqual((items[0][2][0], items[0][2][5]), ("furniture", "a rule drawn with text"))

    def page(self, n):
        return (HEADER + row(65, f"0{2 * n - 1}/02/24", "Coffee", "3.50", "96.50")
                + line(75, (100, "Visa debit"))
                + row(90, f"0{2 * n}/02/24", "Tea", "1.50", "95.00")
                + line(100, (100, "Continued")) + line(700, (300, f"Page {n} of 3")))

    def test_the_same_text_in_the_same_place_outside_the_rows_is_a_running_header_or_footer(self):
        rows, items = engine.extract([self.page(1), self.page(2)], settings(skip_patterns=[]))
        self.assertEqual([r[0][1] for r in rows], ["Coffee Visa debit", "Tea"] * 2)
        for page in items:
            running = [i[3] for i in page if i[5].startswith("a running header or footer")]
            # 'Page 1 of 3', 'Page 2 of 3': the same text but for its digits
            self.assertEqual([re.sub(r"\d", "#", t) for t in running],
                             ["Continued", "Page # of #"])

    def test_the_same_last_line_on_two_pages_of_four_is_the_rows_text_not_a_footer(self):
        # 'Visa debit' under the last row of pages 1 and 2 only: a running footer is
        # printed on every page (but perhaps the first or the last)
        def page(n, last):
            return (HEADER + row(65, f"0{2 * n - 1}/02/24", "Coffee", "3.50", "96.50")
                    + row(90, f"0{2 * n}/02/24", "Tea", "1.50", "95.00") + last)

        pages = [page(1, line(100, (100, "Visa debit"))), page(2, line(100, (100, "Visa debit"))),
                 page(3, []), page(4, [])]
        rows = engine.extract(pages, settings(skip_patterns=[]))[0]
        self.assertEqual([r[0][1] for r in rows][:4], ["Coffee", "Tea Visa debit"] * 2)

    def test_a_last_rows_wrapped_line_is_its_own_where_another_page_prints_it_among_rows(self):
        # 'as agreed' under the last row of page 1, and at the same height on page 2
        # between two rows: a row's words both times, no footer
        first = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                 + row(90, "02/02/24", "Loan instalment", "1.50", "95.00")
                 + line(100, (100, "as agreed")))
        second = (HEADER + row(65, "03/02/24", "Rent", "3.50", "91.50")
                  + row(88, "04/02/24", "Mandate fees", "1.50", "90.00")
                  + line(100, (100, "as agreed")) + row(115, "05/02/24", "Tea", "1.00", "89.00"))
        rows = engine.extract([first, second], settings(skip_patterns=[]))[0]
        self.assertEqual(rows[1][0][1], "Loan instalment as agreed")

    def test_a_first_rows_words_under_a_balance_brought_forward_are_the_rows_on_every_page(self):
        # pages that print no heading open their rows at the balance carried over: a first
        # row's description printed over its figures at the same height on two pages is
        # that row's both times, no running header
        def later(day, balance):
            return (line(40, (100, "Balance brought forward"), (420, balance))
                    + line(55, (100, "Transfer from H Schmidt"))
                    + line(65, (40, f"{day}/02/24"), (320, "3.50"), (420, "90.00"))
                    + line(80, (100, "Interest")) + line(90, (40, f"{day}/02/24"), (320, "1.00")))
        first = HEADER + line(55, (100, "Rent")) + line(65, (40, "01/02/24"), (320, "3.50"))
        s = settings(continuation="above", header_once=True,
                     skip_patterns=[r"\bbalance\s+brought\s+forward\b"])
        self.assertEqual(descriptions([first, later("02", "93.50"), later("03", "91.00")], s),
                         ["Rent"] + ["Transfer from H Schmidt", "Interest"] * 2)

    def test_the_same_text_over_each_pages_first_row_is_that_rows_where_rows_print_it_above(self):
        # no heading on the later pages, no balance carried: the band of rows opens at the
        # first row's text ('Bill payment' / 'mobile' atop pages 2 and 3 by chance), under
        # the page's name, which alone is a running header
        def later(day):
            return (line(20, (100, "Kestrel Bank")) + line(35, (100, "Bill payment"))
                    + line(45, (100, "mobile")) + line(55, (40, f"{day}/02/24"), (320, "3.50"))
                    + line(70, (100, "Interest")) + line(80, (40, f"{day}/02/24"), (320, "1.00")))
        first = HEADER + line(55, (100, "Rent")) + line(65, (40, "01/02/24"), (320, "3.50"))
        s = settings(continuation="above", continuation_gap=11.0, header_once=True)
        rows, items = engine.extract([first, later("02"), later("03")], s)
        self.assertEqual([r[0][1] for r in rows],
                         ["Rent"] + ["Bill payment mobile", "Interest"] * 2)
        self.assertEqual([i[3] for i in items[1] if i[5] == wordlines.RUNNING], ["Kestrel Bank"])

    def test_the_first_pages_letterhead_opening_a_later_page_is_no_rows_words(self):
        # the bank's and the holder's names over the rows a second page carries on, printed
        # on that page alone: the page's own header, not the last row's description going on
        first = (line(10, (40, "Banco Ribeira")) + line(22, (40, "Mx Sam Taylor")) + HEADER
                 + row(65, "01/02/24", "Coffee", "3.50") + row(80, "02/02/24", "Tea", "1.50"))
        second = (line(30, (100, "Banco Ribeira - Mx Sam Taylor"))
                  + line(40, (100, "Cafe Lyon")) + row(50, "03/02/24", "Rent", "9.00"))
        s = settings(header_once=True)
        self.assertEqual(descriptions([first, second], s), ["Coffee", "Tea Cafe Lyon", "Rent"])
        items = engine.extract([first, second], s)[1]
        self.assertEqual(items[1][0][0], "furniture")

    def test_a_headings_tier_whose_names_wrap_otherwise_is_the_heading_again(self):
        # 'Transaction' over 'Details' on the first page, beside it on the next: the lower
        # tier there is the heading printed again, no other table's heading ending the rows
        upper = line(40, (100, "Transaction"), (410, "Running"))
        s = settings(header=["date details amount balance", "transaction running"],
                     header_once=False)
        first = upper + line(50, (40, "Date"), (100, "Details"), (310, "Amount"),
                             (410, "Balance")) + row(65, "01/02/24", "Coffee", "3.50")
        second = (line(40, (410, "Running"))
                  + line(50, (40, "Date"), (100, "Transaction Details"), (310, "Amount"),
                         (410, "Balance")) + row(65, "02/02/24", "Tea", "1.50"))
        self.assertEqual(descriptions([first, second], s), ["Coffee", "Tea"])

    def test_text_repeated_between_two_rows_on_every_page_stays_the_tables_own(self):
        items = engine.extract([self.page(1), self.page(2)], settings(skip_patterns=[]))[1]
        for page in items:
            self.assertIn(("text", "Visa debit"), kinds(page))

    def test_a_dated_row_whose_description_opens_with_a_label_word_is_a_row(self):
        # 'TOTAL' is a fuel station here; a totals line does not open with its day
        s = settings(skip_patterns=[r"^\s*(sub\s*-?\s*)?totals?\b"])
        page = HEADER + row(65, "01/02/24", "TOTAL ENERGIES", "45.00") + line(77, (100, "Total"),
                                                                              (320, "45.00"))
        self.assertEqual(descriptions([page], s), ["TOTAL ENERGIES"])

    def test_brought_forward_opening_a_line_is_furniture_and_after_a_word_a_charge(self):
        s = settings(skip_patterns=[r"^\W*(brought|carried)\s+forward\b"])
        page = (HEADER + line(58, (100, "Brought forward"), (320, "100.00"))
                + row(65, "01/02/24", "Coffee", "3.50")
                + row(77, "02/02/24", "Interest brought forward", "2.50"))
        self.assertEqual(descriptions([page], s), ["Coffee", "Interest brought forward"])

    def test_a_dated_line_printing_only_a_balance_is_furniture_unless_the_key_lists_it(self):
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                + line(77, (40, "02/02/24"), (420, "96.50"))
                + row(90, "03/02/24", "Tea", "1.50", "95.00"))
        self.assertEqual(len(engine.extract([page], settings())[0]), 3)  # no balance column known
        rows, items = engine.extract([page], settings(balance_column=3))
        self.assertEqual((len(rows), items[0][2][5]),
                         (2, "a balance line (it prints only a balance)"))
        self.assertEqual(len(engine.extract([page], settings(balance_column=3,
                                                              balance_rows=True))[0]), 3)


class TableEndTest(unittest.TestCase):
    def test_another_tables_heading_ends_the_transactions_table(self):
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                + line(90, (40, "Date"), (320, "Amount"), (420, "Balance"))
                + row(102, "01/02/24", "", "96.50", "96.50")
                + row(114, "02/02/24", "", "95.00", "95.00"))
        rows, items = engine.extract([page], settings())
        self.assertEqual(len(rows), 1)
        self.assertEqual([i[0] for i in items[0][2:]], ["outside"] * 3)
        self.assertIn("the transactions' table ends here", items[0][2][5])

    def test_a_rule_under_three_columns_does_not_end_the_table(self):
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                + line(78, (40, "--------"), (100, "--------"), (320, "-----"), (420, "-----"))
                + row(90, "02/02/24", "Tea", "1.50", "95.00"))
        self.assertEqual(descriptions([page], settings()), ["Coffee", "Tea"])


class PageBreakTest(unittest.TestCase):
    FIRST = HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")

    def test_text_opening_a_page_before_its_first_row_continues_the_last_row(self):
        second = (HEADER + line(62, (100, "shop London"))
                  + row(77, "02/02/24", "Tea", "1.50", "95.00"))
        self.assertEqual(descriptions([self.FIRST, second], settings()),
                         ["Coffee shop London", "Tea"])

    def test_a_page_with_no_row_of_its_own_continues_nothing(self):
        terms = line(62, (100, "Terms and conditions")) + line(74, (100, "apply to all accounts"))
        last = HEADER + row(65, "02/02/24", "Tea", "1.50", "95.00")
        # header_once: the table goes on over the inserted page, whose lines are text
        self.assertEqual(descriptions([self.FIRST, terms, last], settings(header_once=True)),
                         ["Coffee", "Tea"])

    def test_under_the_heading_printed_again_a_page_with_no_row_continues_the_last(self):
        rest = HEADER + line(62, (100, "shop London")) + line(90, (100, "Total"), (320, "3.50"))
        self.assertEqual(descriptions([self.FIRST, rest], settings()), ["Coffee shop London"])

    def test_over_the_closing_balance_a_page_with_no_row_continues_the_last(self):
        # the heading printed once: the last row's words, then the balance the table ends on
        s = settings(header_once=True,
                     skip_patterns=[r"\b(opening|closing)\s+balance\b"])
        rest = line(62, (100, "shop London")) + line(76, (100, "Closing balance"), (420, "96.50"))
        self.assertEqual(descriptions([self.FIRST, rest], s), ["Coffee shop London"])

    def test_over_a_summary_whose_figures_print_under_its_labels_the_page_continues_too(self):
        # 'Closing balance' over its figure: the labels on one line, their values the next
        s = settings(header_once=True, skip_patterns=[r"\b(opening|closing)\s+balance\b"])
        rest = (line(62, (100, "shop London")) + line(76, (100, "Closing balance"))
                + line(88, (100, "96.50")))
        self.assertEqual(descriptions([self.FIRST, rest], s), ["Coffee shop London"])

    def test_text_over_the_heading_printed_again_is_the_pages_header_and_continues_nothing(self):
        # header_once: a statement learned on one page reads the next pages as going on
        second = (line(20, (100, "Bank - Ms Okoye")) + line(40, (40, "Date"), (100, "Description"),
                                                              (310, "Amount"), (410, "Balance"))
                  + row(60, "02/02/24", "Tea", "1.50", "95.00"))
        self.assertEqual(descriptions([self.FIRST, second], settings(header_once=True)),
                         ["Coffee", "Tea"])

    def test_a_pages_header_standing_further_off_than_the_rows_step_continues_nothing(self):
        # header_once, no heading printed again: the page's own header opens it, its first
        # row further below it than the rows stand from each other
        rows = row(37, "02/02/24", "Tea", "1.50", "95.00") + row(49, "03/02/24", "Cake", "2.50", "92.50")
        second = line(20, (100, "Bank - Ms Okoye")) + rows
        carried = line(25, (100, "shop London")) + rows
        s = settings(header_once=True)
        self.assertEqual(descriptions([self.FIRST, second], s), ["Coffee", "Tea", "Cake"])
        self.assertEqual(descriptions([self.FIRST, carried], s),
                         ["Coffee shop London", "Tea", "Cake"])

    def test_a_carried_line_as_far_off_as_rows_stand_elsewhere_continues_the_last_row(self):
        # Rabobank sets some rows 21 pt apart, most 17: the rest of a row atop a page whose
        # rows all stand 17 apart is 21 over the first, as its neighbours stood on the first
        first = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                 + row(86, "01/02/24", "Cake", "2.00", "94.50"))
        rows = (row(83, "02/02/24", "Tea", "1.50", "93.00") + row(100, "03/02/24", "Bun", "1.00")
                + row(117, "04/02/24", "Jam", "1.00"))
        second = HEADER + line(62, (100, "shop London")) + rows
        self.assertEqual(descriptions([first, second], settings()),
                         ["Coffee", "Cake shop London", "Tea", "Bun", "Jam"])

    def test_a_line_of_figures_under_the_last_row_continues_no_description(self):
        # a summary's values printed under the table, in the description's column
        figures = line(76, (100, "1,947.51 7,053.08 19"))
        page = HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50") + figures
        self.assertEqual(descriptions([page], settings()), ["Coffee"])

    def test_where_the_amount_makes_the_row_a_line_of_figures_over_the_words_is_none(self):
        # the date printed once a day: a summary's values under the table, the first of
        # them in the description's column, print amounts as a row does
        figures = line(90, (100, "1,947.51"), (320, "7,053.08"), (420, "19"))
        page = HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50") + figures
        self.assertEqual(descriptions([page], settings(anchor="amount")), ["Coffee"])

    def test_a_sign_wrapped_under_its_amount_signs_it(self):
        # a narrow cell: 'Dr' on the line under a wide amount
        page = (HEADER + row(65, "01/02/24", "Coffee", "138080.17", "96.50")
                + line(75, (330, "Dr")) + row(90, "02/02/24", "Tea", "1.50 Dr", "95.00"))
        frame = dataframe.build_frame([page], settings())
        self.assertEqual(frame["Amount"].tolist(), [-138080.17, -1.5])

    def test_a_line_with_a_word_in_the_date_column_or_a_column_of_money_is_no_continuation(self):
        for under in (line(75, (40, "Ref"), (100, "ABC")), line(75, (100, "Card"), (320, "n/a"))):
            with self.subTest(under=under[0][0]):
                page = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50") + under
                        + row(90, "02/02/24", "Tea", "1.50", "95.00"))
                self.assertEqual(descriptions([page], settings()), ["Coffee", "Tea"])


class DescriptionAboveTest(unittest.TestCase):
    """Rows whose description is printed over their date and amounts."""

    PAGE = (HEADER + line(62, (100, "Coffee shop")) + line(72, (100, "Main Street"))
            + row(82, "01/02/24", "", "3.50") + line(94, (100, "Tea"))
            + row(104, "02/02/24", "", "1.50"))

    def test_a_first_rows_words_under_the_heading_are_its_own_where_the_next_page_prints_the_same(self):
        page = HEADER + line(62, (100, "Transfer")) + row(72, "01/02/24", "", "3.50")
        later = HEADER + line(62, (100, "Transfer")) + row(72, "03/02/24", "", "1.50")
        self.assertEqual(descriptions([page, later], settings(continuation="above")),
                         ["Transfer", "Transfer"])

    def test_lines_over_a_row_are_its_own_when_descriptions_stand_above(self):
        self.assertEqual(descriptions([self.PAGE], settings(continuation="above")),
                         ["Coffee shop Main Street", "Tea"])

    def test_read_as_below_the_same_lines_go_to_the_wrong_rows(self):
        self.assertNotEqual(descriptions([self.PAGE], settings(continuation="below")),
                            ["Coffee shop Main Street", "Tea"])

    def test_a_labels_word_wrapped_at_a_pages_top_goes_to_no_row(self):
        # 'Balance brought' over 'forward', then the last row's wrapped words: the label's
        # word is the label's, the rest the row's
        s = settings(skip_patterns=[r"\bbalance\s+(brought|carried)\b",
                                    r"^\W*(brought|carried)\s+forward\b"])
        first = HEADER + row(62, "01/02/24", "Salary Harbour", "3.50", "96.50")
        second = (HEADER + line(62, (100, "Balance brought"), (420, "96.50"))
                  + line(74, (100, "forward")) + line(86, (100, "mandate FATY"))
                  + row(100, "02/02/24", "Tea", "1.50", "95.00"))
        self.assertEqual(descriptions([first, second], s), ["Salary Harbour mandate FATY", "Tea"])

    def test_a_description_at_a_pages_foot_opens_the_next_pages_first_row(self):
        first = HEADER + line(62, (100, "Coffee")) + row(72, "01/02/24", "", "3.50") \
            + line(84, (100, "Tea room")) + line(94, (100, "London"))
        second = HEADER + row(62, "02/02/24", "", "1.50")
        self.assertEqual(descriptions([first, second], settings(continuation="above")),
                         ["Coffee", "Tea room London"])

    def test_words_at_a_pages_foot_open_no_row_under_a_section_title_on_the_next(self):
        # the next account's title at the foot, its heading and 'Money out' over the page
        first = HEADER + line(62, (100, "Coffee")) + row(72, "01/02/24", "", "3.50") \
            + line(94, (100, "Savings Account 6171"))
        second = (HEADER + line(62, (40, "Money out")) + line(72, (100, "Tea room"))
                  + row(82, "02/02/24", "", "1.50"))
        s = settings(continuation="above", sections=[["money out", -1]])
        self.assertEqual(descriptions([first, second], s), ["Coffee", "Tea room"])


class TypeFaceTest(unittest.TestCase):
    """Lines set in a face no row is set in (``faces``): titles, unless on a row's line."""

    def test_a_title_set_in_a_face_no_row_is_set_in_is_no_rows_description(self):
        s = settings(continuation="above")
        self.assertEqual(descriptions([in_sections("Bold")], s),
                         ["Coffee", "Tea", "Cake", "Salary", "Refund"])
        # set as the rows are, the same lines stand where the rows' wrapped text does
        self.assertEqual(descriptions([in_sections("Regular")], s),
                         ["Money out Coffee", "Tea", "Cake", "Money in Salary", "Refund"])

    def test_a_rows_word_in_another_face_a_little_off_its_line_stays_the_rows(self):
        # a payee's name patched in another font, 3.2 pt under its row's line: a line of
        # its own to the reading, but overlapping the row's, so no title however set
        page = set_in("Regular", HEADER + row(65, "01/02/24", "", "3.50")
                      + row(90, "02/02/24", "Tea", "1.50") + row(105, "03/02/24", "Cake", "2.00")
                      + row(120, "04/02/24", "Bus", "1.00"))
        page += set_in("Minion", line(68.2, (100, "AMAZON")))
        self.assertEqual(descriptions([page], settings()), ["AMAZON", "Tea", "Cake", "Bus"])


class WrappedCellsTest(unittest.TestCase):
    def test_a_date_wrapped_in_its_cell_joins_its_first_line(self):
        s = settings(date_pattern=r"\d{2} [A-Z][a-z]+ \d{4}",
                     date_head_pattern=r"\d{2} [A-Z][a-z]+", wrapped_columns=[0])
        page = HEADER + row(65, "01 June", "Coffee", "3.50") + line(75, (40, "2024")) \
            + row(90, "02 June", "Tea", "1.50") + line(100, (40, "2024"))
        rows = engine.extract([page], s)[0]
        self.assertEqual([r[0][0] for r in rows], ["01 June 2024", "02 June 2024"])

    def test_under_a_date_wrapped_in_its_cell_a_title_at_the_tables_left_edge_is_no_rows(self):
        # the last row's year wraps; the next account's title, at the table's left edge
        # under it, is no part of the date cell nor of the row (found wrapping, untold)
        s = settings(date_pattern=r"\d{2} [A-Z][a-z]+ \d{2}")
        page = HEADER + row(65, "17 June", "Coffee", "3.50") + line(75, (40, "24")) \
            + row(90, "18 June", "Tea", "1.50") + line(100, (40, "24")) \
            + line(112, (40, "Savings Account"), (130, "2412 1589"))
        rows = engine.extract([page], s)[0]
        self.assertEqual([r[0][:2] for r in rows], [["17 June 24", "Coffee"],
                                                    ["18 June 24", "Tea"]])

    def test_a_month_that_wraps_before_its_day_heads_its_date_too(self):
        # learned where 'MAI 08' over '2024' wrapped after the day; 'AOÛT' wraps before it
        s = settings(date_pattern=r"[A-ZÛ]+ \d{2} \d{4}", date_head_pattern=r"[A-ZÛ]+ \d{2}",
                     wrapped_columns=[0])
        page = HEADER + row(65, "AOÛT", "Coffee", "3.50") + line(75, (40, "06 2025")) \
            + row(90, "AOÛT", "Tea", "1.50") + line(100, (40, "07 2025"))
        rows = engine.extract([page], s)[0]
        self.assertEqual([r[0][0] for r in rows], ["AOÛT 06 2025", "AOÛT 07 2025"])

    def test_without_the_wrap_learned_the_dates_tail_is_no_part_of_the_row(self):
        s = settings(date_pattern=r"\d{2} [A-Z][a-z]+")
        page = HEADER + row(65, "01 June", "Coffee", "3.50") + line(75, (40, "2024"))
        self.assertEqual([r[0][0] for r in engine.extract([page], s)[0]], ["01 June"])

    def test_a_column_of_dates_printed_once_a_day_takes_the_day_above(self):
        s = settings(columns=settings()["columns"][:3] + [
            {"name": "Booked", "x0": 400.0, "kind": "text"}], carry_columns=[3])
        page = HEADER + row(65, "01/02/24", "Coffee", "3.50", "01/02/24") \
            + row(80, "01/02/24", "Tea", "1.50") + row(95, "02/02/24", "Cake", "2.00", "03/02/24")
        self.assertEqual([r[0][3] for r in engine.extract([page], s)[0]],
                         ["01/02/24", "01/02/24", "03/02/24"])


class SectionsTest(unittest.TestCase):
    def test_a_sections_title_signs_its_rows_also_above_the_tables_heading(self):
        s = settings(sections=[["withdrawals", -1], ["deposits", 1]])
        s["columns"][2]["section_signed"] = True
        page = (line(38, (100, "Withdrawals")) + HEADER
                + row(65, "01/02/24", "Coffee", "3.50") + line(80, (100, "Deposits"))
                + row(95, "02/02/24", "Salary", "100.00"))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Amount"].tolist(), [-3.5, 100.0])
        self.assertEqual(frame["Description"].tolist(), ["Coffee", "Salary"])


class SecondLineTest(unittest.TestCase):
    SECOND = [{"name": "Value date", "x0": 0.0, "kind": "text"},
              {"name": "Reference", "x0": 90.0, "kind": "text"}]

    def test_each_rows_second_line_fills_the_second_tiers_columns(self):
        first = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                 + line(75, (40, "02/02/24"), (100, "REF001"))
                 + row(90, "02/02/24", "Tea", "1.50", "95.00")
                 + line(100, (420, "95.00"))  # a balance line between a row's two lines
                 + line(110, (40, "03/02/24"), (100, "REF002"))
                 + row(125, "03/02/24", "Cake", "2.00", "93.00"))
        second = (HEADER + line(62, (40, "04/02/24"), (100, "REF003"))  # over a page break
                  + row(77, "04/02/24", "Bus", "1.00", "92.00")
                  + line(87, (40, "05/02/24"), (100, "REF004")))
        frame = dataframe.build_frame([first, second], settings(second_line=self.SECOND,
                                                                balance_column=3))
        self.assertEqual(list(frame.columns)[4:], ["Value date", "Reference"])
        self.assertEqual(frame["Reference"].tolist(), ["REF001", "REF002", "REF003", "REF004"])
        self.assertEqual(frame["Value date"].tolist(), ["02/02/24", "03/02/24", "04/02/24",
                                                        "05/02/24"])
        self.assertEqual(frame["Description"].tolist(), ["Coffee", "Tea", "Cake", "Bus"])

    def test_a_description_wrapped_under_the_second_line_is_the_rows(self):
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                + line(75, (40, "02/02/24"), (100, "REF001")) + line(85, (100, "shop London"))
                + row(100, "03/02/24", "Tea", "1.50", "95.00")
                + line(110, (40, "03/02/24"), (100, "REF002")))
        frame = dataframe.build_frame([page], settings(second_line=self.SECOND))
        self.assertEqual(frame["Description"].tolist(), ["Coffee shop London", "Tea"])

    def test_a_rows_second_line_over_the_page_break_is_found_under_the_heading_again(self):
        # page two opens with the bank's banner over the heading printed again, then the
        # second line of the last row of page one
        s = settings(second_line=self.SECOND, header_once=True)
        first = HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
        second = (line(20, (40, "Bank of Somewhere"), (200, "Mr A Customer")) + HEADER
                  + line(65, (40, "02/02/24"), (100, "REF001"))
                  + row(80, "03/02/24", "Tea", "1.50", "95.00")
                  + line(90, (40, "03/02/24"), (100, "REF002")))
        frame = dataframe.build_frame([first, second], s)
        self.assertEqual(frame.iloc[:, -1].tolist(), ["REF001", "REF002"])

    def test_on_the_second_line_a_wrapped_dates_tail_stays_in_its_column(self):
        # 'Feb 1' over '2024' in a narrow date cell, the reference on the same second line
        s = settings(second_line=[{"name": "Reference", "x0": 0.0, "kind": "text"}],
                     date_pattern=r"Feb \d+(?: \d{4})?", wrapped_columns=[0])
        page = (HEADER + row(65, "Feb 1", "Coffee", "3.50", "96.50")
                + line(75, (40, "2024"), (100, "REF001")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual((frame["Date"].tolist(), frame["Reference"].tolist()),
                         (["Feb 1 2024"], ["REF001"]))

    def test_a_value_date_that_wraps_on_the_second_line_stays_in_its_column_untold(self):
        # learned where every date fit; here both dates wrap their year onto the line that
        # prints the row's reference under the second tier
        columns = [{"name": "Date", "x0": 0.0, "kind": "date"},
                   {"name": "Value date", "x0": 90.0, "kind": "text"},
                   {"name": "Description", "x0": 150.0, "kind": "text"},
                   {"name": "Amount", "x0": 300.0, "kind": "amount"}]
        s = settings(columns=columns, date_pattern=r"[a-z]+ \d{1,2} \d{2}",
                     header=["date value description amount"], second_line=[{"name": "Reference", "x0": 0.0, "kind": "text"}])
        heading = line(50, (40, "Date"), (100, "Value"), (160, "Description"), (310, "Amount"))
        page = (heading + line(65, (40, "marzo 3 23"), (100, "marzo 4 23"), (160, "Coffee"),
                               (320, "3.50"))
                + line(75, (160, "REF001"))
                + line(90, (40, "marzo 12"), (100, "marzo 13"), (160, "Tea"), (320, "1.50"))
                + line(100, (40, "23"), (100, "23"), (160, "REF002")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Value date"].tolist(), ["marzo 4 23", "marzo 13 23"])
        self.assertEqual(frame["Reference"].tolist(), ["REF001", "REF002"])

    def test_a_date_that_wraps_where_others_fit_is_read_whole_without_being_told(self):
        # settings learned where every date fit its cell; here a long month wraps its year
        s = settings(date_pattern=r"\d{2} [A-Z]+ \d{4}")
        page = (HEADER + line(65, (40, "01 MAY 2024"), (100, "Coffee"), (320, "3.50"))
                + line(77, (40, "12 DECEMBER"), (100, "Tea"), (320, "1.50"))
                + line(86, (40, "2024")) + line(99, (40, "13 MAY 2024"), (100, "Cake"),
                                                (320, "2.00")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["01 MAY 2024", "12 DECEMBER 2024",
                                                  "13 MAY 2024"])

    def test_a_day_printed_alone_beside_figures_starts_a_row_where_its_date_goes_on(self):
        # '13' over 'MAR.' over '2023' in a narrow cell, the line otherwise all figures, as a
        # summary's values are; a line of figures no date completes stays no row
        s = settings(date_pattern=r"\d{2} [A-Z]{3}\. \d{4}")
        page = (HEADER + line(65, (40, "13"), (320, "3.45"), (420, "3 342.24"))
                + line(75, (40, "MAR.")) + line(85, (40, "2023"))
                + line(100, (40, "19"), (320, "229.50"), (420, "3 112.74")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["13 MAR. 2023"])
        self.assertEqual(frame["Balance"].tolist(), [3342.24])

    def test_a_date_wrapped_over_three_lines_is_read_whole(self):
        # day, month and year each on its own line; the description wraps beside the month
        s = settings(date_pattern=r"\d{1,2} [a-z]+ \d{2}", continuation_gap=12.0)
        page = (HEADER + line(65, (40, "9 may 24"), (100, "Coffee"), (320, "3.50"))
                + line(77, (40, "10"), (100, "Rent"), (320, "1.50"))
                + line(87, (40, "september"), (100, "for the month"))
                + line(97, (40, "24")) + line(110, (40, "13 may 24"), (100, "Cake"),
                                              (320, "2.00")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["9 may 24", "10 september 24", "13 may 24"])
        self.assertEqual(frame["Description"].tolist()[1], "Rent for the month")

    def test_a_wrapped_dates_last_line_is_its_rows_though_the_next_rows_text_is_nearer(self):
        # descriptions over their date lines; '2024' under '10 SEPTEMBER' stands nearer to
        # the next row (its text set close under it) than to its own row's date line
        s = settings(date_pattern=r"\d{1,2} [A-Z]+ \d{4}", continuation="above",
                     continuation_gap=12.0)
        page = (HEADER + line(60, (100, "Coffee")) + line(70, (40, "9 MAY 2024"), (320, "3.50"))
                + line(80, (100, "Rent")) + line(90, (40, "10"), (320, "1.50"))
                + line(100, (40, "SEPTEMBER")) + line(110, (40, "2024"))
                + line(118, (100, "Cake")) + line(127, (40, "13 MAY 2024"), (320, "2.00")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["9 MAY 2024", "10 SEPTEMBER 2024",
                                                  "13 MAY 2024"])
        self.assertEqual(frame["Description"].tolist(), ["Coffee", "Rent", "Cake"])

    def test_a_title_in_a_wrapped_date_column_is_no_rows_date(self):
        # 'Money in' opens a section at the date column's edge: no date was read to wrap
        # onto it, so it goes neither up into one row's date nor down into the next's
        s = settings(date_pattern=r"\d{1,2} [A-Z]+ \d{4}", continuation="above",
                     continuation_gap=12.0)
        page = (HEADER + line(60, (100, "Coffee")) + line(70, (40, "10"), (320, "3.50"))
                + line(80, (40, "SEPTEMBER")) + line(90, (40, "2024"))
                + line(100, (40, "Money in")) + line(110, (100, "Salary"))
                + line(120, (40, "13 MAY 2024"), (320, "2.00")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["10 SEPTEMBER 2024", "13 MAY 2024"])
        self.assertEqual(frame["Description"].tolist(), ["Coffee", "Salary"])

    def test_a_months_line_in_two_date_columns_is_no_other_tables_heading(self):
        # 'september september for the month': plain words under three columns, as a
        # heading prints, but each date column's word completes the date wrapped above it
        columns = [{"name": "Date", "x0": 0.0, "kind": "date"},
                   {"name": "Value", "x0": 90.0, "kind": "text"},
                   {"name": "Description", "x0": 160.0, "kind": "text"}] + settings()["columns"][2:]
        s = settings(columns=columns, date_pattern=r"\d{1,2} [a-z]+ \d{2}",
                     header=["date value description amount balance"])
        head = line(50, (40, "Date"), (100, "Value"), (170, "Description"), (310, "Amount"),
                    (410, "Balance"))
        page = (head + line(65, (40, "9 may 24"), (100, "9 may 24"), (170, "Coffee"), (320, "3.50"))
                + line(77, (40, "10"), (100, "10"), (170, "Rent"), (320, "1.50"))
                + line(87, (40, "september"), (100, "september"), (170, "for the month"))
                + line(97, (40, "24"), (100, "24"))
                + line(110, (40, "13 may 24"), (100, "13 may 24"), (170, "Cake"), (320, "2.00")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["9 may 24", "10 september 24", "13 may 24"])


if __name__ == "__main__":
    unittest.main()


class RunOnUnderMoneyTest(unittest.TestCase):
    COLUMNS = [{"name": "Details", "x0": 0.0, "kind": "text"},
               {"name": "Amount", "x0": 60.0, "kind": "amount"}]

    def test_a_word_running_on_under_a_column_of_money_stays_in_its_cell(self):
        line = [("including", 10.0, 50.0, 100.0, 108.0, 8.0), ("taxes", 52.0, 75.0, 100.0, 108.0, 8.0)]
        settings = {"decimal": "."}
        self.assertEqual(wordlines.split_cells(line, self.COLUMNS, 0.8, settings),
                         ["including taxes", ""])
        self.assertEqual(wordlines.split_cells(line, self.COLUMNS, 0.8), ["including", "taxes"])

    def test_the_head_of_an_amount_grouped_by_a_space_is_no_text_running_on(self):
        # '71 162,48' set a word space after the deposit: the balance's own first group
        columns = [{"name": "Details", "x0": 0.0, "kind": "text"},
                   {"name": "Deposits", "x0": 60.0, "kind": "amount"},
                   {"name": "Balance", "x0": 100.0, "kind": "amount"}]
        line = [("Refund", 10.0, 40.0, 100.0, 108.0, 8.0), ("2,06", 75.0, 92.0, 100.0, 108.0, 8.0),
                ("71", 99.0, 108.0, 100.0, 108.0, 8.0), ("162,48", 110.0, 138.0, 100.0, 108.0, 8.0)]
        self.assertEqual(wordlines.split_cells(line, columns, 0.8, {"decimal": ","}),
                         ["Refund", "2,06", "71 162,48"])

    def test_an_amount_after_the_text_is_a_cell_of_its_own(self):
        line = [("Fee", 10.0, 25.0, 100.0, 108.0, 8.0), ("12.50", 62.0, 80.0, 100.0, 108.0, 8.0)]
        self.assertEqual(wordlines.split_cells(line, self.COLUMNS, 0.8, {"decimal": "."}),
                         ["Fee", "12.50"])


    def test_a_description_running_on_into_the_date_column_after_it_stays_in_its_cell(self):
        # a longer line than the key's crosses the gutter: 'month' a word space after 'the',
        # the date set apart beyond it
        columns = [{"name": "Details", "x0": 0.0, "kind": "text"},
                   {"name": "Date", "x0": 60.0, "kind": "date"}]
        s = {"columns": columns, "date_column": 1, "date_pattern": r"\d{2}\.\d{2}\.\d{2}",
             "glue_gap": 0.8, "decimal": "."}
        line = [("for", 10.0, 25.0, 100.0, 108.0), ("the", 28.0, 48.0, 100.0, 108.0),
                ("month", 51.0, 76.0, 100.0, 108.0), ("19.12.24", 90.0, 130.0, 100.0, 108.0)]
        self.assertEqual(wordlines.split_cells(line, columns, 0.8, s),
                         ["for the month", "19.12.24"])
        # set apart from the description, the word is the date cell's, whatever it holds
        apart = line[:2] + [("month", 60.0, 85.0, 100.0, 108.0)] + line[3:]
        self.assertEqual(wordlines.split_cells(apart, columns, 0.8, s),
                         ["for the", "month 19.12.24"])
        # a value date the key taught as text crosses the same way
        value = [columns[0], {"name": "Value date", "x0": 60.0, "kind": "text"}]
        self.assertEqual(wordlines.split_cells(line, value, 0.8, dict(s, columns=value,
                                                                      date_column=None)),
                         ["for the month", "19.12.24"])

class WrappedLineOwnerTest(unittest.TestCase):
    """A line as near the row above as the row below: the page does not say whose it is."""

    @staticmethod
    def items(middle: float) -> list:
        return [["anchor", 100.0, [], "01 Mar 5.00", [], ""],
                ["text", middle, [], "Bill payment water", [], ""],
                ["anchor", 124.0, [], "02 Mar 7.00", [], ""]]

    def check(self, middle: float):
        from dua.statements.verification import owners

        rows = [[[], [], 1, [(0, 0), (0, 1)]], [[], [], 1, [(0, 2)]]]
        settings = {"continuation": "nearest", "continuation_gap": 14.0}
        return owners.check(rows, [self.items(middle)], settings)

    def test_a_line_halfway_between_two_rows_leaves_the_reading_undecided(self):
        found = self.check(112.0)
        self.assertIsNone(found["passed"])
        self.assertIn("'Bill payment water' on page 1", found["detail"])

    def test_a_line_nearer_one_row_is_that_rows(self):
        self.assertTrue(self.check(106.0)["passed"])

    def test_a_wrapped_dates_tail_belongs_to_the_date_it_completes(self):
        from dua.statements.verification import owners

        year = [("23", 40.0, 50.0, 112.0, 120.0, 8.0)]
        items = [["anchor", 100.0, ["5 november", "Coffee", "3.50"], "", [], ""],
                 ["text", 112.0, ["23", "", ""], "23", year, ""],
                 ["anchor", 124.0, ["7 november", "Tea", "1.50"], "", [], ""]]
        rows = [[[], [], 1, [(0, 0), (0, 1)]], [[], [], 1, [(0, 2)]]]
        settings = {"continuation": "nearest", "continuation_gap": 14.0,
                    "columns": [{"name": "Date", "x0": 0.0}, {"name": "Details", "x0": 90.0},
                                {"name": "Amount", "x0": 300.0}],
                    "date_head_pattern": r"\d{1,2} november"}
        self.assertTrue(owners.check(rows, [items], settings)["passed"])

    def test_a_narrow_cells_rest_right_under_a_row_read_with_the_next_is_undecided(self):
        from dua.statements.verification import owners

        def at(x0, text, top):
            return (text, x0, x0 + 10.0, top, top + 8.0)

        columns = [{"name": "Booking", "x0": 0.0, "kind": "text"},
                   {"name": "Details", "x0": 90.0, "kind": "text", "empty": True},
                   {"name": "Amount", "x0": 300.0, "kind": "amount"}]
        items, rows = [], []
        for n in range(3):  # details over each row, its booking date's year under it
            top = 100.0 + 36 * n
            items += [["text", top, [], "Shop", [at(100, "Shop", top)], ""],
                      ["anchor", top + 12, [], "", [at(40, f"1{n} AUG", top + 12),
                                                   at(310, "1.00", top + 12)], ""],
                      ["text", top + 22, [], "24", [at(40, "24", top + 22)], ""]]
        # read above: each year goes with the next row, the first row has none
        rows = [[[], [], 1, [(0, 0), (0, 1)]], [[], [], 1, [(0, 2), (0, 3), (0, 4)]],
                [[], [], 1, [(0, 5), (0, 6), (0, 7)]]]
        settings = {"continuation": "above", "continuation_gap": 14.0, "columns": columns}
        found = owners.check(rows, [items], settings)
        self.assertIsNone(found["passed"])
        self.assertIn("'24' on page 1", found["detail"])

    def test_a_side_the_settings_name_is_not_judged_by_distance(self):
        from dua.statements.verification import owners

        self.assertIsNone(owners.check([], [], {"continuation": "above"}))


class TextAtBothEndsTest(unittest.TestCase):
    """Text on lines of its own, read under each row's figures: the table's ends must agree."""

    COLUMNS = [{"name": "Date", "x0": 0.0, "kind": "date"},
               {"name": "Details", "x0": 100.0, "kind": "text"},
               {"name": "Amount", "x0": 300.0, "kind": "amount"}]

    def verdict(self, texts: list):
        from dua.statements.verification import owners

        items, rows, top = [], [], 100.0
        for n, text in enumerate(texts):
            rows.append([[], [], 1, [(0, len(items))]])
            items.append(["anchor", top, [], "", [(f"0{n + 1}/03", 40.0, 70.0, top, top + 8, 8.0),
                                                  ("1.00", 310.0, 330.0, top, top + 8, 8.0)], ""])
            if text:
                rows[-1][3].append((0, len(items)))
                items.append(["text", top + 12, [], text,
                              [(text, 110.0, 200.0, top + 12, top + 20, 8.0)], ""])
            top += 26
        return owners.check(rows, [items], {"columns": self.COLUMNS, "continuation": "below"})

    def test_the_last_row_alone_without_text_leaves_each_rows_text_in_doubt(self):
        found = self.verdict(["Rent", "Coffee", "Salary", "Fuel", ""])
        self.assertIsNone(found["passed"])
        self.assertIn("every row has some but the last", found["detail"])

    def test_text_on_every_row_reaches_both_ends(self):
        self.assertTrue(self.verdict(["Rent", "Coffee", "Salary", "Fuel", "Tea"])["passed"])

    def test_a_row_without_text_in_the_middle_is_no_sign_of_either_side(self):
        self.assertTrue(self.verdict(["Rent", "", "Salary", "Fuel", ""])["passed"])

    def test_a_heading_line_under_its_names_over_text_set_above_the_figures_is_in_doubt(self):
        # read above their figures, the rows' text starts right under the heading: a line
        # of the heading under its names, in that column, may be the first row's
        from dua.statements.table import wordlines
        from dua.statements.verification import owners

        names = [("Date", 40.0, 60.0, 50.0, 58.0, 8.0), ("Details", 110.0, 145.0, 50.0, 58.0, 8.0),
                 ("Amount", 310.0, 340.0, 50.0, 58.0, 8.0)]
        lower = [("Direct", 110.0, 140.0, 62.0, 70.0, 8.0), ("debit", 143.0, 168.0, 62.0, 70.0, 8.0)]
        items = [["furniture", 50.0, [], "Date Details Amount", names, wordlines.HEADING],
                 ["furniture", 62.0, [], "Direct debit", lower, wordlines.HEADING]]
        rows, top = [], 74.0
        for n, text in enumerate(["Shell Fuel", "Rent", "Coffee", "Salary", "Fuel"]):
            rows.append([[], [], 1, [(0, len(items)), (0, len(items) + 1)]])
            items.append(["text", top, [], text, [(text, 110.0, 160.0, top, top + 8, 8.0)], ""])
            items.append(["anchor", top + 10, [], "", [
                (f"0{n + 1}/03", 40.0, 70.0, top + 10, top + 18, 8.0),
                ("1.00", 310.0, 330.0, top + 10, top + 18, 8.0)], ""])
            top += 24
        s = {"columns": self.COLUMNS, "continuation": "above"}
        found = owners.check(rows, [items], s)
        self.assertIsNone(found["passed"])
        self.assertIn("'Direct debit'", found["detail"])
        self.assertTrue(owners.check(rows, [items[:1] + [["text"] + items[1][1:5] + [""]]
                                            + items[2:]], s)["passed"])
