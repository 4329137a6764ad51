"""Issue 24: a statement whose descriptions hold ligature glyphs (fi, fl, ff, ffi, ffl in a
serif font, printed by Chromium) reads as pdfplumber reads it on every path a user takes:
``dua parse`` (supervised), the saved parser under ``dua run``, and ``dua extract``."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import unittest

import pandas as pd

from .support import FIXTURES, run_dua

FOLDER = os.path.join(FIXTURES, "statements", "ligatures_serif_html")


def _descriptions(csv: str) -> list:
    return pd.read_csv(os.path.join(FOLDER, csv))["Description"].tolist()


def _strings(node) -> list:
    """Every string inside an extract result's elements, however nested."""
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for value in node.values() for s in _strings(value)]
    if isinstance(node, list):
        return [s for value in node for s in _strings(value)]
    return []


class LigatureStatementTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import pdfplumber

        cls.tmp = tempfile.mkdtemp(prefix="dua-ligatures-")
        with pdfplumber.open(os.path.join(FOLDER, "a.pdf")) as pdf:
            cls.plumber = {w["text"] for page in pdf.pages for w in page.extract_words()}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_the_descriptions_hold_ligature_words_pdfplumber_reads_whole(self):
        # the premise: every word of every description is one of pdfplumber's words,
        # and the ligatures the issue found broken are among them
        words = {w for d in _descriptions("a.csv") for w in d.split()}
        self.assertLessEqual(words, self.plumber)
        self.assertLessEqual({"Millfield", "fitness", "Scaffolding", "fitted", "waffles"},
                             words)

    def test_dua_parse_with_the_expected_csv_gives_it_exactly(self):
        out = os.path.join(self.tmp, "parse_a.csv")
        done = run_dua("parse", os.path.join(FOLDER, "a.pdf"), "--bank", "fairfield",
                       "--expected", os.path.join(FOLDER, "a.csv"), "--out", out, "--json",
                       "--quiet", "--parsers-dir", os.path.join(self.tmp, "parsers"),
                       cwd=self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["status"], "passed")
        self.assertTrue(pd.read_csv(out).equals(pd.read_csv(os.path.join(FOLDER, "a.csv"))))

    def test_the_saved_parser_under_dua_run_gives_statement_b_exactly(self):
        parsers = os.path.join(self.tmp, "run_parsers")
        learned = run_dua("parse", os.path.join(FOLDER, "a.pdf"), "--bank", "fairfield",
                          "--expected", os.path.join(FOLDER, "a.csv"), "--quiet",
                          "--out", os.path.join(self.tmp, "learned_a.csv"),
                          "--parsers-dir", parsers, cwd=self.tmp)
        self.assertEqual(learned.returncode, 0, learned.stderr)
        out = os.path.join(self.tmp, "run_b.csv")
        done = run_dua("run", os.path.join(parsers, "fairfield_parser.py"),
                       os.path.join(FOLDER, "b.pdf"), "--out", out, "--quiet", cwd=self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        got, want = pd.read_csv(out), pd.read_csv(os.path.join(FOLDER, "b.csv"))
        self.assertTrue(got.equals(want), got.compare(want) if got.shape == want.shape else got)

    def test_dua_extract_keeps_every_description_word_whole(self):
        done = run_dua("extract", os.path.join(FOLDER, "a.pdf"), "-q", cwd=self.tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        found = {w for s in _strings(json.loads(done.stdout)["elements"]) for w in s.split()}
        missing = sorted({w for d in _descriptions("a.csv") for w in d.split()} - found)
        self.assertEqual(missing, [])


if __name__ == "__main__":
    unittest.main()
