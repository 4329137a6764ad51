"""Layout analysis on hand-made words: rivers, header phrases, dates, candidate lines."""
from __future__ import annotations

import os
import tempfile
import unittest

import pandas as pd

from dua.pdf import read_document
from dua.statements.table import dataframe, engine, notation
from dua.statements.learning import analysis

from ..table.test_engine import line, set_in


def rows(*specs, top=80.0, pitch=12.0):
    out = []
    for i, cells in enumerate(specs):
        out += line(top + i * pitch, *cells)
    return out


def account(top, title, sections, gap=14):
    """One account's title, its heading, and each ``(title, rows)`` section under it, ``gap``
    under the heading: ``(words, the next line's top)``."""
    out = line(top, (40, title)) + line(top + 14, (40, "Details"), (200, "Date"), (320, "Amount"))
    y = top + 14 + gap
    for head, items in sections:
        out += line(y, (40, head))
        y += 12
        for text, day, amount in items:
            out += line(y, (40, text), (200, f"0{day}/08/2024"), (320, amount))
            y += 12
    return out, y


class CandidateLinesTest(unittest.TestCase):
    def test_lines_need_a_date_then_an_amount(self):
        page = rows([(40, "01/02/24"), (100, "Coffee"), (320, "3.50")],
                    [(40, "02/02/24"), (100, "Note only")],
                    [(40, "Ref 12.00"), (100, "no date")])
        self.assertEqual(len(analysis.candidate_lines([page])), 1)

    def test_a_summary_strip_in_another_date_format_is_left_out(self):
        strip = line(20, (40, "01-07-2023"), (200, "22,800.00"))
        page = strip + rows(*[[(40, f"0{d}/07"), (100, "Shop"), (320, "1.00")] for d in range(1, 6)])
        found = analysis.candidate_lines([page])
        self.assertEqual(len(found), 5)
        self.assertTrue(all(ln[0][0].endswith("/07") for _, ln in found))

    def test_summary_lines_are_not_candidates(self):
        page = rows([(40, "01/02/24"), (100, "Opening Balance"), (320, "3.50")],
                    [(40, "01/02/24"), (100, "Coffee"), (320, "3.50")])
        self.assertEqual(len(analysis.candidate_lines([page])), 1)

    def test_the_one_amount_under_a_name_set_flush_over_it_is_a_row(self):
        # a month of credits and one debit: its edge is no commoner than a summary's, but
        # the heading's 'Debit' ends where it does
        credits = [[(40, f"0{d}/06/2025"), (100, "Refund"), (360, "500.00")] for d in range(1, 8)]
        page = (line(50, (40, "Date"), (100, "Details"), (305, "Debit"), (360, "Credit"))
                + rows(*credits, [(40, "09/06/2025"), (100, "Fee"), (305, "92.20")], top=66))
        found = analysis.candidate_lines([page])
        self.assertEqual([ln[-1][0] for _, ln in found], ["500.00"] * 7 + ["92.20"])
        strip = line(20, (40, "01/06/2025"), (220, "9,999.00"))  # no name over it: a summary's
        self.assertEqual(len(analysis.candidate_lines([strip + page])), 8)

    def test_a_date_that_begins_inside_a_word_is_that_words_date(self):
        # the date match starts within "(12/03/2024)": before, no word was found for it
        page = rows(*[[(40, f"(1{d}/03/2024)"), (100, "Shop"), (320, "1.00")]
                      for d in range(1, 6)])
        found = analysis.candidate_lines([page])
        self.assertEqual([ln[0][0] for _, ln in found], [f"(1{d}/03/2024)" for d in range(1, 6)])


class ColumnsTest(unittest.TestCase):
    def test_rivers_split_the_columns(self):
        page = rows([(40, "01/02/24"), (100, "Coffee shop"), (320, "3.50")],
                    [(40, "02/02/24"), (100, "Rent"), (320, "1,200.00")])
        segments = analysis.find_segments([ln for _, ln in analysis.candidate_lines([page])])
        self.assertEqual(len(segments), 4)  # date, "Coffee"/"Rent", "shop", amount

    def test_unlabeled_segments_join_the_nearer_column(self):
        segments = [(40, 80), (100, 150), (200, 215), (220, 260)]
        header = [line(50, (40, "Date"), (100, "Details"), (225, "Balance"))]
        cols = analysis.build_columns(segments, header)
        self.assertEqual([c["name"] for c in cols], ["Date", "Details", "Balance"])
        self.assertEqual(cols[2]["x0"], 175.0)  # the 'Rs.' segment at 200 joined Balance

    def test_a_header_phrase_over_two_segments_makes_one_column(self):
        segments = [(30, 40), (45, 60), (65, 85), (150, 200)]
        header = [line(50, (30, "Txn Date"), (150, "Details"))]
        cols = analysis.build_columns(segments, header)
        self.assertEqual([c["name"] for c in cols], ["Txn Date", "Details"])

    def test_a_second_header_line_extends_the_names(self):
        page = (line(50, (40, "Date"), (100, "Details"), (310, "Debit"))
                + line(58, (310, "(INR)"))
                + rows([(40, "01/02/24"), (100, "Coffee"), (310, "3.50")],
                       [(40, "02/02/24"), (100, "Rent"), (310, "1,200.00")]))
        found = analysis.analyze_pages([page])
        self.assertEqual(found.column_headers, ["Date", "Details", "Debit (INR)"])
        self.assertEqual(len(dataframe.build_frame([page], found.settings)), 2)


