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
from dua.statements.learning.analysis import reader_pages
from tests.review_support import Screenshot, browse, chromium, drive, page_requests
from tests.support import FIXTURES, run_dua

UNACCOUNTED = os.path.join(FIXTURES, "review", "unaccounted", "a.pdf")
MARKUP_PDF = os.path.join(FIXTURES, "review", "markup", "a.pdf")
MIXED = os.path.join(FIXTURES, "documents", "mixed.pdf")
PLAIN = os.path.join(FIXTURES, "statements", "plain_western")
MULTIPAGE = os.path.join(FIXTURES, "statements", "indian_multipage")
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
            # Tall enough that following a link scrolls nothing: the page stays where it was.
            browse(f"file://{cls.review}{fragment}", screenshot=path, size="1500,2200")
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


def pictures(shot: Screenshot, x: int = 30) -> list:
    """Each page picture in a screenshot, top to bottom: the number of dark (printed) pixels
    sampled on it. A picture is a run of white rows at ``x`` below the grey under the header."""
    runs, start, grey = [], None, False
    for y in range(shot.height):
        p = shot.pixel(x, y)
        grey = grey or p == GREY
        if grey and p == WHITE and start is None:
            start = y
        elif p != WHITE and start is not None:
            runs.append((start, y))
            start = None
    dark = []
    for top, bottom in runs:
        if bottom - top > 200:  # a page, not a caption's gap
            dark.append(sum(1 for y in range(top, bottom, 3) for x2 in range(x, 900, 3)
                            if sum(shot.pixel(x2, y)) < 200))
    return dark


VISIBLE = "function shown(s){return Array.prototype.filter.call(document.querySelectorAll(s)," \
          "function(e){return e.getClientRects().length>0}).length}"


