"""Verification: compare with an expected CSV (and its diagnostics), and intrinsic checks."""
from __future__ import annotations

import os
import tempfile
import unittest

import pandas as pd

from dua.errors import DocumentNotFoundError, SchemaError
from dua.statements.table import dataframe, engine, reconcile, tablestarts, totals
from dua.statements.verification import verify

from ..table.test_engine import HEADER, line, row, settings


def frame(**cols):
    return pd.DataFrame(cols)


class CompareTest(unittest.TestCase):
    def setUp(self):
        self.expected = frame(Date=["01-08-2024", "02-08-2024"], Description=["Salary", "Rent"],
                              Amount=[10.0, -4.5], Balance=[110.0, 105.5])

    def test_an_equal_frame_passes_with_distance_zero(self):
        result = verify.compare(self.expected.copy(), self.expected)
        self.assertEqual((result["status"], result["distance"]), ("passed", 0))

    def test_missing_and_renamed_columns_are_named(self):
        got = self.expected.rename(columns={"Amount": "Amt"})
        diag = verify.compare(got, self.expected)["diagnostics"]
        self.assertEqual(diag["missing_columns"], ["Amount"])
        self.assertEqual(diag["extra_columns"], ["Amt"])
        self.assertEqual(diag["renamed_columns"], [["Amount", "Amt"]])

    def test_dtype_differences_are_reported(self):
        got = self.expected.assign(Amount=["10.0", "-4.5"])
        result = verify.compare(got, self.expected)
        self.assertEqual(result["diagnostics"]["dtype_differences"]["Amount"][0], "float64")
        self.assertIn("column 'Amount' has dtype", result["summary"])

    def test_first_differing_cells_and_one_sided_rows_are_listed(self):
        got = self.expected.assign(Amount=[10.0, 4.5])
        diag = verify.compare(got, self.expected)["diagnostics"]
        self.assertEqual(diag["first_differences"],
                         [{"row": 1, "column": "Amount", "expected": -4.5, "got": 4.5}])
        self.assertEqual(len(diag["rows_only_got"]), 1)

    def test_no_rows_is_said_first_without_the_dtype_symptoms_it_causes(self):
        empty = pd.DataFrame({c: pd.Series([], dtype="float64") for c in self.expected.columns})
        summary = verify.compare(empty, self.expected)["summary"]
        self.assertTrue(summary.startswith("0 rows, expected 2: no line"), summary)
        self.assertNotIn("dtype", summary)

    def test_row_count_difference_costs_more_than_a_cell(self):
        short = verify.compare(self.expected.iloc[:1], self.expected)
        cell = verify.compare(self.expected.assign(Amount=[10.0, 4.5]), self.expected)
        self.assertEqual(short["diagnostics"]["row_count"], {"expected": 2, "got": 1})
        self.assertGreater(short["distance"], cell["distance"])

    def test_load_expected_raises_typed_errors(self):
        with self.assertRaises(DocumentNotFoundError):
            verify.load_expected("/nonexistent/result.csv")
        with tempfile.TemporaryDirectory() as tmp:
            bad = os.path.join(tmp, "bad.csv")
            with open(bad, "wb") as fh:
                fh.write(b"\xff\xfe\x00bad")
            with self.assertRaises(SchemaError):
                verify.load_expected(bad)

    def test_load_expected_reads_a_bom_and_semicolon_or_tab_exports_as_the_same_frame(self):
        with tempfile.TemporaryDirectory() as tmp:
            plain = os.path.join(tmp, "plain.csv")
            self.expected.to_csv(plain, index=False)
            for name, sep, encoding in (("bom.csv", ",", "utf-8-sig"), ("semi.csv", ";", "utf-8"),
                                        ("tab.csv", "\t", "utf-8-sig")):
                path = os.path.join(tmp, name)
                self.expected.to_csv(path, index=False, sep=sep, encoding=encoding)
                self.assertTrue(verify.load_expected(path).equals(verify.load_expected(plain)), name)

    def test_an_expected_csv_with_a_header_and_no_rows_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "header_only.csv")
            self.expected.head(0).to_csv(path, index=False)
            with self.assertRaisesRegex(SchemaError, "has no rows"):
                verify.load_expected(path)

    def test_an_unreadable_expected_csv_is_reported_on_one_line(self):
        with tempfile.TemporaryDirectory() as tmp:
            ragged = os.path.join(tmp, "ragged.csv")
            with open(ragged, "w") as fh:
                fh.write("a\nb\nc,d,e\n")
            with self.assertRaises(SchemaError) as caught:
                verify.load_expected(ragged)
            self.assertNotIn("\n", caught.exception.message)


