"""The review pages in a real browser: headless Chromium draws them, offline.

A screenshot (decoded with zlib and struct) is sampled at the boxes the accounting and the
extraction give: each cell carries its column's tint, each unaccounted word its red, each
element its type's tint; following a link to a row (``#row-5`` on the page, ``#t-5`` in the
table) lights the row on the page and in the table together, with scripts or without; and
the browser asks the network for nothing while showing a statement whose text is markup.
Skips when Chromium is not installed.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import unittest

from dua import pdf
from dua.review import extraction, sources, statement
from dua.statements.analysis import reader_pages
from tests.review_support import Screenshot, browse, chromium, page_requests
from tests.support import FIXTURES, run_dua

UNACCOUNTED = os.path.join(FIXTURES, "review", "unaccounted", "a.pdf")
MARKUP_PDF = os.path.join(FIXTURES, "review", "markup", "a.pdf")
MIXED = os.path.join(FIXTURES, "documents", "mixed.pdf")
YELLOW = (255, 230, 150)  # the lit colour, #ffd23f at 55 % over white paper
WHITE = (255, 255, 255)
GREY = (228, 228, 228)  # the page's background, around the pictures


def over_white(colour: str, alpha: float) -> tuple:
    rgb = [int(colour[i:i + 2], 16) for i in (1, 3, 5)]
    return tuple(round(alpha * c + (1 - alpha) * 255) for c in rgb)


def near(a: tuple, b: tuple, tolerance: int = 8) -> bool:
    return all(abs(x - y) <= tolerance for x, y in zip(a, b))


class Page:
    """Where a page's picture landed in a screenshot: PDF points -> screenshot pixels."""

    def __init__(self, shot: Screenshot, width_pt: float, x: int = 40):
        y, seen_grey = 0, False
        while y < shot.height:  # the header (white), the grey gap and caption, then the page
            p = shot.pixel(x, y)
            seen_grey = seen_grey or p == GREY
            if seen_grey and p == WHITE and shot.pixel(x, y + 5) == WHITE:
                break
            y += 1
        left = x
        while left > 0 and shot.pixel(left - 1, y + 5) == WHITE:
            left -= 1
        right = x
        while shot.pixel(right + 1, y + 5) == WHITE:
            right += 1
        self.shot, self.left, self.top = shot, left, y
        self.right = right + 1
        self.scale = (self.right - self.left) / width_pt

    def brightest(self, box) -> tuple:
        """The lightest pixel inside ``box`` (its fill shows where no print covers it)."""
        x0, top, x1, bottom = (self.left + box[0] * self.scale, self.top + box[1] * self.scale,
                               self.left + box[2] * self.scale, self.top + box[3] * self.scale)
        pixels = [self.shot.pixel(x, y) for x in range(int(x0) + 2, int(x1) - 1)
                  for y in range(int(top) + 2, int(bottom) - 1)]
        return max(pixels, key=sum)


def band(shot: Screenshot, left: int) -> list:
    """Rows of the screenshot, right of ``left``, where the lit yellow shows (the table's)."""
    return [y for y in range(shot.height)
            if any(near(shot.pixel(x, y), YELLOW, 6) for x in range(left + 20, shot.width - 20, 7))]


class StatementInBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        chromium()
        cls.tmp = tempfile.mkdtemp(prefix="dua-review-browser-")
        cls.review = os.path.join(cls.tmp, "statement.html")
        # Unsupervised, so that the statement's ledger decides: four words are left over.
        proc = run_dua("parse", UNACCOUNTED, "--bank", "un", "--parsers-dir", cls.tmp,
                       "--out", os.path.join(cls.tmp, "un.csv"), "--review", cls.review, "-q")
        if proc.returncode != 1:  # ran, but unverified
            raise AssertionError(proc.stderr)
        settings, _ = sources.parser_settings(os.path.join(cls.tmp, "un_parser.py"))
        doc = pdf.read_document(UNACCOUNTED)
        cls.width = doc.pages[0].width
        cls.acc = sources.engine_reading(reader_pages(doc), settings)[0]["accounting"]
        cls.shots = {}
        for name, fragment in (("plain", ""), ("row", "#row-5"), ("table", "#t-5"),
                               ("next", "#row-6")):
            path = os.path.join(cls.tmp, f"{name}.png")
            browse(f"file://{cls.review}{fragment}", screenshot=path)
            cls.shots[name] = Screenshot(path)
        cls.page = Page(cls.shots["plain"], cls.width)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_every_cell_is_tinted_with_its_columns_colour_where_it_is_printed(self):
        # The CSV's columns take the palette in order (as the table's heading shows them).
        with open(os.path.join(self.tmp, "un.csv"), encoding="utf-8") as fh:
            columns = {name: i for i, name in enumerate(fh.readline().strip().split(","))}
        self.assertEqual(len(self.acc["rows"]), 18)
        for row in self.acc["rows"]:
            for cell in row["cells"]:
                want = over_white(statement.PALETTE[columns[cell["column"]]], 0.3)
                got = self.page.brightest(cell["box"])
                self.assertTrue(near(got, want), (row["row"], cell["column"], got, want))

    def test_the_paper_between_the_boxes_stays_white(self):
        first = self.acc["rows"][0]["parts"][0]["box"]
        margin = (first[0] - 30, first[1], first[0] - 4, first[3])
        self.assertEqual(self.page.brightest(margin), WHITE)

    def test_every_unaccounted_word_of_an_unverified_statement_is_red_at_its_place(self):
        self.assertEqual([w["text"] for w in self.acc["unaccounted"]],
                         ["Arranged", "overdraft", "limit", "2,500.00"])
        for word in self.acc["unaccounted"]:
            got = self.page.brightest(word["box"])
            self.assertTrue(near(got, over_white("#e53935", 0.18)), (word["text"], got))

    def test_following_a_rows_link_lights_its_box_and_its_table_row_together(self):
        box5 = self.acc["rows"][5]["parts"][0]["box"]
        box6 = self.acc["rows"][6]["parts"][0]["box"]
        for name in ("row", "table"):  # the box's link or the table row's: the same light
            page = Page(self.shots[name], self.width)
            self.assertTrue(near(page.brightest(box5), YELLOW), (name, page.brightest(box5)))
            self.assertEqual(page.brightest(box6), WHITE, name)
        self.assertEqual(self.page.brightest(box5), WHITE)
        lit = {name: band(self.shots[name], self.page.right) for name in ("plain", "row", "table", "next")}
        self.assertEqual(lit["plain"], [])
        self.assertTrue(lit["row"])
        self.assertEqual(lit["row"], lit["table"])  # the same table row, reached either way
        self.assertGreater(min(lit["next"]), max(lit["row"]))  # row 6 stands below row 5


class ExtractionInBrowserTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        chromium()
        cls.tmp = tempfile.mkdtemp(prefix="dua-review-browser-")
        proc = run_dua("extract", MIXED, "-q")
        cls.result = json.loads(proc.stdout)
        # One block as an LLM failure leaves it (seed 000's shape), to see it drawn in red.
        victim = next(e for e in cls.result["elements"] if e["type"] == "paragraph")
        victim.update(type="unclassified_text_block", annotations={"classification_error": {
            "error_type": "InvalidStructureError", "message": "the answer was not JSON",
            "original_llm_output": "<b>not json</b>", "cleaned_llm_output": None}})
        images = pdf.render_pages(MIXED)
        review = os.path.join(cls.tmp, "mixed.html")
        with open(review, "w", encoding="utf-8") as fh:
            fh.write(extraction.render(cls.result, images))
        cls.shot_path = os.path.join(cls.tmp, "mixed.png")
        browse(f"file://{review}", screenshot=cls.shot_path)
        cls.page = Page(Screenshot(cls.shot_path), cls.result["pages"][0]["width"])

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_each_element_is_tinted_by_its_type_and_the_unclassified_one_red(self):
        kinds = set()
        for element in self.result["elements"]:
            want = over_white(extraction.COLOURS[element["type"]], 0x1a / 255)
            got = self.page.brightest(element["bbox"])
            self.assertTrue(near(got, want, 4), (element["type"], element["bbox"], got, want))
            kinds.add(element["type"])
        self.assertIn("unclassified_text_block", kinds)
        self.assertGreaterEqual(len(kinds), 5)


class OfflineTest(unittest.TestCase):
    def setUp(self):
        chromium()
        self.tmp = tempfile.mkdtemp(prefix="dua-review-browser-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_a_statement_of_markup_runs_no_script_of_its_own_and_asks_the_network_nothing(self):
        review = os.path.join(self.tmp, "markup.html")
        proc = run_dua("parse", MARKUP_PDF, "--bank", "markup", "--parsers-dir", self.tmp,
                       "--out", os.path.join(self.tmp, "m.csv"), "--review", review, "-q")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        log = os.path.join(self.tmp, "net.json")
        dom = browse(f"file://{review}", dump_dom=True, net_log=log)
        self.assertEqual(page_requests(log), [])
        self.assertIn("<title>dua review: a.pdf</title>", dom)  # the injected script never ran
        self.assertEqual(dom.count("<img "), 1)  # the page's picture, no injected image
        self.assertEqual(dom.count("<script"), 1)
        self.assertIn("&lt;img src=x onerror=alert(1)&gt;", dom)

    def test_the_network_check_sees_a_page_that_does_load_from_elsewhere(self):
        page = os.path.join(self.tmp, "control.html")
        with open(page, "w", encoding="utf-8") as fh:
            fh.write('<!DOCTYPE html><img src="http://example.invalid/x.png">')
        log = os.path.join(self.tmp, "net.json")
        browse(f"file://{page}", dump_dom=True, net_log=log)
        self.assertEqual(page_requests(log), ["http://example.invalid/x.png"])


if __name__ == "__main__":
    unittest.main()
