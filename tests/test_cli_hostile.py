"""Hostile and damaged PDFs at the command line: every file bounded, every error naming what is
damaged (exit 3), never a usage error about a flag nobody passed; a batch goes on and resumes."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import unittest

from tests.support import FIXTURES, run_dua

BAD = os.path.join(FIXTURES, "bad")
LOOPS = os.path.join(BAD, "operator_flood.pdf")  # minutes of pdfminer, in little memory
TROFF = os.path.join(FIXTURES, "statements", "troff_tbl")
# Debian's texlive-latex-extra: pdfium finds its one page (a drawing), pdfminer none
EUROPASS = "/usr/share/texlive/texmf-dist/tex/latex/europecv/europasslogo-eps-converted-to.pdf"


class DamagedFileTest(unittest.TestCase):
    def test_a_broken_page_tree_with_no_text_is_exit_3_not_a_pages_usage_error(self):
        proc = run_dua("extract", os.path.join(BAD, "shifted_image_only.pdf"))
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertIn("no text layer", proc.stderr)
        self.assertNotIn("--pages", proc.stderr)

    @unittest.skipUnless(os.path.exists(EUROPASS), "Debian's texlive-latex-extra is not installed")
    def test_issue_27_europass_logo_reads_the_page_pdfium_sees(self):
        proc = run_dua("extract", EUROPASS)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertIn("its 1 page is an image or blank", proc.stderr)

    def test_a_file_with_no_pages_says_so_with_exit_3(self):
        for command in (("extract",), ("parse", "--bank", "x", "--parsers-dir", "")):
            with self.subTest(command[0]):
                tmp = tempfile.mkdtemp()
                self.addCleanup(shutil.rmtree, tmp, True)
                args = [a or tmp for a in command]
                proc = run_dua(*args[:1], os.path.join(BAD, "no_pages.pdf"), *args[1:])
                self.assertEqual(proc.returncode, 3, proc.stderr)
                self.assertIn("has no pages", proc.stderr)

    def test_pages_beyond_the_file_name_its_page_count(self):
        proc = run_dua("extract", os.path.join(TROFF, "a.pdf"), "--pages", "9")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--pages selects no page", proc.stderr)
        self.assertIn("it has 2 pages", proc.stderr)

    def test_a_file_whose_xref_is_one_byte_off_is_still_read(self):
        proc = run_dua("extract", os.path.join(BAD, "shifted_xref.pdf"))
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertGreater(json.loads(proc.stdout)["stats"]["words"], 100)

    def test_glyphs_a_damaged_xref_leaves_with_no_width_are_parsed_not_a_bug(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        proc = run_dua("parse", os.path.join(BAD, "zero_width_glyphs.pdf"), "--bank", "ocr",
                       "--parsers-dir", tmp, "--json", cwd=tmp)
        self.assertNotIn("bug in dua", proc.stderr)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        self.assertGreater(json.loads(proc.stdout)["accounting"]["words_in_cells"], 0)

    def test_a_file_that_never_finishes_reading_ends_at_the_read_timeout_with_exit_3(self):
        for args in (("extract",), ("parse", "--bank", "loops")):
            with self.subTest(args[0]):
                tmp = tempfile.mkdtemp()
                self.addCleanup(shutil.rmtree, tmp, True)
                started = time.monotonic()
                proc = run_dua(*args[:1], LOOPS, *args[1:], "--read-timeout", "2", cwd=tmp)
                self.assertLess(time.monotonic() - started, 30)
                self.assertEqual(proc.returncode, 3, proc.stderr)
                self.assertIn("could not be read in 2 s", proc.stderr)
                self.assertIn("--read-timeout", proc.stderr)  # the hint names the flag

    def test_every_reading_command_names_its_read_timeout_in_help(self):
        for command in ("parse", "run", "extract"):
            with self.subTest(command):
                proc = run_dua(command, "--help")
                self.assertEqual(proc.returncode, 0)
                self.assertIn("--read-timeout", proc.stdout)
                self.assertIn("30 plus 1 a page", " ".join(proc.stdout.split()))

    def test_a_read_timeout_that_is_not_seconds_is_a_usage_error(self):
        proc = run_dua("extract", os.path.join(TROFF, "a.pdf"), "--read-timeout", "0")
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--read-timeout must be seconds", proc.stderr)


class BatchGoesOnTest(unittest.TestCase):
    """One file that never finishes among good ones: the batch ends, the good files are exact,
    the bad one has its reason, and a re-run resumes."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dua-hostile-")
        proc = run_dua("parse", os.path.join(TROFF, "a.pdf"), "--bank", "troff", "--expected",
                       os.path.join(TROFF, "a.csv"), "--parsers-dir", cls.tmp, "-q", cwd=cls.tmp)
        if proc.returncode != 0:
            raise AssertionError(f"dua parse could not write the parser: {proc.stderr}")
        cls.parser = os.path.join(cls.tmp, "troff_parser.py")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def run_batch(self, out_dir: str, *extra: str):
        pdfs = [os.path.join(TROFF, "a.pdf"), LOOPS, os.path.join(TROFF, "b.pdf"),
                os.path.join(BAD, "forms_loop.pdf")]
        return run_dua("run", self.parser, *pdfs, "--out-dir", out_dir, "--json",
                       "--read-timeout", "3", *extra)

    def test_the_batch_finishes_exact_reports_the_bad_file_and_resumes(self):
        import pandas as pd  # lazy: keeps test discovery fast

        out_dir = os.path.join(self.tmp, "out")
        proc = self.run_batch(out_dir)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        files = json.loads(proc.stdout)["files"]
        self.assertEqual([f["status"] for f in files], ["converted", "failed", "converted", "failed"])
        self.assertEqual(files[1]["error"]["error_code"], "PDF_READ_TIMEOUT")
        self.assertIn("could not be read in 3 s", files[1]["error"]["message"])
        self.assertIn(files[3]["error"]["error_code"], ("PDF_READ_TIMEOUT", "PDF_MEMORY_LIMIT"))
        for which in "ab":
            got = pd.read_csv(os.path.join(out_dir, f"{which}.csv"))
            self.assertTrue(got.equals(pd.read_csv(os.path.join(TROFF, f"{which}.csv"))), which)
        again = json.loads(self.run_batch(out_dir).stdout)["files"]
        self.assertEqual([f["status"] for f in again], ["skipped", "failed", "skipped", "failed"])

    def test_a_parser_that_reads_the_pdf_itself_blames_the_pdf_not_itself(self):
        parser = os.path.join(FIXTURES, "parsers_batch", "plain_western_parser.py")
        proc = run_dua("run", parser, LOOPS, "--out-dir", os.path.join(self.tmp, "own"),
                       "--json", "--timeout", "2", "--read-timeout", "2")
        self.assertEqual(proc.returncode, 3, proc.stderr)
        error = json.loads(proc.stdout)["files"][0]["error"]
        self.assertEqual(error["error_code"], "PDF_READ_TIMEOUT", error)


if __name__ == "__main__":
    unittest.main()