class IntrinsicTest(unittest.TestCase):
    def test_balances_reconcile_in_either_sign_convention(self):
        debit_credit = frame(Debit=[None, 5.0, None], Credit=[None, None, 2.5],
                             Balance=[100.0, 95.0, 97.5])
        self.assertTrue(verify.reconcile(debit_credit)["passed"])
        card_style = frame(Debit=[None, 5.0], Credit=[None, None], Balance=[100.0, 105.0])
        self.assertTrue(verify.reconcile(card_style)["passed"])

    def test_a_statement_printed_newest_first_reconciles(self):
        newest_first = frame(Debit=[None, 5.0, None], Credit=[2.5, None, None],
                             Balance=[97.5, 95.0, 100.0])
        result = verify.reconcile(newest_first)
        self.assertTrue(result["passed"], result["detail"])
        self.assertIn("newest first", result["detail"])

    def test_a_wrong_balance_fails_and_names_the_row(self):
        result = verify.reconcile(frame(Amount=[1.0, -5.0, 2.0], Balance=[10.0, 5.0, 9.0]))
        self.assertFalse(result["passed"])
        self.assertIn("row 2", result["detail"])

    def test_an_amount_with_a_drcr_column_takes_its_sign(self):
        f = frame(Amount=[1.0, 5.0, 2.0], **{"Dr/Cr": ["Cr", "Dr", "Cr"]}, Balance=[10.0, 5.0, 7.0])
        self.assertTrue(verify.reconcile(f)["passed"])
        words = f.assign(**{"Dr/Cr": ["CREDIT", "DEBIT", "CREDIT"]})
        self.assertTrue(verify.reconcile(words)["passed"])

    def test_a_balance_on_each_days_last_row_beside_a_sign_code_column_reconciles(self):
        # the codes repeat more than the days do; the days still say which rows a later
        # balance of the same day closes
        f = frame(Date=["01 May", "03 May", "03 May", "04 May"],
                  Amount=[5.0, 2.0, 1.0, 4.0], **{"D/C": ["DR", "DR", "CR", "CR"]},
                  Balance=[95.0, None, 94.0, 98.0])
        self.assertTrue(verify.reconcile(f)["passed"], verify.reconcile(f)["detail"])

    def test_a_balance_on_each_booking_days_last_row_reconciles_beside_value_dates(self):
        # the value dates repeat on neighbouring rows more often than the booking dates;
        # the row without a balance shares its booking day with the next, not its value day
        f = frame(Booked=["01 May", "02 May", "03 May", "03 May", "04 May"],
                  Value=["02 May", "02 May", "05 May", "04 May", "04 May"],
                  Amount=[5.0, 2.0, 1.0, 4.0, 3.0], Balance=[95.0, 97.0, None, 102.0, 105.0])
        self.assertTrue(verify.reconcile(f)["passed"], verify.reconcile(f)["detail"])

    def test_no_balance_column_is_unverified_not_failed(self):
        f = frame(Date=["01/02/24"], Description=["Coffee"], Amount=[3.5])
        result = verify.intrinsic(f, [[]], settings())
        self.assertIsNone(result["checks"][0]["passed"])
        self.assertEqual(result["status"], "unverified")

    def test_a_reading_of_no_rows_ranks_below_any_reading_of_some(self):
        # a search moving away from rows that leave words over must not land on none
        # (here rows whose balances do not chain, and a note no cell accounts for)
        page = (HEADER + row(65, "01/02/24", "Coffee", "3.50", "96.50")
                + row(77, "02/02/24", "Tea", "1.50", "90.00") + line(71, (600, "a note")))
        some = verify.intrinsic(dataframe.build_frame([page], settings()), [page], settings())
        none = verify.intrinsic(dataframe.build_frame([page], settings(date_pattern="x")),
                                [page], settings(date_pattern="x"))
        self.assertGreater(none["distance"], some["distance"])

    def test_rows_the_accounting_does_not_read_leave_the_result_unverified(self):
        # A parser's frame that the pages' own reading does not give (an LLM's free code,
        # say): the ledger describes other rows, so it proves nothing about these.
        f = frame(Date=["01/02/24", "02/02/24"], Description=["Coffee", "Tea"],
                  Amount=[-3.5, -3.5], Balance=[96.5, 93.0])
        result = verify.intrinsic(f, [[]], settings())
        self.assertTrue(result["checks"][0]["passed"])
        self.assertIsNone(result["checks"][1]["passed"])
        self.assertIn("not the rows", result["checks"][1]["detail"])
        self.assertEqual(result["status"], "unverified")


