"""The figures OCR read two ways (``dua.commands.figures``): the copy keeps the other reading
only where that alone lets the statement's checks pass; the report says which it holds and
why."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import unittest

from dua.pdf import ocr, scans, searchable

from .support import SHARED_DATA
from .test_ocr import needs_tesseract, plumber_words

CORPUS = os.path.join(os.path.dirname(SHARED_DATA), "corpus")
C03 = os.path.join(CORPUS, "statements", "c03_signed_amount_writer", "statement_b.pdf")


def _copy(folder: str) -> tuple:
    """(a searchable copy showing '2,935.61' and 'Shell', its answer: the figure read
    '2,535.61' again)."""
    import zlib

    line = ocr.OcrLine(100, 240, 0.0, 0.0, 30, 8, [
        ocr.OcrWord("Shell", 100, 208, 220, 240, 96.0),
        ocr.OcrWord("2,935.61", 400, 208, 600, 240, 95.0)])
    page = searchable.ScanPage(612, 792, zlib.compress(b"\xff" * 850 * 1100), 850, 1100, 100.0,
                               [line])
    path = os.path.join(folder, "copy.pdf")
    searchable.write(path, [page])
    return path, {"read_twice": scans._twice(page, 1, [(line, 1, "2,535.61")])}


def _passing_with(text: str):
    """A judge that passes the copy whose words hold ``text``; its failure names no row."""
    def judge(path: str) -> dict:
        words = [w["text"] for w in plumber_words(path)[0]]
        return {"status": "passed" if text in words else "failed",
                "checks": [{"name": "balance_reconciles", "passed": text in words,
                            "detail": "the balances do not follow"}]}
    return judge


class SettleTest(unittest.TestCase):

    def setUp(self):
        self.folder = tempfile.mkdtemp()
        self.addCleanup(__import__("shutil").rmtree, self.folder)
        self.path, self.answer = _copy(self.folder)

    def test_the_other_reading_is_kept_where_only_it_lets_the_checks_pass(self):
        from dua.commands.figures import settle

        settle(self.path, self.answer, _passing_with("2,535.61"))
        words = plumber_words(self.path)[0]
        self.assertEqual([w["text"] for w in words], ["Shell", "2,535.61"])
        figure = self.answer["read_twice"][0]
        self.assertEqual((figure["read_as"], figure["why"]),
                         ("2,535.61", "only it lets every check pass"))
        # where tesseract saw it: the reading changes, never the box
        self.assertAlmostEqual(words[1]["x0"], 400 * 72 / 100, places=1)
        self.assertEqual(os.listdir(self.folder), ["copy.pdf"])  # no other copy left

    def test_the_first_reading_stands_where_the_other_passes_no_more(self):
        from dua.commands.figures import settle

        with open(self.path, "rb") as fh:
            before = fh.read()
        settle(self.path, self.answer, _passing_with("nothing prints this"))
        with open(self.path, "rb") as fh:
            self.assertEqual(fh.read(), before)
        figure = self.answer["read_twice"][0]
        self.assertEqual((figure["read_as"], figure["why"]),
                         ("2,935.61", "the other reading lets no more checks pass"))

    def test_a_copy_that_passes_as_read_is_not_read_again(self):
        from dua.commands.figures import settle

        asked = []

        def judge(path):
            asked.append(path)
            return {"status": "passed"}
        settle(self.path, self.answer, judge)
        self.assertEqual(asked, [self.path])
        self.assertEqual(self.answer["read_twice"][0]["why"],
                         "the checks pass with the first reading")

    def test_a_word_the_copy_does_not_show_once_is_never_rewritten(self):
        shown = self.answer["read_twice"][0]["shown"]
        out = os.path.join(self.folder, "other.pdf")
        self.assertFalse(searchable.reword(self.path, out, [(shown.replace("2,9", "7,9"),
                                                             shown)]))
        self.assertFalse(searchable.reword(self.path, out, [(shown, shown + " ")]))
        self.assertFalse(os.path.exists(out))


class KeyJudgeTest(unittest.TestCase):
    """With the answer key, a copy passes where its figures are the key's: its descriptions
    are OCR text, never letter for letter the key's."""

    def test_the_keys_figures_decide_and_its_text_does_not(self):
        import pandas as pd

        from dua.commands.figures import _figures_agree

        key = pd.DataFrame({"Date": ["01/08", "02/08"], "Details": ["Shell", "IB0123"],
                            "Amount": [2535.61, -3.5]})
        read = key.assign(Details=["She11", "1B0123"])
        self.assertTrue(_figures_agree(read, key))
        self.assertFalse(_figures_agree(read.assign(Amount=[2935.61, -3.5]), key))
        self.assertFalse(_figures_agree(read.iloc[:1], key))


@unittest.skipUnless(os.path.isfile(C03), "the shared corpus is not here")
class ScanOfARealLayoutTest(unittest.TestCase):
    """c03's statement B (Writer) scanned back at 300 dpi: tesseract reads '2,535.61' as
    '2,935.61' in its line, and its balances do not follow until the figure is read again."""

    def test_dua_parse_takes_the_reading_the_balances_follow_and_says_so(self):
        needs_tesseract()
        from fixtures.make_scans import scan

        with tempfile.TemporaryDirectory() as tmp:
            scanned = os.path.join(tmp, "scan.pdf")
            scan(C03, scanned, "clean")
            run = subprocess.run(
                [sys.executable, "-m", "dua", "parse", scanned, "--bank", "c03", "--json",
                 "--out", os.path.join(tmp, "rows.csv"), "--parsers-dir", tmp],
                capture_output=True, text=True, timeout=600)
            report = json.loads(run.stdout)
            self.assertEqual((run.returncode, report["status"]), (0, "passed"), run.stderr)
            taken = [f for f in report["ocr"]["read_twice"] if f["read_as"] != f["text"]]
            self.assertEqual([(f["text"], f["read_as"]) for f in taken],
                             [("2,935.61", "2,535.61")])
            with open(os.path.join(tmp, "rows.csv")) as fh:
                self.assertIn("2535.61", fh.read())


if __name__ == "__main__":
    unittest.main()
