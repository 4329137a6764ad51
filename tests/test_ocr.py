"""Scanned statements (issue 34): the searchable copy, OCR through every command, and the verdict.

The tests that run tesseract skip, saying so, where it is not installed (``.ci/run`` installs it
where apt-get can); each reads a one-page scan made by ``fixtures/make_scans.py``. The writer,
the hOCR reader and the missing-tesseract path need no tesseract and always run.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from dua import pdf
from dua.pdf import ocr, searchable

from .support import FIXTURES, REPO, run_dua

SCANS = os.path.join(FIXTURES, "scans")
CLEAN = os.path.join(SCANS, "plain_western_a_clean.pdf")
ORIGINAL = os.path.join(FIXTURES, "statements", "plain_western", "a.pdf")
KEY = os.path.join(FIXTURES, "statements", "plain_western", "a.csv")


def needs_tesseract() -> None:
    if ocr.find() is None:
        raise unittest.SkipTest("tesseract is not on PATH (Debian: apt-get install tesseract-ocr);"
                                " the OCR tests that run it are skipped")


def plumber_words(path: str) -> list:
    with pdf.open_pdf(path) as doc:
        return [page.extract_words() for page in doc.pages]


HOCR = """<div class='ocr_page' title='bbox 0 0 1000 1000'>
<span class='ocr_line' title="bbox 100 200 900 240; baseline 0.01 -8; x_size 30; x_descenders 8">
<span class='ocrx_word' title='bbox 100 204 400 232; x_wconf 96'>Opening</span>
<span class='ocrx_word' title='bbox 300 205 500 233; x_wconf 31'>1,284.5O</span>
<span class='ocrx_word' title='bbox 520 205 530 233; x_wconf 40'>|</span>
<span class='ocrx_word' title='bbox 540 205 560 233; x_wconf 30'>=</span>
<span class='ocrx_word' title='bbox 600 205 700 233; x_wconf 95'><strong>A&amp;B|</strong></span>
</span></div>"""


class HocrTest(unittest.TestCase):
    """tesseract's hOCR into lines and words, as the writer needs them."""

    def test_words_keep_text_box_confidence_and_line_baseline(self):
        (line,) = ocr.parse_hocr(HOCR)
        self.assertEqual((line.slope, line.offset, line.x_size, line.descent), (0.01, -8, 30, 8))
        self.assertAlmostEqual(line.baseline(100), 232)
        self.assertEqual([(w.text, w.confidence) for w in line.words],
                         [("Opening", 96), ("1,284.5O", 31), ("A&B", 95)])

    def test_a_figure_loses_the_quotes_a_speck_became_and_words_keep_theirs(self):
        hocr = HOCR.replace(">Opening<", ">\u201cOpening<").replace(">1,284.5O<", ">\u201c08/02/2024<")
        (line,) = ocr.parse_hocr(hocr)
        self.assertEqual([w.text for w in line.words][:2], ["\u201cOpening", "08/02/2024"])

    def test_a_figure_misread_in_one_way_only_is_repaired(self):
        cases = {"O1DEC25": "01DEC25", "@1-01-2026": "01-01-2026", "2025/10/13.": "2025/10/13",
                 "7,604.27.": "7,604.27", "03.10.": "03.10.", "~\u2014_28,": "28,",
                 "\u201312.50": "-12.50", "INTO126": "INTO126",
                 "17.": "17.", "OCT": "OCT", "PAGE": "PAGE"}
        for read, printed in cases.items():
            with self.subTest(read=read):
                self.assertEqual(ocr.repaired(read, 90.0), printed)
        self.assertEqual(ocr.repaired("O1DEC25", 20.0), "O1DEC25")  # a blot: left to fail

    def test_a_figure_cut_at_its_separator_is_one_word_again(self):
        def word(text, x0, x1):
            return (f"<span class='ocrx_word' title='bbox {x0} 204 {x1} 232; x_wconf 90'>"
                    f"{text}</span>")

        line = ("<div><span class='ocr_line' title='bbox 0 200 2200 240; baseline 0 -8; "
                "x_size 26'>" + word("4,75,", 1841, 1933) + word("307.59Cr", 1947, 2103)
                + word("975", 100, 160) + word(".00-", 172, 250)
                + word("12,", 400, 460) + word("500.00", 520, 640)
                + word("41,", 700, 750) + word("04229", 770, 870) + "</span></div>")
        (parsed,) = ocr.parse_hocr(line)
        # a space as wide as a letter stays a space: two words
        self.assertEqual([w.text for w in parsed.words],
                         ["975.00-", "12,", "500.00", "41,", "04229", "4,75,307.59Cr"])
        self.assertEqual((parsed.words[-1].x0, parsed.words[-1].x1), (1841, 2103))

    def test_a_box_that_runs_over_the_next_word_ends_where_it_begins(self):
        (line,) = ocr.parse_hocr(HOCR)
        self.assertEqual([(w.x0, w.x1) for w in line.words][:2], [(100, 299), (300, 500)])


