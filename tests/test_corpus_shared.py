"""The statements nobody here made, read the way a user reads them: ``dua parse`` and ``dua run``.

``../shared/corpus/statements`` (eleven layouts from six producers, two statements each) and
``../shared/corpus/real`` (seven banks' own statements) with their answer keys; read in place,
never copied, and skipped with the reason when absent. For every layout: ``dua parse`` with
the answer key equals it; the parser it saved, run by ``dua run`` on the layout's later
statements, equals theirs; ``dua parse`` without a key gives the same values and says
``passed`` only with a complete accounting (every word in a cell or on furniture with its
reason), else it says what it could not check. The four bad inputs end in their clear errors.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import unittest

import pandas as pd

from .support import SHARED_DATA, run_dua

CORPUS = os.environ.get("DUA_SHARED_CORPUS") or os.path.join(os.path.dirname(SHARED_DATA),
                                                             "corpus")


def _cases(kind: str) -> list:
    folder = os.path.join(CORPUS, kind)
    if not os.path.isdir(folder):
        raise unittest.SkipTest(f"the shared corpus is not at {folder} "
                                "(set DUA_SHARED_CORPUS to the shared/corpus folder)")
    return sorted(os.path.join(folder, n) for n in os.listdir(folder)
                  if os.path.isfile(os.path.join(folder, n, "case.json")))


def statements(case: str) -> list:
    """``(pdf, expected csv)`` of a case, its first statement first."""
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        info = json.load(fh)
    more = [info.get("second_statement")] + info.get("more_statements", [])
    out = [("statement.pdf", "expected.csv")] + [(m["pdf"], m["expected"]) for m in more if m]
    return [(os.path.join(case, p), os.path.join(case, e)) for p, e in out]


class CorpusRun:
    """One temporary folder per case for parsers and outputs."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-corpus-")
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def parse(self, pdf: str, bank: str, *extra: str) -> tuple:
        out = os.path.join(self.tmp, f"{bank}.csv")
        done = run_dua("parse", pdf, "--bank", bank, "--parsers-dir", self.tmp, "--out", out,
                       "--json", "--quiet", *extra, timeout=600)
        report = json.loads(done.stdout) if done.stdout.strip().startswith("{") else {}
        return done, report, out

    def supervised_then_reused(self, case: str) -> None:
        bank = os.path.basename(case)[:3]
        (pdf, key), *later = statements(case)
        done, report, out = self.parse(pdf, bank, "--expected", key)
        self.assertEqual((done.returncode, report.get("status")), (0, "passed"),
                         f"{case}: supervised\n{done.stderr[-2000:]}")
        self.assertTrue(pd.read_csv(out).equals(pd.read_csv(key)))
        for other, other_key in later:
            with self.subTest(reused=os.path.basename(other)):
                out = os.path.join(self.tmp, "reused.csv")
                ran = run_dua("run", report["parser_path"], other, "--out", out, "--quiet",
                              timeout=600)
                self.assertEqual(ran.returncode, 0, ran.stderr[-2000:])
                self.assertTrue(pd.read_csv(out).equals(pd.read_csv(other_key)),
                                f"{other}: the saved parser's rows differ from the key")

    def unsupervised(self, pdf: str, key: str) -> dict:
        bank = "blind"
        done, report, out = self.parse(pdf, bank)
        expected = pd.read_csv(key)
        out = report.get("output_path") or out  # a run that did not pass writes .partial.csv
        got = pd.read_csv(out) if os.path.exists(out) else None
        right = got is not None and got.shape == expected.shape and \
            got.set_axis(expected.columns, axis=1).equals(expected)
        if report.get("status") == "passed":
            self.assertTrue(right, f"{pdf}: passed, yet its values differ from the key")
            accounting = report["accounting"]
            self.assertEqual(accounting["words_unaccounted"], 0)
            self.assertGreater(accounting["words_in_cells"], 0)
            self.assertEqual(done.returncode, 0)
        return {"status": report.get("status"), "right": right, "code": done.returncode,
                "report": report}


class StatementsCorpusTest(CorpusRun, unittest.TestCase):
    """c01-c11: supervised, the saved parser on B, unsupervised; every result exact."""

    def test_each_layout_learned_from_its_key_reads_its_second_statement(self):
        cases = [c for c in _cases("statements") if os.path.basename(c).startswith("c")]
        self.assertEqual(len(cases), 11)
        for case in cases:
            with self.subTest(case=os.path.basename(case)):
                self.supervised_then_reused(case)

    def test_each_second_statement_read_without_a_key_passes_with_its_values_right(self):
        for case in [c for c in _cases("statements") if os.path.basename(c).startswith("c")]:
            pdf, key = statements(case)[1]
            with self.subTest(case=os.path.basename(case)):
                found = self.unsupervised(pdf, key)
                self.assertEqual((found["status"], found["right"]), ("passed", True),
                                 json.dumps(found["report"].get("checks"))[:1500])

    def test_bad_inputs_end_in_their_clear_errors(self):
        _cases("statements")  # skips, saying why, where the corpus is absent
        folder = os.path.join(CORPUS, "statements")
        wants = {"b01_password_protected": ("password", 3), "b02_truncated_download": ("damaged", 3),
                 "b03_html_error_page_named_pdf": ("not a PDF", 3),
                 "b04_zero_pages": ("no pages", 3)}
        for name, (words, code) in wants.items():
            with self.subTest(case=name):
                done, report, out = self.parse(os.path.join(folder, name, "statement.pdf"), "bad")
                self.assertEqual(done.returncode, code, done.stderr)
                self.assertIn(words.lower(), done.stderr.lower())
                self.assertNotIn("Traceback", done.stderr)
                self.assertFalse(os.path.exists(out))

    def test_the_password_opens_the_protected_statement_exactly(self):
        _cases("statements")
        case = os.path.join(CORPUS, "statements", "b01_password_protected")
        with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
            password = json.load(fh)["password"]
        key = os.path.join(case, "expected.csv")
        done, report, out = self.parse(os.path.join(case, "statement.pdf"), "b01", "--password",
                                       password, "--expected", key)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(pd.read_csv(out).equals(pd.read_csv(key)))


def _exits(case: str, key: str) -> list:
    """The exits a case names for its statements read without a key (0 unless it says)."""
    with open(os.path.join(case, "case.json"), encoding="utf-8") as fh:
        return json.load(fh).get(key) or [0]


class RealBanksTest(CorpusRun, unittest.TestCase):
    """r02-r08, seven banks' own statements: supervised, r02's parser on its three later
    statements, and unsupervised values right with the exit each case names."""

    def test_each_bank_learned_from_its_key_reads_its_later_statements(self):
        cases = _cases("real")
        self.assertGreaterEqual(len(cases), 7)
        for case in cases:
            with self.subTest(case=os.path.basename(case)):
                self.supervised_then_reused(case)

    def test_without_a_key_the_values_are_right_and_the_verdict_honest(self):
        for case in _cases("real"):
            for pdf, key in statements(case):
                with self.subTest(statement=os.path.relpath(pdf, CORPUS)):
                    found = self.unsupervised(pdf, key)
                    checks = json.dumps(found["report"].get("checks"))[:1500]
                    self.assertTrue(found["right"], checks)
                    self.assertIn(found["code"], _exits(case, "unsupervised_exit_ok"), checks)
                    if found["status"] != "passed":  # it says what it could not check
                        self.assertEqual(found["code"], 1)
                        self.assertTrue(any(c["passed"] is not True
                                            for c in found["report"]["checks"]))


if __name__ == "__main__":
    unittest.main()