class TotalsTest(unittest.TestCase):
    def test_card_amounts_reconcile_with_the_printed_total(self):
        from ..table.test_engine import HEADER, line

        page = (HEADER + line(60, (100, "Previous Balance"), (320, "10.00"))
                + line(70, (40, "01/02/24"), (100, "Coffee"), (320, "3.50"))
                + line(80, (40, "02/02/24"), (100, "Refund"), (320, "(1.50)"))
                + line(95, (100, "Total Amount Due"), (320, "12.00")))
        s = settings(skip_patterns=[r"\bprevious balance\b", r"\btotal amount due\b"])
        s["columns"] = s["columns"][:3]
        f = frame(Date=["01/02/24", "02/02/24"], Description=["Coffee", "Refund"], Amount=[3.5, -1.5])
        result = verify.intrinsic(f, [page], s)
        self.assertEqual(result["checks"][0]["name"], "totals_reconcile")
        self.assertTrue(result["checks"][0]["passed"], result["summary"])
        self.assertEqual(result["status"], "passed")
        wrong = verify.intrinsic(f.assign(Amount=[3.5, 1.5]), [page], s)
        self.assertEqual(wrong["status"], "failed")


    def test_amounts_that_sum_to_no_figure_off_the_table_leave_the_rows_unverified(self):
        # a guide's illustrative summary: printed figures about other rows, matched by value
        # alone, say nothing of these; on the table's own lines a figure would
        page = (line(20, (100, "Purchases"), (320, "5,664.21")) + HEADER
                + line(70, (40, "01/02/24"), (100, "Coffee"), (320, "3.50"))
                + line(80, (40, "02/02/24"), (100, "Tea"), (320, "1.50")))
        s = settings(require_header=True)
        s["columns"] = s["columns"][:3]
        f = frame(Date=["01/02/24", "02/02/24"], Description=["Coffee", "Tea"], Amount=[3.5, 1.5])
        result = verify.intrinsic(f, [page], s)
        self.assertIsNone(result["checks"][0]["passed"], result["summary"])
        self.assertIn("nothing on the page sums them", result["checks"][0]["detail"])
        self.assertEqual(result["status"], "unverified")


class AccountsTest(unittest.TestCase):
    """Two accounts in one statement, each table under its own heading with its totals."""

    def verdict(self, second_total: str):
        s = settings(skip_patterns=[r"^\s*total\b"], header=["date description debit credit"])
        s["columns"][2:] = [{"name": "Debit", "x0": 300.0, "kind": "amount"},
                            {"name": "Credit", "x0": 400.0, "kind": "amount"}]
        head = lambda top: line(top, (40, "Date"), (100, "Description"), (310, "Debit"),
                                (410, "Credit"))
        page = (head(50) + line(65, (40, "01/02/24"), (100, "Coffee"), (320, "5.00"))
                + line(77, (40, "02/02/24"), (100, "Salary"), (420, "20.00"))
                + line(90, (100, "Total"), (320, "5.00"), (420, "20.00"))
                + line(120, (40, "Savings"), (100, "account")) + head(135)
                + line(150, (40, "03/02/24"), (100, "Fee"), (320, "7.25"))
                + line(162, (40, "04/02/24"), (100, "Interest"), (420, "3.10"))
                + line(175, (100, "Total"), (320, second_total), (420, "3.10")))
        return verify.intrinsic(dataframe.build_frame([page], s), [page], s)

    def test_each_accounts_rows_add_up_to_the_totals_printed_under_them(self):
        result = self.verdict("7.25")
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("rows 1-2", result["checks"][0]["detail"])

    def test_each_account_under_its_numbered_title_sums_to_its_own_debits_and_credits(self):
        # no balance column: each account's summary prints its money out and in apart,
        # and the second account's title with its number stands between the tables
        s = settings(skip_patterns=[r"\btotal debits\b"], header=["date description amount"])
        s["columns"][2:] = [{"name": "Amount", "x0": 300.0, "kind": "amount"}]
        page = []
        for n, (top, name, amounts) in enumerate(((40, "Current", ("-5.00", "20.00")),
                                                  (160, "Savings", ("-7.25", "3.10")))):
            out, into = amounts[0][1:], amounts[1]
            closing = f"{100 - float(out) + float(into):.2f}"
            page += (line(top, (40, f"{name} Account 81{n}0 5273"))
                     + line(top + 12, (40, "Opening"), (120, "Total debits"),
                            (200, "Total credits"), (280, "Closing"))
                     + line(top + 24, (40, "100.00"), (120, out), (200, into), (280, closing))
                     + line(top + 40, (40, "Date"), (100, "Description"), (310, "Amount"))
                     + line(top + 55, (40, f"0{n + 1}/02/24"), (100, "Coffee"),
                            (320, amounts[0]))
                     + line(top + 67, (40, f"0{n + 2}/02/24"), (100, "Salary"),
                            (320, amounts[1])))
        result = verify.intrinsic(dataframe.build_frame([page], s), [page], s)
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("one way add up to the printed", result["checks"][0]["detail"])

    def test_one_account_whose_rows_miss_its_totals_proves_nothing(self):
        self.assertNotEqual(self.verdict("9.40")["status"], "passed")

    def test_a_tables_total_less_the_rest_is_no_proof_it_is_the_lost_rows_amount(self):
        # the lost row's line still prints -45.00: 100.00 less the rest of the table gives
        # it, as it would for any row lost under a printed total
        printed = [100.0, 45.0, 15.0]
        right = frame(Amount=[-30.0, -25.0, -45.0, 10.0, 5.0])
        self.assertTrue(totals.totals_by_table(right, printed, [3])["passed"])
        lost = frame(Amount=[-30.0, -25.0, 10.0, 5.0])
        self.assertEqual(totals.totals_by_table(lost, printed, [2]), {})

    def test_unsigned_tables_that_each_add_up_leave_their_direction_unproven(self):
        # 'Money out' over 30.00 and 25.00, 'Money in' over 10.00 and 5.00, printed without
        # signs: each adds up to its total whichever of them is money in
        result = totals.totals_by_table(frame(Amount=[30.0, 25.0, 10.0, 5.0]), [55.0, 15.0], [2])
        self.assertIsNone(result["passed"])
        self.assertIn("which tables move money in", result["detail"])


