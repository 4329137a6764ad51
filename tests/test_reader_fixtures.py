"""dua's word reader on the reader fixtures: every page gives exactly pdfplumber's words.

The truth is committed beside each PDF (``fixtures/reader/<name>.words.json``, written by
``python -m fixtures.make_reader``), so pdfplumber is not the judge of itself here. A page
the reader hands to pdfplumber (``reader == "pdfplumber"``) is reported with its reason
and must be equal all the same. The run prints one line per fixture: pages equal, pages
that differ (with examples), pages that fell back and why.
"""
from __future__ import annotations

import difflib
import glob
import os
import sys
import tempfile
import unittest

from fixtures import make_reader
from fixtures.reader_make import truth

from .support import FIXTURES

READER = os.path.join(FIXTURES, "reader")
# The truth is rounded to 3 decimals: a box may differ by that rounding, by nothing more.
TOLERANCE = 0.001


def read_pages(path: str) -> list:
    """The reader under test, behind one import (the package's one door)."""
    from dua.pdf import read_pages as reader

    return reader(path)


def fixture_pdfs() -> list:
    return sorted(glob.glob(os.path.join(READER, "*.pdf")))


def differences(words: list, expected: list, limit: int = 4) -> list:
    """What differs between a page's words and its truth: text first, then boxes."""
    got, want = [w[0] for w in words], [w[0] for w in expected]
    if got != want:
        found = []
        matcher = difflib.SequenceMatcher(a=got, b=want, autojunk=False)
        for op, a0, a1, b0, b1 in matcher.get_opcodes():
            if op != "equal":
                found.append(f"{' '.join(got[a0:a1]) or '(nothing)'!r} for "
                             f"{' '.join(want[b0:b1]) or '(nothing)'!r}")
        return found[:limit] + ([f"... {len(found) - limit} more"] if len(found) > limit else [])
    found = []
    for word, true in zip(words, expected):
        worst = max(abs(float(a) - b) for a, b in zip(word[1:5], true[1:5]))
        if worst > TOLERANCE:
            found.append(f"{word[0]!r} box off by {worst:.3f} pt")
    return found[:limit] + ([f"... {len(found) - limit} more"] if len(found) > limit else [])


class ReaderFixturesTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pdfs = fixture_pdfs()

    def test_there_are_fixtures_from_at_least_five_producers(self):
        self.assertTrue(self.pdfs, f"no PDF under {READER}: run {make_reader.REGENERATE}")
        families = {make_reader.family_of(f).__name__ for f in make_reader.ALL
                    if os.path.join(READER, f"{f.name}.pdf") in self.pdfs}
        self.assertGreaterEqual(len(families), 5, sorted(families))
        for pdf in self.pdfs:
            with self.subTest(fixture=os.path.basename(pdf)):
                self.assertTrue(os.path.exists(pdf[:-4] + ".words.json"))

    def test_every_page_gives_pdfplumbers_words(self):
        self.assertTrue(self.pdfs, f"no PDF under {READER}: run {make_reader.REGENERATE}")
        report = []
        for pdf in self.pdfs:
            name = os.path.basename(pdf)[:-4]
            expected = truth.load(pdf[:-4] + ".words.json")["pages"]
            pages = read_pages(pdf)
            with self.subTest(fixture=name):
                self.assertEqual([p["number"] for p in pages], list(range(1, len(expected) + 1)))
            tally = {"equal": 0, "differ": [], "fell back": []}
            for page in pages:
                found = differences(page["words"], expected[page["number"] - 1])
                if page["reader"] != "pdfium":
                    tally["fell back"].append(f"p{page['number']}: {page['why']}")
                if found:
                    tally["differ"].append(f"p{page['number']} ({page['reader']}): "
                                           + "; ".join(found))
                else:
                    tally["equal"] += 1
                with self.subTest(fixture=name, page=page["number"], reader=page["reader"],
                                  why=page["why"]):
                    self.assertEqual(found, [], f"{name} page {page['number']}")
            report.append((name, tally))
        _print_report(report)

    def test_the_truth_is_what_pdfplumber_reads_today(self):
        self.assertTrue(self.pdfs, f"no PDF under {READER}: run {make_reader.REGENERATE}")
        for pdf in self.pdfs:
            with self.subTest(fixture=os.path.basename(pdf)):
                stored = truth.load(pdf[:-4] + ".words.json")
                self.assertEqual(truth.read(pdf)["pages"], stored["pages"],
                                 f"pdfplumber {stored['pdfplumber']} wrote the truth: run "
                                 f"{make_reader.REGENERATE} --truth-only")

    def test_the_readme_is_what_the_script_writes(self):
        with open(os.path.join(READER, "README.md"), encoding="utf-8") as fh:
            self.assertEqual(fh.read(), make_reader.readme(),
                             f"run {make_reader.REGENERATE} --truth-only")


@unittest.skipIf(make_reader.family_of(make_reader.by_name("pdftex_ligatures_cm")).missing(),
                 "pdfTeX is not installed: the PDFs are committed")
class RegenerateTest(unittest.TestCase):
    def test_a_pdftex_fixture_renders_again_byte_for_byte(self):
        fixture = make_reader.by_name("pdftex_ligatures_cm")
        with tempfile.TemporaryDirectory() as tmp:
            made = make_reader.render(fixture, tmp)
            with open(made, "rb") as fh, open(os.path.join(READER, os.path.basename(made)),
                                               "rb") as committed:
                self.assertEqual(fh.read(), committed.read())


def _print_report(report: list) -> None:
    print("\nreader fixtures: pages equal / differ / fell back", file=sys.stderr)
    for name, tally in report:
        print(f"  {name}: {tally['equal']} / {len(tally['differ'])} / "
              f"{len(tally['fell back'])}", file=sys.stderr)
        for line in tally["fell back"]:
            print(f"    fell back {line}", file=sys.stderr)
        for line in tally["differ"]:
            print(f"    DIFFERS {line}", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
