"""What a key teaches must read the bank's next statement: each case learns from one page and
its key, then reads another page printed the way the next statement differs."""
from __future__ import annotations

import unittest

from dua.statements.table import dataframe
from dua.statements.learning import learning

from .test_analysis import rows
from .test_answer_key import frame
from ..table.test_engine import line

HEADING = line(40, (40, "Date"), (120, "Details"), (330, "Amount"))


class WrappedDateTest(unittest.TestCase):
    def test_a_date_wrapped_after_its_day_may_wrap_after_its_month_next_time(self):
        # 'september' wraps the day apart; the next statement's 'june' fits beside its day
        learned = HEADING + rows(
            [(40, "09"), (120, "Rent"), (330, "10.00")], [(40, "september")], [(40, "2024")],
            [(40, "12"), (120, "Coffee"), (330, "3.50")], [(40, "september")], [(40, "2024")],
            [(40, "15"), (120, "Bus"), (330, "1.50")], [(40, "september")], [(40, "2024")])
        key = frame([["09 september 2024", "Rent", 10.0], ["12 september 2024", "Coffee", 3.5],
                     ["15 september 2024", "Bus", 1.5]], ["Date", "Details", "Amount"])
        settings = learning.learn([learned], key)
        self.assertTrue(dataframe.build_frame([learned], settings).equals(key))
        following = HEADING + rows(
            [(40, "05 june"), (120, "Rent"), (330, "10.00")], [(40, "2025")],
            [(40, "08 june"), (120, "Tea"), (330, "2.50")], [(40, "2025")])
        self.assertEqual(dataframe.build_frame([following], settings)["Date"].tolist(),
                         ["05 june 2025", "08 june 2025"])


class YearFirstTest(unittest.TestCase):
    def test_a_short_year_printed_first_leaves_room_for_next_months_one_digit_days(self):
        # '24.10.17' to '24.10.30': the part that runs through the rows is the day, so the
        # next statement's '23.6.9' is a date, not a day 23 in the year 9
        learned = HEADING + rows(*[[(40, f"24.10.{d}"), (120, "Shop"), (330, f"{d}.00")]
                                   for d in (17, 21, 26, 30)])
        key = frame([[f"24.10.{d}", "Shop", float(d)] for d in (17, 21, 26, 30)],
                    ["Date", "Details", "Amount"])
        settings = learning.learn([learned], key)
        following = HEADING + rows(*[[(40, f"23.6.{d}"), (120, "Shop"), (330, "1.00")]
                                     for d in (9, 10, 14)])
        self.assertEqual(dataframe.build_frame([following], settings)["Date"].tolist(),
                         ["23.6.9", "23.6.10", "23.6.14"])


class RaggedTextTest(unittest.TestCase):
    def test_a_longer_description_stays_its_own_before_a_column_set_flush_left(self):
        # the references start at 300 on every row, the descriptions end where they end:
        # the next statement's longer one runs on past the middle of the gutter
        heading = line(40, (40, "Date"), (120, "Details"), (300, "Ref"), (400, "Amount"))
        learned = heading + rows(*[[(40, f"0{d}/02/25"), (120, text), (300, f"R{d}"),
                                    (400, "1.00")] for d, text in enumerate(
                                        ("Shop", "Bus fare", "Tea"), 1)])
        key = frame([[f"0{d}/02/25", text, f"R{d}", 1.0] for d, text in enumerate(
            ("Shop", "Bus fare", "Tea"), 1)], ["Date", "Details", "Ref", "Amount"])
        settings = learning.learn([learned], key)
        longer = "Transfer to savings for the month"  # ends at 287
        following = heading + rows([(40, "04/03/25"), (120, longer), (300, "R4"), (400, "2.00")])
        got = dataframe.build_frame([following], settings)
        self.assertEqual(got[["Details", "Ref"]].values.tolist(), [[longer, "R4"]])


