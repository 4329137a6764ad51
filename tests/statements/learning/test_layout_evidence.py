"""Rules learned from the page itself: notation, headings by position, day headings, arithmetic roles,
and honest verdicts on text columns (hand-made words, no PDF)."""
from __future__ import annotations

import unittest

import pandas as pd

from dua.statements.table import columns, dataframe, engine, notation, reconcile, totals
from dua.statements.learning import analysis, sample
from dua.statements.verification import verify

from .test_analysis import rows
from ..table.test_engine import line, settings, word


class NotationTest(unittest.TestCase):
    def test_european_space_and_coded_amounts_read_as_the_same_number(self):
        comma = {"decimal": ","}
        self.assertEqual(engine.parse_amount("-1.234,56", comma), -1234.56)
        self.assertEqual(engine.parse_amount("+3.319,30", comma), 3319.3)
        self.assertEqual(engine.parse_amount("12 345.67", {}), 12345.67)
        self.assertEqual(engine.parse_amount("12\u2009345.67 EUR", {}), 12345.67)
        self.assertEqual(engine.parse_amount("USD 1,234.56", {}), 1234.56)
        self.assertEqual(engine.parse_amount("1,234.56Cr", {}), 1234.56)

    def test_a_short_unit_printed_beside_every_amount_is_a_currency_mark(self):
        page = line(60, (40, "Datum"), (120, "Text"), (300, "Betrag")) + rows(
            *[[(40, f"0{d}.01.2025"), (120, "Zahlung an"), (300, f"{d} 345,67"), (340, "kr")]
              for d in range(1, 5)])
        self.assertEqual(notation.currency_codes([page], 3.0), ["kr"])
        found = analysis.analyze_pages([page])
        self.assertEqual([c["kind"] for c in found.settings["columns"]], ["date", "text", "amount"])
        self.assertEqual(dataframe.build_frame([page], found.settings).iloc[:, 2].tolist(),
                         [1345.67, 2345.67, 3345.67, 4345.67])

    def test_short_words_of_descriptions_are_not_currency_marks(self):
        page = rows(*[[(40, "01/01/25"), (120, "Paid to"), (160, "ABC"), (300, "1.00")]
                      for _ in range(4)])
        self.assertEqual(notation.currency_codes([page], 3.0), [])

    def test_two_numbers_and_dates_are_not_one_amount(self):
        for text in ("2025 12.00", "02.01.", "02.01.2025", "2025-01-02", "02MAY25"):
            self.assertFalse(engine.looks_like_amount(text), text)

    def test_the_decimal_mark_is_voted_by_two_digit_tails(self):
        page = [("1.234,56", 0, 1, 0, 1), ("12,00", 0, 1, 0, 1), ("1,234", 0, 1, 0, 1)]
        self.assertEqual(notation.decimal_mark([page]), ",")
        self.assertEqual(notation.decimal_mark([[("1,234.56", 0, 1, 0, 1)]]), ".")

    def test_a_lone_cr_beside_unmarked_amounts_is_the_negative_one(self):
        self.assertEqual(notation.drcr_signs(["45.00", "12.00 Cr", "9.10"], {}),
                         {"dr": -1, "cr": -1})
        self.assertEqual(notation.drcr_signs(["45.00 Cr", "12.00 Cr"], {}), {"dr": -1, "cr": 1})
        self.assertEqual(notation.drcr_signs(["45.00 Dr", "12.00 Cr"], {}), {"dr": -1, "cr": 1})
        self.assertIsNone(notation.drcr_signs(["45.00", "-12.00"], {}))


