"""The edges a new user meets first, each driven as the user meets it (issue 30, item 3).

One "No such file" for every command; a parser and a PDF mixed up named as such; Ctrl-C
quiet in every mode, a batch on two workers included; the extract's page count one moving
line on a terminal and a few lines in a log; a missing output folder refused unless
--mkdir; every destination, setting and input checked before the first page is read.
(The PDF libraries' warnings kept for --debug: tests/test_cli_extract.py QuietTest.)
"""
from __future__ import annotations

import os
import pty
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from .support import FIXTURES, REPO, engine_parser, run_dua

PLAIN = os.path.join(FIXTURES, "statements", "plain_western")
A_PDF, A_CSV = os.path.join(PLAIN, "a.pdf"), os.path.join(PLAIN, "a.csv")
MULTIPAGE = os.path.join(FIXTURES, "statements", "indian_multipage", "a.pdf")
LOOPS = os.path.join(FIXTURES, "bad", "operator_flood.pdf")  # minutes of reading


class Tmp(unittest.TestCase):
    @property
    def parser(self) -> str:
        return engine_parser()  # plain_western's, as dua parse writes it (made once)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-edges-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def path(self, *parts: str) -> str:
        return os.path.join(self.tmp, *parts)


class NoSuchFileTest(Tmp):
    def test_every_command_says_no_such_file_with_exit_3(self):
        missing = self.path("missing.pdf")
        commands = {
            "parse": ("parse", missing, "--bank", "x", "--parsers-dir", self.tmp),
            "run": ("run", self.parser, missing, "--out-dir", self.tmp),
            "check": ("check", missing, A_CSV),
            "extract": ("extract", missing, "--out", self.path("x.json")),
            "ocr": ("ocr", missing, "--out", self.path("x.pdf")),
        }
        for name, argv in commands.items():
            with self.subTest(command=name):
                done = run_dua(*argv)
                self.assertEqual(done.returncode, 3, done.stderr)
                self.assertIn(f"No such file: {missing}", done.stderr)
                self.assertNotIn("is a bug", done.stderr)
                self.assertNotIn("OCR failed", done.stderr)  # a missing file is no failed scan

    def test_missing_rows_to_check_are_no_such_file_too(self):
        done = run_dua("check", A_PDF, self.path("rows.csv"))
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertIn("No such file: " + self.path("rows.csv"), done.stderr)


class MixedUpArgumentsTest(Tmp):
    def test_a_forgotten_parser_is_named_as_such(self):
        done = run_dua("run", A_PDF)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("is a PDF, not a parser", done.stderr)
        self.assertIn("dua parse", done.stderr)

    def test_a_parser_and_a_pdf_swapped_are_named_as_such(self):
        done = run_dua("run", A_PDF, self.parser, "--out-dir", self.tmp)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("the parser comes first", done.stderr)
        self.assertIn(f"dua run {self.parser} {A_PDF}", done.stderr)


class CtrlCTest(Tmp):
    def interrupt(self, *argv: str, after: float = 2.0) -> tuple:
        env = dict(os.environ, PYTHONPATH=REPO)
        # started as a terminal starts it (Ctrl-C at its default, even where the suite
        # itself runs in the background with SIGINT ignored), then Ctrl-C to its group
        proc = subprocess.Popen([sys.executable, "-m", "dua", *argv], cwd=self.tmp, env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                                start_new_session=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        time.sleep(after)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=60)
        return proc.returncode, err

    def test_ctrl_c_is_quiet_in_every_mode(self):
        modes = {
            "run on two workers": ("run", self.parser, LOOPS, LOOPS, LOOPS, "--out-dir", self.tmp,
                                   "--workers", "2", "--read-timeout", "60"),
            "run on one": ("run", self.parser, LOOPS, "--out-dir", self.tmp, "--read-timeout", "60"),
            "parse": ("parse", LOOPS, "--bank", "x", "--parsers-dir", self.tmp,
                      "--read-timeout", "60"),
            "extract": ("extract", LOOPS, "--read-timeout", "60", "--out", self.path("x.json")),
            "check": ("check", LOOPS, A_CSV, "--read-timeout", "60"),
        }
        for name, argv in modes.items():
            with self.subTest(mode=name):
                code, err = self.interrupt(*argv)
                self.assertEqual(code, 130, err)
                self.assertNotIn("Traceback", err)
                self.assertEqual(err.splitlines()[-1], "dua: interrupted")