class AccountSummariesTest(unittest.TestCase):
    """Two accounts under their own headings, each with a summary box: its opening balance
    off the table's columns, its money out and in (Dr and Cr apart), its count of rows."""

    def verdict(self, opening: str = "500.00", count: str = "2"):
        s = settings(header=["date description amount dc balance"])
        s["columns"] = [{"name": "Date", "x0": 0.0, "kind": "date"},
                        {"name": "Description", "x0": 90.0, "kind": "text"},
                        {"name": "Amount", "x0": 250.0, "kind": "amount"},
                        {"name": "DC", "x0": 330.0, "kind": "text"},
                        {"name": "Balance", "x0": 400.0, "kind": "amount"}]
        head = lambda top: line(top, (40, "Date"), (100, "Description"), (260, "Amount"),
                                (340, "DC"), (410, "Balance"))
        summary = lambda top, *values: line(top, *zip((40, 110, 180, 240, 300), values))
        page = (summary(20, "1,000.00", "53.50", "100.00", "1,046.50", "3") + head(35)
                + line(50, (40, "01/02/24"), (100, "Coffee"), (270, "3.50"), (340, "Dr"),
                       (410, "996.50"))
                + line(62, (40, "02/02/24"), (100, "Salary"), (270, "100.00"), (340, "Cr"),
                       (410, "1,096.50"))
                + line(74, (40, "03/02/24"), (100, "Rent"), (270, "50.00"), (340, "Dr"),
                       (410, "1,046.50"))
                + summary(100, opening, "7.25", "20.00", "512.75", count) + head(115)
                + line(130, (40, "04/02/24"), (100, "Fee"), (270, "7.25"), (340, "Dr"),
                       (410, "492.75"))
                + line(142, (40, "05/02/24"), (100, "Interest"), (270, "20.00"), (340, "Cr"),
                       (410, "512.75")))
        return verify.intrinsic(dataframe.build_frame([page], s), [page], s)

    def test_each_accounts_summary_speaks_of_its_own_rows(self):
        result = self.verdict()
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("start again at row(s) 3", result["checks"][0]["detail"])

    def test_a_summary_that_opens_from_another_balance_is_no_summary_of_these_rows(self):
        self.assertNotEqual(self.verdict(opening="510.00")["status"], "passed")