class HeadingOnEveryPageTest(unittest.TestCase):
    @staticmethod
    def page(first: int, heading: bool = True, top: float = 60.0) -> list:
        return (HEADING if heading else []) + rows(
            *[[(40, f"{d:02d}/02/25"), (120, "Shop"), (330, f"{d}.00")]
              for d in range(first, first + 3)], top=top)

    def key(self, days) -> object:
        return frame([[f"{d:02d}/02/25", "Shop", float(d)] for d in days],
                     ["Date", "Details", "Amount"])

    def test_rows_running_on_to_a_page_without_the_heading_are_read(self):
        # the key's statement prints the heading over both its pages; the next one does not
        settings = learning.learn([self.page(1), self.page(4)], self.key(range(1, 7)))
        following = [self.page(1), self.page(4, heading=False, top=40.0)]
        self.assertEqual(len(dataframe.build_frame(following, settings)), 6)

    def test_dated_amounts_on_a_page_without_the_heading_the_key_leaves_out_keep_it_needed(self):
        notes = self.page(20, heading=False, top=40.0)  # a table of instalments, no rows
        settings = learning.learn([self.page(1), self.page(4), notes], self.key(range(1, 7)))
        self.assertFalse(settings["header_once"])
        self.assertEqual(len(dataframe.build_frame([self.page(1), self.page(4), notes],
                                                   settings)), 6)


class SecondTierTest(unittest.TestCase):
    def test_cells_wrapped_onto_the_second_line_stay_in_their_columns(self):
        # the reference is the second line's field; the dates' years and the details'
        # next words wrap onto that line beside it, each in its own column
        page = line(40, (40, "Date"), (100, "Value"), (160, "Ref No."), (220, "Details"),
                    (400, "Amount"))
        records = []
        for i in range(4):
            top = 60 + 24 * i
            page += line(top, (40, f"jun 0{i + 1}"), (100, f"jun 0{i + 2}"), (160, "Ref:"),
                         (220, "Card purchase"), (400, f"{i + 1}.00"))
            page += line(top + 10, (40, "2024"), (100, "2024"), (160, f"RF{i}X"),
                         (220, "Lyon" if i % 2 else ""))
            records.append([f"jun 0{i + 1} 2024", f"jun 0{i + 2} 2024", f"RF{i}X",
                            "Card purchase Lyon" if i % 2 else "Card purchase", i + 1.0])
        key = frame(records, ["Date", "Value", "Ref No.", "Details", "Amount"])
        settings = learning.learn([page], key)
        self.assertTrue(settings.get("second_line"))
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))