class FailureReviewInBrowserTest(unittest.TestCase):
    """Issue 30: what a review shows when a parse fails against its key, and a long one."""

    @classmethod
    def setUpClass(cls):
        chromium()
        cls.tmp = tempfile.mkdtemp(prefix="dua-review-browser-")
        # The answer key with one balance changed: row 2 can never match it.
        with open(os.path.join(PLAIN, "a.csv"), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        cells = lines[3].split(",")
        cells[4] = "1.00"
        lines[3] = ",".join(cells)
        cls.key = os.path.join(cls.tmp, "key.csv")
        with open(cls.key, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        cls.review = os.path.join(cls.tmp, "pw.html")
        proc = run_dua("parse", os.path.join(PLAIN, "a.pdf"), "--bank", "pw", "--expected",
                       cls.key, "--parsers-dir", cls.tmp, "--out", os.path.join(cls.tmp, "pw.csv"),
                       "--review", cls.review, "-q", "--json")
        if proc.returncode != 1:
            raise AssertionError(proc.stderr)
        cls.report = json.loads(proc.stdout)
        cls.long = os.path.join(cls.tmp, "im.html")
        proc = run_dua("parse", os.path.join(MULTIPAGE, "a.pdf"), "--bank", "im", "--expected",
                       os.path.join(MULTIPAGE, "a.csv"), "--parsers-dir", cls.tmp,
                       "--out", os.path.join(cls.tmp, "im.csv"), "--review", cls.long, "-q")
        if proc.returncode != 0:
            raise AssertionError(proc.stderr)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def test_a_screenshot_of_a_long_review_shows_every_pages_print(self):
        shot = os.path.join(self.tmp, "long.png")
        browse(f"file://{self.long}", screenshot=shot, size="1500,4400")
        dark = pictures(Screenshot(shot))
        self.assertEqual(len(dark), 3, dark)  # three pages, none left blank below the fold
        self.assertTrue(all(n > 50 for n in dark), dark)

    def test_the_differing_cell_is_marked_in_the_table_expected_over_got_and_on_the_page(self):
        out = drive(self.review, "out=Array.prototype.map.call(document.querySelectorAll("
                    "'td.differs'),function(td){var r=td.getBoundingClientRect();return ["
                    "td.parentNode.id,td.textContent,getComputedStyle(td).backgroundColor]})"
                    ".concat(Array.prototype.map.call(document.querySelectorAll("
                    "'.pages rect.differs'),function(e){return ['page',e.parentNode.getAttribute("
                    "'class'),getComputedStyle(e).stroke]}))")
        self.assertEqual(out, [["", "1.00", "rgb(255, 214, 214)"],
                               ["t-2", "22898.17", "rgb(255, 214, 214)"],
                               ["page", "r2 fail", "rgb(213, 0, 0)"]])

    def test_failures_only_leaves_the_failing_row_on_the_page_and_in_the_table(self):
        script = (VISIBLE + ";var before=[shown('.items tr[data-k]'),shown('.pages a[data-k]')];"
                  "var f=document.getElementById('f-fail');f.checked=true;"
                  "f.dispatchEvent(new Event('change',{bubbles:true}));"
                  "out=[before,[shown('.items tr[data-k]'),shown('.pages a[data-k]')]]")
        self.assertEqual(drive(self.review, script), [[32, 16], [2, 1]])

    def test_one_page_shows_that_pages_picture_and_only_its_rows(self):
        script = (VISIBLE + ";var p=document.getElementById('f-page');p.value='2';"
                  "p.dispatchEvent(new Event('change',{bubbles:true}));"
                  "out=[shown('figure'),document.querySelector('figure:not([hidden])').id,"
                  "Array.prototype.filter.call(document.querySelectorAll('.items tr[data-k]'),"
                  "function(e){return e.getClientRects().length>0}).map(function(e){"
                  "return e.getAttribute('data-page')})]")
        figures, which, pages = drive(self.long, script)
        self.assertEqual((figures, which), (1, "page-2"))
        self.assertTrue(pages)
        self.assertTrue(all("2" in p.split() for p in pages), pages)

    def test_labels_on_the_page_are_legible_and_inside_the_page(self):
        script = ("out=Array.prototype.map.call(document.querySelectorAll('.pages svg text'),"
                  "function(t){var r=t.getBoundingClientRect(),p=t.closest('.page')"
                  ".getBoundingClientRect();return [t.textContent,r.height,r.left>=p.left-1&&"
                  "r.right<=p.right+1&&r.top>=p.top-1&&r.bottom<=p.bottom+1]})")
        labels = drive(self.review, script)
        self.assertGreaterEqual(len(labels), 3)  # the heading and the two balance lines
        for text, height, inside in labels:
            self.assertGreaterEqual(height, 11, text)  # was about 5 px
            self.assertTrue(inside, text)

    def test_the_title_names_the_pdf_and_its_folder_and_the_page_links_its_files(self):
        out = drive(self.review, "out=[document.title].concat(Array.prototype.map.call("
                    "document.querySelectorAll('.links a'),function(a){return a.href}))")
        self.assertEqual(out[0], f"a.pdf in {PLAIN} — dua review")
        self.assertEqual([h.split("/")[-1] for h in out[1:]],
                         ["pw.partial.csv", "pw_parser.py", "key.csv"])
        for href in out[1:]:
            self.assertTrue(os.path.isfile(href[len("file://"):]), href)


class RunIndexInBrowserTest(unittest.TestCase):
    def test_a_click_on_a_heading_sorts_the_index_and_a_second_reverses_it(self):
        chromium()
        tmp = tempfile.mkdtemp(prefix="dua-review-browser-")
        self.addCleanup(shutil.rmtree, tmp, True)
        parser = os.path.join(tmp, "pw_parser.py")
        run_dua("parse", os.path.join(PLAIN, "a.pdf"), "--bank", "pw", "--parsers-dir", tmp,
                "--expected", os.path.join(PLAIN, "a.csv"), "--out", os.path.join(tmp, "a.csv"), "-q")
        folder = os.path.join(tmp, "review")
        run_dua("run", parser, os.path.join(FIXTURES, "bad", "not_a_pdf.pdf"),
                os.path.join(PLAIN, "a.pdf"), os.path.join(MULTIPAGE, "a.pdf"),
                "--out-dir", os.path.join(tmp, "out"), "--review", folder, "-q")
        script = ("function col(i){return Array.prototype.map.call(document.querySelectorAll("
                  "'tbody tr'),function(r){return r.cells[i].textContent})}"
                  "var th=document.querySelectorAll('th[data-sort]')[3];out=[col(3)];"
                  "th.click();out.push(col(3));th.click();out.push(col(3))")
        before, up, down = drive(os.path.join(folder, "index.html"), script)
        rows = sorted(before, key=int)
        self.assertNotEqual(before, rows)  # the run's order is not already sorted
        self.assertEqual(up, rows)
        self.assertEqual(down, rows[::-1])


class UnaccountedFilterInBrowserTest(unittest.TestCase):
    def test_unaccounted_words_only_hides_rows_and_furniture_and_keeps_the_red_words(self):
        chromium()
        tmp = tempfile.mkdtemp(prefix="dua-review-browser-")
        self.addCleanup(shutil.rmtree, tmp, True)
        review = os.path.join(tmp, "un.html")
        run_dua("parse", UNACCOUNTED, "--bank", "un", "--parsers-dir", tmp,
                "--out", os.path.join(tmp, "un.csv"), "--review", review, "-q")
        script = (VISIBLE + ";function now(){return [shown('.pages a[data-k]'),shown('.furn'),"
                  "shown('.pages rect.lost'),shown('.items tr[data-k]'),shown('.lostlist li')]}"
                  "var before=now(),l=document.getElementById('f-lost');l.checked=true;"
                  "l.dispatchEvent(new Event('change',{bubbles:true}));out=[before,now()]")
        before, after = drive(review, script)
        self.assertEqual(before[2:], [4, 18, 1])
        self.assertGreater(before[0], 0)
        self.assertGreater(before[1], 0)
        self.assertEqual(after, [0, 0, 4, 0, 1])  # the four red words and their line, alone


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
        # the injected script never ran
        self.assertIn(f"<title>a.pdf in {os.path.dirname(MARKUP_PDF)} — dua review</title>", dom)
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