class SummaryCountTest(unittest.TestCase):
    """A summary's line of figures: the rows' opening and closing balances and a count."""

    def verdict(self, count: str):
        s = settings()
        page = (line(20, (40, "100.00"), (110, "95.00"), (180, count)) + HEADER
                + row(65, "01/02/24", "Coffee", "-3.50", "96.50")
                + row(77, "02/02/24", "Tea", "-1.50", "95.00"))
        return verify.intrinsic(dataframe.build_frame([page], s), [page], s)

    def test_a_count_beside_the_rows_balances_is_their_count(self):
        result = self.verdict("2")
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("and their count, 2", result["summary"])

    def test_money_out_and_money_in_counted_apart_add_up_to_the_rows(self):
        result = self.verdict("1 1")
        self.assertEqual(result["status"], "passed", result["summary"])
        self.assertIn("and their count, 2", result["summary"])

    def test_the_whole_numbers_of_a_line_are_those_no_amount_takes(self):
        # '4 249,10': a space groups the thousands; 34 stands alone
        words = [(t, 0.0, 0.0, 0.0, 8.0) for t in "4 249,10 110 627,36 166 640,08 34".split()]
        self.assertEqual(reconcile.counts_on(words, {"decimal": ","}), [34])
        amounts_and_counts = [(t, 0.0, 0.0, 0.0, 8.0) for t in "48,210.55 146 39 13.82".split()]
        self.assertEqual(reconcile.counts_on(amounts_and_counts, {"decimal": "."}), [146, 39])

    def test_a_count_of_other_rows_fails_them(self):
        # a row lost whose amount nets to nothing would leave both balances right
        result = self.verdict("3")
        self.assertEqual(result["status"], "failed", result["summary"])
        self.assertIn("counts 3 transactions beside them, and there are 2 rows",
                      result["summary"])


class BalancesAsPrintedTest(unittest.TestCase):
    def test_a_balance_signed_by_its_section_is_not_as_printed(self):
        from dua.statements.verification import printed

        columns = [{"name": "Money out", "kind": "amount", "section_signed": True},
                   {"name": "Balance", "kind": "amount", "section_signed": True}]
        found = printed.balances_as_printed({"columns": columns}, {"roles": ["Balance", "x"]})
        self.assertFalse(found["passed"])
        columns[1].pop("section_signed")
        self.assertIsNone(printed.balances_as_printed({"columns": columns},
                                                      {"roles": ["Balance", "x"]}))


class SecondTableTest(unittest.TestCase):
    """A second account's table under its own heading, with no opening balance printed."""

    def verdict(self, heading: bool, first_balance: str | None = "502.00",
                opening: bool = False, summary_after: bool = False,
                summary_between: bool = False, total_between: bool = False,
                total_after: bool = False):
        s = settings()
        page = (HEADER + row(65, "01/02/24", "Coffee", "-3.50", "96.50")
                + row(77, "02/02/24", "Tea", "-1.50", "95.00")
                + (line(86, (100, "100.00"), (160, "95.00")) if summary_between else [])
                + (line(86, (100, "Total"), (310, "-5.00")) if total_between else [])
                + line(95, (40, "Savings"), (100, "account")) + (line(110, (40, "Date"),
                (100, "Description"), (310, "Amount"), (410, "Balance")) if heading else [])
                + (line(118, (100, "Opening balance"), (410, "500.00")) if opening else [])
                + row(125, "03/02/24", "Interest", "2.00", first_balance)
                + row(137, "03/02/24" if first_balance is None else "04/02/24", "Fee", "-1.00",
                      "501.00")
                + (line(160, (100, "Opening"), (160, "Closing"))
                   + line(170, (100, "500.00"), (160, "501.00")) if summary_after else [])
                + (line(150, (100, "Total"), (310, "1.00")) if total_after else []))
        return verify.intrinsic(dataframe.build_frame([page], s), [page], s)

    def expect(self, status: str, *details: str, **layout):
        result = self.verdict(heading=True, **layout)
        self.assertEqual(result["status"], status, result["summary"])
        for detail in details:
            self.assertIn(detail, result["checks"][0]["detail"])

    def test_its_first_row_opens_on_nothing_as_the_statements_first_row_does(self):
        self.expect("passed", "starts under its heading at row(s) 2",
                    "the amounts of row(s) 2 lead to no balance printed")

    def test_its_rows_up_to_its_first_balance_printed_open_on_nothing(self):
        # a balance printed at each day's end: the second table's first row, the day's
        # first, prints none
        self.expect("passed", "the amounts of row(s) 2, 3 lead to no balance printed",
                    first_balance=None)

    def test_a_figure_around_it_that_leads_nowhere_leaves_its_first_row_unchecked(self):
        # the first account's figures between the tables, and none the second one's
        # opening: what stands there could be a row the reading lost
        self.expect("unverified", "the amounts of row(s) 2 are not checked",
                    summary_between=True)

    def test_the_first_tables_total_between_them_is_no_figure_a_lost_row_prints(self):
        for after in (False, True):  # and its own total under its rows
            self.expect("passed", "no figure around it but the tables' own totals",
                        "the amounts of row(s) 2 lead to no balance printed",
                        total_between=True, total_after=after)

    def test_its_opening_balance_reaches_the_first_balance_it_prints(self):
        # the opening printed over its first row, which prints no balance of its own
        self.expect("passed", "start again at row(s) 2", first_balance=None, opening=True)

    def test_its_opening_balance_in_its_summary_below_it_checks_its_first_row(self):
        # the summary's figures stand under their labels, outside the columns of money
        self.expect("passed", "start again at row(s) 2", summary_after=True)

    def test_the_first_accounts_summary_figures_between_the_tables_are_its_own(self):
        # its opening and closing balances, set under their labels outside the columns
        self.expect("passed", summary_between=True, summary_after=True)

    def test_without_a_heading_of_its_own_the_break_is_a_fault(self):
        self.assertEqual(self.verdict(heading=False)["status"], "failed")