class SectionTitlesTest(unittest.TestCase):
    @staticmethod
    def statement(banner: str, out_top: float) -> list:
        """Two pages: 'Money in' under the heading, 'Money out' at ``out_top``; page two
        opens with the bank's banner over the heading printed again."""
        heading = line(50, (40, "Date"), (100, "Details"), (320, "Amount"))
        first = (heading + line(62, (40, "Money in"))
                 + rows([(40, "01/02/25"), (100, "Salary"), (320, "100.00")],
                        [(40, "02/02/25"), (100, "Refund"), (320, "5.00")], top=75)
                 + line(out_top, (40, "Money out")))
        if out_top < 200:
            first += rows([(40, "03/02/25"), (100, "Rent"), (320, "30.00")], top=out_top + 13)
        second = (line(30, (40, banner)) + heading
                  + rows([(40, "04/02/25"), (100, "Coffee"), (320, "20.00")],
                         [(40, "05/02/25"), (100, "Tea"), (320, "2.00")], top=65))
        return [first, second]

    def test_a_title_at_a_pages_foot_signs_the_rows_the_next_page_opens_with(self):
        pages = self.statement("Kestrel Bank - Mr R Mehta", 700)
        key = frame([["01/02/25", "Salary", 100.0], ["02/02/25", "Refund", 5.0],
                     ["04/02/25", "Coffee", -20.0], ["05/02/25", "Tea", -2.0]],
                    ["Date", "Details", "Amount"])
        settings = learning.learn(pages, key)
        self.assertEqual(dict(map(tuple, settings["sections"])).get("money out"), -1)
        self.assertNotIn("kestrel bank mr r mehta", dict(map(tuple, settings["sections"])))
        # the next statement: money out starts on page one and runs on over the banner
        following = self.statement("Kestrel Bank - Mr R Mehta", 110)
        self.assertEqual(dataframe.build_frame(following, settings)["Amount"].tolist(),
                         [100.0, 5.0, -30.0, -20.0, -2.0])

    def test_a_banner_between_rows_of_one_section_is_no_section(self):
        heading = line(50, (40, "Date"), (100, "Details"), (320, "Amount"))

        def pages(page_two_out: bool) -> list:
            """Money in on page one; page two opens with the banner, then money in goes
            on (or money out does), then the other section."""
            first = heading + line(62, (40, "Money in" if not page_two_out else "Money out")) \
                + rows([(40, "01/02/25"), (100, "Salary"), (320, "100.00")], top=75)
            second = line(30, (40, "Kestrel Bank - Mr R Mehta")) + heading + rows(
                [(40, "02/02/25"), (100, "Refund"), (320, "5.00")], top=65) \
                + line(80, (40, "Money out" if not page_two_out else "Money in")) \
                + rows([(40, "03/02/25"), (100, "Rent"), (320, "30.00")], top=93)
            return [first, second]

        key = frame([["01/02/25", "Salary", 100.0], ["02/02/25", "Refund", 5.0],
                     ["03/02/25", "Rent", -30.0]], ["Date", "Details", "Amount"])
        settings = learning.learn(pages(False), key)
        self.assertEqual(settings["sections"], [["money in", 1], ["money out", -1]])
        self.assertEqual(dataframe.build_frame(pages(True), settings)["Amount"].tolist(),
                         [-100.0, -5.0, 30.0])


class WrappedHeadingCellTest(unittest.TestCase):
    @staticmethod
    def statement(in_top: float) -> list:
        """'Txn' over 'Date' heads the dates; 'Money out' under the heading, 'Money in' at
        ``in_top`` (a page's foot: its rows open page two, under the heading again)."""
        heading = line(50, (40, "Txn"), (100, "Details"), (320, "Amount")) + line(58, (40, "Date"))
        first = (heading + line(70, (40, "Money out"))
                 + rows([(40, "01/02/25"), (100, "Rent"), (320, "30.00")],
                        [(40, "02/02/25"), (100, "Coffee"), (320, "5.00")], top=83)
                 + line(in_top, (40, "Money in")))
        if in_top < 200:
            first += rows([(40, "03/02/25"), (100, "Refund"), (320, "8.00")], top=in_top + 13)
        second = heading + rows([(40, "04/02/25"), (100, "Salary"), (320, "100.00")],
                                [(40, "05/02/25"), (100, "Interest"), (320, "2.00")], top=73)
        return [first, second]

    def test_a_heading_cell_wrapped_under_its_first_word_is_no_section_title(self):
        # 'Date' stands where the titles do, but the key's 'Txn Date' names it: the heading
        key = frame([["01/02/25", "Rent", -30.0], ["02/02/25", "Coffee", -5.0],
                     ["04/02/25", "Salary", 100.0], ["05/02/25", "Interest", 2.0]],
                    ["Txn Date", "Details", "Amount"])
        settings = learning.learn(self.statement(700), key)
        self.assertNotIn("date", dict(map(tuple, settings["sections"])))
        self.assertEqual(dataframe.build_frame(self.statement(110), settings)["Amount"].tolist(),
                         [-30.0, -5.0, 8.0, 100.0, 2.0])


if __name__ == "__main__":
    unittest.main()
