"""Section titles on hand-made words: the line right above each repetition of the table's
heading, and a group's heading inside the table that the next rows stand under."""
from __future__ import annotations

import unittest

from dua.statements.table import engine, sections

from .test_engine import HEADER, in_sections, line, row, settings


def three_columns():
    s = settings()
    s["columns"] = s["columns"][:3]
    return s


class GuessTest(unittest.TestCase):
    def test_titles_right_above_repeated_headings_name_the_sections(self):
        deposits = (line(38, (100, "Deposits")) + HEADER + row(65, "01/02/24", "Salary", "100.00")
                    + row(77, "02/02/24", "Refund", "5.00"))
        withdrawals = (line(38, (100, "Withdrawals")) + HEADER
                       + row(65, "03/02/24", "Rent", "30.00"))
        letterhead = line(15, (100, "Bank of Nowhere")) + HEADER  # far above its heading
        self.assertEqual(sections.guess([deposits, withdrawals, letterhead], three_columns()),
                         [["deposits", 1], ["withdrawals", 1]])

    def test_a_running_header_over_every_pages_heading_is_no_section(self):
        running = line(30, (100, "Bank of Nowhere Ms Okoye"))
        pages = [running + HEADER + row(65, "01/02/24", "Salary", "100.00"),
                 running + HEADER + row(65, "03/02/24", "Rent", "30.00"),
                 line(38, (100, "Deposits")) + HEADER + row(65, "04/02/24", "Fee", "3.00"),
                 line(44, (100, "Withdrawals")) + HEADER + row(71, "05/02/24", "Tea", "1.00")]
        s = three_columns()
        s["header"] = ["date description amount balance"]
        titles = [t for _, _, t in sections.titles(pages, s)]
        self.assertNotIn("bank of nowhere ms okoye", titles)
        self.assertIn("deposits", titles)

    def test_the_first_pages_letterhead_over_one_later_pages_heading_is_no_section(self):
        # the bank's and the holder's names printed again over page 2's heading only: the
        # page's own header, signing nothing, where a section's title would
        pages = [line(10, (100, "Bank of Nowhere")) + line(20, (100, "Ms Okoye"))
                 + line(38, (100, "Deposits")) + HEADER + row(65, "01/02/24", "Fee", "3.00"),
                 line(38, (100, "Bank of Nowhere - Ms Okoye")) + HEADER
                 + row(65, "03/02/24", "Rent", "30.00"),
                 line(44, (100, "Withdrawals")) + HEADER + row(71, "05/02/24", "Tea", "1.00")]
        s = three_columns()
        s["header"] = ["date description amount balance"]
        titles = [t for _, _, t in sections.titles(pages, s)]
        self.assertEqual(titles, ["deposits", "withdrawals"])

    def test_group_headings_inside_the_table_name_the_sections(self):
        page = (HEADER + line(62, (40, "DEPOSITS")) + row(74, "01/02/24", "Salary", "100.00")
                + line(81, (100, "ACME Ltd"))  # a wrapped description, over a row too
                + row(88, "02/02/24", "Refund", "5.00") + line(100, (40, "WITHDRAWALS"))
                + row(112, "03/02/24", "Rent", "30.00"))
        self.assertEqual(sections.titles([page], three_columns()),
                         [(0, 1, "deposits"), (0, 5, "withdrawals")])
        self.assertEqual(sections.guess([page], three_columns()),
                         [["deposits", 1], ["withdrawals", 1]])

    def test_a_title_at_a_pages_foot_heads_the_rows_the_next_page_opens_with(self):
        # the heading printed once: 'Money out' ends page 1, its rows open page 2 under
        # nothing but the page's own header (s418050 003)
        first = (HEADER + line(62, (40, "Money in")) + row(74, "01/02/24", "Salary", "100.00")
                 + row(86, "02/02/24", "Refund", "5.00") + line(100, (40, "Money out")))
        second = row(65, "03/02/24", "Rent", "30.00") + row(77, "04/02/24", "Tea", "1.50")
        s = three_columns()
        s.update(header=["date description amount balance"], header_once=True)
        self.assertEqual(sections.guess([first, second], s), [["money in", 1], ["money out", 1]])

    def test_a_line_beside_the_rows_titles_none_of_them(self):
        # a sidebar's lines between the rows' baselines, all right of the table
        page = (HEADER + row(65, "01/02/24", "Salary", "100.00")
                + line(71, (520, "These are your payments"))
                + row(77, "02/02/24", "Refund", "5.00") + line(83, (520, "and your refunds"))
                + row(89, "03/02/24", "Rent", "30.00"))
        self.assertEqual(sections.titles([page], three_columns()), [])

    def test_titles_set_right_of_the_rows_on_lines_of_their_own_name_the_sections(self):
        # 'Money in' and 'Money out' flush with the page's right margin, past every row's
        # words, each pushing the rows a line apart: the table's lines, not a sidebar's
        page = (HEADER + line(62, (520, "Money in")) + row(74, "01/02/24", "Salary", "100.00")
                + row(86, "02/02/24", "Refund", "5.00") + line(98, (520, "Money out"))
                + row(110, "03/02/24", "Rent", "30.00") + row(122, "04/02/24", "Tea", "1.50"))
        self.assertEqual(sections.guess([page], three_columns()),
                         [["money in", 1], ["money out", 1]])

    def test_a_sidebars_paragraph_between_the_heading_and_the_rows_titles_none_of_them(self):
        # a card guide's note beside the table, its lines over one another where the
        # heading stands well above the first row (r08 Westpac)
        page = (HEADER + line(58, (520, "A list of")) + line(66, (520, "all the rows"))
                + row(80, "01/02/24", "Salary", "100.00") + row(92, "02/02/24", "Rent", "5.00"))
        self.assertEqual(sections.titles([page], three_columns()), [])

    def test_a_title_under_a_column_the_heading_names_and_no_row_fills_is_no_sidebar(self):
        # 'Ref' over nothing, at the table's left: a title set there, under the heading,
        # stands left of every row's words, and inside the table its heading draws
        s = settings(date_column=1, header=["ref date description amount balance"])
        ref = {"name": "Ref", "x0": 0.0, "kind": "text"}
        s["columns"] = [ref, dict(s["columns"][0], x0=30.0)] + s["columns"][1:]
        page = (line(50, (5, "Ref"), (40, "Date"), (100, "Description"), (310, "Amount"),
                     (410, "Balance"))
                + line(62, (5, "Fees")) + row(74, "01/02/24", "Card", "3.00")
                + row(86, "02/02/24", "Cash", "2.00"))
        self.assertEqual([t for _, _, t in sections.titles([page], s)], ["fees"])

    def test_one_title_alone_is_no_sections(self):
        page = line(38, (100, "Transactions")) + HEADER + row(65, "01/02/24", "Rent", "30.00")
        self.assertEqual(sections.guess([page, page], three_columns()), [])