class HeadingByPositionTest(unittest.TestCase):
    PAGE = (line(20, (40, "Kontoauszug"), (300, "Blatt 1"))
            + line(60, (40, "Buchungstag"), (120, "Verwendungszweck"), (330, "Betrag"))
            + rows([(40, "02.01.2025"), (120, "Miete Januar"), (330, "-1.200,00")],
                   [(40, "03.01.2025"), (120, "Gehalt"), (330, "+3.319,30")]))

    def test_a_heading_in_any_language_is_the_plain_line_over_the_columns(self):
        found = analysis.analyze_pages([self.PAGE])
        names = [c["name"] for c in found.settings["columns"]]
        self.assertEqual(names, ["Buchungstag", "Verwendungszweck", "Betrag"])
        self.assertEqual(found.settings["decimal"], ",")

    def test_a_section_title_above_the_heading_is_not_part_of_it(self):
        page = (line(48, (40, "Payments and Credits received"))
                + line(60, (40, "Trans"), (100, "Post"), (160, "Description"), (330, "Amount"))
                + rows(*[[(40, f"01/0{d}"), (100, f"01/0{d}"), (160, "Shop"), (330, "1.00")]
                         for d in range(1, 5)]))
        found = analysis.analyze_pages([page])
        self.assertEqual([c["name"] for c in found.settings["columns"]],
                         ["Trans", "Post", "Description", "Amount"])

    def test_a_heading_wrapped_inside_its_cell_is_one_name(self):
        page = (line(50, (40, "Txn"), (300, "Withdrawal"))
                + line(58, (40, "Date"), (100, "Narration"), (300, "Amt."))
                + rows(*[[(40, f"0{d}/01/25"), (100, "Shop"), (300, "1.00")] for d in range(1, 5)]))
        found = analysis.analyze_pages([page])
        self.assertEqual([c["name"] for c in found.settings["columns"]],
                         ["Txn Date", "Narration", "Withdrawal Amt."])


    def test_two_heading_cells_one_space_apart_split_at_the_rows_river(self):
        head = [word("Amount", 91, 40, 36), word("Txn", 133, 40, 18), word("Date", 154, 40, 21),
                word("Details", 208, 40, 32)]
        body = rows(*[[(100, f"({d}.96)"), (133, f"0{d}-Mar-2025"), (208, "Bill payment")]
                      for d in range(1, 5)])
        found = analysis.analyze_pages([head + body])
        self.assertEqual([c["name"] for c in found.settings["columns"]],
                         ["Amount", "Txn Date", "Details"])
        self.assertEqual(found.settings["date_column"], 1)


class ContinuationWidthTest(unittest.TestCase):
    def test_a_longer_wrapped_line_moves_the_gutter_past_its_words(self):
        segments = [(40.0, 80.0), (100.0, 200.0), (300.0, 330.0)]
        tail = line(92, (100, "payment towards the month"))  # runs to x=219
        widened = columns.widen(segments, [tail])
        self.assertGreater(widened[1][1], 215.0)
        self.assertEqual(widened[2], (300.0, 330.0))


class DayHeadingsTest(unittest.TestCase):
    def test_a_date_printed_once_over_its_rows_fills_a_date_column(self):
        page = (line(50, (100, "Description"), (300, "Out"), (360, "Balance"))
                + line(62, (40, "02 Jan 2025"))
                + line(74, (100, "Coffee"), (300, "3.50"), (360, "96.50"))
                + line(86, (100, "Bread"), (300, "1.50"), (360, "95.00"))
                + line(98, (40, "03 Jan 2025"))
                + line(110, (100, "Tea"), (300, "2.00"), (360, "93.00")))
        found = analysis.analyze_pages([page])
        frame = dataframe.build_frame([page], found.settings)
        self.assertEqual(list(frame.columns)[0], "Date")
        self.assertEqual(frame["Date"].tolist(), ["02 Jan 2025", "02 Jan 2025", "03 Jan 2025"])