class WriterTest(unittest.TestCase):
    """The searchable PDF, written from words whose boxes are known: pdfplumber and dua's own
    reader find each word where it was put, turned with the page when it was skewed."""

    def write(self, angle: float) -> tuple:
        words = [ocr.OcrWord("Balance", 150, 200, 330, 230, 95),
                 ocr.OcrWord("1,234.56", 900, 200, 1100, 230, 60)]
        line = ocr.OcrLine(150, 236, math.tan(angle), -6, 30, 6, words)
        w, h = 1275, 1650  # a letter page at 150 dpi
        page = searchable.ScanPage(612, 792, __import__("zlib").compress(b"\xff" * (w * h)),
                                   w, h, 150, [line], angle)
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        path = os.path.join(tmp, "s.pdf")
        searchable.write(path, [page])
        return path, line

    def test_words_stand_where_their_boxes_were(self):
        path, line = self.write(0.0)
        found = plumber_words(path)[0]
        self.assertEqual([w["text"] for w in found], ["Balance", "1,234.56"])
        scale = 72 / 150
        for got, word in zip(found, line.words):
            self.assertAlmostEqual(got["x0"], word.x0 * scale, delta=0.05)
            self.assertAlmostEqual(got["x1"], word.x1 * scale, delta=0.05)
            # from the capitals' top to the descenders' foot, on the line's baseline
            self.assertAlmostEqual(got["bottom"], (line.baseline(word.x0) + 7.5) * scale, delta=0.05)
        doc = pdf.read_document(path)
        self.assertEqual([(w.text, round(w.x0, 2), round(w.top, 2)) for w in doc.pages[0].words],
                         [(w["text"], round(w["x0"], 2), round(w["top"], 2)) for w in found])
        self.assertEqual(doc.pages[0].words[0].font.split("+")[-1], searchable.FONT_NAME)

    def test_a_skewed_line_comes_out_level(self):
        path, _ = self.write(math.radians(2))
        a, b = plumber_words(path)[0]
        # 750 px apart along a 2-degree slope is 26 px (12 pt) of drop; turned, none is left
        self.assertAlmostEqual(a["top"], b["top"], delta=0.5)


