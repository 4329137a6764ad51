"""With --expected the answer key is evidence: where its values are printed teaches the layout,
and what is learned is structure that holds on the bank's next statement."""
from __future__ import annotations

import glob
import json
import os
import unittest

import pandas as pd

from dua import pdf
from dua.statements.table import dataframe, engine
from dua.statements.learning import analysis, evidence, learning
from dua.statements.verification import verify
from dua.statements.agent import writer

from .test_analysis import rows
from ..table.test_engine import line

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
LAYOUTS = sorted(glob.glob(os.path.join(ROOT, "fixtures", "statements", "*", "a.pdf")))


def frame(records: list, columns: list) -> pd.DataFrame:
    """An answer key as read_csv would give it (amount columns float64, text as str)."""
    out = pd.DataFrame(records, columns=columns)
    for name in columns:
        if any(isinstance(v, float) for v in out[name]):
            out[name] = out[name].astype("float64")
    return out


def words(path: str) -> list:
    return analysis.pages_from_document(pdf.read_document(path))


# Amounts printed before the date: a layout the analysis (a date, then an amount) cannot find.
AMOUNT_FIRST = (line(40, (40, "Amount"), (120, "Date"), (200, "Details"))
                + rows([(40, "120.00"), (120, "02/01/25"), (200, "Rent January")],
                       [(40, "8.40"), (120, "03/01/25"), (200, "Coffee shop")],
                       [(40, "1,500.00"), (120, "05/01/25"), (200, "Salary Acme")],
                       [(40, "42.10"), (120, "07/01/25"), (200, "Fuel")]))
AMOUNT_FIRST_KEY = frame([[-120.0, "02/01/25", "Rent January"], [-8.4, "03/01/25", "Coffee shop"],
                          [-1500.0, "05/01/25", "Salary Acme"], [-42.1, "07/01/25", "Fuel"]],
                         ["Amount", "Date", "Details"])


def opening_balance_listed() -> tuple:
    """A page whose first line prints only the opening balance, and a key that lists it
    as a row: ``(page, key)``."""
    page = rows([(40, "01/01/25"), (120, "Opening Balance"), (400, "500.00")],
                [(40, "02/01/25"), (120, "Coffee"), (300, "3.50"), (400, "496.50")],
                [(40, "03/01/25"), (120, "Books"), (300, "10.00"), (400, "486.50")])
    key = frame([["01/01/25", "Opening Balance", None, 500.0],
                 ["02/01/25", "Coffee", 3.5, 496.5], ["03/01/25", "Books", 10.0, 486.5]],
                ["Date", "Details", "Paid out", "Balance"])
    return page, key


def _second_row_located(page: list, key: pd.DataFrame):
    """The key's second row (amount, date, two text columns) as found on ``page``, dated."""
    found = evidence.locate([evidence.Page(page)], key, ["amount", "date", "text", "text"],
                            {"decimal": "."})[1]
    assert found.dated, "the second row was found without its date"
    return found