class OpeningsTest(unittest.TestCase):
    def test_a_line_dated_as_the_rows_are_is_no_opening_balance(self):
        # a reading that left 'Milk' out (a label learned from rows that lost it): the
        # balance its line prints is the row's, no opening the chain may start again from
        s = settings(skip_patterns=[r"\bMilk\b"])
        page = (HEADER + row(65, "01/02/24", "Coffee", "-3.50", "96.50")
                + row(77, "02/02/24", "Milk", "-2.00", "94.50")
                + row(89, "03/02/24", "Tea", "-1.50", "93.00"))
        extraction = engine.extract([page], s)
        self.assertEqual(len(extraction[0]), 2)
        self.assertEqual(tablestarts.openings(extraction, s), {})
        opening = (HEADER + row(65, "01/02/24", "Coffee", "-3.50", "96.50")
                   + line(77, (100, "Opening balance"), (420, "500.00"))
                   + row(89, "03/02/24", "Tea", "-1.50", "498.50"))
        self.assertEqual(tablestarts.openings(engine.extract([opening], s), s), {1: [500.0]})

    def test_a_line_whose_figures_carry_the_balance_on_is_a_lost_row_not_an_opening(self):
        # an OCR'd date misread to no date ('O5SFEB26'): the line is no row to the reading,
        # yet its amount moves the balance above it to the balance it prints, so the chain
        # may not start again from that balance as a second account's opening
        s = settings()
        page = (HEADER + row(65, "01/02/24", "Coffee", "-3.50", "96.50")
                + row(77, "02/02/24", "Bread", "-1.00", "95.50")
                + line(89, (40, "O5SFEB26"), (100, "Milk"), (320, "-2.00"), (420, "93.50"))
                + row(101, "06/02/24", "Tea", "-1.50", "92.00")
                + row(113, "07/02/24", "Jam", "-2.50", "89.50"))
        result = verify.intrinsic(dataframe.build_frame([page], s), [page], s)
        self.assertEqual(result["checks"][0]["passed"], False, result["checks"][0]["detail"])
        self.assertNotEqual(result["status"], "passed")

    def test_a_numbered_title_over_a_later_pages_heading_opens_an_accounts_table(self):
        # page two: the account's name and number over the heading printed again; a bank's
        # banner there, named but unnumbered, opens nothing
        s = settings()
        first = HEADER + row(65, "01/02/24", "Coffee", "-3.50", "96.50")
        for title, opens in (("Savings Account 6826 6529", [1]), ("Kestrel Bank", [])):
            with self.subTest(title=title):
                second = (line(30, (40, title)) + HEADER
                          + row(65, "02/02/24", "Tea", "-1.50", "700.00"))
                self.assertEqual(tablestarts.new_tables(engine.extract([first, second], s)),
                                 opens)


class CutShortTest(unittest.TestCase):
    """A summary that counts the rows of a page the file does not hold."""

    def verdict(self, foot: str, out: str = "40.00", closing: str = "60.00"):
        page = (line(10, (100, "Opening balance"), (320, "100.00"))
                + line(20, (100, "Withdrawals"), (320, out))
                + line(30, (100, "Closing balance"), (320, closing)) + HEADER
                + row(65, "01/02/24", "Coffee", "-10.00", "90.00")
                + row(77, "02/02/24", "Tea", "-5.00", "85.00") + line(700, (300, foot)))
        s = settings(require_header=True)
        return verify.intrinsic(dataframe.build_frame([page], s), [page], s)

    def test_a_summary_of_other_rows_fails_them_on_a_whole_statement(self):
        self.assertEqual(self.verdict("Thank you")["status"], "failed")

    def test_it_leaves_them_unverified_where_the_pages_say_one_is_missing(self):
        result = self.verdict("Page 1 of 2")
        self.assertEqual(result["status"], "unverified", result["summary"])
        names = {c["name"]: c for c in result["checks"]}
        self.assertIsNone(names["summary_agrees"]["passed"])
        self.assertIn("numbered '1 of 2' and the file holds 1", names["pages_complete"]["detail"])

    def test_a_summary_of_these_rows_balances_and_totals_proves_the_missing_page_holds_none(self):
        result = self.verdict("Page 1 of 2", out="15.00", closing="85.00")
        self.assertEqual(result["status"], "passed", result["summary"])
        # both balances alone would not: rows that cancel could stand on the missing page
        opening_and_closing = self.verdict("Page 1 of 2", out="99.00", closing="85.00")
        self.assertEqual(opening_and_closing["status"], "unverified")


