"""`dua check STATEMENT.pdf ROWS.csv`: rows from anywhere, judged by the statement itself."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import unittest

import pandas as pd

from tests.support import FIXTURES, run_dua

LAYOUT = os.path.join(FIXTURES, "statements", "plain_western")


class CheckCommandTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-check-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.pdf = os.path.join(LAYOUT, "a.pdf")
        self.key = pd.read_csv(os.path.join(LAYOUT, "a.csv"))

    def rows(self, frame) -> str:
        path = os.path.join(self.tmp, "rows.csv")
        frame.to_csv(path, index=False)
        return path

    def test_the_right_rows_pass_and_exit_0_with_every_check_named(self):
        done = run_dua("check", self.pdf, os.path.join(LAYOUT, "a.csv"))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertTrue(done.stdout.startswith(f"passed: {len(self.key)} rows"), done.stdout)
        for name in ("rows_read_back", "balance_reconciles", "words_accounted"):
            self.assertIn(f"  {name}: ok", done.stdout)

    def test_a_lost_row_is_not_passed_and_exits_1(self):
        lost = self.key.drop(index=self.key.index[len(self.key) // 2]).reset_index(drop=True)
        done = run_dua("check", self.pdf, self.rows(lost), "--json")
        self.assertEqual(done.returncode, 1, done.stderr)
        report = json.loads(done.stdout)
        self.assertIn(report["status"], ("failed", "unverified"))
        self.assertEqual(report["rows"], len(lost))
        self.assertEqual(report["checks"][0]["name"], "rows_read_back")
        self.assertTrue([c for c in report["checks"] if c["passed"] is not True], report)

    def test_a_changed_digit_is_failed_where_the_page_reads_to_rows_that_verify(self):
        wrong = self.key.copy()
        column = [c for c in wrong.columns if str(wrong[c].dtype) == "float64"][0]
        row = int(wrong[column].first_valid_index())
        wrong.at[row, column] = wrong.at[row, column] + 10
        done = run_dua("check", self.pdf, self.rows(wrong))
        self.assertEqual(done.returncode, 1)
        self.assertTrue(done.stdout.startswith("failed:"), done.stdout)
        self.assertIn("page_verifies_otherwise: FAILED", done.stdout)

    def test_rows_in_the_common_schema_alone_are_judged_by_the_pages_own_verified_reading(self):
        import dua

        ledger = dua.normalize(self.key, self.pdf).frame[["date", "description", "amount"]]
        done = run_dua("check", self.pdf, self.rows(ledger))
        self.assertEqual(done.returncode, 0, done.stdout + done.stderr)
        self.assertIn("ledger_key: ok", done.stdout)
        self.assertIn("descriptions not compared", done.stdout)
        wrong = ledger.copy()
        wrong.at[2, "amount"] = wrong.at[2, "amount"] + 1
        done = run_dua("check", self.pdf, self.rows(wrong))
        self.assertEqual(done.returncode, 1, done.stdout)
        self.assertTrue(done.stdout.startswith("failed:"), done.stdout)
        self.assertIn("row 3: amount", done.stdout)

    def test_quiet_keeps_the_verdict_of_a_non_zero_exit_on_stderr(self):
        lost = self.key.iloc[1:].reset_index(drop=True)
        done = run_dua("check", self.pdf, self.rows(lost), "--quiet")
        self.assertEqual(done.returncode, 1)
        self.assertEqual(done.stdout, "")
        self.assertRegex(done.stderr, r"^dua check: (failed|unverified): ")

    def test_review_writes_one_page_with_the_verdict(self):
        page = os.path.join(self.tmp, "check.html")
        done = run_dua("check", self.pdf, os.path.join(LAYOUT, "a.csv"), "--review", page)
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(page, encoding="utf-8") as fh:
            html = fh.read()
        self.assertIn("dua check", html)
        self.assertIn("passed", html)
        # the reading that matched the rows, said rule by rule
        self.assertIn("Reading rules that fired", html)
        self.assertIn("a row&#x27;s wrapped lines are read", html.replace("&#39;", "&#x27;"))

    def test_a_missing_csv_is_bad_input_before_any_reading(self):
        done = run_dua("check", self.pdf, os.path.join(self.tmp, "nope.csv"))
        self.assertEqual(done.returncode, 3)
        self.assertIn("nope.csv", done.stderr)
        self.assertNotIn("Traceback", done.stderr)

    def test_a_pdf_that_is_not_one_is_bad_input(self):
        fake = os.path.join(self.tmp, "fake.pdf")
        with open(fake, "w", encoding="utf-8") as fh:
            fh.write("<html>not a pdf</html>")
        done = run_dua("check", fake, os.path.join(LAYOUT, "a.csv"))
        self.assertEqual(done.returncode, 3)
        self.assertNotIn("Traceback", done.stderr)


if __name__ == "__main__":
    unittest.main()