class LocateTest(unittest.TestCase):
    def test_each_row_is_found_by_its_date_and_amounts_under_any_notation(self):
        page = rows([(40, "02.01.2025"), (120, "Miete"), (330, "-1.200,00")],
                    [(40, "03.01.2025"), (120, "Gehalt Januar"), (330, "+3.319,30")])
        key = frame([["02.01.2025", "Miete", -1200.0], ["03.01.2025", "Gehalt Januar", 3319.3]],
                    ["Datum", "Text", "Betrag"])
        pages = [evidence.Page(page)]
        kinds = evidence.roles(key)
        found = evidence.locate(pages, key, kinds, {"decimal": ","})
        self.assertEqual([r.line for r in found], [0, 1])
        evidence.attach_text(pages, key, kinds, found)
        self.assertEqual([w[0] for w in found[1].cells[1]], ["Gehalt", "Januar"])

    def test_a_date_a_narrow_cell_wraps_further_is_still_its_columns_and_its_own(self):
        # '01' over 'Noviembre' over '2023' under '20 Octubre' over '2023': it starts where
        # the column's dates start, and its year is the one under it, not the one beside
        page = (line(80, (40, "9.00"), (100, "20 Octubre"), (200, "Rent"), (330, "20 Octubre"))
                + line(90, (100, "2023"), (330, "2023"))
                + line(105, (40, "3.50"), (100, "01"), (200, "Tea"), (330, "30 Octubre"))
                + line(115, (100, "Noviembre"), (330, "2023")) + line(125, (100, "2023")))
        key = frame([[9.0, "20 Octubre 2023", "Rent", "20 Octubre 2023"],
                     [3.5, "01 Noviembre 2023", "Tea", "30 Octubre 2023"]],
                    ["Amount", "Value date", "Details", "Booked"])
        self.assertEqual([(w[0], w[1]) for w in _second_row_located(page, key).cells[1]],
                         [("01", 100), ("Noviembre", 100), ("2023", 100)])

    def test_a_date_wrapped_where_the_next_column_prints_its_first_words_whole_is_found(self):
        # '10' over 'Feb.' over '2023' beside the value date '10 Feb.' over '2023': the day's
        # first words on one line are the value date's, the date is the one cut sooner
        page = (line(80, (10, "9.00"), (40, "07"), (100, "08 Feb."), (200, "Rent"))
                + line(90, (40, "Feb."), (100, "2023")) + line(100, (40, "2023"))
                + line(115, (10, "3.50"), (40, "10"), (100, "10 Feb."), (200, "Tea"))
                + line(125, (40, "Feb."), (100, "2023")) + line(135, (40, "2023")))
        key = frame([[9.0, "07 Feb. 2023", "08 Feb. 2023", "Rent"],
                     [3.5, "10 Feb. 2023", "10 Feb. 2023", "Tea"]],
                    ["Amount", "Date", "Value", "Details"])
        self.assertEqual({w[1] for w in _second_row_located(page, key).cells[1]}, {40})

    def test_a_value_the_page_leaves_blank_takes_no_neighbours_words(self):
        # the value date printed once a day: the second row's is blank, and its year would
        # spell a third of it from the row above, stretching the column over the dates
        page = rows([(40, "02 June"), (100, "03 June"), (200, "Rent"), (330, "10.00")],
                    [(40, "2025"), (100, "2025")],
                    [(40, "04 June"), (200, "Coffee"), (330, "3.50")], [(40, "2025")])
        key = frame([["02 June 2025", "03 June 2025", "Rent", 10.0],
                     ["04 June 2025", "03 June 2025", "Coffee", 3.5]],
                    ["Date", "Value date", "Details", "Amount"])
        pages = [evidence.Page(page)]
        kinds = ["date", "text", "text", "amount"]
        found = evidence.locate(pages, key, kinds, {"decimal": "."})
        evidence.attach_text(pages, key, kinds, found)
        self.assertEqual([(w[0], w[1]) for w in found[0].cells[1]],
                         [("03", 100.0), ("June", 113.0), ("2025", 100.0)])
        self.assertNotIn(1, found[1].cells)

    def test_a_wrapped_cell_is_read_on_from_the_line_below(self):
        page = rows([(40, "02/01/25"), (120, "Transfer to"), (330, "10.00")],
                    [(120, "J Smith")],
                    [(40, "03/01/25"), (120, "Coffee"), (330, "3.50")])
        key = frame([["02/01/25", "Transfer to J Smith", 10.0], ["03/01/25", "Coffee", 3.5]],
                    ["Date", "Details", "Amount"])
        settings = learning.learn([page], key)
        self.assertEqual(settings["continuation"], "below")
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))


    def test_rows_of_one_line_under_a_title_wrap_below_on_the_next_statement(self):
        # the key's rows never wrap; the title over the first row is no row's line
        page = (line(40, (40, "Date"), (120, "Details"), (330, "Amount"))
                + rows([(120, "Money out")], [(40, "02/01/25"), (120, "Rent"), (330, "10.00")],
                       [(40, "03/01/25"), (120, "Coffee"), (330, "3.50")]))
        key = frame([["02/01/25", "Rent", 10.0], ["03/01/25", "Coffee", 3.5]],
                    ["Date", "Details", "Amount"])
        settings = learning.learn([page], key, {"continuation": "above"})
        self.assertEqual(settings["continuation"], "below")

    def test_a_description_printed_over_its_date_line_is_learned_as_above(self):
        page = (line(40, (40, "Date"), (120, "Details"), (330, "Amount"))
                + rows([(120, "Transfer to")], [(120, "J Smith")],
                       [(40, "02/01/25"), (330, "10.00")], [(120, "Coffee")],
                       [(40, "03/01/25"), (330, "3.50")], [(120, "Bus fare")],
                       [(40, "04/01/25"), (330, "1.50")]))
        key = frame([["02/01/25", "Transfer to J Smith", 10.0], ["03/01/25", "Coffee", 3.5],
                     ["04/01/25", "Bus fare", 1.5]], ["Date", "Details", "Amount"])
        settings = learning.learn([page], key)
        self.assertEqual(settings["continuation"], "above")
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_a_date_a_narrow_cell_wraps_is_found_over_two_lines_and_read_whole(self):
        page = (line(40, (40, "Date"), (120, "Details"), (330, "Amount"))
                + rows([(40, "02 June"), (120, "Rent"), (330, "10.00")], [(40, "2025")],
                       [(40, "03 June"), (120, "Coffee"), (330, "3.50")], [(40, "2025")],
                       [(40, "05 June"), (120, "Bus"), (330, "1.50")], [(40, "2025")]))
        key = frame([["02 June 2025", "Rent", 10.0], ["03 June 2025", "Coffee", 3.5],
                     ["05 June 2025", "Bus", 1.5]], ["Date", "Details", "Amount"])
        settings = learning.learn([page], key)
        self.assertEqual(settings.get("wrapped_columns"), [0])
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_a_day_printed_alone_on_its_line_stands_where_a_wrapped_dates_day_stood(self):
        # the first date wraps its long month under its day; a later date's day is found
        # where that day stood, not measured against the month's width
        page = rows([(40, "09"), (120, "Rent"), (330, "10.00")], [(40, "december")],
                    [(40, "2023")], [(40, "12"), (120, "Coffee"), (330, "3.50")],
                    [(40, "december")], [(40, "2023")])
        key = frame([["09 december 2023", "Rent", 10.0], ["12 december 2023", "Coffee", 3.5]],
                    ["Date", "Details", "Amount"])
        found = evidence.locate([evidence.Page(page)], key, evidence.roles(key), {"decimal": "."})
        self.assertEqual([r.dated for r in found], [True, True])

    def test_months_wrapped_under_two_dates_beside_a_descriptions_words_head_no_other_table(self):
        # 'december december Decathlon Austin': plain words under three columns, each
        # date's month under its day: no other table's heading, though the key, not the
        # reading, taught the dates' heads
        page = line(40, (40, "Date"), (100, "Valuta"), (160, "Details"), (400, "Amount"))
        records = []
        for i, (shop, town) in enumerate((("Card purchase", "Decathlon Austin"),
                                          ("Bus fare", "Lyon"), ("Rent", "Leeds"))):
            top, day = 60 + 35 * i, 9 + i
            page += line(top, (40, f"{day:02d}"), (100, f"{day + 1:02d}"), (160, shop),
                         (400, f"{i + 1}.00"))
            page += line(top + 10, (40, "december"), (100, "december"), (160, town))
            page += line(top + 20, (40, "2023"), (100, "2023"))
            records.append([f"{day:02d} december 2023", f"{day + 1:02d} december 2023",
                            f"{shop} {town}", i + 1.0])
        key = frame(records, ["Date", "Valuta", "Details", "Amount"])
        settings = learning.learn([page], key)
        self.assertTrue(settings.get("date_head_pattern"))
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))


