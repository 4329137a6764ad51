"""`python -m dua run`, the way a user runs it: outputs, report, progress, exit codes."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests.support import FIXTURES, REPO, engine_parser, run_dua

STATEMENTS = os.path.join(FIXTURES, "statements", "plain_western")
PARSER = os.path.join(FIXTURES, "parsers_batch", "plain_western_parser.py")
A, B = os.path.join(STATEMENTS, "a.pdf"), os.path.join(STATEMENTS, "b.pdf")
NOT_A_PDF = os.path.join(FIXTURES, "bad", "not_a_pdf.pdf")


def read_rows(path: str):
    import pandas as pd  # lazy: keeps test discovery fast

    return pd.read_csv(path)


def same_csv(test: unittest.TestCase, got: str, which: str) -> None:
    import pandas as pd  # lazy: keeps test discovery fast

    test.assertTrue(pd.read_csv(got).equals(pd.read_csv(os.path.join(STATEMENTS, f"{which}.csv"))),
                    f"{got} differs from {which}.csv")


class RunCommandTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-cli-run-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_one_pdf_with_out_writes_the_expected_csv_and_exits_0(self):
        out = os.path.join(self.tmp, "statement.csv")
        proc = run_dua("run", engine_parser(), A, "--out", out)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        same_csv(self, out, "a")
        self.assertIn("1 of 1 files done", proc.stderr)
        self.assertIn(f"-> {out}", proc.stderr)  # the summary names the file, not its folder

    def test_json_report_has_one_object_per_file_and_a_total(self):
        out_dir = os.path.join(self.tmp, "out")
        proc = run_dua("run", engine_parser(), A, NOT_A_PDF, B, "--out-dir", out_dir, "--json",
                       "--workers", "2")
        self.assertEqual(proc.returncode, 3, proc.stderr)  # every failure is a bad PDF
        report = json.loads(proc.stdout)
        self.assertEqual(report["status"], "failed")
        self.assertEqual([f["status"] for f in report["files"]], ["converted", "failed", "converted"])
        self.assertEqual(report["files"][1]["error"]["error_code"], "NOT_A_PDF")
        self.assertTrue(report["files"][1]["feedback"]["user_message"])
        self.assertEqual(report["total"]["files"], 3)
        self.assertEqual(report["total"]["failed"], 1)
        same_csv(self, os.path.join(out_dir, "b.csv"), "b")

    def test_progress_line_shows_done_total_rows_errors_rate_and_eta(self):
        proc = run_dua("run", PARSER, A, NOT_A_PDF, "--out-dir", self.tmp)
        line = next(x for x in proc.stderr.splitlines() if "2/2 files" in x)
        for part in ("rows", "1 error", "files/s", "ETA"):
            self.assertIn(part, line)
        self.assertIn(f"failed {NOT_A_PDF}", proc.stderr)

    def test_rerun_skips_outputs_that_are_already_complete(self):
        first = run_dua("run", engine_parser(), A, B, "--out-dir", self.tmp, "--quiet")
        self.assertEqual(first.returncode, 0, first.stderr)
        again = run_dua("run", engine_parser(), A, B, "--out-dir", self.tmp, "--json")
        self.assertEqual(again.returncode, 0, again.stderr)
        self.assertEqual(json.loads(again.stdout)["total"]["skipped"], 2)
        self.assertIn("2 already complete", again.stderr)

    def test_from_list_reads_paths_relative_to_the_list(self):
        shutil.copy(A, os.path.join(self.tmp, "jan.pdf"))
        listing = os.path.join(self.tmp, "todo.txt")
        with open(listing, "w") as fh:
            fh.write("# statements to convert\n\njan.pdf\n")
        proc = run_dua("run", engine_parser(), "--from-list", listing, "--out-dir",
                       os.path.join(self.tmp, "o"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        same_csv(self, os.path.join(self.tmp, "o", "jan.csv"), "a")

    def test_a_list_saved_with_a_bom_and_crlf_names_unicode_paths_with_spaces(self):
        shutil.copy(A, os.path.join(self.tmp, "relevé janv ä.pdf"))
        listing = os.path.join(self.tmp, "todo.txt")
        with open(listing, "w", encoding="utf-8-sig", newline="") as fh:
            fh.write("relevé janv ä.pdf\r\n# done later\r\n")
        proc = run_dua("run", engine_parser(), "--from-list", listing, "--out-dir",
                       os.path.join(self.tmp, "o"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        same_csv(self, os.path.join(self.tmp, "o", "relevé janv ä.csv"), "a")

    def test_a_list_that_is_not_text_is_a_usage_error_on_one_line(self):
        proc = run_dua("run", PARSER, "--from-list", A)
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
        self.assertIn("Cannot read the list", proc.stderr)

    def test_a_parser_that_times_out_exits_4(self):
        parser = os.path.join(self.tmp, "slow_parser.py")
        with open(parser, "w") as fh:
            fh.write("def parse(pdf_path):\n    while True:\n        pass\n")
        proc = run_dua("run", parser, A, "--out-dir", self.tmp, "--timeout", "1", "--json")
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertEqual(json.loads(proc.stdout)["files"][0]["error"]["error_code"], "PARSER_TIMEOUT")


class GeneratedParserTest(unittest.TestCase):
    """Issue 7's reuse check: a parser written by dua parse on statement a, run on statement b."""

    def test_parser_from_dua_parse_reproduces_statement_b(self):
        tmp = tempfile.mkdtemp(prefix="dua-cli-run-")
        self.addCleanup(shutil.rmtree, tmp, True)
        for layout in ("indian_multipage", "trailing_minus"):
            with self.subTest(layout=layout):
                folder = os.path.join(FIXTURES, "statements", layout)
                made = run_dua("parse", os.path.join(folder, "a.pdf"), "--bank", layout, "--expected",
                               os.path.join(folder, "a.csv"), "--parsers-dir", tmp, "--quiet", cwd=tmp)
                self.assertEqual(made.returncode, 0, made.stderr)
                out = os.path.join(tmp, f"{layout}_b.csv")
                used = run_dua("run", os.path.join(tmp, f"{layout}_parser.py"),
                               os.path.join(folder, "b.pdf"), "--out", out, "--json")
                self.assertEqual(used.returncode, 0, used.stderr)
                report = json.loads(used.stdout)
                self.assertEqual(report["total"]["converted"], 1)
                self.assertEqual(report["files"][0]["check"]["status"], "passed",
                                 report["files"][0]["check"]["summary"])
                import pandas as pd  # lazy: keeps test discovery fast

                self.assertTrue(pd.read_csv(out).equals(pd.read_csv(os.path.join(folder, "b.csv"))))


    def test_rows_that_do_not_add_up_fail_their_checks_and_exit_1(self):
        tmp = tempfile.mkdtemp(prefix="dua-cli-run-")
        self.addCleanup(shutil.rmtree, tmp, True)
        folder = os.path.join(FIXTURES, "statements", "indian_multipage")
        made = run_dua("parse", os.path.join(folder, "a.pdf"), "--bank", "bank", "--expected",
                       os.path.join(folder, "a.csv"), "--parsers-dir", tmp, "--quiet", cwd=tmp)
        self.assertEqual(made.returncode, 0, made.stderr)
        with open(os.path.join(tmp, "bank_parser.py"), encoding="utf-8") as fh:
            source = fh.read()
        # a parser that silently loses the fourth row, as a wrong parser would
        lossy = os.path.join(tmp, "lossy_parser.py")
        with open(lossy, "w", encoding="utf-8") as fh:
            fh.write(source + "\n\n_parse = parse\n\n\ndef parse(pdf_path, password=None):\n"
                     "    frame = _parse(pdf_path, password)\n"
                     "    return frame.drop(index=3).reset_index(drop=True)\n")
        b = os.path.join(folder, "b.pdf")
        used = run_dua("run", lossy, b, "--out", os.path.join(tmp, "b.csv"), "--json")
        self.assertEqual(used.returncode, 1, used.stderr)
        report = json.loads(used.stdout)
        self.assertEqual(report["status"], "converted")  # the parser ran; its rows are wrong
        self.assertEqual(report["files"][0]["check"]["status"], "failed")
        self.assertEqual(report["total"]["checks"]["failed"], 1)
        self.assertIn("rows checked: 1 failed", used.stderr)
        # the wrong rows are kept apart from verified ones, and the file's reason is a line
        self.assertFalse(os.path.exists(os.path.join(tmp, "b.csv")))
        self.assertEqual(report["files"][0]["output_path"], os.path.join(tmp, "b.failed.csv"))
        self.assertEqual(len(read_rows(os.path.join(tmp, "b.failed.csv"))), report["files"][0]["rows"])
        self.assertIn(f"dua run: failed {b}: ", used.stderr)
        unchecked = run_dua("run", lossy, b, "--out", os.path.join(tmp, "b2.csv"), "--json",
                            "--no-check")
        # --no-check: the rows go where asked, but nothing was verified, so never exit 0
        self.assertEqual(unchecked.returncode, 1, unchecked.stderr)
        self.assertEqual(json.loads(unchecked.stdout)["files"][0]["check"]["status"],
                         "not checked")
        self.assertTrue(os.path.isfile(os.path.join(tmp, "b2.csv")))
        self.assertIn("were not put to their checks (--no-check)", unchecked.stderr)