class AnalyzeTest(unittest.TestCase):
    def test_dates_with_a_time_and_dashes_for_empty_amounts(self):
        page = (line(50, (40, "Date"), (150, "Details"), (300, "Debit"), (380, "Credit"))
                + rows([(40, "01/08/2024 10:32"), (150, "UPI"), (300, "-"), (380, "5.00")],
                       [(40, "02/08/2024 09:01"), (150, "ATM"), (300, "7.50"), (380, "-")],
                       [(40, "03/08/2024 18:45"), (150, "POS"), (300, "\u22122.25"), (380, "-")]))
        s = analysis.analyze_pages([page]).settings
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["01/08/2024 10:32", "02/08/2024 09:01",
                                                  "03/08/2024 18:45"])
        self.assertEqual(frame["Debit"].fillna(0).tolist(), [0.0, 7.5, -2.25])

    def test_read_again_from_its_rows_the_table_keeps_the_heading_it_found(self):
        # a title set under a two-tier heading; a dated total under the table looks like a
        # row to the first reading, which the rows then leave out
        page = (line(38, (40, "Trans."), (150, "Details"), (320, "Amount"))
                + line(47, (40, "Date")) + line(57, (43, "Money in"))
                + rows([(40, "01/08/24"), (150, "Salary"), (320, "900.00")],
                       [(40, "02/08/24"), (150, "Refund"), (320, "5.00")], top=72)
                + line(100, (43, "Money out"))
                + rows([(40, "03/08/24"), (150, "Rent"), (320, "300.00")],
                       [(40, "04/08/24"), (150, "Tea"), (320, "1.50")], top=112)
                + line(140, (40, "04/08/24"), (150, "Total money out"), (320, "301.50")))
        found = analysis.analyze_pages([page])
        self.assertEqual(found.column_headers, ["Trans. Date", "Details", "Amount"])

    def test_no_candidates_gives_empty_settings_and_the_raw_text(self):
        found = analysis.analyze_pages([line(10, (40, "Hello world"))])
        self.assertEqual((found.settings, found.raw_sample_text), ({}, ["Hello world"]))

    def test_settings_name_the_date_column_and_its_format(self):
        page = (line(50, (40, "Value"), (100, "Date"), (200, "Details"), (320, "Amount"))
                + rows([(40, "X1"), (100, "01 Aug 2024"), (200, "Coffee"), (320, "3.50")],
                       [(40, "X2"), (100, "12 Aug 2024"), (200, "Rent"), (320, "(9.00)")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s["date_column"], 1)
        self.assertEqual([c["kind"] for c in s["columns"]], ["text", "date", "text", "amount"])
        self.assertEqual(dataframe.build_frame([page], s)["Amount"].tolist(), [3.5, -9.0])


class DatePrintedOncePerDayTest(unittest.TestCase):
    def test_rows_without_a_date_take_the_date_above(self):
        page = (line(50, (40, "Date"), (100, "Details"), (310, "Paid out"), (400, "Balance"))
                + rows([(40, "01 Aug"), (100, "Coffee"), (310, "3.50"), (400, "96.50")],
                       [(100, "Bakery"), (310, "2.00"), (400, "94.50")],
                       [(100, "Bus"), (310, "1.50"), (400, "93.00")],
                       [(40, "02 Aug"), (100, "Lunch"), (310, "8.00"), (400, "85.00")],
                       [(100, "Cinema"), (310, "9.00"), (400, "76.00")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s.get("anchor"), "amount")
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), ["01 Aug"] * 3 + ["02 Aug"] * 2)
        self.assertEqual(dataframe.build_frame([page], dict(s, date_fill="blank"))["Date"].isna().sum(), 3)


class WhatTheColumnsPrintTest(unittest.TestCase):
    def test_a_word_ending_in_a_colon_before_every_value_is_a_label(self):
        page = (line(50, (40, "Date"), (100, "Reference"), (200, "Details"), (320, "Amount"))
                + rows([(40, "01/08/2024"), (100, "Ref: A1"), (200, "Coffee"), (320, "3.50")],
                       [(40, "02/08/2024"), (100, "Ref: B2"), (200, "Rent"), (320, "9.00")],
                       [(40, "03/08/2024"), (100, "Ref: C3"), (200, "Bus"), (320, "1.50")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s["columns"][1].get("labels"), ["Ref:"])
        self.assertEqual(dataframe.build_frame([page], s)["Reference"].tolist(), ["A1", "B2", "C3"])

    def test_a_second_column_of_dates_printed_once_a_day_is_carried_down(self):
        page = (line(50, (40, "Value"), (120, "Booked"), (200, "Details"), (320, "Amount"))
                + rows([(40, "01/08/2024"), (120, "01/08/2024"), (200, "Coffee"), (320, "3.50")],
                       [(40, "02/08/2024"), (200, "Rent"), (320, "9.00")],
                       [(40, "03/08/2024"), (120, "03/08/2024"), (200, "Bus"), (320, "1.50")],
                       [(40, "03/08/2024"), (200, "Tea"), (320, "2.50")]))
        s = analysis.analyze_pages([page]).settings
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Booked"].tolist(), ["01/08/2024", "01/08/2024"] + ["03/08/2024"] * 2)

    def test_a_key_with_an_empty_column_carries_the_days_column_it_names(self):
        # 'Branch' is blank on every row: the page's own reading counts it, the key's
        # columns read from the page do not, and the column carried down is 'Booked'
        # wherever each counts it
        page = (line(50, (40, "Value"), (100, "Branch"), (150, "Details"), (250, "Amount"),
                     (320, "Booked"))
                + rows([(40, "01/08/2024"), (150, "Coffee"), (250, "3.50"), (320, "01/08/2024")],
                       [(40, "02/08/2024"), (150, "Rent"), (250, "9.00")],
                       [(40, "03/08/2024"), (150, "Bus"), (250, "1.50"), (320, "03/08/2024")],
                       [(40, "03/08/2024"), (150, "Tea"), (250, "2.50")]))
        key = pd.DataFrame({"Value": ["01/08/2024", "02/08/2024", "03/08/2024", "03/08/2024"],
                            "Branch": [float("nan")] * 4,
                            "Details": ["Coffee", "Rent", "Bus", "Tea"],
                            "Amount": [3.5, 9.0, 1.5, 2.5],
                            "Booked": ["01/08/2024", "01/08/2024", "03/08/2024", "03/08/2024"]})
        s = analysis.analyze_pages([page], key).settings
        self.assertTrue(dataframe.build_frame([page], s).equals(key))

    def test_a_labels_line_between_accounts_leaves_the_heading_whole(self):
        # 'Opening balance Total debits' (a summary's labels, no digit) starts where the
        # heading's lower tier does: a title stands there, but the heading's names spread
        # over its columns are no title, and the second account's rows stay the table's
        page = (line(38, (400, "Running")) + line(50, (40, "Date"), (100, "Details"),
                                                   (320, "Amount"), (400, "Balance"))
                + rows([(40, "23/6/14"), (100, "Coffee"), (320, "3.50"), (400, "96.50")],
                       [(40, "23/6/15"), (100, "Rent"), (320, "9.00"), (400, "87.50")],
                       [(40, "Opening balance"), (150, "Total debits")],
                       [(40, "23/1/7"), (100, "Bus"), (320, "1.50"), (400, "48.50")],
                       [(40, "23/1/8"), (100, "Tea"), (320, "2.50"), (400, "46.00")]))
        key = pd.DataFrame({"Date": ["23/6/14", "23/6/15", "23/1/7", "23/1/8"],
                            "Details": ["Coffee", "Rent", "Bus", "Tea"],
                            "Amount": [3.5, 9.0, 1.5, 2.5], "Balance": [96.5, 87.5, 48.5, 46.0]})
        s = analysis.analyze_pages([page], key).learned
        self.assertTrue(dataframe.build_frame([page], s).equals(key))

    def test_sections_sign_the_amounts_where_the_accounts_titles_do_not(self):
        # each account's title heads money in and money out alike; 'Money in' and
        # 'Money out' (where a wrapped description would start) sign them
        first, y = account(40, "Current Account 1111", [
            ("Money in", [("Salary", 1, "900.00"), ("Refund", 2, "12.00")]),
            ("Money out", [("Rent", 3, "500.00"), ("Coffee", 4, "3.50"), ("Bus", 5, "2.00")])])
        second, _ = account(y + 20, "Savings Account 2222", [
            ("Money in", [("Interest", 1, "1.25"), ("Transfer", 6, "300.00"),
                          ("Gift", 7, "50.00")]),
            ("Money out", [("Fee", 8, "4.00")])])
        key = pd.DataFrame({"Details": ["Salary", "Refund", "Rent", "Coffee", "Bus", "Interest",
                                        "Transfer", "Gift", "Fee"],
                            "Date": [f"0{d}/08/2024" for d in (1, 2, 3, 4, 5, 1, 6, 7, 8)],
                            "Amount": [900.0, 12.0, -500.0, -3.5, -2.0, 1.25, 300.0, 50.0, -4.0]})
        s = analysis.analyze_pages([first + second], key).learned
        self.assertEqual(s["sections"], [["money in", 1], ["money out", -1]])
        self.assertTrue(dataframe.build_frame([first + second], s).equals(key))

    def test_a_title_under_the_first_heading_is_a_title_under_the_heading_printed_again(self):
        # 'Money out' set close under each account's heading, taken at first for the
        # heading's lowest line; 'Money in' between rows says it is the first title, and so
        # it is under the second account's heading, printed after the first's rows
        first, y = account(40, "Current Account 1111", [
            ("Money out", [("Rent", 3, "500.00"), ("Coffee", 4, "3.50")]),
            ("Money in", [("Salary", 5, "900.00"), ("Refund", 6, "12.00")])], gap=12)
        second, _ = account(y + 20, "Savings Account 2222", [
            ("Money out", [("Fee", 1, "4.00"), ("Tax", 2, "1.00"), ("Bus", 3, "2.00")]),
            ("Money in", [("Interest", 7, "1.25")])], gap=12)
        key = pd.DataFrame({"Details": ["Rent", "Coffee", "Salary", "Refund", "Fee", "Tax", "Bus",
                                        "Interest"],
                            "Date": [f"0{d}/08/2024" for d in (3, 4, 5, 6, 1, 2, 3, 7)],
                            "Amount": [-500.0, -3.5, 900.0, 12.0, -4.0, -1.0, -2.0, 1.25]})
        s = analysis.analyze_pages([first + second], key).learned
        self.assertEqual(s["sections"], [["money out", -1], ["money in", 1]])
        self.assertTrue(dataframe.build_frame([first + second], s).equals(key))

    def test_a_headings_lower_tier_over_each_pages_rows_decides_no_sign(self):
        # 'Date' under 'Txn' on each page, 'Money out' under the first: page two goes on
        # with money out under 'Date', then 'Money in'. The tier titles no row on page one
        # and rows signed as before on page two: it is quiet, and 'Money out' is not
        from collections import namedtuple

        from dua.statements.learning import signs

        at = namedtuple("Row", "page line")
        starts = [(0, 6, "date"), (0, 7, "money out"), (1, 2, "date"), (1, 9, "money in")]
        rows = [at(0, 8), at(0, 10), at(1, 3), at(1, 5), at(1, 10), at(1, 12)]
        negative = {"date": True, "money out": True, "money in": False}
        self.assertEqual(signs._signing_nothing(negative, starts, rows), {"date"})
        # a running header over each page between two pages of money in, the same
        starts = [(0, 1, "money in"), (1, 0, "bank plc"), (2, 0, "bank plc")]
        rows = [at(0, 2), at(1, 1), at(2, 1)]
        quiet = signs._signing_nothing({"money in": False, "bank plc": False}, starts, rows)
        self.assertEqual(quiet, {"bank plc"})

    def test_section_titles_set_flush_right_under_the_heading_sign_their_rows(self):
        # 'Money out' set close under the heading and 'Money in' between rows, each flush
        # with the right edge of a date column that stands at the table's right
        money = [("500.00", "Rent", -500.0), ("3.50", "Coffee", -3.5), ("2.00", "Bus", -2.0),
                 ("900.00", "Salary", 900.0), ("12.00", "Refund", 12.0)]
        page = line(50, (60, "Amount"), (122, "Narration"), (536, "Date")) + line(62, (543, "Money out"))
        for k, (printed, text, _) in enumerate(money):
            top = 74 + 12 * k + (12 if k >= 3 else 0)
            page += line(top, (70, printed), (122, text), (536, f"0{k + 3}/08/2024"))
        page += line(110, (548, "Money in"))
        key = pd.DataFrame({"Amount": [m[2] for m in money], "Narration": [m[1] for m in money],
                            "Date": [f"0{k + 3}/08/2024" for k in range(5)]})
        s = analysis.analyze_pages([page], key).learned
        self.assertTrue(dataframe.build_frame([page], s).equals(key))

    def test_without_a_key_two_words_after_the_amounts_sign_them_as_the_balance_moves(self):
        # 'S' (Soll) and 'H' (Haben) after each amount: which is money out, the running
        # balance says line by line
        page = (line(50, (40, "Date"), (120, "Details"), (260, "Amount"), (360, "Balance"))
                + rows([(40, "01/08/2024"), (120, "Opening"), (360, "100.00")],
                       [(40, "02/08/2024"), (120, "Coffee"), (260, "3.50 S"), (360, "96.50")],
                       [(40, "03/08/2024"), (120, "Salary"), (260, "50.00 H"), (360, "146.50")],
                       [(40, "04/08/2024"), (120, "Rent"), (260, "40.00 S"), (360, "106.50")],
                       [(40, "05/08/2024"), (120, "Refund"), (260, "6.50 H"), (360, "113.00")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual((s["drcr_signs"]["s"], s["drcr_signs"]["h"]), (-1, 1))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Amount"].dropna().tolist(), [-3.5, 50.0, -40.0, 6.5])

    def test_two_words_sign_the_amounts_where_a_balance_ends_each_day_only(self):
        # no two rows in a row print a balance: each day's amounts together reach it
        page = (line(50, (40, "Date"), (120, "Details"), (260, "Amount"), (360, "Balance"))
                + rows([(40, "01/08/2024"), (120, "Opening"), (360, "100.00")],
                       [(40, "02/08/2024"), (120, "Coffee"), (260, "3.50 S")],
                       [(40, "02/08/2024"), (120, "Salary"), (260, "50.00 H"), (360, "146.50")],
                       [(40, "03/08/2024"), (120, "Rent"), (260, "40.00 S")],
                       [(40, "03/08/2024"), (120, "Refund"), (260, "6.50 H"), (360, "113.00")],
                       [(40, "04/08/2024"), (120, "Bus"), (260, "2.00 S")],
                       [(40, "04/08/2024"), (120, "Tea"), (260, "1.00 S"), (360, "110.00")],
                       [(40, "05/08/2024"), (120, "Cake"), (260, "4.00 S")],
                       [(40, "05/08/2024"), (120, "Gift"), (260, "9.00 H"), (360, "115.00")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual((s["drcr_signs"]["s"], s["drcr_signs"]["h"]), (-1, 1))

    def test_codes_a_narrow_cell_wraps_under_some_amounts_still_sign_the_rest(self):
        # a third of the amounts are wide enough to push their code onto the next line:
        # their runs say nothing, the others still tell which code is money out
        columns = [{"name": "Amount", "x0": 0.0, "kind": "amount"},
                   {"name": "Balance", "x0": 100.0, "kind": "amount"}]
        amounts = ["3.50 S", "5000.00", "40.00 S", "6.50 H", "2000.00", "1.00 H", "2.00 S"]
        balances = ["96.50", "5096.50", "5056.50", "5063.00", "7063.00", "7064.00", "7062.00"]
        found = notation.code_signs([amounts, balances], columns, {"decimal": "."})
        self.assertEqual(found, (0, {"s": -1, "h": 1}))

    def test_a_row_the_dated_lines_left_out_counts_against_a_way_not_out_of_it(self):
        # the fourth row prints no date and was left out: its run misses either way
        columns = [{"name": "Amount", "x0": 0.0, "kind": "amount"},
                   {"name": "Balance", "x0": 100.0, "kind": "amount"}]
        amounts = ["3.50 S", "50.00 H", "40.00 S", "6.50 H", "2.00 S", "1.00 H"]
        balances = ["96.50", "146.50", "106.50", "121.00", "119.00", "120.00"]  # 8.00 H lost
        found = notation.code_signs([amounts, balances], columns, {"decimal": "."})
        self.assertEqual(found, (0, {"s": -1, "h": 1}))

    def test_a_value_date_printed_only_where_it_differs_keeps_its_blanks(self):
        page = (line(50, (40, "Date"), (120, "Value"), (200, "Details"), (320, "Amount"))
                + rows([(40, "01/08/2024"), (120, "02/08/2024"), (200, "Coffee"), (320, "3.50")],
                       [(40, "02/08/2024"), (200, "Rent"), (320, "9.00")],
                       [(40, "03/08/2024"), (120, "05/08/2024"), (200, "Bus"), (320, "1.50")],
                       [(40, "04/08/2024"), (200, "Tea"), (320, "2.50")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(dataframe.build_frame([page], s)["Value"].isna().sum(), 2)

    def test_descriptions_over_their_rows_are_read_above_when_the_first_row_shows_it(self):
        page = (line(50, (40, "Date"), (200, "Details"), (320, "Amount"))
                + rows([(200, "Coffee shop")], [(200, "Main Street")],
                       [(40, "01/08/2024"), (320, "3.50")], [(200, "Rent")],
                       [(40, "02/08/2024"), (320, "9.00")], [(200, "Bus")],
                       [(40, "03/08/2024"), (320, "1.50")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s["continuation"], "above")
        self.assertEqual(dataframe.build_frame([page], s)["Details"].tolist(),
                         ["Coffee shop Main Street", "Rent", "Bus"])

    def test_a_sign_code_under_the_last_rows_amount_is_no_text_under_the_table(self):
        # 'Dr' wrapped under each amount, the last row's too: the descriptions still
        # stand over their rows
        page = (line(50, (40, "Date"), (200, "Details"), (320, "Amount"))
                + rows([(200, "Coffee shop")], [(40, "01/08/2024"), (320, "3.50")],
                       [(330, "Dr")], [(200, "Rent")], [(40, "02/08/2024"), (320, "9.00")],
                       [(330, "Dr")], [(200, "Bus")], [(40, "03/08/2024"), (320, "1.50")],
                       [(330, "Dr")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s["continuation"], "above")
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Details"].tolist(), ["Coffee shop", "Rent", "Bus"])
        self.assertEqual(frame["Amount"].tolist(), [-3.5, -9.0, -1.5])

    def test_a_narrow_cell_wrapping_under_each_row_keeps_the_descriptions_above(self):
        # the reference wraps under every row, the last one's too, in its own column: the
        # descriptions over the rows still say they are printed above
        page = (line(50, (40, "Date"), (100, "Ref"), (200, "Details"), (320, "Amount"))
                + rows([(200, "Coffee shop")], [(40, "01/08/2024"), (100, "Ref:"), (320, "3.50")],
                       [(100, "AB123")], [(200, "Rent")],
                       [(40, "02/08/2024"), (100, "Ref:"), (320, "9.00")],
                       [(100, "CD456")], [(200, "Bus")],
                       [(40, "03/08/2024"), (100, "Ref:"), (320, "1.50")], [(100, "EF789")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s["continuation"], "above")
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Details"].tolist(), ["Coffee shop", "Rent", "Bus"])
        self.assertEqual([v.split()[-1] for v in frame["Ref"]], ["AB123", "CD456", "EF789"])


class StackedDatesTest(unittest.TestCase):
    DAYS = (3, 5, 9, 12, 17)

    def dates(self, month: str, line_step: float, row_step: float) -> list:
        """The dates read without a key, each stacked in a narrow cell: day, ``month``,
        year, a line each, ``line_step`` apart, rows ``row_step`` apart."""
        page = line(50, (40, "Date"), (100, "Details"), (300, "Amount"), (400, "Balance"))
        top = 64
        for n, day in enumerate(self.DAYS):
            page += (line(top, (40, str(day)), (100, f"Shop {n}"), (300, f"{n + 1}.00"),
                          (400, f"{100 - sum(range(n + 2)):.2f}"))
                     + line(top + line_step, (40, month))
                     + line(top + 2 * line_step, (40, "2023")))
            top += row_step
        s = analysis.analyze_pages([page]).settings
        return dataframe.build_frame([page], s)["Date"].tolist()

    def test_dates_stacked_over_three_lines_are_found_without_a_key(self):
        # no line prints a whole date, and the search for dated lines finds them folded
        self.assertEqual(self.dates("nov.", 8, 30), [f"{d} nov. 2023" for d in self.DAYS])

    def test_stacked_dates_outnumber_the_short_months_that_fit_on_one_line(self):
        # two narrow date columns: 'DEZEMBER' stacks under its day, 'OKTOBER' fits beside
        # it, so October's rows alone read as dated lines (few or many); the stacks must
        # still win
        for october in (2, 12):
            with self.subTest(october=october):
                self.assert_all_read(["OKTOBER"] * october + ["DEZEMBER"] * (october + 6))

    def assert_all_read(self, months: list) -> None:
        page = line(50, (40, "Posted"), (110, "Value"), (180, "Details"), (400, "Amount"))
        top = 64
        for n, month in enumerate(months):
            short, day = month == "OKTOBER", months[:n + 1].count(month) + 9
            page += line(top, (40, f"{day} {month}" if short else str(day)),
                         (110, f"{day + 1} {month}" if short else str(day + 1)),
                         (180, f"Shop {n}"), (400, f"{n + 1}.00"))
            if not short:
                page += line(top + 8, (40, month), (110, month))
            page += line(top + (8 if short else 16), (40, "2023"), (110, "2023"))
            top += 30
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(len(dataframe.build_frame([page], s)), len(months))

    def test_settings_learned_where_a_date_wrapped_after_its_month_read_one_wrapped_sooner(self):
        # learned from '11 June' over '2023'; the next statement's 'September' is longer
        # and its cell wraps after the day: '22' over 'September' over '2023'
        def page_of(dates):
            page = line(50, (40, "Date"), (100, "Details"), (300, "Amount"))
            top = 64
            for n, parts in enumerate(dates):
                page += line(top, (40, parts[0]), (100, f"Shop {n}"), (300, f"{n + 1}.00"))
                for k, part in enumerate(parts[1:]):
                    page += line(top + 9 * (k + 1), (40, part))
                top += 9 * len(parts) + 6
            return page
        june = [(f"{d} June", "2023") for d in (11, 12, 14, 16)]
        key = pd.DataFrame({"Date": [f"{d} June 2023" for d in (11, 12, 14, 16)],
                            "Details": [f"Shop {n}" for n in range(4)],
                            "Amount": [1.0, 2.0, 3.0, 4.0]})
        learned = analysis.analyze_pages([page_of(june)], key).learned
        september = page_of([(str(d), "September", "2023") for d in (22, 23, 26)])
        frame = dataframe.build_frame([september], learned)
        self.assertEqual(frame["Date"].tolist(), [f"{d} September 2023" for d in (22, 23, 26)])

    def test_stacked_dates_in_a_language_are_read_whatever_else_the_stacks_join(self):
        # 'Mei' is no English month: the notation is induced from the stacks, among them
        # a date's first two lines and one date's year over the next one's day
        self.assertEqual(self.dates("Mei", 10, 31), [f"{d} Mei 2023" for d in self.DAYS])

    def test_a_day_and_month_over_their_year_and_a_day_over_both_read_whole(self):
        # '5 FÉVR.' fits the narrow cell, its year under it; '10' over 'FÉVR.' over '2023'
        # does not; each row's description stands over its date line
        page = line(50, (40, "Date"), (100, "Details"), (300, "Amount"))
        top, days = 64, (5, 6, 7, 10, 13, 15)
        for n, day in enumerate(days):
            page += line(top, (100, f"Shop {n}"))
            parts = [f"{day} FÉVR.", "2023"] if day < 10 else [str(day), "FÉVR.", "2023"]
            page += line(top + 10, (40, parts[0]), (300, f"{n + 1}.00"))
            for k, part in enumerate(parts[1:]):
                page += line(top + 10 * (k + 2), (40, part))
            top += 10 * (len(parts) + 1)
        s = analysis.analyze_pages([page]).settings
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Date"].tolist(), [f"{d} FÉVR. 2023" for d in days])
        self.assertEqual(frame["Details"].tolist(), [f"Shop {n}" for n in range(len(days))])

    def test_a_rows_date_over_the_next_rows_is_no_stacked_date(self):
        # '07 august' over '08 august 25' a line apart: '07 august 08' reads as a date, but
        # its tail stands on a line that prints money, a row's
        from dua.statements.learning import stacked

        page = [w for n, d in enumerate((7, 8, 9, 12, 14, 17)) for w in line(
            64 + 10 * n, (40, f"{d:02d}"), (53, "august"), (88, "25"), (120, f"Shop {d}"),
            (300, f"{d}.00"))]
        self.assertIsNone(stacked.folded([page]))
        bare = [w for w in page if "." not in w[0]]  # no money: the same stacks fold
        self.assertIsNotNone(stacked.folded([bare]))

    def test_a_heading_word_over_a_column_no_row_fills_stays_in_the_heading(self):
        # 'Memo' at the page's edge, far from every row's words, set as the heading is
        page = (line(50, (40, "Date"), (100, "Details"), (300, "Amount"), (560, "Memo"))
                + rows([(40, "01/08/2024"), (100, "Coffee"), (300, "3.50")],
                       [(40, "02/08/2024"), (100, "Rent"), (300, "9.00")],
                       [(40, "03/08/2024"), (100, "Bus"), (300, "1.50")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(len(dataframe.build_frame([page], s)), 3)

    def test_a_lower_tier_under_a_column_no_row_fills_is_the_headings(self):
        # 'Chq' over 'No.', blank on every row: 'No.' ends past the rows' reach
        page = (line(50, (40, "Date"), (100, "Details"), (300, "Amount"), (372, "Chq"))
                + line(59, (372, "No."))
                + rows([(40, "01/08/2024"), (100, "Coffee"), (300, "3.50")],
                       [(40, "02/08/2024"), (100, "Rent"), (300, "9.00")],
                       [(40, "03/08/2024"), (100, "Bus"), (300, "1.50")]))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s["header"], ["date details amount chq", "no"])
        self.assertEqual(s["columns"][-1]["name"], "Chq No.")


    def test_a_name_where_the_rows_own_lines_begin_is_a_column_of_its_own(self):
        # 'Memo' over nothing, one space and a little from 'Details', whose text every row
        # prints on a line of its own: no first line shows the edge the second lines share
        page = line(50, (40, "Date"), (100, "Memo"), (125, "Details"), (300, "Amount"))
        for i, (text, amount) in enumerate((("Coffee shop", "3.50"), ("Rent", "900.00"),
                                            ("Bus fare", "1.50"), ("Book", "12.00"))):
            page += line(66 + 24 * i, (40, f"0{i + 1}/08/2024"), (300, amount))
            page += line(76 + 24 * i, (125, text))
        s = analysis.analyze_pages([page]).settings
        self.assertEqual([c["name"] for c in s["columns"]], ["Date", "Memo", "Details", "Amount"])
        frame = dataframe.build_frame([page], s)
        self.assertEqual(list(frame["Details"]), ["Coffee shop", "Rent", "Bus fare", "Book"])
        self.assertTrue(frame["Memo"].isna().all())


    def test_a_name_over_the_ragged_edge_of_money_set_wider_on_a_later_page_is_over_nothing(self):
        # Chromium set each page's table at its own widths: page 2's withdrawals end 2 pt
        # past the start of 'Chq No.', blank on every row
        first = (line(50, (40, "Date"), (100, "Details"), (250, "Withdrawals"), (312, "Chq"),
                      (360, "Balance")) + line(59, (312, "No."))
                 + rows([(40, "01/08/2024"), (100, "Coffee"), (285, "3.50"), (360, "96.50")],
                        [(40, "02/08/2024"), (100, "Rent"), (285, "9.00"), (360, "87.50")],
                        [(40, "03/08/2024"), (100, "Bus"), (285, "1.50"), (360, "86.00")]))
        # right-aligned at 314 on page 2, at 305 on page 1 ('Withdrawals' ends at 305)
        second = rows([(40, "04/08/2024"), (100, "Book"), (289, "12.00"), (360, "74.00")],
                      [(40, "05/08/2024"), (100, "Lunch"), (294, "4.00"), (360, "70.00")],
                      [(40, "06/08/2024"), (100, "Tea"), (294, "2.00"), (360, "68.00")])
        s = analysis.analyze_pages([first, second]).settings
        self.assertEqual([c["name"] for c in s["columns"]],
                         ["Date", "Details", "Withdrawals", "Chq No.", "Balance"])
        frame = dataframe.build_frame([first, second], s)
        self.assertEqual(list(frame["Withdrawals"]), [3.5, 9.0, 1.5, 12.0, 4.0, 2.0])

    def test_a_name_reaching_a_little_over_the_start_of_words_is_still_theirs(self):
        # 'Cheque / Ref. No.' read by OCR without its '/': 'Ref. No.' stands past most of
        # the references under 'Cheque', over their ends alone, and names them still
        page = line(50, (40, "Date"), (100, "Cheque"), (150, "Ref. No."), (300, "Amount"))
        page += rows([(40, "01/08/2024"), (100, "UPI21976241"), (300, "3.50")],
                     [(40, "02/08/2024"), (100, "IMPS2546297"), (300, "9.00")],
                     [(40, "03/08/2024"), (100, "UPI08549283"), (300, "1.50")])
        s = analysis.analyze_pages([page]).settings
        self.assertEqual([c["name"] for c in s["columns"]], ["Date", "Cheque Ref. No.", "Amount"])

    def test_a_title_past_the_headings_end_over_no_column_is_no_tier_of_it(self):
        # 'Money in' flush right under the heading, over nothing, and 'Money out' so set
        # further down among the rows: titles, not a name over an empty column
        page = line(50, (40, "Date"), (100, "Details"), (300, "Amount"))
        page += line(62, (536, "Money in"))
        page += rows([(40, "01/08/2024"), (100, "Salary"), (300, "900.00")],
                     [(40, "02/08/2024"), (100, "Refund"), (300, "12.00")], top=74)
        page += line(98, (531, "Money out"))
        page += rows([(40, "03/08/2024"), (100, "Rent"), (300, "500.00")],
                     [(40, "04/08/2024"), (100, "Bus"), (300, "2.00")], top=110)
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(s["header"], ["date details amount"])
        self.assertEqual([c["name"] for c in s["columns"]], ["Date", "Details", "Amount"])

    def test_a_bare_number_nearer_the_money_than_its_row_text_is_the_rows_text(self):
        # a cheque's number printed without a heading, in the river before 'Paid in':
        # the money never prints without decimals, so it is no amount
        page = (line(50, (40, "Date"), (100, "Details"), (300, "Paid in"), (380, "Paid out"))
                + rows([(40, "01/08/2024"), (100, "Cheque"), (240, "353332"), (380, "39.00")],
                       [(40, "02/08/2024"), (100, "Salary"), (300, "900.00")],
                       [(40, "03/08/2024"), (100, "Bus fare"), (380, "1.50")],
                       [(40, "04/08/2024"), (100, "Refund"), (300, "12.00")]))
        frame = dataframe.build_frame([page], analysis.analyze_pages([page]).settings)
        self.assertEqual(frame["Details"][0], "Cheque 353332")
        self.assertTrue(pd.isna(frame["Paid in"][0]))


    def test_a_bracket_set_off_from_a_name_qualifies_it_and_names_nothing_alone(self):
        # a scan's boxes hug the ink: '(in' stands further from 'Amount' than a space, and
        # taken for a name of its own, 'Amount' went to the reference beside the money
        page = (line(50, (40, "Date"), (100, "Details"), (400, "Amount"), (438, "(in"),
                     (456, "Rs.)"))
                + rows([(40, "01/08/2024"), (100, "Coffee"), (420, "3.50")],
                       [(40, "02/08/2024"), (100, "Payment REF"), (250, "820989835"),
                        (410, "900.00")],
                       [(40, "03/08/2024"), (100, "Bus"), (420, "1.50")],
                       [(40, "04/08/2024"), (100, "Tea"), (420, "2.50")], top=66))
        frame = dataframe.build_frame([page], analysis.analyze_pages([page]).settings)
        self.assertEqual(list(frame.columns), ["Date", "Details", "Amount (in Rs.)"])
        self.assertEqual(frame["Details"][1], "Payment REF 820989835")


class DescriptionsOverRowsTest(unittest.TestCase):
    def test_the_first_rows_text_right_under_the_heading_is_no_second_line_of_its_name(self):
        # each row's description stands over its figures; the first one, right under the
        # heading, would have fitted beside 'Details' on the heading's line: it is no tier
        page = line(50, (40, "Date"), (120, "Details"), (330, "Amount"), (420, "Balance"))
        texts = ["Direct debit Shell Fuel", "ATM withdrawal Pune", "Cheque paid 820452",
                 "Transfer to Anita Rao"]
        top = 62
        for n, text in enumerate(texts):
            page += (line(top, (120, text))
                     + line(top + 13, (40, f"0{n + 1}/08/2024"), (340, f"{n + 1}.00"),
                            (420, f"{100 - sum(range(2, n + 3)):.2f}")))
            top += 27
        s = analysis.analyze_pages([page]).settings
        self.assertEqual(dataframe.build_frame([page], s)["Details"].tolist(), texts)


class LongestRowTest(unittest.TestCase):
    def test_a_rows_text_longer_than_any_others_widens_its_column(self):
        # one description runs on to near the value date: too rare to be a segment of its
        # own, it still moves the gutter past its last word
        page = line(50, (40, "Date"), (100, "Details"), (330, "Value"), (380, "Amount"))
        texts = ["Coffee", "Rent", "Tea", "Salary", "Card fee", "Fuel"]
        for n, text in enumerate(texts * 6):
            page += line(62 + 12 * n, (40, f"{n % 28 + 1:02d}/02"), (100, text),
                         (330, f"{n % 28 + 1:02d}/03"), (390, f"{n + 1}.00"))
        page += line(62 + 12 * 36, (40, "28/02"), (100, "Bill payment broadband for the month of may"),
                     (330, "01/03"), (390, "9.00"))
        s = analysis.analyze_pages([page]).settings
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Details"].iloc[-1], "Bill payment broadband for the month of may")
        self.assertEqual(frame["Value"].iloc[-1], "01/03")


class FirstTextUnderTheHeadingTest(unittest.TestCase):
    def details(self, texts: list) -> list:
        """Each row's text, two lines, over its figures, read without a key."""
        page = line(50, (40, "Date"), (120, "Details"), (330, "Amount"), (420, "Balance"))
        top = 61
        for n, (first, second) in enumerate(texts):
            page += (line(top, (120, first)) + line(top + 10, (120, second))
                     + line(top + 21, (40, f"0{n + 1}/08/2024"), (340, f"{n + 1}.00"),
                            (420, f"{100 - sum(range(2, n + 3)):.2f}")))
            top += 33
        s = analysis.analyze_pages([page]).settings
        return dataframe.build_frame([page], s)["Details"].tolist()

    def test_the_first_line_of_the_first_rows_text_is_no_line_of_the_heading(self):
        # the first line of the first one stands right under the heading's names, the
        # second over the first row's figures
        texts = [("Direct debit", "Shell Fuel"), ("ATM withdrawal", "Pune branch"),
                 ("Cheque paid", "820452"), ("Transfer to", "Anita Rao"), ("Interest", "May")]
        self.assertEqual(self.details(texts), [" ".join(t) for t in texts])

    def test_a_first_rows_text_line_with_more_words_than_the_headings_names_is_no_name(self):
        texts = [("Direct debit", "ref 44CB payment towards loan for May"),
                 ("ATM withdrawal", "Pune"), ("Cheque paid", "820452"),
                 ("Transfer to", "Anita Rao"), ("Interest", "May")]
        self.assertEqual(self.details(texts), [" ".join(t) for t in texts])


class CentredCellsTest(unittest.TestCase):
    """A ruled table whose wrapped descriptions are centred on the date line."""

    ROWS = (("01/08/2024", ["Salary credit ACME Ltd"], "", "5,000.00", "15,000.00"),
            ("02/08/2024", ["UPI transfer to", "Ravi Kumar rent Aug"], "12,000.00", "", "3,000.00"),
            ("03/08/2024", ["ATM cash"], "500.00", "", "2,500.00"),
            ("04/08/2024", ["NEFT from", "Mother savings"], "", "1,000.00", "3,500.00"),
            ("05/08/2024", ["Card purchase", "Big Bazaar store", "Mumbai"], "250.00", "", "3,250.00"))

    def render(self) -> str:
        from fixtures.pdfwriter import PDF

        pdf = PDF()
        page = pdf.add_page()
        for x, name, align in ((40, "Date", "left"), (120, "Description", "left"),
                               (380, "Debit", "right"), (460, "Credit", "right"),
                               (560, "Balance", "right")):
            page.text(x, 80, name, "Helvetica-Bold", 9, align=align)
        y = 100
        for date, desc, debit, credit, balance in self.ROWS:
            height = 11 * len(desc)
            middle = y + height / 2 + 3
            page.text(40, middle, date, size=9)
            for k, text in enumerate(desc):
                page.text(120, middle if len(desc) == 1 else y + 8 + 11 * k, text, size=9)
            for x, value in ((380, debit), (460, credit), (560, balance)):
                if value:
                    page.text(x, middle, value, size=9, align="right")
            page.line(40, y + height + 4, 560, y + height + 4)
            y += height + 8
        path = os.path.join(self.tmp, "centred.pdf")
        with open(path, "wb") as fh:
            fh.write(pdf.to_bytes())
        return path

    def test_wrapped_lines_join_the_nearest_date_line(self):
        with tempfile.TemporaryDirectory() as self.tmp:
            pages = analysis.pages_from_document(read_document(self.render()))
        s = analysis.analyze_pages(pages).settings
        self.assertEqual(s["continuation"], "nearest")
        frame = dataframe.build_frame(pages, s)
        self.assertEqual(frame["Description"].tolist(), [" ".join(r[1]) for r in self.ROWS])
        self.assertEqual(frame["Debit"].fillna(0).tolist(), [0.0, 12000.0, 500.0, 0.0, 250.0])



def right(x1, text):
    """A word right-aligned on ``x1``, for ``line``."""
    return (x1 - 5.0 * len(text), text)


class CurrencyMarkTest(unittest.TestCase):
    def test_a_mark_glued_to_three_amounts_is_learned(self):
        for amount in ([(300, "R2"), (312, "922.27")], [(300, "R234.00")]):
            with self.subTest(amount=amount):
                page = rows(*[[(40, f"0{d}/02/24"), (100, "Payment")] + amount
                              for d in range(1, 4)])
                self.assertEqual(notation.currency_codes([page], 3.0), ["R"])

    def test_letters_glued_to_a_reference_number_are_no_mark(self):
        page = rows(*[[(40, f"0{d}/02/24"), (100, "AB12345678"), (300, "12.00")]
                      for d in range(1, 5)])
        self.assertEqual(notation.currency_codes([page], 3.0), [])


class HeadingTiersTest(unittest.TestCase):
    LOWER = line(50, (40, "DATE"), (100, "DATE"), (160, "DESCRIPTION"), (320, "AMOUNT"))
    ROWS = rows([(40, "01/02/24"), (100, "02/02/24"), (160, "Coffee"), (320, "3.50")],
                [(40, "02/02/24"), (100, "03/02/24"), (160, "Tea"), (320, "1.50")], top=65)

    def heading(self, above):
        page = above + self.LOWER + self.ROWS
        found = analysis.candidate_lines([page])
        segments = analysis.find_segments([ln for _, ln in found])
        return analysis.find_header([page], found[0], segments), segments

    def test_a_tier_whose_words_stand_over_the_next_tiers_names_two_columns(self):
        upper = line(40, (40, "TRANSACTION"), (100, "POSTING"))  # one space apart
        header, segments = self.heading(upper)
        self.assertEqual([[w[0] for w in ln] for ln in header],
                         [["TRANSACTION", "POSTING"], ["DATE", "DATE", "DESCRIPTION", "AMOUNT"]])
        self.assertEqual([c["name"] for c in analysis.build_columns(segments, header)],
                         ["TRANSACTION DATE", "POSTING DATE", "DESCRIPTION", "AMOUNT"])

    def test_a_first_rows_text_touching_a_lower_tier_of_another_cell_is_no_tier(self):
        # 'Date' under 'POSTING' is a tier; 'Coffee shop' under 'DESCRIPTION', two lines
        # down with nothing between, is the first row's description printed over it
        upper = line(38, (40, "POSTING"), (160, "DESCRIPTION"), (320, "AMOUNT"))
        page = (upper + line(47, (40, "DATE")) + line(58, (160, "Coffee shop"))
                + rows([(40, "01/02/24"), (320, "3.50")], [(40, "02/02/24"), (320, "1.50")],
                       top=70))
        found = analysis.candidate_lines([page])
        segments = analysis.find_segments([ln for _, ln in found])
        header = analysis.find_header([page], found[0], segments)
        self.assertEqual([[w[0] for w in ln] for ln in header],
                         [["POSTING", "DESCRIPTION", "AMOUNT"], ["DATE"]])

    def test_a_first_rows_description_set_in_the_rows_face_under_the_heading_is_no_tier(self):
        # the heading in bold; the first row's description, printed over its amounts right
        # under the heading's last name, is set in the regular face of every row's lines
        heading = line(50, (40, "Amount"), (100, "Date"), (160, "Details"))
        page = []
        for i, (text, amount, day) in enumerate((("Coffee", "3.50", "01/02/24"),
                                                 ("Tea", "1.50", "02/02/24"),
                                                 ("Cake", "2.00", "03/02/24"))):
            page += line(60 + 22 * i, (160, text)) + line(70 + 22 * i, (40, amount),
                                                           (100, day))
        for face, tiers in (("Bold", 1), ("Regular", 2)):  # set as the rows are: a tier
            with self.subTest(heading_face=face):
                words = set_in(face, heading) + set_in("Regular", page)
                found = analysis.candidate_lines([words])
                segments = analysis.find_segments([ln for _, ln in found])
                self.assertEqual(len(analysis.find_header([words], found[0], segments)), tiers)

    def test_a_heading_over_the_first_columns_of_long_descriptions_is_found(self):
        # the descriptions run on far to the right, a word space at a time: their last
        # words make segments of their own, and the heading, narrower than half the rows'
        # width, still spans the table from its first column to its last
        page = line(50, (40, "Date"), (120, "Amount"), (180, "Details"))
        for n, tail in enumerate(("for the month", "", "as agreed", "", "for the month")):
            words = line(65 + 12 * n, (40, f"0{n + 1}/02/24"), (120, f"{n + 1}.50"),
                         (180, "Card purchase with a long description of the payment"))
            if tail:  # a word space on, past the longest description's end
                end = max(w[2] for w in words)
                words += line(65 + 12 * n, (end + 2.0, tail))
            page += words
        found = analysis.candidate_lines([page])
        segments = analysis.find_segments([ln for _, ln in found])
        header = analysis.find_header([page], found[0], segments)
        self.assertEqual([[w[0] for w in ln] for ln in header], [["Date", "Amount", "Details"]])

    def test_a_sidebars_words_on_the_headings_line_name_no_column(self):
        # a guide's notes beside the table share the heading's baseline
        page = (line(50, (600, "Your transactions")) + self.LOWER + self.ROWS
                + line(58, (600, "are listed here")))
        found = analysis.candidate_lines([page])
        segments = analysis.find_segments([ln for _, ln in found])
        header = analysis.find_header([page], found[0], segments)
        self.assertEqual([[w[0] for w in ln] for ln in header],
                         [["DATE", "DATE", "DESCRIPTION", "AMOUNT"]])

    def test_a_name_over_descriptions_printed_above_the_rows_stays_in_reach(self):
        # the rows' first lines start far right of 'Details'; the lines over them, in the
        # rows' own size, print the descriptions under it
        heading = line(50, (10, "Details"), (200, "Amount"), (260, "Date"))
        page = heading
        for i, (text, amount, day) in enumerate((("Coffee", "3.50", "01/02/24"),
                                                 ("Tea", "1.50", "02/02/24"))):
            page = page + line(62 + 24 * i, (10, text)) + line(72 + 24 * i, (200, amount),
                                                                (260, day))
        found = analysis.candidate_lines([page])
        segments = analysis.find_segments([ln for _, ln in found])
        header = analysis.find_header([page], found[0], segments)
        self.assertEqual([w[0] for w in header[0]], ["Details", "Amount", "Date"])

    def test_a_tier_naming_descriptions_printed_above_the_rows_far_right_is_the_headings(self):
        # money first, the date after it, each row's description on a line over them, far
        # right of the rows' first lines: the upper tier's 'Narration' stands over it
        upper = line(38, (40, "Transaction"), (110, "Running"), (160, "Booking"),
                     (330, "Narration"))
        lower = line(47, (55, "Amount"), (112, "Balance"))
        page = upper + lower
        for i, (text, amount, balance, day) in enumerate((
                ("Coffee", "3.50", "96.50", "01/02/24"), ("Tea", "1.50", "95.00", "02/02/24"),
                ("Rent for the month of may", "9.00", "86.00", "03/02/24"))):
            page += line(58 + 24 * i, (330, text)) + line(68 + 24 * i, (65, amount),
                                                          (115, balance), (160, day))
        found = analysis.candidate_lines([page])
        segments = analysis.find_segments([ln for _, ln in found])
        header = analysis.find_header([page], found[0], segments)
        self.assertEqual([w[0] for w in header[0]], ["Transaction", "Running", "Booking",
                                                     "Narration"])

    def test_an_accounts_number_right_over_the_heading_is_no_tier(self):
        # 'Account 3892 5329' set close over 'DESCRIPTION', within its cell: the account's
        # title, whose numbers name no column
        header, _ = self.heading(line(40, (160, "Account 3892 5329")))
        self.assertEqual([[w[0] for w in ln] for ln in header],
                         [["DATE", "DATE", "DESCRIPTION", "AMOUNT"]])

    def test_a_title_over_the_upper_tier_across_two_of_its_cells_is_no_tier(self):
        # the names' line is the lower one ('Balance', 'Amount'); the title, right over the
        # upper tier, stands over 'Running' and 'Trans. Date' at once
        title = line(28, (40, "CurrentAccount6846"))
        upper = line(38, (60, "Running"), (110, "Trans."), (140, "Date"), (200, "Details"),
                     (330, "Transaction"))
        lower = line(47, (60, "Balance"), (340, "Amount"))
        page = title + upper + lower + rows(
            [(55, "18,015.82"), (110, "03.09.2023"), (200, "Coffee"), (345, "3.50")],
            [(55, "18,012.32"), (110, "04.09.2023"), (200, "Tea"), (345, "1.50")],
            [(55, "18,010.82"), (110, "05.09.2023"), (200, "Cake"), (345, "2.00")], top=60)
        found = analysis.candidate_lines([page])
        segments = analysis.find_segments([ln for _, ln in found])
        header = analysis.find_header([page], found[0], segments)
        self.assertEqual([ln[0][0] for ln in header], ["Running", "Balance"])

    def test_a_sections_title_over_the_heading_is_no_tier_of_it(self):
        header, _ = self.heading(line(40, (70, "Checking account activity")))
        self.assertEqual([[w[0] for w in ln] for ln in header],
                         [["DATE", "DATE", "DESCRIPTION", "AMOUNT"]])


class HeadingNamesInOrderTest(unittest.TestCase):
    def test_two_names_over_one_segment_of_money_name_two_columns_in_order(self):
        # 'Money out' set off to the left of its values, 'Money in' over the money out.
        header = [line(50, (40, "Date"), (100, "Description"), (225, "Money out"),
                       (283, "Money in"), (420, "Balance"))]
        segments = [(40, 80), (100, 200), (280, 310), (340, 370), (420, 460)]
        columns = analysis.build_columns(segments, header, [False, False, True, True, True])
        self.assertEqual([c["name"] for c in columns],
                         ["Date", "Description", "Money out", "Money in", "Balance"])

    def test_two_names_over_one_segment_of_words_are_one_name(self):
        header = [line(50, (40, "Date"), (100, "TRANSACTION"), (165, "DESCRIPTION"),
                       (320, "Amount"), (400, "Balance"))]
        segments = [(40, 80), (100, 230), (250, 280), (310, 350), (400, 440)]
        columns = analysis.build_columns(segments, header, [False, False, False, True, True])
        self.assertEqual([c["name"] for c in columns],
                         ["Date", "TRANSACTION DESCRIPTION", "Amount", "Balance"])


class EmptyColumnTest(unittest.TestCase):
    def test_a_heading_cell_over_nothing_beside_headed_segments_names_an_empty_column(self):
        header = [line(50, (0, "Branch"), (40, "Date"), (100, "Description"),
                       (320, "Amount"))]
        segments = [(40, 80), (100, 200), (310, 350)]
        columns = analysis.build_columns(segments, header, [False, False, True])
        self.assertEqual([c["name"] for c in columns], ["Branch", "Date", "Description", "Amount"])
        # text running on over it stays in its own cell (``wordlines.split_cells``)
        self.assertEqual([bool(c.get("empty")) for c in columns], [True, False, False, False])

    def test_two_names_set_wider_apart_than_the_headings_word_space_are_two(self):
        # 'Memo' and 'Description' 6 pt apart, where the names' own words are 3 pt apart:
        # two names, though 6 pt is under the size-based word gap
        header = [[("Trans.", 43, 71, 50, 59.5), ("Date", 73, 94, 50, 59.5),
                   ("Ref", 107, 122, 50, 59.5), ("No.", 125, 140, 50, 59.5),
                   ("Memo", 180, 207, 50, 59.5), ("Description", 213, 265, 50, 59.5),
                   ("Paid", 439, 459, 50, 59.5), ("out", 462, 476, 50, 59.5)]]
        segments = [(43, 92), (107, 165), (430, 476)]
        columns = analysis.build_columns(segments, header, [False, False, True])
        self.assertEqual([c["name"] for c in columns],
                         ["Trans. Date", "Ref No.", "Memo", "Description", "Paid out"])

    def test_a_name_wrapped_onto_two_lines_over_nothing_names_one_empty_column(self):
        # 'Chq' over 'No.' beside 'Trans.' over 'Date': the wrapped name is one cell, and
        # no part of the next column's name
        header = [line(40, (10, "Chq"), (40, "Trans.")),
                  line(50, (10, "No."), (40, "Date"), (100, "Description"), (320, "Amount"))]
        segments = [(40, 80), (100, 200), (310, 350)]
        columns = analysis.build_columns(segments, header, [False, False, True])
        self.assertEqual([c["name"] for c in columns],
                         ["Chq No.", "Trans. Date", "Description", "Amount"])

    def test_a_name_right_of_a_named_segment_over_nothing_names_a_column_of_its_own(self):
        # 'Details' over descriptions printed on the lines above the rows' first lines,
        # beside a reference the rows' first lines print; the money's names stand apart
        header = [line(50, (40, "Date"), (100, "Ref"), (160, "Details"), (262, "Amount"))]
        segments = [(40, 80), (100, 150), (280, 310)]
        columns = analysis.build_columns(segments, header, [False, False, True])
        self.assertEqual([c["name"] for c in columns], ["Date", "Ref", "Details", "Amount"])

    def test_a_column_of_text_printed_over_the_rows_reaches_as_far_as_its_lines(self):
        # no row's first line prints under 'Details': its text, on lines of its own, runs
        # far past its name, and the next column starts only after it
        header = [line(50, (40, "Details"), (300, "Date"), (400, "Amount"))]
        wrapped = [line(62, (40, "reference payment towards the loan for the month"))]
        columns = analysis.build_columns([(300, 340), (400, 440)], header, [False, True],
                                         None, wrapped)
        self.assertEqual([c["name"] for c in columns], ["Details", "Date", "Amount"])
        self.assertGreater(columns[1]["x0"], wrapped[0][-1][2])

    def test_a_segment_a_word_space_from_a_named_one_leaves_every_segment_named(self):
        # a few long descriptions run on past a narrow river: their words are the named
        # column's, so 'Memo' over nothing still names an empty column of its own
        header = [line(50, (40, "Date"), (96, "Memo"), (125, "Description"), (320, "Amount"))]
        segments = [(40, 80), (125, 200), (202, 215), (310, 350)]
        columns = analysis.build_columns(segments, header, [False, False, False, True])
        self.assertEqual([c["name"] for c in columns], ["Date", "Memo", "Description", "Amount"])

    def test_segments_run_on_a_word_space_from_each_other_are_all_the_named_columns(self):
        # one long description runs on past two narrow rivers: both segments are its words,
        # so 'Chq' over 'No.' over nothing still names an empty column of its own
        header = [line(50, (40, "Balance"), (114, "Details"), (427, "Chq"), (451, "Booking")),
                  line(59, (427, "No."), (451, "Date"))]
        segments = [(40, 100), (114, 354), (356, 386), (387, 406), (451, 470)]
        columns = analysis.build_columns(segments, header, [True, False, False, False, False])
        self.assertEqual([c["name"] for c in columns],
                         ["Balance", "Details", "Chq No.", "Booking Date"])

    def test_names_set_off_to_the_side_of_unheaded_segments_still_name_them(self):
        # left-aligned names over right-aligned money: no segment is left for an empty column
        header = [line(50, (40, "Date"), (100, "Description"), (262, "Out"), (322, "In"))]
        segments = [(40, 80), (100, 200), (280, 310), (340, 370)]
        columns = analysis.build_columns(segments, header, [False, False, True, True])
        self.assertEqual([c["name"] for c in columns], ["Date", "Description", "Out", "In"])


    def test_a_name_over_nothing_a_gap_before_the_next_names_left_edge_is_its_own(self):
        # 'Memo' (never filled) a little left of 'Date', which starts where the dates do:
        # the rows' segments before joining show the edge the heading's gap stands at
        header = [line(50, (14, "Memo"), (40, "Date"), (100, "Description"), (320, "Amount"))]
        segments = [(40, 80), (100, 200), (310, 350)]
        raw = [(40, 50), (52, 80), (100, 200), (310, 350)]
        names = [c["name"] for c in analysis.build_columns(segments, header, [False, False, True],
                                                           raw)]
        self.assertEqual(names, ["Memo", "Date", "Description", "Amount"])

    def test_a_name_over_nothing_a_gap_after_the_last_names_right_edge_is_its_own(self):
        # 'Amount' ends where its right-aligned money ends; 'Memo' (never filled) beside it
        header = [line(50, (45, "Amount"), (80, "Memo"), (120, "Description"))]
        segments = [(40, 75), (120, 200)]
        names = [c["name"] for c in analysis.build_columns(segments, header, [True, False],
                                                           segments)]
        self.assertEqual(names, ["Amount", "Memo", "Description"])


class SegmentsTest(unittest.TestCase):
    SEGMENTS = [(40, 80), (100, 130), (133, 153)]

    def test_segments_one_space_apart_on_every_row_are_one_column(self):
        lines = [line(65, (40, "01/02/24"), (100, "Coffee shop")),
                 line(77, (40, "02/02/24"), (100, "Bakery cafe"))]
        self.assertEqual(analysis.join_word_rivers(self.SEGMENTS, lines), [(40, 80), (100, 153)])

    def test_a_river_a_point_wide_is_no_gutter(self):
        lines = [line(65, (40, "01/02/24"), (100, "Coffee")),
                 [("Long", 100.0, 160.0, 77.0, 85.0), ("x", 161.0, 170.0, 77.0, 85.0)]]
        self.assertEqual(analysis.find_segments(lines), [(40.0, 80.5), (100.0, 170.5)])

    def test_words_of_no_width_give_no_pitch_and_join_nothing(self):
        # a damaged font's glyphs have no width: there is no letter pitch to measure gaps by
        lines = [[(t, x, x, top, top + 10) for t, x in (("01/02/24", 40), ("Coffee", 100),
                                                        ("shop", 133))] for top in (65, 77)]
        self.assertEqual(analysis.join_word_rivers(self.SEGMENTS, lines), self.SEGMENTS)

    def test_a_line_running_on_under_the_next_columns_name_widens_no_segment(self):
        # a summary's labels under the table start in the first column, run on under the
        # second one's name, and stop short of its values
        labels = [line(120, (40, "Opening balance"))]
        header = [line(50, (40, "Code"), (90, "Balance"))]
        segments = [(40, 60), (120, 150)]
        self.assertEqual(analysis.widen(segments, labels), [(40, 113.0), (120, 150)])
        self.assertEqual(analysis.widen(segments, labels, header), segments)

    def test_a_wrapped_line_runs_over_a_narrow_river_inside_its_column(self):
        # the rows' descriptions leave a river a couple of points wide at 98-100; a
        # wrapped line chained by word spaces runs over it and widens the part it ends in
        wrapped = [line(77, (40, "reference payment towards house rent"))]  # ends at 212
        widened = analysis.widen([(40, 98), (100, 120), (260, 290)], wrapped)
        self.assertEqual(widened, [(40, 98), (100, 212.0), (260, 290)])

    def test_lines_anywhere_between_two_rows_are_the_rows_wrapped_text(self):
        # a description wrapped under a date stacked over three lines, three lines down
        rows_ = [(0, line(65, (40, "01"), (100, "Rent"), (300, "9.00"))),
                 (0, line(125, (40, "02"), (100, "Bus"), (300, "1.50")))]
        page = (rows_[0][1] + line(75, (40, "September")) + line(85, (40, "2023"))
                + line(95, (100, "for the month")) + rows_[1][1])
        found = analysis.continuation_lines([page], rows_, [])
        self.assertIn("for the month", [" ".join(w[0] for w in ln) for ln in found])

    def test_an_amount_whose_thousands_stand_a_space_apart_is_one_column(self):
        segments = [(40, 80), (300, 305), (308, 338)]
        lines = [line(65, (40, "01/02/24"), (300, "7"), (308, "562,40")),
                 line(77, (40, "02/02/24"), (300, "1"), (308, "990,96"))]
        self.assertEqual(analysis.join_word_rivers(segments, lines), [(40, 80), (300, 338)])

    def test_a_gap_of_three_word_spaces_is_a_gutter_though_wide_letters_follow_it(self):
        # s418050 090: '10 июн.' 8.4 pt before 'HW66972998', whose wide capitals and digits
        # make that gap less than a letter and a half; the rows set their words 3 pt apart
        def row_(top, day, code, words):
            out = [(day, 52.0, 64.1), ("июн.", 67.1, 90.5), (code, 98.9, 163.8)]
            x = 171.6
            for w in words:
                out.append((w, x, x + 5.5 * len(w)))
                x += 5.5 * len(w) + 3.0
            return [(t, a, b, top, top + 9.0) for t, a, b in out]

        lines = [row_(170.6, "10", "HW66972998", ["Direct", "debit", "Decathlon"]),
                 row_(185.0, "12", "FM12528267", ["Bill", "payment", "mobile"])]
        found = [(52.0, 64.5), (67.0, 91.0), (98.5, 164.0), (171.5, 300.0)]
        self.assertEqual(analysis.join_word_rivers(found, lines),
                         [(52.0, 91.0), (98.5, 164.0), (171.5, 300.0)])

    def test_a_date_in_the_statements_own_notation_one_space_beside_a_code_stays_apart(self):
        # Rabobank: '02-06' (day and month, no shape the usual dates have) a space before
        # its type code 'ei': the notation learned from the column says it is a date
        segments = [(36.5, 61.5), (65.5, 75.5), (88.5, 140)]
        lines = [line(65, (36.5, "02-06"), (65.5, "ei"), (88.5, "NL98 INGB")),
                 line(77, (36.5, "03-06"), (65.5, "bc"), (88.5, "NL45 INGB"))]
        self.assertEqual(len(analysis.join_word_rivers(segments, lines)), 2)
        learned = (r"\d{2}\s*\-\s*\d{2}",)
        self.assertEqual(analysis.join_word_rivers(segments, lines, learned), segments)

    def test_money_one_space_beside_words_stays_a_column_of_its_own(self):
        lines = [line(65, (40, "01/02/24"), (100, "Coffee"), (133, "3.50")),
                 line(77, (40, "02/02/24"), (100, "Bakery"), (133, "1.50"))]
        self.assertEqual(analysis.join_word_rivers(self.SEGMENTS, lines), self.SEGMENTS)
        self.assertEqual(analysis.money_segments(self.SEGMENTS, lines), [False, False, True])


class TableRowsTest(unittest.TestCase):
    TABLE = (line(50, (40, "Date"), (100, "Description"), (315, "Amount"), (415, "Balance"))
             + rows(*[[(40, f"0{d}/02/24"), (100, "Shop"), right(350, f"{d}.00"),
                       right(450, f"{100 - d}.00")] for d in range(1, 6)], top=65))

    def test_a_summary_whose_money_stands_off_the_rows_edges_is_no_candidate(self):
        summary = line(20, (40, "01/02/24"), (100, "Beginning"), right(250, "1,000.00"))
        found = analysis.candidate_lines([summary + self.TABLE])
        self.assertEqual([ln[1][0] for _, ln in found], ["Shop"] * 5)

    def test_a_strip_under_another_heading_leaves_the_tables_columns_as_they_were(self):
        strip = (line(160, (40, "Day"), (100, "Summary"), (330, "Ledger"))
                 + rows(*[[(40, f"0{d}/02/24"), right(250, f"{d},100.00")] for d in range(1, 4)],
                        top=172))
        self.assertEqual(len(analysis.candidate_lines([self.TABLE + strip])), 8)
        self.assertEqual(analysis.analyze_pages([self.TABLE + strip]).settings["columns"],
                         analysis.analyze_pages([self.TABLE]).settings["columns"])


if __name__ == "__main__":
    unittest.main()


class DatesBelowTest(unittest.TestCase):
    """Without a key, a narrow cell's dates wrapped onto a second line, from the column."""

    def page(self, tails=True):
        heading = line(50, (40, "Date"), (100, "Details"), (320, "Amount"), (400, "Balance"))
        out, top, balance = [], 65.0, 100.0
        for day, what, amount in ((3, "Coffee", 3.5), (5, "Tea", 1.5), (8, "Cake", 2.0),
                                  (9, "Bus", 1.0)):
            balance -= amount
            out += line(top, (40, f"{day:02d} OKT"), (100, what), (320, f"{amount:.2f}"),
                        (400, f"{balance:.2f}"))
            if tails:
                out += line(top + 9, (40, "2024"))
            top += 22
        return heading + out

    def test_the_year_under_each_dated_row_completes_its_date(self):
        found = analysis.analyze_pages([self.page()])
        frame = dataframe.build_frame([self.page()], found.settings)
        self.assertEqual(frame["Date"].tolist(), ["03 OKT 2024", "05 OKT 2024", "08 OKT 2024",
                                                  "09 OKT 2024"])
        self.assertEqual(found.settings["wrapped_columns"], [0])

    def test_without_the_lines_under_them_the_dates_are_one_line(self):
        found = analysis.analyze_pages([self.page(tails=False)])
        self.assertNotIn("wrapped_columns", found.settings)


class TwoDateColumnsTest(unittest.TestCase):
    def test_a_date_printed_once_a_day_and_wrapped_in_its_cell_is_carried_down(self):
        # the value date prints on every row; the booking date once a day, its year wrapped
        # under it in a narrow column
        page = line(40, (40, "Date"), (110, "Value"), (200, "Details"), (330, "Amount")) + rows(
            *[row for day in (1, 3, 5) for row in (
                [(40, f"0{day} feb"), (110, f"0{day} feb 24"), (200, "Rent"), (330, "10.00")],
                [(40, "24")],
                [(110, f"0{day + 1} feb 24"), (200, "Tea"), (330, "2.50")])], top=52)
        settings = analysis.analyze_pages([page]).settings
        self.assertEqual(dataframe.build_frame([page], settings)["Date"].tolist(),
                         [f"0{day} feb 24" for day in (1, 1, 3, 3, 5, 5)])

    def test_a_date_printed_once_a_day_wrapped_like_the_rows_dates_is_carried_down(self):
        # both dates wrap: the value date's year under it, the day's date over three lines
        page = line(40, (40, "Date"), (110, "Value"), (200, "Details"), (330, "Amount"))
        top = 52
        for day in (11, 14, 17):
            page += (line(top, (40, f"{day}"), (110, f"{day} abr."), (200, "Rent"),
                          (330, "10.00"))
                     + line(top + 9, (40, "abr."), (110, "2025")) + line(top + 18, (40, "2025"))
                     + line(top + 30, (110, f"{day + 1} abr."), (200, "Tea"), (330, "2.50"))
                     + line(top + 39, (110, "2025")))
            top += 54
        settings = analysis.analyze_pages([page]).settings
        self.assertEqual(dataframe.build_frame([page], settings)["Date"].tolist(),
                         [f"{day} abr. 2025" for day in (11, 11, 14, 14, 17, 17)])