class LearnTest(unittest.TestCase):
    def test_amounts_before_the_date_are_learned_from_the_answer_key(self):
        found = analysis.analyze_pages([AMOUNT_FIRST], AMOUNT_FIRST_KEY)
        self.assertEqual([c["name"] for c in found.learned["columns"]], ["Amount", "Date", "Details"])
        draft = writer.BuiltinWriter([AMOUNT_FIRST], found, AMOUNT_FIRST_KEY).write()
        self.assertEqual(draft.in_process["status"], "passed", draft.in_process["summary"])
        self.assertIn("answer key", draft.note)

    def test_the_key_picks_its_table_under_a_bigger_one_of_the_same_shape(self):
        daily = (line(40, (40, "Date"), (120, "Daily balance"))
                 + rows(*[[(40, f"0{d}/01/25"), (120, f"{d},000.00")] for d in range(1, 10)],
                        top=52))
        table = (line(180, (40, "Date"), (120, "Details"), (300, "Amount"))
                 + rows(*[[(40, f"0{d}/01/25"), (120, "Shop"), (300, f"{d}.25")]
                          for d in range(1, 5)], top=192))
        key = frame([[f"0{d}/01/25", "Shop", d + 0.25] for d in range(1, 5)],
                    ["Date", "Details", "Amount"])
        settings = learning.learn([daily + table], key)
        self.assertTrue(dataframe.build_frame([daily + table], settings).equals(key))
        self.assertEqual(settings["header"], ["date details amount"])

    def test_a_date_the_key_writes_in_five_words_is_found_as_printed(self):
        # '23 / 06 / 2025': its slashes stand apart, five words the key writes as one date
        page = line(40, (40, "Date"), (160, "Details"), (300, "Amount")) + rows(*[
            [(40, f"{d}"), (52, "/"), (60, "06"), (72, "/"), (80, "2025"), (160, "Shop"),
             (300, f"{d}.50")] for d in range(21, 25)], top=52)
        key = frame([[f"{d} / 06 / 2025", "Shop", d + 0.5] for d in range(21, 25)],
                    ["Date", "Details", "Amount"])
        settings = learning.learn([page], key)
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_unsigned_debits_the_key_lists_as_negative_get_the_column_sign(self):
        settings = learning.learn([AMOUNT_FIRST], AMOUNT_FIRST_KEY)
        self.assertEqual(settings["columns"][0]["sign"], -1)
        self.assertEqual(dataframe.build_frame([AMOUNT_FIRST], settings)["Amount"].tolist(),
                         [-120.0, -8.4, -1500.0, -42.1])

    def test_a_key_in_another_column_order_is_followed(self):
        key = AMOUNT_FIRST_KEY[["Date", "Details", "Amount"]]
        settings = learning.learn([AMOUNT_FIRST], key)
        self.assertTrue(dataframe.build_frame([AMOUNT_FIRST], settings).equals(key))

    def test_a_summary_row_the_key_lists_is_kept(self):
        page, key = opening_balance_listed()
        settings = learning.learn([page], key)
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_a_line_the_key_leaves_out_teaches_its_label_for_the_next_statement(self):
        def statement(day_rows):
            return rows(*day_rows[:2], [(40, "15/01/25"), (120, "Interest rate now"),
                                        (300, "2.50")], *day_rows[2:])

        a = statement([[(40, f"0{d}/01/25"), (120, "Shop"), (300, f"{d}.00")] for d in range(1, 5)])
        key = frame([[f"0{d}/01/25", "Shop", float(d)] for d in range(1, 5)],
                    ["Date", "Details", "Amount"])
        settings = learning.learn([a], key)
        self.assertTrue(any("Interest" in p for p in settings["skip_patterns"]))
        b = statement([[(40, f"1{d}/02/25"), (120, "Cafe"), (300, f"{d}.50")] for d in range(1, 6)])
        self.assertEqual(len(dataframe.build_frame([b], settings)), 5)

    def test_a_key_whose_dates_are_not_printed_as_it_writes_them_learns_nothing(self):
        key = AMOUNT_FIRST_KEY.assign(Date=["2025-01-02", "2025-01-03", "2025-01-05", "2025-01-07"])
        self.assertIsNone(learning.learn([AMOUNT_FIRST], key))
        self.assertIsNone(analysis.analyze_pages([AMOUNT_FIRST], key).learned)

    def test_too_little_evidence_learns_nothing(self):
        key = frame([["09/09/99", "Nowhere", 1.23], ["10/09/99", "Nothing", 4.56]],
                    ["Date", "Details", "Amount"])
        self.assertIsNone(learning.learn([AMOUNT_FIRST], key))



