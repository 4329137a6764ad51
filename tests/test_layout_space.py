"""Statements drawn from a space of layouts (fixtures/space, issue 33 item 4): the generator
is deterministic and reaches every axis value, the committed sample's PDFs print every word
of their tables, and the built-in writer on that sample never calls a wrong reading passed.
"""
from __future__ import annotations

import collections
import filecmp
import glob
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from fixtures.space import axes, check, notation

from .bench.bench_layouts import failure_lines, score_layout, tally
from .support import FIXTURES, REPO

SAMPLE = os.path.join(FIXTURES, "space_sample")
CASES = os.path.join(FIXTURES, "space_cases")  # layouts kept for what they showed
SEED, COUNT = 33, 12   # what fixtures/README.md says made the sample
FOLDERS = sorted(os.path.dirname(p) for p in glob.glob(os.path.join(SAMPLE, "*", "layout.json")))


def generate(*args: str, hash_seed: str = "0") -> subprocess.CompletedProcess:
    """``python -m fixtures.space ARGS`` as a user runs it (another hash seed each time, so
    nothing may depend on the order of a set)."""
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    return subprocess.run([sys.executable, "-m", "fixtures.space", *args], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=300)


class GeneratorTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-space-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_the_seed_gives_the_committed_layouts_and_keys_byte_for_byte(self):
        self.assertEqual(len(FOLDERS), COUNT)
        done = generate("--seed", str(SEED), "--count", str(COUNT), "--out", self.tmp,
                        "--csv-only", hash_seed="12345")
        self.assertEqual(done.returncode, 0, done.stderr)
        for folder in FOLDERS:
            name = os.path.basename(folder)
            for file in ("layout.json", "a.csv", "b.csv"):
                with self.subTest(layout=name, file=file):
                    self.assertTrue(filecmp.cmp(os.path.join(folder, file),
                                                os.path.join(self.tmp, name, file),
                                                shallow=False),
                                    f"python -m fixtures.space --seed {SEED} --count {COUNT} "
                                    "--out fixtures/space_sample")

    def test_another_seed_draws_other_layouts_and_a_differs_from_b(self):
        done = generate("--seed", str(SEED + 1), "--count", "3", "--out", self.tmp,
                        "--csv-only")
        self.assertEqual(done.returncode, 0, done.stderr)
        drawn = sorted(os.listdir(self.tmp))
        self.assertEqual(len(drawn), 3)
        self.assertFalse(set(drawn) & {os.path.basename(f) for f in FOLDERS})
        for name in drawn:
            with open(os.path.join(self.tmp, name, "a.csv"), "rb") as a, \
                    open(os.path.join(self.tmp, name, "b.csv"), "rb") as b:
                first, second = a.read(), b.read()
            self.assertEqual(first.splitlines()[0], second.splitlines()[0])  # same heading
            self.assertNotEqual(first, second)

    def test_the_sampler_reaches_every_value_of_its_axes(self):
        seen = collections.defaultdict(set)
        for index in range(400):
            layout = axes.draw(7, index)
            date = layout["date"]
            seen["producer"].add(layout["producer"])
            seen["month"].add("cjk" if date.get("cjk") else date["month"])
            seen["grouping"].add(layout["grouping"])
            seen["sign"].add(layout["effective"]["sign"])
            seen["amounts"].add(layout["columns"]["amounts"])
            seen["description"].add(layout["description"])
            seen["accounts"].add(layout["accounts"])
            for name in ("labels", "forward_lines", "balance_last_of_day", "break_inside_row",
                         "narrow_cells", "totals_row", "credit_first"):
                seen[name].add(layout["effective"][name])
        self.assertEqual(seen["producer"], set(axes.PRODUCERS))
        self.assertEqual(seen["month"], set(notation.MONTHS) | {"numeric", "cjk"})
        self.assertEqual(seen["grouping"], set(notation.GROUPINGS))
        self.assertEqual(seen["sign"], set(notation.SIGNS) | {""})
        self.assertEqual(seen["amounts"], {"debit_credit", "signed", "amount_dc", "sections"})
        self.assertEqual(seen["description"], {"inline", "above", "below"})
        self.assertEqual(seen["accounts"], {1, 2})
        for name in ("labels", "forward_lines", "balance_last_of_day", "break_inside_row",
                     "narrow_cells", "totals_row", "credit_first"):
            self.assertEqual(seen[name], {True, False}, name)

    def test_every_word_of_the_sample_tables_is_in_the_pdf_text_layer_on_its_page_count(self):
        self.assertEqual(len(FOLDERS), COUNT)
        for folder in FOLDERS:
            for which in "ab":
                with self.subTest(layout=os.path.basename(folder), statement=which):
                    self.assertEqual(check.short(folder, which), [])
                    planned, made = check.pages_made(folder, which)
                    self.assertEqual(made, planned, "a page overflowed onto the next")


