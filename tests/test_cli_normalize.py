"""``--normalize`` and ``--format csv|jsonl|ofx|qif``, driven as a user drives them.

One schema for every bank (ISO date, one signed amount, balance, currency, page, row, then
the statement's own columns unchanged); the formats a finance tool reads, read back by
real consumers (ofxtools, hledger) where they are installed; a key in either schema.
"""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import tempfile
import unittest

import pandas as pd

from .support import FIXTURES, run_dua

try:
    from ofxtools.Parser import OFXTree
except ImportError:  # a test-only dependency: pip install -e '.[test]'
    OFXTree = None

PLAIN = os.path.join(FIXTURES, "statements", "plain_western")
CARD = os.path.join(FIXTURES, "statements", "card_cr_wk")
SCHEMA = ["date", "description", "amount", "balance", "currency", "account", "page", "row"]


class NormalizeCliTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dua-normalize-cli-")
        cls.parsers = os.path.join(cls.tmp, "parsers")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def parse(self, folder: str, *flags: str, out: str) -> subprocess.CompletedProcess:
        done = run_dua("parse", os.path.join(folder, "a.pdf"), "--bank",
                       os.path.basename(folder), "--parsers-dir", self.parsers, "--out", out,
                       "--quiet", *flags)
        self.assertEqual(done.returncode, 0, done.stderr)
        return done

    def normalized(self, folder: str = PLAIN) -> tuple:
        out = os.path.join(self.tmp, os.path.basename(folder) + ".norm.csv")
        if not os.path.exists(out):
            self.parse(folder, "--normalize", out=out)
        return pd.read_csv(out), out

    def test_normalize_puts_the_schema_first_and_the_statements_own_columns_after_it(self):
        rows, _ = self.normalized()
        key = pd.read_csv(os.path.join(PLAIN, "a.csv"))
        self.assertEqual(list(rows.columns), SCHEMA + list(key.columns))
        self.assertTrue(rows[list(key.columns)].equals(key), "the own columns are unchanged")
        self.assertTrue(rows["date"].str.fullmatch(r"2024-\d\d-\d\d").all(), rows["date"])
        signed = key["Credit Amt"].fillna(0) - key["Debit Amt"].fillna(0)
        self.assertEqual(rows["amount"].round(2).tolist(), signed.round(2).tolist())
        self.assertEqual(rows["row"].tolist(), list(range(1, len(key) + 1)))

    def test_a_cards_purchases_are_money_out_and_its_credits_money_in(self):
        rows, _ = self.normalized(CARD)
        key = pd.read_csv(os.path.join(CARD, "a.csv"))  # the card's convention: CR negative
        self.assertEqual(rows["amount"].round(2).tolist(), (-key["Amount"]).round(2).tolist())

    def test_jsonl_is_one_object_a_row_with_nulls_for_blank_cells(self):
        out = os.path.join(self.tmp, "rows.jsonl")
        self.parse(PLAIN, "--normalize", "--format", "jsonl", out=out)
        with open(out, encoding="utf-8") as fh:
            rows = [json.loads(line) for line in fh]
        self.assertEqual(len(rows), len(pd.read_csv(os.path.join(PLAIN, "a.csv"))))
        self.assertIsNone(rows[0]["Credit Amt"])
        self.assertEqual(list(rows[0])[:len(SCHEMA)], SCHEMA)

    def test_qif_is_a_bank_account_with_one_entry_a_row(self):
        out = os.path.join(self.tmp, "rows.qif")
        self.parse(PLAIN, "--format", "qif", out=out)
        with open(out, encoding="utf-8") as fh:
            text = fh.read()
        rows, _ = self.normalized()
        self.assertTrue(text.startswith("!Type:Bank\n"))
        self.assertEqual(text.count("\n^\n"), len(rows))
        self.assertIn(f"T{rows['amount'][0]:.2f}\n", text)

    @unittest.skipIf(OFXTree is None, "ofxtools is not installed (a test-only dependency: "
                                      "pip install -e '.[test]')")
    def test_ofx_read_back_by_ofxtools_has_one_transaction_a_row_and_the_same_sum(self):
        out = os.path.join(self.tmp, "rows.ofx")
        self.parse(PLAIN, "--format", "ofx", out=out)
        tree = OFXTree()
        with open(out, "rb") as fh:
            tree.parse(io.BytesIO(fh.read()))
        statement = tree.convert().statements[0]
        rows, _ = self.normalized()
        self.assertEqual(len(statement.transactions), len(rows))
        self.assertAlmostEqual(float(sum(t.trnamt for t in statement.transactions)),
                               rows["amount"].sum(), places=2)
        self.assertAlmostEqual(float(statement.ledgerbal.balamt), rows["balance"].iloc[-1])

    @unittest.skipIf(shutil.which("hledger") is None,
                     "hledger is not installed (Debian: apt-get install hledger)")
    def test_hledger_imports_the_normalized_csv_and_its_balance_assertions_hold(self):
        rows, path = self.normalized()
        rules = os.path.join(self.tmp, "bank.rules")
        with open(rules, "w", encoding="utf-8") as fh:
            fh.write("skip 1\nfields date, description, amount, balance, currency, account_, "
                     "page, row\naccount1 assets:bank\naccount2 expenses:unknown\n")
        # the printed balances become hledger's balance assertions, after an opening entry
        opening = rows["balance"][0] - rows["amount"][0]
        journal = os.path.join(self.tmp, "all.journal")
        imported = subprocess.run(["hledger", "-f", path, "--rules-file", rules, "print"],
                                  capture_output=True, text=True, check=True).stdout
        with open(os.path.join(self.tmp, "rows.journal"), "w", encoding="utf-8") as fh:
            fh.write(imported)
        with open(journal, "w", encoding="utf-8") as fh:
            fh.write(f"2024-01-01 opening\n    assets:bank   {opening:.2f}\n    equity:opening\n"
                     "\ninclude rows.journal\n")
        done = subprocess.run(["hledger", "-f", journal, "bal", "assets:bank", "-N"],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(float(done.stdout.split()[0]), round(rows["balance"].iloc[-1], 2))

    def test_a_format_without_out_goes_beside_the_parser_and_the_report_says_how(self):
        parsers = os.path.join(self.tmp, "fresh")  # made by dua, as custom_parsers is
        done = run_dua("parse", os.path.join(CARD, "a.pdf"), "--bank", "card", "--parsers-dir",
                       parsers, "--format", "qif", "--json", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual(report["output_path"], os.path.join(parsers, "card_result.qif"))
        self.assertTrue(report["normalized"]["owed"])
        self.assertIn("a card", report["normalized"]["notes"]["amount"])
        with open(report["output_path"], encoding="utf-8") as fh:
            self.assertTrue(fh.read().startswith("!Type:CCard\n"))

    def test_an_answer_key_in_the_normalized_schema_is_accepted(self):
        _, key = self.normalized()
        out = os.path.join(self.tmp, "again.csv")
        self.parse(PLAIN, "--expected", key, out=out)
        self.assertTrue(pd.read_csv(out).equals(pd.read_csv(os.path.join(PLAIN, "a.csv"))))

    def test_a_ledger_key_of_iso_dates_and_signed_amounts_judges_the_normalized_rows(self):
        rows, _ = self.normalized(CARD)  # a card: the ledger's amounts are the holder's
        ledger = os.path.join(self.tmp, "ledger.csv")
        rows[["date", "description", "amount"]].to_csv(ledger, index=False)
        done = run_dua("parse", os.path.join(CARD, "a.pdf"), "--bank", "ledger", "--parsers-dir",
                       self.parsers, "--expected", ledger, "--out",
                       os.path.join(self.tmp, "ledger_rows.csv"), "--json", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual((report["status"], report["checks"][0]["name"]), ("passed", "ledger_key"))
        rows.loc[2, "amount"] = -rows.loc[2, "amount"]  # one sign the other way
        rows[["date", "amount"]].to_csv(ledger, index=False)
        done = run_dua("parse", os.path.join(CARD, "a.pdf"), "--bank", "ledger", "--parsers-dir",
                       self.parsers, "--expected", ledger, "--out",
                       os.path.join(self.tmp, "ledger_rows.csv"), "--quiet")
        self.assertEqual(done.returncode, 1, done.stderr)
        self.assertIn("row 3: amount", done.stderr)

    def test_check_accepts_normalized_rows_and_writes_them_as_asked(self):
        _, rows = self.normalized()
        out = os.path.join(self.tmp, "checked.qif")
        done = run_dua("check", os.path.join(PLAIN, "a.pdf"), rows, "--format", "qif",
                       "--out", out, "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        with open(out, encoding="utf-8") as fh:
            self.assertTrue(fh.read().startswith("!Type:Bank\n"))

    def test_rows_on_stdout_stand_alone_there(self):
        done = run_dua("check", os.path.join(PLAIN, "a.pdf"), os.path.join(PLAIN, "a.csv"),
                       "--normalize", "--format", "jsonl", "--out", "-")
        self.assertEqual(done.returncode, 0, done.stderr)
        rows = [json.loads(line) for line in done.stdout.splitlines()]  # no report among them
        self.assertEqual(len(rows), len(pd.read_csv(os.path.join(PLAIN, "a.csv"))))
        self.assertIn("passed", done.stderr)

    def test_run_writes_each_statement_in_the_format_asked_beside_the_others(self):
        parser = os.path.join(self.parsers, "plain_western_parser.py")
        self.normalized()  # the parser dua parse saved
        out_dir = os.path.join(self.tmp, "out")
        done = run_dua("run", parser, os.path.join(PLAIN, "a.pdf"), os.path.join(PLAIN, "b.pdf"),
                       "--out-dir", out_dir, "--format", "ofx", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(sorted(f for f in os.listdir(out_dir) if not f.startswith(".")),
                         ["a.ofx", "b.ofx"])


if __name__ == "__main__":
    unittest.main()