class LearnedLayoutTest(unittest.TestCase):
    """What the answer key teaches beyond where each column stands."""

    def test_key_columns_printed_below_each_rows_first_line_are_its_second_tier(self):
        page = (line(40, (40, "Date"), (100, "Details"), (320, "Amount"), (420, "Balance"))
                + line(50, (40, "Value"), (100, "Reference")))
        records, balance = [], 100.0
        for i in range(4):
            balance -= i + 1
            page += line(65 + 25 * i, (40, f"0{i + 1}/02/25"), (100, "Shop"),
                         (320, f"{i + 1}.00"), (420, f"{balance:.2f}"))
            page += line(75 + 25 * i, (40, f"0{i + 2}/02/25"), (100, f"REF{i}X"))
            records.append([f"0{i + 1}/02/25", "Shop", -(i + 1.0), balance, f"0{i + 2}/02/25",
                            f"REF{i}X"])
        key = frame(records, ["Date", "Details", "Amount", "Balance", "Value date", "Reference"])
        settings = learning.learn([page], key)
        self.assertEqual([c["name"] for c in settings.get("second_line", [])],
                         ["Value date", "Reference"])
        self.assertEqual([c["name"] for c in settings["columns"]],
                         ["Date", "Details", "Amount", "Balance"])
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_a_second_tier_under_descriptions_printed_above_wraps_no_first_tier_column(self):
        # each row's description stands over its figures; its reference, under a label
        # on the first line, on the line below: the second tier's field, not the label's
        # column wrapped, however the description's side outnumbers it
        page = line(40, (40, "Date"), (100, "Ref No."), (180, "Details"), (400, "Amount"))
        records = []
        for i in range(4):
            top = 60 + 40 * i
            shop, town = ("Card purchase", "Bus fare", "Cash deposit", "Rent")[i], f"Town{i}"
            page += line(top, (180, shop)) + line(top + 10, (180, town))
            page += line(top + 20, (40, f"0{i + 1}/06/24"), (100, "Ref:"), (400, f"{i + 1}.00"))
            page += line(top + 29, (100, f"RF{i}X"))
            records.append([f"0{i + 1}/06/24", f"RF{i}X", f"{shop} {town}", i + 1.0])
        key = frame(records, ["Date", "Ref No.", "Details", "Amount"])
        settings = learning.learn([page], key)
        self.assertEqual(settings["continuation"], "above")
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_a_description_printed_at_the_foot_of_the_page_before_its_row_is_no_label(self):
        # the page break puts the last row's description, printed over its figures, at
        # the foot of page 1: the key lists it in that row's cell, so it labels no line
        heading = line(40, (40, "Date"), (180, "Details"), (400, "Amount"))

        def page(days, tail=None):
            out = list(heading)
            for n, d in enumerate(days):
                top = 60 + 30 * n
                out += line(top, (180, f"Shop {d}")) + line(top + 12, (40, f"{d:02d}/06/24"),
                                                            (400, f"{d}.00"))
            return out + (line(60 + 30 * len(days), (180, tail)) if tail else [])

        pages = [page((1, 2, 3), "Cash deposit Mysore branch"), page((4, 5))]
        key = frame([[f"{d:02d}/06/24", f"Shop {d}", float(d)] for d in (1, 2, 3)]
                    + [["04/06/24", "Cash deposit Mysore branch Shop 4", 4.0],
                       ["05/06/24", "Shop 5", 5.0]], ["Date", "Details", "Amount"])
        settings = learning.learn(pages, key)
        self.assertFalse(any("Mysore" in p for p in settings["skip_patterns"]))
        self.assertTrue(dataframe.build_frame(pages, settings).equals(key))

    @staticmethod
    def two_sections(credits: tuple, debits: tuple) -> tuple:
        """A page of two titled sections, each under the heading, and the key that signs
        the second section's amounts: ``(page, key)``."""
        def heading(top):
            return line(top, (40, "Date"), (100, "Details"), (320, "Amount"))

        page = (line(38, credits) + heading(50)
                + rows([(40, "01/02/25"), (100, "Salary"), (320, "100.00")],
                       [(40, "02/02/25"), (100, "Refund"), (320, "5.00")], top=65, pitch=12)
                + line(100, debits) + heading(112)
                + rows([(40, "03/02/25"), (100, "Rent"), (320, "30.00")],
                       [(40, "04/02/25"), (100, "Coffee"), (320, "20.00")], top=127, pitch=12))
        key = frame([["01/02/25", "Salary", 100.0], ["02/02/25", "Refund", 5.0],
                     ["03/02/25", "Rent", -30.0], ["04/02/25", "Coffee", -20.0]],
                    ["Date", "Details", "Amount"])
        return page, key

    def test_unsigned_amounts_the_key_signs_by_section_are_signed_by_their_section(self):
        page, key = self.two_sections((40, "Deposits and credits"), (40, "Withdrawals and debits"))
        settings = learning.learn([page], key)
        self.assertEqual(settings.get("sections"),
                         [["deposits and credits", 1], ["withdrawals and debits", -1]])
        self.assertTrue(settings["columns"][2]["section_signed"])
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_a_one_word_section_title_over_a_heading_cell_is_no_part_of_the_heading(self):
        page, key = self.two_sections((100, "Deposits"), (100, "Withdrawals"))
        settings = learning.learn([page], key)
        self.assertEqual(settings["header"], ["date details amount"])
        self.assertEqual(settings.get("sections"), [["deposits", 1], ["withdrawals", -1]])
        self.assertTrue(dataframe.build_frame([page], settings).equals(key))

    def test_a_key_listing_a_line_that_prints_only_a_balance_keeps_such_lines_as_rows(self):
        page, key = opening_balance_listed()
        listed = learning.learn([page], key)
        self.assertEqual((listed.get("balance_column"), listed.get("balance_rows")), (3, True))
        left_out = learning.learn([page], key.iloc[1:].reset_index(drop=True))
        self.assertEqual((left_out.get("balance_column"), left_out.get("balance_rows")),
                         (3, None))
        self.assertEqual(len(dataframe.build_frame([page], left_out)), 2)