class ReconcileTest(unittest.TestCase):
    def test_a_charge_beside_debit_and_credit_moves_the_balance_too(self):
        f = frame(Charge=[None, None, None, 1.0], Debit=[None, 5.0, None, None],
                  Credit=[None, None, 2.5, None], Balance=[100.0, 95.0, 97.5, 96.5])
        result = verify.reconcile(f)
        self.assertTrue(result["passed"], result["detail"])
        self.assertEqual(result["roles"], ["Balance", "'Credit' in, 'Charge' and 'Debit' out"])

    def test_a_second_accounts_chain_starts_again_from_the_opening_balance_above_it(self):
        f = frame(Amount=[-5.0, -2.0, -3.0, 10.0], Balance=[95.0, 93.0, 497.0, 507.0])
        self.assertFalse(reconcile.reconcile(f)["passed"])
        result = reconcile.reconcile(f, {2: [93.0, 500.0]})  # closing 93.00, opening 500.00
        self.assertTrue(result["passed"], result["detail"])
        self.assertEqual(result["restarts"], [2])
        # an amount printed there that the row does not move from is no opening balance
        self.assertFalse(reconcile.reconcile(f, {2: [93.0, 400.0]})["passed"])

    def test_printed_totals_reconcile_whichever_balance_is_printed_first(self):
        movements = frame(Amount=[100.0, -30.0, -20.0])
        for printed in ([1000.0, 1050.0], [1050.0, 1000.0]):
            with self.subTest(printed=printed):
                result = totals.reconcile_totals(movements, printed)
                self.assertTrue(result["passed"], result["detail"])
                self.assertIn("the printed 1000.0 and 'Amount' (3 amounts)", result["detail"])

    def test_a_column_of_money_no_printed_figure_sums_leaves_the_rows_unchecked(self):
        # the credits add up to a printed total; a debit lost or misread would pass unseen
        movements = frame(Debit=[5.0, None, 7.0], Credit=[None, 20.0, None])
        result = totals.reconcile_totals(movements, [20.0, 999.0])
        self.assertIsNone(result["passed"])
        self.assertIn("no printed figure sums 'Debit'", result["detail"])
        both = totals.reconcile_totals(movements, [20.0, 12.0])
        self.assertTrue(both["passed"], both["detail"])

    def test_one_column_alone_leads_from_no_printed_balance_to_another(self):
        # a row lost and printed outside the rows: its amount plus the rest is the total
        movements = frame(Debit=[5.0, None], Credit=[None, 20.0])
        result = totals.reconcile_totals(movements, [12.0, 5.0, 25.0])
        self.assertFalse(result["passed"] is True and 5.0 in result.get("explained", []))

    def test_no_figure_printed_among_the_rows_is_one_they_lead_from(self):
        # a row the reading lost, between two it kept: its amount and the rest add up to
        # the summary's total, but no balance is printed between rows for all of them
        movements = frame(Amount=[100.0, 30.0, 20.0])
        self.assertTrue(totals.reconcile_totals(movements, [2.51, 152.51])["passed"])
        result = totals.reconcile_totals(movements, [2.51, 152.51], among=[2.51])
        self.assertFalse(result["passed"])

    def test_each_way_a_column_moves_money_adds_up_to_a_printed_total_of_its_own(self):
        # a summary prints total debits and total credits, not their difference: each
        # half of the column sums to one of them, by its signs or by its codes
        signed = frame(Amount=[100.0, -30.0, -20.0, 5.0])
        printed = [1000.0, 50.0, 105.0, 1055.0]
        result = totals.reconcile_totals(signed, printed, between=False)
        self.assertTrue(result["passed"], result["detail"])
        self.assertEqual(result["explained"], [50.0, 105.0, 1000.0, 1055.0])
        coded = frame(Amount=[100.0, 30.0, 20.0, 5.0], Code=["C", "D", "D", "C"])
        self.assertTrue(totals.reconcile_totals(coded, printed, between=False)["passed"])
        lost = frame(Amount=[100.0, -30.0, 5.0])  # a debit lost: that half sums to nothing
        self.assertFalse(totals.reconcile_totals(lost, printed, between=False)["passed"])

    def test_balances_printed_in_the_columns_of_money_are_signed_by_their_column(self):
        # CIC: an overdrawn opening under 'Debit', the closing under 'Credit'; the rows'
        # net (644.16) leads from -468.60 to 175.56, which unsigned figures never show
        rows = frame(Debit=[None, None, 92.2], Credit=[500.0, 236.36, None])
        in_table = [(468.6, "Debit"), (92.2, "Debit"), (736.36, "Credit"), (175.56, "Credit")]
        printed = [v for v, _ in in_table]
        result = totals.reconcile_totals(rows, printed, in_table)
        self.assertTrue(result["passed"], result["detail"])
        self.assertIn(468.6, result["explained"])
        self.assertIn("the rows lead from the 468.6 printed under 'Debit' to the 175.56 "
                      "printed under 'Credit'", result["detail"])
        apart = [(v, None) for v, _ in in_table]  # figures in no column of money: no side
        self.assertNotIn(468.6, totals.reconcile_totals(rows, printed, apart)["explained"])
        lost = frame(Debit=[None, 92.2], Credit=[500.0, None])  # a credit lost
        self.assertNotIn(468.6, totals.reconcile_totals(lost, printed, in_table)
                         .get("explained", []))

    def test_movements_that_add_up_to_nothing_never_reconcile(self):
        result = totals.reconcile_totals(frame(Amount=[10.0, -10.0]), [0.0, 42.0])
        self.assertFalse(result["passed"])

    def test_the_daily_balances_are_reached_from_the_opening_one_in_date_order(self):
        newest_first = frame(Date=["03/02/24", "02/02/24", "02/02/24", "01/02/24"],
                             Amount=[5.0, -30.0, -20.0, 100.0])
        printed = [1000.0, 1100.0, 1070.0, 1050.0, 1055.0, 77.0]
        found = reconcile.running_balances(newest_first, printed, "Date")
        self.assertIsNotNone(found)
        # 1070.00 is printed but stands within a day: only the day's last balance counts
        self.assertEqual((found["opening"], found["reached"]), (1000.0, [1050.0, 1055.0, 1100.0]))
        self.assertEqual(found["balances"], {1000.0, 1100.0, 1050.0, 1055.0})


    def test_a_total_of_the_rows_is_no_opening_the_daily_balances_start_from(self):
        # CIC's debits and credits, the credits first: from the credits' total, the rows
        # taken the wrong way reach 0.00 (a rate printed '0,00 %') and the debits' total
        rows = frame(Date=["05/06/25", "06/06/25", "10/06/25"], Debit=[None, None, 92.2],
                     Credit=[500.0, 236.36, None])
        found = reconcile.running_balances(rows, [736.36, 92.2, 0.0, 20.0], "Date")
        self.assertIsNone(found)