class WriterOnTheSampleTest(unittest.TestCase):
    """Supervised on a.pdf, its settings on b.pdf, each statement without its key: in-process,
    built-in writer, no LLM, as ``python -m tests.bench layouts`` scores fresh layouts."""

    @classmethod
    def setUpClass(cls):
        import json

        cls.results = []
        for folder in FOLDERS:
            with open(os.path.join(folder, "layout.json"), encoding="utf-8") as fh:
                cls.results.append((json.load(fh), score_layout(folder)))
        cls.tally = tally(cls.results)
        t = cls.tally
        print(f"\nlayout space sample ({t['layouts']} layouts, {t['statements']} statements): "
              f"supervised {t['supervised']}/{t['layouts']}, reused {t['reused']}/"
              f"{t['layouts']}, unsupervised right and passed {t['right_passed']}/"
              f"{t['statements']}, wrong passed {t['wrong_passed']} (of which only the key's "
              f"convention {t['wrong_passed_convention']}), honest misses "
              f"{t['honest_miss']}, right but not passed {t['right_unverified']}",
              file=sys.stderr)
        for line in failure_lines(cls.results):
            print("  " + line, file=sys.stderr)

    def test_no_misread_value_is_called_passed(self):
        """Wrong values (a row lost, a cell misread) are never ``passed``."""
        self.assertEqual(len(self.results), COUNT)
        t = self.tally
        self.assertEqual(t["wrong_passed"] - t["wrong_passed_convention"], 0,
                         "\n".join(failure_lines(self.results)))

    def test_no_reading_that_differs_from_the_key_is_called_passed(self):
        """The key's convention too: a column the page heads but never fills stays (NaN), a
        label printed before each value is left out (issue 33 item 2)."""
        self.assertEqual(self.tally["wrong_passed"], 0, "\n".join(failure_lines(self.results)))

    def test_the_rates_hold_at_the_levels_measured(self):
        t = self.tally
        # measured on this sample at main ff28034 with the built-in writer (issue 33 item 4):
        # supervised 7/12, reused 5/12, unsupervised right and passed 7/24
        self.assertGreaterEqual(t["supervised"], MEASURED["supervised"])
        self.assertGreaterEqual(t["reused"], MEASURED["reused"])
        self.assertGreaterEqual(t["right_passed"], MEASURED["right_passed"])


MEASURED = {"supervised": 7, "reused": 5, "right_passed": 7}


class KeyAndNoKeyTest(unittest.TestCase):
    """Layouts drawn once and kept (fixtures/space_cases), each for what it showed."""

    def test_with_the_key_dua_reads_at_least_what_it_reads_without_it(self):
        # s418050 250 (pdfLaTeX; 'Money out' and 'Money in' sign two accounts' amounts): the
        # search the key guides kept 'Money out' as a line to skip and signed the rows by a
        # summary's labels, failing; the search without the key reads the key's rows
        result = score_layout(os.path.join(CASES, "s418050_250_latex"))
        self.assertTrue(result["supervised"], result["why"])
        self.assertTrue(result["reused"])

    def test_bold_titles_over_the_rows_descriptions_sign_them_without_a_key(self):
        # s248747 8 (pdfLaTeX): rows print their description above their date and amounts,
        # and 'Money out' and 'Money in', in bold, stand over the first one of each section:
        # where a row's text would, but in a face no row is set in
        result = score_layout(os.path.join(CASES, "s248747_008_latex"))
        self.assertEqual([u[:3] for u in result["unsupervised"]],
                         [("a", "passed", True), ("b", "passed", True)], result["unsupervised"])

    def test_the_kept_cases_keys_are_drawn_again_byte_for_byte(self):
        tmp = tempfile.mkdtemp(prefix="dua-space-")
        self.addCleanup(shutil.rmtree, tmp, True)
        for seed, first, name in (("418050", "250", "s418050_250_latex"),
                                  ("248747", "8", "s248747_008_latex")):
            done = generate("--seed", seed, "--first", first, "--count", "1", "--out", tmp,
                            "--csv-only")
            self.assertEqual(done.returncode, 0, done.stderr)
            for file in ("layout.json", "a.csv", "b.csv"):
                with self.subTest(case=name, file=file):
                    self.assertTrue(filecmp.cmp(os.path.join(CASES, name, file),
                                                os.path.join(tmp, name, file), shallow=False))