@unittest.skipUnless(LAYOUTS, "no fixture statements in fixtures/statements/")
class CorpusEvidenceTest(unittest.TestCase):
    """Every corpus layout, learned from statement A's key alone (no layout guess as a base)."""

    @classmethod
    def setUpClass(cls):
        cls.learned = {}
        for a_pdf in LAYOUTS:
            folder = os.path.dirname(a_pdf)
            key = verify.load_expected(os.path.join(folder, "a.csv"))
            cls.learned[folder] = (learning.learn(words(a_pdf), key), key)

    def test_learned_settings_read_a_and_the_next_statement_b_exactly(self):
        for folder, (settings, key) in self.learned.items():
            with self.subTest(layout=os.path.basename(folder)):
                self.assertIsNotNone(settings)
                b_key = pd.read_csv(os.path.join(folder, "b.csv"))
                self.assertTrue(dataframe.build_frame(words(os.path.join(folder, "a.pdf")),
                                                   settings).equals(key))
                self.assertTrue(dataframe.build_frame(words(os.path.join(folder, "b.pdf")),
                                                   settings).equals(b_key))

    def test_learned_settings_hold_structure_never_the_sample_values(self):
        for folder, (settings, key) in self.learned.items():
            baked = json.dumps({k: v for k, v in settings.items() if k != "output_order"})
            names = {str(c) for c in key.columns}
            for column in key.columns:
                for value in key[column].dropna().astype(str):
                    if len(value) >= 5 and value not in names:
                        self.assertNotIn(value, baked, f"{os.path.basename(folder)}: {column}")


if __name__ == "__main__":
    unittest.main()