class WithoutTesseractTest(unittest.TestCase):
    """Where tesseract is not installed, a scan still ends in exit 3, now saying how to install it."""

    def test_parse_of_a_scan_exits_3_with_the_install_lines(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        proc = run_dua("parse", CLEAN, "--bank", "scan", "--parsers-dir", tmp,
                       env={"PATH": os.path.dirname(sys.executable)})
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertIn("tesseract", proc.stderr)
        for line in ("apt-get install tesseract-ocr", "dnf install tesseract",
                     "brew install tesseract", "winget install"):
            self.assertIn(line, proc.stderr)

    def test_ocr_never_reads_the_scan_as_it_is(self):
        proc = run_dua("extract", CLEAN, "--ocr", "never", "-q")
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertIn("no text layer", proc.stderr)


class SearchableCopyTest(unittest.TestCase):
    """``dua ocr``: pdfplumber reads from the copy the statement's own words, where they were
    printed (the scan is a render of a statement whose words are known)."""

    @classmethod
    def setUpClass(cls):
        needs_tesseract()
        cls.tmp = tempfile.mkdtemp()
        cls.out = os.path.join(cls.tmp, "searchable.pdf")
        cls.proc = run_dua("ocr", CLEAN, "--out", cls.out, "--json", env={"TMPDIR": cls.tmp})

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def test_the_copy_holds_the_printed_words_where_they_were_printed(self):
        self.assertEqual(self.proc.returncode, 0, self.proc.stderr)
        printed = plumber_words(ORIGINAL)[0]
        read = plumber_words(self.out)[0]
        found = [p for p in printed if any(
            r["text"] == p["text"] and abs(r["x0"] - p["x0"]) < 2 and abs(r["x1"] - p["x1"]) < 2
            and abs((r["top"] + r["bottom"]) - (p["top"] + p["bottom"])) < 4 for r in read)]
        self.assertGreaterEqual(len(found), 0.97 * len(printed),
                                [p["text"] for p in printed if p not in found])

    def test_the_report_names_the_engine_and_the_progress_the_pages(self):
        report = json.loads(self.proc.stdout)
        self.assertEqual(report["pages"], [1])
        self.assertTrue(report["engine"].startswith("tesseract"))
        self.assertIn("dua ocr: page 1/1 OCR", self.proc.stderr)

    def test_nothing_is_left_in_the_temporary_folder(self):
        self.assertEqual(sorted(os.listdir(self.tmp)), ["searchable.pdf"])

    def test_a_page_with_text_is_not_read_again(self):
        proc = run_dua("ocr", ORIGINAL, "--out", os.path.join(self.tmp, "x.pdf"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("--ocr always", proc.stderr)


class ScanVerdictTest(unittest.TestCase):
    """``dua parse`` and ``dua run`` on scans: the same verdicts as on the printed statement,
    told that the text is OCR's; a blotted amount fails its check and is named."""

    @classmethod
    def setUpClass(cls):
        needs_tesseract()
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def parse(self, scan: str, bank: str) -> tuple:
        out = os.path.join(self.tmp, f"{bank}.csv")
        proc = run_dua("parse", scan, "--bank", bank, "--parsers-dir", self.tmp, "--out", out,
                       "--json", env={"TMPDIR": self.tmp})
        return proc, json.loads(proc.stdout)

    def test_a_clean_scan_passes_with_the_printed_rows(self):
        import pandas as pd

        proc, report = self.parse(CLEAN, "clean")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        self.assertEqual(report["status"], "passed")
        self.assertTrue(pd.read_csv(os.path.join(self.tmp, "clean.csv")).equals(pd.read_csv(KEY)))
        self.assertEqual(report["ocr"]["descriptions"], "OCR, not checked letter by letter")
        self.assertEqual(report["ocr"]["near_failures"], [])
        self.assertIn("dua parse: page 1/1 OCR", proc.stderr)
        self.assertFalse([n for n in os.listdir(self.tmp) if n.startswith("dua-ocr-")])

    def test_a_blotted_amount_fails_and_is_named_with_its_confidence(self):
        from fixtures.make_scans import scan

        stained = os.path.join(self.tmp, "stained.pdf")
        scan(ORIGINAL, stained, "stain")
        proc, report = self.parse(stained, "stained")
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertNotEqual(report["status"], "passed")
        named = [line for line in report["ocr"]["near_failures"] if "Balance" in line]
        self.assertTrue(named, report["ocr"])
        self.assertRegex(named[0], r"row \d+'s Balance `[\d,.]+` read with \d+% confidence")

    def test_run_reads_a_scan_through_its_copy_and_checks_it(self):
        proc = run_dua("parse", ORIGINAL, "--bank", "printed", "--parsers-dir", self.tmp,
                       "--out", os.path.join(self.tmp, "printed.csv"), "-q")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out_dir = os.path.join(self.tmp, "run")
        proc = run_dua("run", os.path.join(self.tmp, "printed_parser.py"), CLEAN,
                       "--out-dir", out_dir, "--json", env={"TMPDIR": self.tmp})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        (entry,) = json.loads(proc.stdout)["files"]
        self.assertEqual((entry["pdf_path"], entry["status"], entry["check"]["status"]),
                         (CLEAN, "converted", "passed"))
        self.assertEqual(entry["ocr"]["pages"], [1])
        self.assertEqual([n for n in os.listdir(out_dir) if not n.startswith(".")],
                         ["plain_western_a_clean.csv"])


class CheckScanTest(unittest.TestCase):
    """``dua check`` on a scan: read through its searchable copy (told in its report), put to
    the scan's checks as ``dua parse`` is; rows with a wrong amount never pass."""

    @classmethod
    def setUpClass(cls):
        needs_tesseract()
        cls.tmp = tempfile.mkdtemp()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def check(self, rows: str) -> tuple:
        proc = run_dua("check", CLEAN, rows, "--json", env={"TMPDIR": self.tmp})
        return proc, json.loads(proc.stdout)

    def test_a_scan_is_read_through_its_copy_and_told_so(self):
        proc, report = self.check(KEY)
        self.assertIn(proc.returncode, (0, 1), proc.stderr)
        self.assertEqual(report["ocr"]["pages"], [1])
        self.assertEqual(report["ocr"]["descriptions"], "OCR, not checked letter by letter")
        self.assertIn("dua check: page 1/1 OCR", proc.stderr)
        self.assertFalse([n for n in os.listdir(self.tmp) if n.startswith("dua-ocr-")])

    def test_rows_with_a_wrong_amount_do_not_pass(self):
        import pandas as pd

        rows = pd.read_csv(KEY)
        column = [c for c in rows.columns if c.startswith("Balance")][0]
        rows.loc[3, column] = rows.loc[3, column] + 9.0
        wrong = os.path.join(self.tmp, "wrong.csv")
        rows.to_csv(wrong, index=False)
        proc, report = self.check(wrong)
        self.assertEqual(proc.returncode, 1, proc.stderr)
        self.assertNotEqual(report["status"], "passed")

    def test_ocr_never_leaves_the_scan_without_text(self):
        proc = run_dua("check", CLEAN, KEY, "--ocr", "never", "-q")
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertIn("no text layer", proc.stderr)


class BoundedOcrTest(unittest.TestCase):
    """OCR ends with dua: tesseract runs in dua's session, and nothing of it outlives a kill."""

    def setUp(self):
        needs_tesseract()
        if not os.path.isdir("/proc/self"):
            self.skipTest("no /proc here to find a session's processes in")

    def test_killing_dua_mid_page_leaves_no_tesseract(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp)
        env = dict(os.environ, PYTHONPATH=REPO, TMPDIR=tmp)
        proc = subprocess.Popen([sys.executable, "-m", "dua", "ocr", CLEAN, "--out",
                                 os.path.join(tmp, "o.pdf"), "--ocr-dpi", "600"],
                                stderr=subprocess.PIPE, env=env, cwd=REPO,
                                start_new_session=True)
        self.assertIn(b"page 1/1 OCR", proc.stderr.readline())
        deadline = time.monotonic() + 20
        while not _in_session(proc.pid, "tesseract") and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertTrue(_in_session(proc.pid, "tesseract"), "tesseract never started")
        proc.send_signal(signal.SIGKILL)  # dua alone: the kernel ends its children
        proc.wait()
        proc.stderr.close()
        deadline = time.monotonic() + 10
        while _in_session(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(_in_session(proc.pid), [])
        # a SIGKILL leaves dua's (empty) folder for the copy; no page image was ever a file
        self.assertEqual([f for _, _, files in os.walk(tmp) for f in files], [])


def _in_session(sid: int, name: str = "") -> list:
    """The processes of session ``sid`` (whose command holds ``name``)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/stat", "rb") as fh:
                stat = fh.read().decode(errors="replace")
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                command = fh.read().decode(errors="replace")
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[-1].split()
        if fields[0] != "Z" and int(fields[3]) == sid and name in command:
            found.append(int(pid))
    return found


if __name__ == "__main__":
    unittest.main()
