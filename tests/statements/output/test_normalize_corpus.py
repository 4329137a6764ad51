"""``--normalize`` and ``--format ofx`` on statements nobody here made, without their keys.

``../shared/corpus/real`` (every statement) and ``../shared/corpus/statements`` (c01-c11,
statement B), read in place and skipped with the reason when absent. Each statement, parsed
with no answer key: one row per transaction of its key, ISO dates, amounts whose sizes are
the key's movements and whose signs agree with the printed balances (row to row where the
rows print one); and the OFX of it read back by ofxtools, one transaction a row, same sum.
"""
from __future__ import annotations

import io
import math
import os
import re
import shutil
import tempfile
import unittest

import pandas as pd

from ...test_corpus_shared import CORPUS, _cases
from ...support import run_dua

try:
    from ofxtools.Parser import OFXTree
except ImportError:  # a test-only dependency: pip install -e '.[test]'
    OFXTree = None

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}\Z")


def corpus_statements() -> list:
    """``(name, pdf, key)`` of every real statement and of c01-c11's statement B."""
    out = []
    for case in _cases("real"):
        for pdf in sorted(f for f in os.listdir(case) if f.endswith(".pdf")):
            key = pdf.replace("statement", "expected").replace(".pdf", ".csv")
            out.append((os.path.basename(case), os.path.join(case, pdf), os.path.join(case, key)))
    for case in _cases("statements"):
        if os.path.basename(case)[:1] == "c":
            out.append((os.path.basename(case), os.path.join(case, "statement_b.pdf"),
                        os.path.join(case, "expected_b.csv")))
    return out


def key_days(key) -> list:
    """The key's first date column as (year or None, month, day), its day-first question
    settled as the rows settle it (a number over 12)."""
    from dua.statements.notation.dates import parts_of
    from dua.statements.notation.isodates import day_first

    column = next(c for c in key.columns if not pd.api.types.is_numeric_dtype(key[c])
                  and all(parts_of(str(v)) for v in key[c].dropna()))
    values = [str(v) for v in key[column]]
    first, out = day_first(values), []
    for year, a, b, month_first in map(parts_of, values):
        day_is_a = first if month_first is None else not month_first
        day, month = (int(a), int(b)) if day_is_a else (int(b), int(a))
        out.append((year or None, month, day))
    return out


def _days(dates) -> list:
    """ISO dates as key_days gives them, the year kept only where the key prints one."""
    return [tuple(int(p) for p in str(d).split("-")) for d in dates]


def key_movements(key, balance) -> list:
    """Each key row's movement, unsigned: its amounts other than the balance, summed (a
    charge beside a debit moves the balance by both)."""
    money = [c for c in key.columns if str(key[c].dtype) == "float64"
             and not _same(key[c].tolist(), balance)]
    return [round(sum(abs(v) for v in row if not math.isnan(v)), 2)
            for row in zip(*(key[c].tolist() for c in money))]


def _same(values: list, balance: list) -> bool:
    pairs = [(a, b) for a, b in zip(values, balance) if not math.isnan(a) and not math.isnan(b)]
    return bool(pairs) and all(abs(a - b) < 0.005 for a, b in pairs)


class NormalizedCorpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.statements = corpus_statements()  # skips with the reason when the corpus is absent
        cls.tmp = tempfile.mkdtemp(prefix="dua-normalize-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def parse(self, name: str, pdf: str, *flags: str) -> str:
        bank = re.sub(r"\W", "_", f"{name}_{os.path.basename(pdf)[:-4]}")
        suffix = "ofx" if "ofx" in flags else "csv"
        out = os.path.join(self.tmp, f"{bank}.{suffix}")
        done = run_dua("parse", pdf, "--bank", bank, "--parsers-dir", self.tmp, "--out", out,
                       "--quiet", *flags, timeout=600)
        self.assertIn(done.returncode, (0, 1), done.stderr)
        partial = "%s.partial%s" % os.path.splitext(out)
        return out if os.path.exists(out) else partial

    def test_normalized_rows_are_the_keys_movements_signed_by_the_printed_balances(self):
        self.assertTrue(self.statements)
        for name, pdf, key_path in self.statements:
            with self.subTest(statement=os.path.relpath(pdf, CORPUS)):
                rows = pd.read_csv(self.parse(name, pdf, "--normalize"))
                key = pd.read_csv(key_path)
                self.assertEqual(len(rows), len(key), "one row per transaction")
                self.assertTrue(all(_ISO.match(str(d)) for d in rows["date"]), rows["date"])
                printed = key_days(key)
                self.assertEqual([(y if k[0] else None, m, d) for (y, m, d), k
                                  in zip(_days(rows["date"]), printed)], printed)
                balance = rows["balance"].tolist()
                self.assertEqual([round(abs(a), 2) for a in rows["amount"]],
                                 key_movements(key, balance))
                self.assert_signs_follow_balances(rows)
                self.assert_signs_follow_the_notation(rows, key, balance)
                self.assertEqual(rows["row"].tolist(), list(range(1, len(rows) + 1)))
                self.assertTrue(rows["page"].is_monotonic_increasing, "rows in page order")

    def assert_signs_follow_balances(self, rows) -> None:
        """Each amount moves the balance from the last one printed to the row's own, in the
        printed order or newest first (one of the two for the whole statement)."""
        amounts, balances = rows["amount"].tolist(), rows["balance"].tolist()
        printed = [i for i, b in enumerate(balances) if not math.isnan(b)]
        forward = backward = 0
        for i, j in zip(printed, printed[1:]):
            moved = balances[j] - balances[i]
            forward += abs(moved - sum(amounts[i + 1:j + 1])) < 0.005
            backward += abs(-moved - sum(amounts[i:j])) < 0.005
        self.assertEqual(max(forward, backward), max(len(printed) - 1, 0))

    def assert_signs_follow_the_notation(self, rows, key, balance: list) -> None:
        """Where the key prints one signed amount, every row's sign is the key's, or every
        row's the opposite (a card's key signs purchases positive: money out, negative)."""
        money = [c for c in key.columns if str(key[c].dtype) == "float64"
                 and not _same(key[c].tolist(), balance)]
        if len(money) != 1 or not (key[money[0]] < 0).any():
            return
        relation = {(a > 0) == (k > 0) for a, k in zip(rows["amount"], key[money[0]]) if a and k}
        self.assertEqual(len(relation), 1, "one sign convention for the whole statement")

    @unittest.skipIf(OFXTree is None, "ofxtools is not installed (a test-only dependency: "
                                      "pip install -e '.[test]')")
    def test_ofx_is_read_back_by_ofxtools_one_transaction_a_row_with_the_same_sum(self):
        for name, pdf, key_path in self.statements:
            with self.subTest(statement=os.path.relpath(pdf, CORPUS)):
                rows = pd.read_csv(self.parse(name, pdf, "--normalize"))
                with open(self.parse(name, pdf, "--format", "ofx"), "rb") as fh:
                    tree = OFXTree()
                    tree.parse(io.BytesIO(fh.read()))
                statement = tree.convert().statements[0]
                self.assertEqual(len(statement.transactions), len(rows))
                self.assertAlmostEqual(float(sum(t.trnamt for t in statement.transactions)),
                                       float(rows["amount"].sum()), places=2)
                self.assertEqual(len({t.fitid for t in statement.transactions}), len(rows))


if __name__ == "__main__":
    unittest.main()