class ArithmeticRolesTest(unittest.TestCase):
    def test_the_balance_is_found_by_arithmetic_not_by_its_name(self):
        f = pd.DataFrame({"Soll": [None, 5.0, None], "Haben": [None, None, 2.5],
                          "Saldo": [100.0, 95.0, 97.5]})
        result = reconcile.reconcile(f)
        self.assertTrue(result["passed"], result["detail"])
        self.assertIn("'Saldo'", result["detail"])

    def test_a_balance_that_lost_a_cell_fails_on_that_row(self):
        bal = [100.0, 95.0, 97.5, 96.0, 94.0, 93.0, 92.0, 91.0, 90.0, 89.0, 88.0]
        debit = [None, 5.0, None, 1.5, 2.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
        credit = [None, None, 2.5] + [None] * 8
        holed = bal[:4] + [None] + bal[5:]
        result = reconcile.reconcile(pd.DataFrame({"Soll": debit, "Haben": credit,
                                                   "Saldo": holed}))
        self.assertFalse(result["passed"])
        self.assertIn("row 4 has no balance in 'Saldo'", result["detail"])

    def test_the_report_names_which_column_is_money_in_by_the_arithmetic(self):
        f = pd.DataFrame({"Deposits": [None, None, 2.5], "Withdrawals": [None, 5.0, None],
                          "Balance": [100.0, 95.0, 97.5]})
        result = reconcile.reconcile(f)
        self.assertIn("'Deposits' in, 'Withdrawals' out", result["detail"])
        g = f.rename(columns={"Deposits": "Withdrawals", "Withdrawals": "Deposits"})
        self.assertIn("'Withdrawals' in, 'Deposits' out", reconcile.reconcile(g)["detail"])

    def test_debit_and_credit_columns_alone_are_not_a_balance(self):
        f = pd.DataFrame({"Out": [5.0, None, 1.5, None], "In": [None, 2.5, None, 4.0]})
        self.assertIsNone(reconcile.reconcile(f)["passed"])

    def test_movements_without_a_balance_add_up_to_the_new_balance_less_the_old(self):
        f = pd.DataFrame({"Betrag": [-10.0, 25.5]})
        self.assertTrue(totals.reconcile_totals(f, [100.0, 115.5])["passed"])
        self.assertFalse(totals.reconcile_totals(f, [100.0, 120.0])["passed"])


class HonestVerdictTest(unittest.TestCase):
    COLUMNS = [{"name": "Date", "x0": 0.0, "kind": "date"},
               {"name": "Description", "x0": 90.0, "kind": "text"},
               {"name": "Ref", "x0": 200.0, "kind": "text"},
               {"name": "Amount", "x0": 300.0, "kind": "amount"},
               {"name": "Balance", "x0": 400.0, "kind": "amount"}]
    ROWS = [[(40, "01/02/24"), (100, "Coffee"), (210, "AB12345678"), (320, "-3.50"),
             (410, "96.50")],
            [(40, "02/02/24"), (100, "Rent"), (210, "N7385746872H"), (320, "-1.50"),
             (410, "95.00")],
            [(40, "03/02/24"), (100, "Bread"), (210, "EF32345678"), (320, "-2.00"),
             (410, "93.00")],
            [(40, "04/02/24"), (100, "Tea"), (210, "GH42345678"), (320, "-1.00"),
             (410, "92.00")]]

    def verdict(self, page: list) -> dict:
        s = settings(columns=self.COLUMNS, require_header=False, header=[], balance_column=4)
        return verify.intrinsic(dataframe.build_frame([page], s), [page], s)

    def test_a_cell_of_another_shape_than_its_column_still_passes(self):
        result = self.verdict(rows(*self.ROWS))  # 'N7385746872H' among 'AB12345678'-shaped refs
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("every word accounted for", result["checks"][1]["detail"])

    def test_a_line_no_cell_accounts_for_leaves_the_result_unverified_and_names_it(self):
        page = rows(*self.ROWS[:2]) + line(108.0, (100, "see overleaf")) + rows(
            *self.ROWS[2:], top=116.0)  # 14 pt below its row: no continuation of it
        result = self.verdict(page)
        self.assertTrue(result["checks"][0]["passed"])  # the amounts reconcile ...
        self.assertEqual(result["status"], "unverified")  # ... but two words are nobody's
        self.assertIn("'see'", result["checks"][1]["detail"])
        self.assertEqual(result["accounting"]["words_unaccounted"], 2)

    def test_a_heading_over_a_group_of_rows_is_furniture(self):
        page = rows(*self.ROWS[:2]) + line(108.0, (40, "Card ending 1234")) + rows(
            *self.ROWS[2:], top=120.0)
        result = self.verdict(page)
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("a heading over the rows below it", result["checks"][1]["detail"])


class NoTableMessageTest(unittest.TestCase):
    def test_the_message_says_what_was_looked_for_and_what_the_page_prints(self):
        page = line(20, (40, "Dear customer, thank you"))
        text = sample.explain_no_table([page])
        self.assertIn("02/01/25", text)
        self.assertIn("1.234,56", text)
        self.assertIn("0 line(s) print a date", text)
        self.assertIn("Dear customer", text)



class DayColumnTest(unittest.TestCase):
    def test_a_title_in_a_column_printing_a_day_once_is_no_rows_text(self):
        # 'Booked' prints a day on its first row only; the sections' titles stand in it,
        # 'Money in' over the first row and 'Money out' under a day's last row
        def day(booked, value, text, amount):
            return [(40, booked)] * bool(booked) + [(120, value), (200, text), (320, amount)]

        page = (line(50, (40, "Booked"), (120, "Value"), (200, "Details"), (320, "Amount"))
                + line(62, (40, "Money in"))
                + rows(day("01/08/2024", "01/08/2024", "Salary", "300.00"), [(200, "Acme Ltd")],
                       day("", "02/08/2024", "Refund", "9.00"),
                       day("", "01/08/2024", "Cash", "5.00"),
                       day("03/08/2024", "04/08/2024", "Interest", "1.50"), top=74)
                + line(134, (40, "Money out"))
                + rows(day("01/08/2024", "01/08/2024", "Rent", "100.00"), [(200, "May")],
                       day("", "02/08/2024", "Tea", "2.50"),
                       day("", "03/08/2024", "Fee", "1.25"),
                       day("04/08/2024", "05/08/2024", "Bus", "1.00"), top=146))
        found = analysis.analyze_pages([page])
        self.assertEqual(found.sections, ["money in", "money out"])
        frame = dataframe.build_frame([page], found.settings)
        self.assertEqual(list(frame.columns), ["Booked", "Value", "Details", "Amount"])
        self.assertEqual(frame["Booked"].tolist(), ["01/08/2024"] * 3 + ["03/08/2024"]
                         + ["01/08/2024"] * 3 + ["04/08/2024"])
        self.assertEqual(frame["Details"].tolist()[0], "Salary Acme Ltd")


class SectionTitleOverTheFirstRowTest(unittest.TestCase):
    def test_a_title_over_a_first_row_that_prints_its_own_text_is_a_section_not_text_above(self):
        # each row prints its text on its dated line and wraps below; 'Money out' stands
        # over the first row, 'Money in' under a total: no row took either
        def row(text, day, amount):
            return [(40, text), (250, f"0{day}/08/2024"), (330, amount)]

        page = (line(50, (40, "Details"), (250, "Date"), (330, "Amount"))
                + line(68, (40, "Money out"))
                + rows(row("ATM withdrawal Boise", 1, "4.40"), [(40, "agreed")],
                       row("Card purchase", 2, "37.50"), row("Rent May", 3, "100.00"), top=80)
                + line(128, (40, "Total money out"), (330, "141.90"))
                + line(140, (40, "Money in"))
                + rows(row("Salary Acme", 4, "300.00"), [(40, "for May")],
                       row("Refund Shop", 5, "9.00"), top=152)
                + line(188, (40, "Total money in"), (330, "309.00")))
        found = analysis.analyze_pages([page])
        self.assertEqual(found.sections, ["money out", "money in"])
        self.assertEqual(found.settings["continuation"], "below")
        details = dataframe.build_frame([page], found.settings)["Details"].tolist()
        self.assertEqual(details, ["ATM withdrawal Boise agreed", "Card purchase", "Rent May",
                                   "Salary Acme for May", "Refund Shop"])

    def test_a_rows_text_left_beyond_its_reach_under_it_is_no_title(self):
        # two rows' second lines stand further under them than a wrap reaches: no row
        # took them, and no section starts there; the words stay unaccounted for
        page = (line(50, (40, "Details"), (250, "Date"), (330, "Amount"), (400, "Balance"))
                + line(62, (40, "Rent May"), (250, "01/08/2024"), (330, "-100.00"),
                       (400, "900.00"))
                + line(92, (40, "reference 44CB payment"))
                + line(104, (40, "Salary Acme"), (250, "02/08/2024"), (330, "300.00"),
                       (400, "1,200.00"))
                + line(116, (40, "Refund Shop"), (250, "03/08/2024"), (330, "9.00"),
                       (400, "1,209.00"))
                + line(146, (40, "invoice 77 for loan"))
                + line(158, (40, "Bus"), (250, "04/08/2024"), (330, "-1.00"), (400, "1,208.00")))
        found = analysis.analyze_pages([page])
        self.assertEqual(found.sections, [])
        result = verify.intrinsic(dataframe.build_frame([page], found.settings), [page],
                                  found.settings)
        self.assertEqual(result["status"], "unverified", result["summary"])
        self.assertIn("'reference'", result["summary"])

if __name__ == "__main__":
    unittest.main()