class ExtractProgressTest(Tmp):
    def test_a_log_gets_a_few_lines_not_one_a_page(self):
        done = run_dua("extract", MULTIPAGE, "--out", self.path("x.json"))
        self.assertEqual(done.returncode, 0, done.stderr)
        pages = [line for line in done.stderr.splitlines() if " read" in line]
        self.assertLessEqual(len(pages), 2, done.stderr)  # the first page and the last
        self.assertTrue(pages[-1].endswith("read") and "page" in pages[-1], pages)

    def test_a_terminal_gets_one_line_rewritten_in_place(self):
        leader, follower = pty.openpty()
        self.addCleanup(os.close, leader)
        env = dict(os.environ, PYTHONPATH=REPO)
        proc = subprocess.Popen([sys.executable, "-m", "dua", "extract", MULTIPAGE, "--out",
                                 self.path("x.json")], cwd=self.tmp, env=env,
                                stdout=subprocess.DEVNULL, stderr=follower)
        os.close(follower)
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: dua ended
                break
            if not chunk:
                break
            seen += chunk
        self.assertEqual(proc.wait(timeout=60), 0, seen)
        text = seen.decode()
        self.assertIn("\r\x1b[K", text)
        lines = [line for line in text.replace("\r\n", "\n").split("\n") if " read" in line]
        self.assertEqual(len(lines), 1, lines)  # every page's count on one line


class OutputFolderTest(Tmp):
    def test_a_missing_output_folder_is_refused_before_any_work(self):
        out = self.path("no", "such", "x.csv")
        done = run_dua("parse", A_PDF, "--bank", "plain", "--expected", A_CSV,
                       "--parsers-dir", self.tmp, "--out", out)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("does not exist", done.stderr)
        self.assertIn("--mkdir", done.stderr)
        self.assertFalse(os.path.exists(self.path("no")))
        self.assertFalse(os.path.exists(self.path("plain_parser.py")), "nothing was run")

    def test_mkdir_says_to_create_it(self):
        out = self.path("no", "such", "x.csv")
        done = run_dua("parse", A_PDF, "--bank", "plain", "--expected", A_CSV,
                       "--parsers-dir", self.tmp, "--out", out, "--mkdir", "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(os.path.isfile(out))

    def test_a_review_in_a_missing_folder_is_refused_too(self):
        done = run_dua("check", A_PDF, A_CSV, "--review", self.path("no", "r.html"))
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("--mkdir", done.stderr)
        self.assertNotIn("reading", done.stderr)

    def test_an_out_dir_below_a_missing_folder_is_refused_too(self):
        done = run_dua("run", self.parser, A_PDF, "--out-dir", self.path("no", "where"))
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("does not exist", done.stderr)
        self.assertFalse(os.path.exists(self.path("no")))

    def test_the_out_dir_named_is_made_where_its_folder_exists(self):
        done = run_dua("run", self.parser, A_PDF, "--out-dir", self.path("out"), "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(os.path.isfile(self.path("out", "a.csv")))


class CheckedBeforeReadingTest(Tmp):
    """Refused with exit 2 and a clear message, and no page read (no progress line)."""

    def refused(self, *argv: str, says: str) -> None:
        done = run_dua(*argv)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn(says, done.stderr)
        for reading in ("analyze", "reading", "files done", "page 1/"):
            self.assertNotIn(reading, done.stderr)

    @unittest.skipUnless(os.path.isfile("/proc/version"), "no /proc here")
    def test_an_output_in_proc_is_refused(self):
        for argv in (("parse", A_PDF, "--bank", "x", "--parsers-dir", self.tmp),
                     ("run", self.parser, A_PDF), ("check", A_PDF, A_CSV),
                     ("extract", A_PDF)):
            with self.subTest(command=argv[0]):
                self.refused(*argv, "--out", "/proc/version", says="/proc is not writable")

    @unittest.skipUnless(os.path.isdir("/proc"), "no /proc here")
    def test_a_parsers_dir_in_proc_is_refused(self):
        self.refused("parse", A_PDF, "--bank", "x", "--parsers-dir", "/proc/x",
                     says="--parsers-dir /proc/x")

    def test_an_llm_without_a_model_is_refused(self):
        self.refused("parse", A_PDF, "--bank", "x", "--parsers-dir", self.tmp,
                     "--provider", "openai", says="--provider openai needs a model")

    def test_a_missing_answer_key_is_refused(self):
        self.refused("parse", A_PDF, "--bank", "x", "--parsers-dir", self.tmp,
                     "--expected", self.path("key.csv"), says="No such file: "
                     + self.path("key.csv") + " (--expected)")


if __name__ == "__main__":
    unittest.main()