class IntrinsicVerdictTest(unittest.TestCase):
    def verdict(self, pages, s):
        return verify.intrinsic(dataframe.build_frame(pages, s), pages, s)

    def test_no_rows_fail_the_result(self):
        result = self.verdict([HEADER], settings())
        self.assertEqual((result["status"], result["checks"][0]["name"]), ("failed", "rows_found"))

    def test_a_row_moving_no_money_fails_though_the_balances_reconcile(self):
        f = frame(Date=["01/02/24", "02/02/24"], Description=["Coffee", "Note"],
                  Amount=[-3.5, None], Balance=[96.5, 96.5])
        result = verify.intrinsic(f, [[]], settings(balance_column=3))
        self.assertEqual((result["status"], result["checks"][0]["name"]),
                         ("failed", "rows_move_money"))

    def test_passed_needs_the_arithmetic_and_every_word_accounted_for(self):
        coffee = row(65, "01/02/24", "Coffee", "3.50", "96.50")
        tea = row(90, "02/02/24", "Tea", "1.50", "95.00")
        self.assertEqual(self.verdict([HEADER + coffee + tea], settings())["status"], "passed")
        stray = line(77, (100, "Fee waived"), (320, "7.77"))
        result = self.verdict([HEADER + coffee + stray + tea], settings())
        self.assertEqual([c["passed"] for c in result["checks"]][:2], [True, False])
        self.assertEqual(result["status"], "unverified")


if __name__ == "__main__":
    unittest.main()