class TitleUnderHeadingTest(unittest.TestCase):
    def test_a_title_set_close_under_the_heading_where_later_titles_stand_is_no_part_of_it(self):
        from dua.statements.table import wordlines

        out = line(62, (40, "Money out"))
        page = (HEADER + out + row(80, "01/02/24", "Coffee", "3.50") + row(95, "02/02/24", "Tea", "1.50")
                + line(115, (40, "Money in")) + row(130, "03/02/24", "Salary", "900.00")
                + row(145, "04/02/24", "Refund", "9.00"))
        header = wordlines.group_lines(HEADER + out, 3.0)
        kept = sections.in_heading([page], settings(), header)
        self.assertEqual([[w[0] for w in ln] for ln in kept],
                         [["Date", "Description", "Amount", "Balance"]])
        # where no title stands further down, the heading's lines are its own
        alone = HEADER + out + row(80, "01/02/24", "Coffee", "3.50")
        self.assertIsNone(sections.in_heading([alone], settings(), header))

    def test_only_the_headings_lowest_line_may_be_the_first_title_never_a_tier(self):
        from dua.statements.table import wordlines

        upper = line(40, (40, "Booking"), (100, "Description"), (310, "Amount"), (410, "Balance"))
        tier, out = line(50, (40, "Date")), line(62, (40, "Money out"))
        page = (upper + tier + out + row(80, "01/02/24", "Coffee", "3.50")
                + row(95, "02/02/24", "Tea", "1.50") + line(115, (40, "Money in"))
                + row(130, "03/02/24", "Salary", "900.00"))
        s = settings(header=["booking description amount balance", "date", "money out"])
        kept = sections.in_heading([page], s, wordlines.group_lines(upper + tier + out, 3.0))
        self.assertEqual([[w[0] for w in ln] for ln in kept],
                         [["Booking", "Description", "Amount", "Balance"], ["Date"]])

    def test_a_lowest_line_with_a_title_right_under_it_is_the_headings_own(self):
        from dua.statements.table import wordlines

        # 'Trans.' over 'Date', then 'Money in': though 'Money out' further down stands
        # where 'Date' does, 'Date' heads no row, and a title heads rows
        upper = line(40, (40, "Trans."), (100, "Description"), (310, "Amount"), (410, "Balance"))
        tier = line(50, (40, "Date"))
        page = (upper + tier + line(62, (40, "Money in")) + row(80, "01/02/24", "Pay", "9.00")
                + line(95, (40, "Money out")) + row(110, "02/02/24", "Tea", "1.50"))
        header = wordlines.group_lines(upper + tier, 3.0)
        s = settings(header=["trans description amount balance", "date"])
        self.assertIsNone(sections.in_heading([page], s, header))
        # 'Money out' under the heading, over rows, heads them: a title
        out = line(50, (40, "Money out"))
        account = (upper + out + row(65, "01/02/24", "Tea", "1.50") + line(80, (40, "Money in"))
                   + row(95, "02/02/24", "Pay", "9.00"))
        s = settings(header=["trans description amount balance", "money out"])
        kept = sections.in_heading([account], s, wordlines.group_lines(upper + out, 3.0))
        self.assertEqual(len(kept), 1)

    def test_a_line_under_a_line_of_money_no_row_took_titles_nothing(self):
        # 'Refund' prints its money but no date this reading looks for: the line under it
        # may be its text, and a title it may be is no evidence of a section
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50") + line(77, (100, "Refund"),
                                                                     (320, "2.00"))
                + line(89, (100, "loan instalment")) + row(101, "03/02/24", "Cake", "2.00"))
        self.assertEqual(sections.titles([page], three_columns()), [])

    def test_a_title_set_flush_right_under_a_row_is_no_wrap_of_it(self):
        # 'Money in' a line under 'Tea', in the description's column but right of where its
        # text ends: a wrapped line starts at the cell's left edge, so this one is a title
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50") + row(77, "02/02/24", "Tea", "1.50")
                + line(89, (250, "Money in")) + row(101, "03/02/24", "Salary", "900.00"))
        s = three_columns()
        self.assertEqual([t for _, _, t in sections.titles([page], s)], ["money in"])
        rows = engine.extract([page], s)[0]  # no row takes it in, title or not
        self.assertEqual([r[0][1] for r in rows], ["Coffee", "Tea", "Salary"])

    def test_a_line_past_the_end_of_the_line_over_it_wraps_none_of_its_cells(self):
        from dua.statements.table import wordlines

        columns = settings()["columns"]  # Date, Description, Amount, Balance at 400
        above = line(65, (40, "01/02/24"), (100, "Tea"), (320, "3.00"))
        self.assertFalse(wordlines.past_its_end(line(77, (100, "at the station")), above, columns))
        self.assertTrue(wordlines.past_its_end(line(77, (200, "Money in")), above, columns))
        # in a column the row prints nothing in, no cell of it to wrap: it may be its text
        self.assertFalse(wordlines.past_its_end(line(77, (420, "Money in")), above, columns))

    def test_titles_set_in_a_face_no_row_is_set_in_name_the_sections_where_rows_go_on(self):
        # each stands where the row above's text goes on, or over a row's description
        s = settings(continuation="above")
        found = [t for _, _, t in sections.titles([in_sections("Bold")], s)]
        self.assertEqual(found, ["money out", "money in"])
        self.assertEqual(sections.titles([in_sections("Regular")], s), [])

    def test_a_wrapped_dates_year_over_a_row_titles_nothing(self):
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50") + line(75, (40, "2024"))
                + row(88, "02/02/24", "Tea", "1.50") + line(98, (40, "2024"))
                + row(111, "03/02/24", "Cake", "2.00"))
        self.assertEqual(sections.titles([page], three_columns()), [])


class FlippedTest(unittest.TestCase):
    def test_the_search_may_flip_each_section_or_all_of_them_at_once(self):
        # signed one way wrong, the other way right: from 'out +1, in -1' one flip leaves
        # both the same sign; only both at once reach 'out -1, in +1'
        s = dict(three_columns(), sections=[["money out", 1], ["money in", -1]])
        ways = [c["sections"] for c in sections.flipped(s, [])]
        self.assertEqual(ways, [[["money out", 1], ["money in", 1]],
                                [["money out", -1], ["money in", -1]],
                                [["money out", -1], ["money in", 1]]])
        self.assertTrue(all(c["columns"][2]["section_signed"]
                            for c in sections.flipped(s, [])))
