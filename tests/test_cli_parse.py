"""`python -m dua parse` as a user runs it: exit codes, --json, --target, progress on stderr."""
from __future__ import annotations

import datetime
import json
import os
import re
import shutil
import tempfile
import unittest

import pandas as pd

from .support import FIXTURES, run_dua, shared_sample

JSON_KEYS = {"status", "bank", "attempts", "llm_calls", "tokens", "parser_path", "output_path",
             "rows", "seconds", "checks"}


class CliParseTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-cli-parse-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def parse(self, *args):
        return run_dua("parse", *args, "--parsers-dir", os.path.join(self.tmp, "parsers"),
                       cwd=self.tmp)

    def test_icici_with_expected_exits_0_and_prints_the_json_object(self):
        done = self.parse(shared_sample("icici", "icici_sample.pdf"), "--bank", "icici",
                          "--expected", shared_sample("icici", "result.csv"), "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertLessEqual(JSON_KEYS, set(report))
        self.assertEqual((report["status"], report["llm_calls"], report["rows"]), ("passed", 0, 100))
        self.assertTrue(report["parser_path"].endswith("icici_parser.py"))
        for node in ("analyze", "generate", "save", "execute", "compare", "finalize"):
            self.assertIn(f"dua parse: {node}", done.stderr)

    def test_unsupervised_fixture_writes_the_csv_and_passes_by_intrinsic_checks(self):
        folder = os.path.join(FIXTURES, "statements", "indian_multipage")
        out = os.path.join(self.tmp, "out.csv")
        done = self.parse(os.path.join(folder, "b.pdf"), "--bank", "deccan", "--out", out,
                          "--json", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(done.stderr, "")
        report = json.loads(done.stdout)
        self.assertEqual([c["name"] for c in report["checks"]],
                         ["balance_reconciles", "words_accounted", "columns_in_gutters",
                          "lines_in_columns", "cells_apart", "one_column_each",
                          "cells_in_shape", "rows_dated", "summary_agrees"])
        self.assertTrue(all(c["passed"] is not False for c in report["checks"]))
        accounting = report["accounting"]  # the passed verdict carries its accounting
        self.assertGreater(accounting["words_in_cells"], 500)
        self.assertEqual((accounting["words_unaccounted"], accounting["unaccounted"]), (0, []))
        self.assertIn("the table's column heading", accounting["furniture_by_reason"])
        self.assertTrue(all(line["reason"] and line["text"] for line in accounting["furniture"]))
        self.assertTrue(pd.read_csv(out).equals(pd.read_csv(os.path.join(folder, "b.csv"))))

    def test_the_saved_parser_reproduces_statement_b_through_dua_run(self):
        folder = os.path.join(FIXTURES, "statements", "drcr_column")
        done = self.parse(os.path.join(folder, "a.pdf"), "--bank", "meridian", "--expected",
                          os.path.join(folder, "a.csv"), "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        out = os.path.join(self.tmp, "b.csv")
        reuse = run_dua("run", os.path.join(self.tmp, "parsers", "meridian_parser.py"),
                        os.path.join(folder, "b.pdf"), "--out", out, "--quiet", cwd=self.tmp)
        self.assertEqual(reuse.returncode, 0, reuse.stderr)
        self.assertTrue(pd.read_csv(out).equals(pd.read_csv(os.path.join(folder, "b.csv"))))

    def test_target_reads_data_name_pdf_and_result_csv(self):
        folder = os.path.join(FIXTURES, "statements", "card_parens")
        data = os.path.join(self.tmp, "data", "northwind")
        os.makedirs(data)
        shutil.copy(os.path.join(folder, "a.pdf"), os.path.join(data, "statement.pdf"))
        shutil.copy(os.path.join(folder, "a.csv"), os.path.join(data, "result.csv"))
        done = self.parse("--target", "northwind", "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["bank"], "northwind")

    def test_a_wrong_expected_csv_exits_1_with_feedback(self):
        folder = os.path.join(FIXTURES, "statements", "card_parens")
        wrong = os.path.join(self.tmp, "wrong.csv")
        pd.read_csv(os.path.join(folder, "a.csv")).iloc[:3].to_csv(wrong, index=False)
        out = os.path.join(self.tmp, "card.csv")
        done = self.parse(os.path.join(folder, "a.pdf"), "--bank", "card", "--expected", wrong,
                          "--max-retries", "1", "--json", "--quiet", "--out", out)
        self.assertEqual(done.returncode, 1, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual(report["status"], "failed")
        self.assertIn("user_message", report["feedback"])
        self.assertIn("recovery_suggestions", report["feedback"])
        advice = " ".join(report["feedback"]["recovery_suggestions"])
        self.assertNotIn("Pass --expected", advice)  # it was passed: check it instead
        self.assertIn("expected CSV", advice)
        # A failed run's rows are kept, named partial, never where a verified result goes.
        self.assertFalse(os.path.exists(out))
        self.assertEqual(report["output_path"], os.path.join(self.tmp, "card.partial.csv"))
        self.assertGreater(len(pd.read_csv(report["output_path"])), 3)

    def test_image_only_pdf_exits_3_with_the_no_text_layer_message(self):
        done = self.parse(shared_sample("sbi_scanned", "statement.pdf"), "--bank", "sbi",
                          "--ocr", "never")  # with OCR (tesseract), see tests.test_ocr
        self.assertEqual(done.returncode, 3)
        self.assertIn("no text layer", done.stderr)
        self.assertNotIn("Traceback", done.stderr)

    def test_bad_inputs_exit_with_their_codes(self):
        not_pdf = os.path.join(self.tmp, "notes.pdf")
        with open(not_pdf, "w") as fh:
            fh.write("hello")
        self.assertEqual(self.parse(not_pdf, "--bank", "x").returncode, 3)
        self.assertEqual(self.parse(os.path.join(self.tmp, "missing.pdf"), "--bank", "x").returncode, 3)
        self.assertEqual(self.parse(not_pdf).returncode, 2)
        self.assertEqual(self.parse(not_pdf, "--bank", "../x").returncode, 2)
        self.assertEqual(self.parse("--resume").returncode, 2)

    def test_unusable_destinations_and_timeouts_exit_2_with_one_line(self):
        pdf = os.path.join(FIXTURES, "statements", "plain_western", "a.pdf")
        blocker = os.path.join(self.tmp, "a file")
        with open(blocker, "w") as fh:
            fh.write("x")
        for flags in (["--out", os.path.join(blocker, "o.csv")], ["--out", self.tmp],
                      ["--parsers-dir", os.path.join(blocker, "p")], ["--timeout", "0"],
                      ["--timeout", "-1"], ["--timeout", "inf"], ["--timeout", "1e308"],
                      ["--checkpoint", self.tmp]):
            proc = run_dua("parse", pdf, "--bank", "x", "--quiet", *flags, cwd=self.tmp)
            self.assertEqual(proc.returncode, 2, (flags, proc.stderr))
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
            self.assertNotIn("is a bug", proc.stderr)

    def test_out_naming_the_pdf_or_the_expected_csv_is_refused_and_both_stay_intact(self):
        folder = os.path.join(FIXTURES, "statements", "plain_western")
        pdf, expected = os.path.join(self.tmp, "s.pdf"), os.path.join(self.tmp, "s.csv")
        shutil.copy(os.path.join(folder, "a.pdf"), pdf)
        shutil.copy(os.path.join(folder, "a.csv"), expected)
        for target in (pdf, expected):
            proc = self.parse(pdf, "--bank", "x", "--expected", expected, "--out", target)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("is an input of this run", proc.stderr)
        self.assertTrue(pd.read_csv(expected).equals(pd.read_csv(os.path.join(folder, "a.csv"))))

    def test_a_checkpoint_in_a_new_folder_is_written_and_a_missing_one_is_a_usage_error(self):
        pdf = os.path.join(FIXTURES, "statements", "plain_western", "a.pdf")
        checkpoint = os.path.join(self.tmp, "new folder ü", "run.json")
        done = self.parse(pdf, "--bank", "ck", "--checkpoint", checkpoint, "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(os.path.isfile(checkpoint))
        missing = self.parse("--checkpoint", os.path.join(self.tmp, "none.json"), "--resume")
        self.assertEqual(missing.returncode, 2, missing.stderr)
        self.assertIn("No checkpoint file at", missing.stderr)


class ParserKeepingTest(unittest.TestCase):
    """Issue 31, item 6: a parse that does not pass never replaces a parser that passed, and
    every parser dua writes starts with its provenance."""

    PLAIN = os.path.join(FIXTURES, "statements", "plain_western")

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-cli-parse-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.parsers = os.path.join(self.tmp, "parsers")

    def parse(self, pdf: str, *args):
        return run_dua("parse", os.path.join(self.PLAIN, pdf), "--bank", "pw", "--parsers-dir",
                       self.parsers, *args, cwd=self.tmp)

    def read(self, name: str) -> str:
        with open(os.path.join(self.parsers, name), encoding="utf-8") as fh:
            return fh.read()

    def test_a_failed_parse_keeps_the_parser_that_passed_and_says_where_its_attempt_is(self):
        passed = self.parse("a.pdf", "--expected", os.path.join(self.PLAIN, "a.csv"), "--quiet")
        self.assertEqual(passed.returncode, 0, passed.stderr)
        kept = self.read("pw_parser.py")
        # statement b against a's rows: a real failure, which must not cost the good parser
        failed = self.parse("b.pdf", "--expected", os.path.join(self.PLAIN, "a.csv"), "--quiet",
                            "--max-retries", "0")
        self.assertEqual(failed.returncode, 1, failed.stderr)
        self.assertEqual(self.read("pw_parser.py"), kept)
        parsers = sorted(n for n in os.listdir(self.parsers) if n.endswith(".py"))
        self.assertEqual(parsers, ["pw_parser.failed.py", "pw_parser.py"])  # no draft left
        attempt = self.read("pw_parser.failed.py")
        self.assertIn("# verdict: failed\n", attempt)
        self.assertIn(f"sha256 {sha256(os.path.join(self.PLAIN, 'b.pdf'))}", attempt)
        lines = failed.stderr.splitlines()  # --quiet: the verdict and what was kept, nothing else
        self.assertEqual(len(lines), 2, failed.stderr)
        self.assertTrue(lines[0].startswith("dua parse: failed: "), lines[0])
        self.assertIn(f"kept {os.path.join(self.parsers, 'pw_parser.py')}", lines[1])
        self.assertIn(os.path.join(self.parsers, "pw_parser.failed.py"), lines[1])
        # a parse that passes replaces it (and leaves no draft beside it)
        again = self.parse("b.pdf", "--expected", os.path.join(self.PLAIN, "b.csv"), "--quiet")
        self.assertEqual((again.returncode, again.stderr), (0, ""))
        self.assertIn(f"sha256 {sha256(os.path.join(self.PLAIN, 'b.pdf'))}\n# verdict: passed\n",
                      self.read("pw_parser.py"))
        self.assertFalse(os.path.exists(os.path.join(self.parsers, "pw_parser.attempt.py")))

    def test_a_parser_whose_verdict_is_not_recorded_is_kept_too(self):
        os.makedirs(self.parsers)
        hand = os.path.join(FIXTURES, "parsers_batch", "plain_western_parser.py")
        shutil.copy(hand, os.path.join(self.parsers, "pw_parser.py"))  # made by hand
        failed = self.parse("b.pdf", "--expected", os.path.join(self.PLAIN, "a.csv"), "--json",
                            "--max-retries", "0")
        self.assertEqual(failed.returncode, 1, failed.stderr)
        with open(hand, encoding="utf-8") as fh:
            self.assertEqual(self.read("pw_parser.py"), fh.read())
        report = json.loads(failed.stdout)
        self.assertEqual(report["parser_path"], os.path.join(self.parsers, "pw_parser.failed.py"))
        self.assertEqual(report["kept_parser_path"], os.path.join(self.parsers, "pw_parser.py"))

    def test_a_parser_starts_with_its_provenance_and_still_runs_and_checks_as_written(self):
        import dua

        before = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0)
        done = self.parse("a.pdf", "--expected", os.path.join(self.PLAIN, "a.csv"), "--json")
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        head = self.read("pw_parser.py").split("\n\n", 1)[0].splitlines()
        self.assertEqual(head[0], "# dua provenance")
        written = re.fullmatch(r"# written by dua (\S+) \(dua parse, builtin writer\) on "
                               r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC", head[1])
        self.assertIsNotNone(written, head[1])
        self.assertEqual(written.group(1), dua.__version__)
        when = datetime.datetime.strptime(written.group(2), "%Y-%m-%d %H:%M:%S").replace(
            tzinfo=datetime.timezone.utc)
        self.assertLessEqual(before, when)
        self.assertLessEqual(when, datetime.datetime.now(datetime.timezone.utc))
        self.assertEqual(head[2], f"# source PDF: a.pdf, sha256 "
                                  f"{sha256(os.path.join(self.PLAIN, 'a.pdf'))}")
        self.assertEqual(head[3], "# verdict: passed")
        self.assertEqual([line.split(":")[0].strip("# ") for line in head[4:]],
                         [c["name"] for c in report["checks"]])
        self.assertTrue(all(": held - " in line for line in head[4:]), head)
        # the header is comments: the sandbox still finds the copied reader in the file (the
        # batch reads words for it, so the rows can be checked) and the rows still pass
        out = os.path.join(self.tmp, "b.csv")
        reuse = run_dua("run", report["parser_path"], os.path.join(self.PLAIN, "b.pdf"), "--out",
                        out, "--json", cwd=self.tmp)
        self.assertEqual(reuse.returncode, 0, reuse.stderr)
        self.assertEqual(json.loads(reuse.stdout)["files"][0]["check"]["status"], "passed")


def sha256(path: str) -> str:
    import hashlib

    with open(path, "rb") as fh:
        return hashlib.sha256(fh.read()).hexdigest()


if __name__ == "__main__":
    unittest.main()