class InterruptTest(unittest.TestCase):
    """Ctrl-C in the middle of a batch, then the same command again."""

    def test_ctrl_c_then_rerun_completes_the_batch_with_whole_outputs(self):
        tmp = tempfile.mkdtemp(prefix="dua-cli-run-")
        self.addCleanup(shutil.rmtree, tmp, True)
        parser = os.path.join(tmp, "slow_parser.py")
        with open(PARSER) as src, open(parser, "w") as dst:  # the fixture parser, one second slower
            dst.write(src.read().replace("def parse(pdf_path):", "def parse(pdf_path):\n    time.sleep(1.0)")
                      .replace("import re", "import re\nimport time"))
        pdfs = []
        for i in range(5):
            pdfs.append(os.path.join(tmp, f"s{i}.pdf"))
            shutil.copy(A, pdfs[-1])
        out = os.path.join(tmp, "out")
        # --no-check: a hand-written parser's rows cannot be checked; the rows go to <name>.csv
        args = [sys.executable, "-m", "dua", "run", parser, *pdfs, "--out-dir", out, "--workers", "1",
                "--no-check"]
        env = dict(os.environ, PYTHONPATH=REPO)
        # A terminal's job gets Ctrl-C's default action even when this test runs in the
        # background (where SIGINT is inherited as ignored): give the child that default.
        proc = subprocess.Popen(args, cwd=REPO, env=env, stderr=subprocess.PIPE, text=True,
                                start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not (os.path.isdir(out) and
                                                   any(n.endswith(".csv") for n in os.listdir(out))):
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        _, err = proc.communicate(timeout=60)
        self.assertEqual(proc.returncode, 130, err)
        left = sorted(set(os.listdir(out)) - {".dua"})  # .dua: the stamps
        self.assertTrue(all(n.endswith(".csv") for n in left), left)  # no temporary files
        self.assertLess(len(left), 5)
        for name in left:
            same_csv(self, os.path.join(out, name), "a")
        again = run_dua("run", parser, *pdfs, "--out-dir", out, "--json", "--workers", "2",
                        "--no-check")
        self.assertEqual(again.returncode, 1, again.stderr)  # converted, none verified
        total = json.loads(again.stdout)["total"]
        self.assertEqual((total["skipped"], total["converted"]), (len(left), 5 - len(left)))
        for i in range(5):
            same_csv(self, os.path.join(out, f"s{i}.csv"), "a")


def activity_printout(path: str, first_day: int) -> str:
    """A printout of an account's activity (``path``, its key beside it as .csv): dated
    signed rows, and no balance or total printed to check them by."""
    from fixtures.pdfwriter import PDF

    rows = [(f"{first_day + k:02d}/03/2025", text, amount) for k, (text, amount) in enumerate(
        (("Salary Acme", "1,250.00"), ("Rent March", "-800.00"), ("Grocer", "-54.20"),
         ("Refund Shop", "12.99"), ("Bus pass", "-30.00")))]
    pdf = PDF()
    page = pdf.add_page()
    page.text(40, 60, "Account activity")
    for x, name in ((40, "Date"), (140, "Description"), (420, "Amount")):
        page.text(x, 100, name)
    for k, (day, text, amount) in enumerate(rows):
        page.text(40, 120 + 16 * k, day)
        page.text(140, 120 + 16 * k, text)
        page.text(470, 120 + 16 * k, amount, align="right")
    with open(path, "wb") as fh:
        fh.write(pdf.to_bytes())
    with open(path[:-4] + ".csv", "w", encoding="utf-8") as fh:
        fh.write("Date,Description,Amount\n" + "".join(
            f"{d},{t},{float(a.replace(',', ''))}\n" for d, t, a in rows))
    return path


class VerdictTest(unittest.TestCase):
    """Issue 31, item 6: exit 0 only when every file's rows passed; rows that did not pass are
    written apart from the verified ones, with one line a file saying why, --quiet or not."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-cli-run-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_unverified_rows_go_apart_exit_1_and_a_rerun_keeps_their_verdict(self):
        # an activity printout: rows and nothing printed to check them by
        a, b = (activity_printout(os.path.join(self.tmp, f"{n}.pdf"), day) for n, day in
                (("a", 1), ("b", 11)))
        made = run_dua("parse", a, "--bank", "activity", "--expected", a[:-4] + ".csv",
                       "--parsers-dir", self.tmp, "--quiet")
        self.assertEqual(made.returncode, 0, made.stderr)
        parser, out = os.path.join(self.tmp, "activity_parser.py"), os.path.join(self.tmp, "out")
        for run in ("first", "rerun"):
            with self.subTest(run=run):
                proc = run_dua("run", parser, b, "--out-dir", out, "--quiet", "--json")
                self.assertEqual(proc.returncode, 1, proc.stderr)
                entry = json.loads(proc.stdout)["files"][0]
                self.assertEqual(entry["status"], "converted" if run == "first" else "skipped")
                self.assertEqual(entry["check"]["status"], "unverified")
                self.assertEqual(sorted(os.listdir(out)), [".dua", "b.unverified.csv"])
                self.assertEqual(entry["output_path"], os.path.join(out, "b.unverified.csv"))
                lines = proc.stderr.splitlines()  # --quiet: no progress, but the verdicts
                self.assertEqual(len(lines), 2, proc.stderr)
                self.assertTrue(lines[0].startswith(f"dua run: unverified {b}: totals_reconcile"),
                                lines[0])
                self.assertIn("rows checked: 1 unverified", lines[1])
        import pandas as pd  # lazy: keeps test discovery fast

        self.assertTrue(pd.read_csv(os.path.join(out, "b.unverified.csv"))
                        .equals(pd.read_csv(b[:-4] + ".csv")))

    def test_rows_that_could_not_be_checked_go_apart_until_a_checked_run_replaces_them(self):
        out = os.path.join(self.tmp, "out")
        hand = run_dua("run", PARSER, A, "--out-dir", out)  # no SETTINGS: nothing to check by
        self.assertEqual(hand.returncode, 1, hand.stderr)
        self.assertEqual(sorted(os.listdir(out)), [".dua", "a.unchecked.csv"])
        self.assertIn(f"dua run: not checked {A}: the parser has no SETTINGS", hand.stderr)
        same_csv(self, os.path.join(out, "a.unchecked.csv"), "a")
        checked = run_dua("run", engine_parser(), A, "--out-dir", out)
        self.assertEqual(checked.returncode, 0, checked.stderr)
        # one output per PDF, named by its latest verdict: the unchecked rows are gone
        self.assertEqual(sorted(os.listdir(out)), [".dua", "a.csv"])
        self.assertEqual(os.listdir(os.path.join(out, ".dua")), ["a.csv.json"])
        same_csv(self, os.path.join(out, "a.csv"), "a")

    def test_out_dash_prints_only_rows_that_passed_and_keeps_the_others_in_the_folder(self):
        passed = run_dua("run", engine_parser(), A, "--out", "-", cwd=self.tmp)
        self.assertEqual(passed.returncode, 0, passed.stderr)
        self.assertTrue(passed.stdout.startswith("Date,"), passed.stdout[:80])
        unchecked = run_dua("run", PARSER, A, "--out", "-", cwd=self.tmp)
        self.assertEqual(unchecked.returncode, 1, unchecked.stderr)
        self.assertEqual(unchecked.stdout, "")  # a pipeline reading stdout gets no unchecked row
        same_csv(self, os.path.join(self.tmp, "a.unchecked.csv"), "a")
        self.assertIn(os.path.join(self.tmp, "a.unchecked.csv"), unchecked.stderr)


class RunUsageTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-cli-run-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def write_parser(self, name: str, source: str) -> str:
        path = os.path.join(self.tmp, name)
        with open(path, "w") as fh:
            fh.write(source)
        return path

    def test_out_with_two_pdfs_is_a_usage_error(self):
        proc = run_dua("run", PARSER, A, B, "--out", "x.csv")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--out takes one PDF", proc.stderr)

    def test_quiet_prints_no_progress_but_still_names_the_failures_and_the_verdict(self):
        tmp = self.tmp
        proc = run_dua("run", PARSER, NOT_A_PDF, "--out-dir", tmp, "--quiet")
        self.assertEqual(proc.returncode, 3)
        lines = proc.stderr.splitlines()
        self.assertEqual(len(lines), 2, proc.stderr)  # no progress line
        self.assertIn(f"failed {NOT_A_PDF}", lines[0])
        self.assertIn("0 of 1 files done, 1 failed", lines[1])  # the non-zero exit's verdict

    def test_no_pdf_is_a_usage_error(self):
        proc = run_dua("run", PARSER)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("No PDF to convert", proc.stderr)

    def test_a_missing_parser_is_a_usage_error(self):
        proc = run_dua("run", "no_such_parser.py", A)
        self.assertEqual(proc.returncode, 2)
        self.assertIn("No parser file", proc.stderr)

    def test_a_parser_rejected_by_the_policy_stops_before_any_file(self):
        tmp = self.tmp
        parser = self.write_parser("evil_parser.py", "import socket\n\ndef parse(pdf_path):\n"
                                   "    return socket.gethostname()\n")
        proc = run_dua("run", parser, A, "--out-dir", tmp)
        self.assertEqual(proc.returncode, 4, proc.stderr)
        self.assertIn("rejected by the safety policy", proc.stderr)
        self.assertEqual(os.listdir(tmp), ["evil_parser.py"])

    def test_unusable_out_and_out_dir_exit_2_with_one_line_before_any_file(self):
        tmp = self.tmp
        blocker = os.path.join(tmp, "a file")
        with open(blocker, "w") as fh:
            fh.write("x")
        for flags in (["--out-dir", blocker], ["--out", os.path.join(blocker, "x.csv")],
                      ["--out", tmp]):
            proc = run_dua("run", PARSER, A, *flags)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)
            self.assertNotIn("is a bug", proc.stderr)
        self.assertEqual(sorted(os.listdir(tmp)), ["a file"])

    def test_out_naming_the_pdf_or_the_parser_is_refused_and_both_stay_intact(self):
        tmp = self.tmp
        pdf, parser = os.path.join(tmp, "s.pdf"), os.path.join(tmp, "p.py")
        shutil.copy(A, pdf)
        shutil.copy(PARSER, parser)
        for target in (pdf, parser):
            proc = run_dua("run", parser, pdf, "--out", target)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn("is an input of this run", proc.stderr)
        with open(pdf, "rb") as got, open(A, "rb") as original:
            self.assertEqual(got.read(), original.read())

    def test_a_timeout_that_is_not_seconds_in_range_is_a_usage_error(self):
        for value in ("0", "-1", "nan", "inf", "1e308"):
            proc = run_dua("run", PARSER, A, "--out", os.path.join(self.tmp, "never.csv"),
                           "--timeout", value)
            self.assertEqual(proc.returncode, 2, (value, proc.stderr))
            self.assertIn("--timeout must be seconds in (0, 86400]", proc.stderr)
            self.assertEqual(len(proc.stderr.splitlines()), 1, proc.stderr)

    def test_a_pdf_passed_as_the_parser_is_refused_before_any_file(self):
        proc = run_dua("run", A, A, "--out", os.path.join(self.tmp, "never.csv"))
        self.assertEqual(proc.returncode, 2, proc.stderr)  # a usage error, named (issue 30)
        self.assertIn("is a PDF, not a parser", proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "never.csv")))

    def test_a_failing_parser_is_not_promised_a_refinement(self):
        tmp = self.tmp
        parser = self.write_parser("wrong_parser.py", "def parse(pdf_path):\n    return 42\n")
        proc = run_dua("run", parser, A, "--out-dir", tmp, "--json", "--quiet")
        self.assertEqual(proc.returncode, 4, proc.stderr)
        feedback = json.loads(proc.stdout)["files"][0]["feedback"]
        self.assertNotEqual(feedback["next_action"], "resume")  # no agent here to refine it
        self.assertNotIn("refining it", feedback["user_message"])
        self.assertNotIn("several refinements", feedback["user_message"])
        self.assertTrue(feedback["user_message"].startswith("The parser failed on this file: "))
        self.assertIn("dua parse", feedback["user_message"])
        self.assertNotIn("Pass --expected with a known-good CSV", feedback["recovery_suggestions"])

    def test_help_lists_the_batch_options(self):
        proc = run_dua("run", "--help")
        self.assertEqual(proc.returncode, 0)
        for flag in ("--out-dir", "--from-list", "--workers", "--timeout", "--json"):
            self.assertIn(flag, proc.stdout)


if __name__ == "__main__":
    unittest.main()
