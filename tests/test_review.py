"""`--review`: one self-contained HTML page of what dua read, for parse, run and extract.

The pages are checked as a browser's HTML parser reads them (tests/review_support.Audit):
one embedded picture per PDF page and nothing that loads from elsewhere, every string of
the PDF shown as characters, and the overlay built from the statement's accounting.
"""
from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shutil
import tempfile
import unittest
from urllib.parse import unquote

from dua import pdf
from dua.errors import CorruptPDFError, DocumentNotFoundError, EncryptedPDFError
from dua.review import shell, sources, statement
from tests.review_support import Audit, decode_png
from tests.support import FIXTURES, run_dua

MARKUP_PDF = os.path.join(FIXTURES, "review", "markup", "a.pdf")
MARKUP_CSV = os.path.join(FIXTURES, "review", "markup", "a.csv")
CARD = os.path.join(FIXTURES, "statements", "card_cr_wk")
UNACCOUNTED = os.path.join(FIXTURES, "review", "unaccounted", "a.pdf")
MULTIPAGE = os.path.join(FIXTURES, "statements", "indian_multipage", "a.pdf")
HAND_PARSER = os.path.join(FIXTURES, "parsers_batch", "plain_western_parser.py")
PLAIN = os.path.join(FIXTURES, "statements", "plain_western", "a.pdf")
MARKUP = ("<img src=x onerror=alert(1)>", '</td><script>document.title="pwned"</script>',
          "Fish &amp; Chips \"Ltd\" & 'Co'", '"><svg onload=alert(2)>',
          "<meta http-equiv=refresh content=0;url=http://example.invalid/>")
ALLOWED = {"html", "head", "meta", "title", "style", "body", "header", "h1", "p", "span", "b",
           "ul", "ol", "li", "div", "section", "aside", "figure", "figcaption", "img", "svg",
           "rect", "g", "text", "a", "table", "thead", "tbody", "tr", "th", "td", "script", "main",
           "label", "input", "select", "option"}


def assert_self_contained(test: unittest.TestCase, text: str, pages: int, links_out=(),
                          here: str | None = None) -> Audit:
    """One picture per page, one script (ours), nothing that loads or runs from elsewhere;
    a link out is one of ``links_out`` or, relative to ``here``, a file that exists."""
    audit = Audit(text)
    test.assertLessEqual({t for t, _ in audit.tags}, ALLOWED)
    test.assertEqual(len(audit.named("img")), pages)
    for img in audit.named("img"):
        test.assertTrue(img["src"].startswith("data:image/png;base64,"), img["src"][:40])
        test.assertNotIn("loading", img)  # eager: a lazy picture prints blank
    test.assertEqual(audit.text_in("script"), shell.SCRIPT)
    for tag, attrs in audit.tags:
        test.assertFalse([a for a in attrs if a.startswith("on")], (tag, attrs))
        href = attrs.get("href")
        if href is not None and not href.startswith("#") and href not in links_out:
            test.assertIsNotNone(here, href)
            test.assertTrue(os.path.isfile(os.path.join(here, unquote(href))), href)
    style = audit.text_in("style")
    test.assertNotIn("url(", style)
    test.assertNotIn("@import", style)
    return audit


def csp_of(audit: Audit) -> str:
    return next(m["content"] for m in audit.named("meta") if m.get("http-equiv") == "Content-Security-Policy")


def sha256(text: str) -> str:
    return base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode()


class RenderTest(unittest.TestCase):
    def test_every_page_becomes_a_grey_png_of_its_size_at_the_asked_dpi(self):
        for dpi in (72, 144):
            with self.subTest(dpi=dpi):
                pages = pdf.render_pages(MULTIPAGE, dpi=dpi)
                self.assertEqual([p.number for p in pages], [1, 2, 3])
                width, height, channels, pixels = decode_png(pages[0].png)
                self.assertEqual((width, height, channels), (612 * dpi // 72, 792 * dpi // 72, 1))
                self.assertEqual(pixels[0][0], 255)  # the paper
                self.assertLess(min(min(row) for row in pixels), 64)  # and the print on it

    def test_asked_pages_only_and_pages_past_the_end_are_left_out(self):
        self.assertEqual([p.number for p in pdf.render_pages(MULTIPAGE, dpi=36, pages=[3, 9])], [3])

    def test_files_pdfium_cannot_open_are_typed_errors(self):
        bad = os.path.join(FIXTURES, "bad")
        with self.assertRaises(CorruptPDFError):
            pdf.render_pages(os.path.join(bad, "truncated.pdf"))
        with self.assertRaises(EncryptedPDFError):
            pdf.render_pages(os.path.join(bad, "encrypted.pdf"))
        with self.assertRaises(DocumentNotFoundError):
            pdf.render_pages(os.path.join(bad, "no_such.pdf"))
        self.assertEqual(len(pdf.render_pages(os.path.join(bad, "encrypted.pdf"), "secret")), 1)


class ShellTest(unittest.TestCase):
    def test_the_policy_allows_nothing_but_data_pictures_and_this_style_and_script(self):
        audit = Audit(shell.document("t", "<p>x</p>", ".x{color:red}\n"))
        policy = csp_of(audit)
        self.assertIn("default-src 'none'", policy)
        self.assertIn("img-src data:;", policy)
        self.assertIn(f"style-src 'sha256-{sha256(audit.text_in('style'))}'", policy)
        self.assertIn(f"script-src 'sha256-{sha256(audit.text_in('script'))}'", policy)
        self.assertNotIn("unsafe", policy)

    def test_a_style_sheet_that_could_close_its_element_is_refused(self):
        with self.assertRaises(ValueError):
            shell.document("t", "", "</style><script>")


class DiffTest(unittest.TestCase):
    def test_cells_are_compared_as_a_reader_would_numbers_by_value_blanks_alike(self):
        from dua.review import diff

        for a, b in (("1,200.00", "1200.0"), ("", "nan"), ("Fish  and chips", "Fish and chips"),
                     ("(12.00)", "-12"), ("12.00-", "-12.0")):
            self.assertTrue(diff.same(a, b), (a, b))
        for a, b in (("1,200.00", "1,200.01"), ("", "0"), ("Fee", "Fees"), ("12", "-12"),
                     ("1.2.3", "1.23")):
            self.assertFalse(diff.same(a, b), (a, b))

    def test_rows_past_the_shorter_side_are_named_missing_or_extra(self):
        from dua.review import diff

        found = diff.compare(["a"], [["1"], ["2"]], ["a"], [["1"], ["3"], ["4"]])
        self.assertEqual((found.cells, found.missing, found.extra), ({(1, "a")}, [2], []))
        self.assertEqual(found.failing_rows(), {1, 2})


class ParserSettingsTest(unittest.TestCase):
    def test_a_parser_not_written_by_dua_has_no_settings_and_says_so(self):
        settings, why = sources.parser_settings(HAND_PARSER)
        self.assertIsNone(settings)
        self.assertIn("no SETTINGS", why)

    def test_settings_that_are_code_are_never_run(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "evil_parser.py")
        marker = os.path.join(tmp, "ran")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(f"SETTINGS = {{'x': open({marker!r}, 'w')}}\n")
        settings, why = sources.parser_settings(path)
        self.assertIsNone(settings)
        self.assertIn("not a plain literal", why)
        self.assertFalse(os.path.exists(marker))


class CommandsTest(unittest.TestCase):
    """The three commands' reviews, made once: parse (markup and card statements), run, extract."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dua-review-")
        cls.parsers = os.path.join(cls.tmp, "parsers")
        cls.markup = cls._parse("markup", MARKUP_PDF, MARKUP_CSV)
        cls.card = cls._parse("card", os.path.join(CARD, "a.pdf"), os.path.join(CARD, "a.csv"))
        cls.unaccounted = cls._parse("unaccounted", UNACCOUNTED, None)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    @classmethod
    def _parse(cls, bank: str, pdf_path: str, expected: str | None) -> dict:
        review = os.path.join(cls.tmp, f"{bank}.html")
        key = ("--expected", expected) if expected else ()
        proc = run_dua("parse", pdf_path, "--bank", bank, *key, "--json", "-q",
                       "--parsers-dir", cls.parsers, "--out", os.path.join(cls.tmp, f"{bank}.csv"),
                       "--review", review)
        report = json.loads(proc.stdout)
        with open(review, encoding="utf-8") as fh:
            report["html"] = fh.read()
        return report

    def test_parse_reports_the_review_path_and_the_review_holds_one_picture_per_page(self):
        self.assertEqual(self.markup["status"], "passed")
        self.assertEqual(self.markup["review_path"], os.path.join(self.tmp, "markup.html"))
        audit = assert_self_contained(self, self.markup["html"], pages=1, here=self.tmp)
        self.assertEqual(len([r for r in audit.named("tr") if r.get("data-k")]), 16)

    def test_markup_in_a_statement_shows_as_characters_in_the_table_and_tooltips(self):
        audit = assert_self_contained(self, self.markup["html"], pages=1, here=self.tmp)
        cells, tips = audit.text_in("td"), audit.text_in("title")
        for text in MARKUP:
            with self.subTest(text=text):
                self.assertIn(text, cells.splitlines())
                self.assertIn(f"Description: {text}", tips.splitlines())
        self.assertNotIn("<img src=x", self.markup["html"])
        self.assertNotIn("<script>document", self.markup["html"])

    def test_every_row_of_the_csv_has_its_box_on_the_page_and_the_two_link_each_other(self):
        audit = Audit(self.markup["html"])
        boxes = {a["id"] for a in audit.named("rect") if a.get("id", "").startswith("row-")}
        rows_ = {a["id"] for a in audit.named("tr") if a.get("id", "").startswith("t-")}
        self.assertEqual(boxes, {f"row-{i}" for i in range(16)})
        self.assertEqual(rows_, {f"t-{i}" for i in range(16)})
        links = {a["href"] for a in audit.named("a")}
        self.assertLessEqual({f"#{b}" for b in boxes} | {f"#{r}" for r in rows_}, links)
        style = audit.text_in("style")
        self.assertIn("body:has(#row-7:target,#t-7:target) .r7{", style)

    def test_furniture_is_marked_with_its_reason_and_the_verdict_tops_the_page(self):
        audit = Audit(self.card["html"])
        reasons = set(audit.text_in("text").splitlines())
        # the card's total line is furniture by its arithmetic, not by its label
        self.assertLessEqual({"the table's column heading", "a total or subtotal"}, reasons)
        tips = audit.text_in("title")
        self.assertIn("furniture (a total or subtotal (it sums the rows above it)): ", tips)
        self.assertIn("passed", audit.text_in("span").splitlines())
        self.assertIn("equals_expected", audit.text_in("b").splitlines())

    def test_the_reading_rules_that_fired_are_listed_with_what_switched_them_on(self):
        audit = Audit(self.card["html"])
        rules = audit.text_in("li")
        self.assertIn("Reading rules that fired", audit.text_in("p"))
        self.assertIn("a row's wrapped lines are read under its first line", rules)
        self.assertRegex(rules, r"words cut (at gaps of 0\.1 em|only at a space's width)")

    def test_an_unverified_statements_unaccounted_words_are_outlined_in_red_and_listed(self):
        report = self.unaccounted
        self.assertEqual(report["status"], "unverified")
        check = next(c for c in report["checks"] if c["name"] == "words_accounted")
        self.assertFalse(check["passed"])
        audit = Audit(report["html"])
        lost = [a["id"] for a in audit.named("rect") if a.get("class") == "lost" and a.get("id")]
        self.assertEqual(lost, ["w-0", "w-1", "w-2", "w-3"])
        listed, tips = audit.text_in("li"), audit.text_in("title").splitlines()
        self.assertIn(": Arranged overdraft limit 2,500.00", listed)  # one line, as printed
        self.assertIn("— 4 words", audit.text_in("span").splitlines())
        for word in ("Arranged", "overdraft", "limit", "2,500.00"):
            self.assertTrue([t for t in tips if t.startswith(f"unaccounted for: {word} (")],
                            tips)
        self.assertIn("unverified", audit.text_in("span").splitlines())
        self.assertIn("#w-0", [a.get("href") for a in audit.named("a")])

    def test_run_writes_an_index_with_each_verdict_and_one_page_per_statement(self):
        parser = self.markup["parser_path"]
        odd = os.path.join(self.tmp, "in", '"><img src=x onerror=alert(1)>.pdf')
        os.makedirs(os.path.dirname(odd), exist_ok=True)
        shutil.copy(MARKUP_PDF, odd)
        folder = os.path.join(self.tmp, "review")
        proc = run_dua("run", parser, odd, PLAIN, os.path.join(FIXTURES, "bad", "not_a_pdf.pdf"),
                       "--out-dir", os.path.join(self.tmp, "out"), "--review", folder, "--json", "-q")
        report = json.loads(proc.stdout)
        self.assertEqual(report["review_path"], os.path.join(folder, "index.html"))
        pages = [f["review_path"] for f in report["files"]]
        self.assertEqual([os.path.basename(p) for p in pages],
                         ["img_src_x_onerror_alert_1.html", "a.html", "not_a_pdf.html"])
        with open(report["review_path"], encoding="utf-8") as fh:
            index = fh.read()
        audit = assert_self_contained(self, index, pages=0, links_out=[os.path.basename(p) for p in pages],
                                      here=folder)
        hrefs = [a.get("href") for a in audit.named("a")]
        self.assertIn("../parsers/markup_parser.py", hrefs)  # the parser, and each CSV written
        self.assertIn("../out/%22%3E%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E.csv", hrefs)
        self.assertEqual(len(audit.named("th")), len([h for h in audit.named("th") if "data-sort" in h]))
        self.assertIn(odd, [a.get("title") for a in audit.named("td")])
        self.assertIn(os.path.basename(odd), audit.text_in("a"))
        verdicts = audit.text_in("span").splitlines()
        self.assertEqual(verdicts.count("passed"), 1)  # the markup statement: checks pass
        self.assertEqual(verdicts.count("failed"), 2)  # another bank's layout, and not a PDF
        with open(pages[0], encoding="utf-8") as fh:
            first = assert_self_contained(self, fh.read(), pages=1, here=folder)
        self.assertIn("balance_reconciles", first.text_in("b"))
        self.assertIn(MARKUP[0], first.text_in("td").splitlines())

    def test_a_parser_dua_did_not_write_shows_pages_and_table_and_says_why_there_are_no_boxes(self):
        folder = os.path.join(self.tmp, "hand")
        proc = run_dua("run", HAND_PARSER, PLAIN, "--out-dir", os.path.join(self.tmp, "hand-out"),
                       "--review", folder, "-q")
        self.assertEqual(proc.returncode, 1, proc.stderr)  # rows not checked are not verified
        with open(os.path.join(folder, "a.html"), encoding="utf-8") as fh:
            audit = assert_self_contained(self, fh.read(), pages=1, here=folder)
        self.assertIn("No row is drawn on the pages", audit.text_in("p"))
        self.assertEqual(len([r for r in audit.named("tr") if r.get("data-k")]), 16)
        self.assertFalse([r for r in audit.named("rect") if r.get("id", "").startswith("row-")])

    def test_extract_review_boxes_every_element_by_type_and_reports_its_path(self):
        review = os.path.join(self.tmp, "extract.html")
        proc = run_dua("extract", MARKUP_PDF, "--review", review, "--json", "-q")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        result = json.loads(proc.stdout)
        self.assertEqual(result["review_path"], review)
        with open(review, encoding="utf-8") as fh:
            audit = assert_self_contained(self, fh.read(), pages=1, here=self.tmp)
        shapes = [a for a in audit.named("rect") if "el" in a.get("class", "").split()
                  and "key" not in a.get("class", "").split()]  # the legend's swatches
        parts = sum(1 + len(e.get("continued") or []) for e in result["elements"])
        self.assertEqual(len(shapes), parts)
        labels = audit.text_in("text").splitlines()
        for element in result["elements"]:
            self.assertIn(element["type"] if element["type"] != "heading"
                          else f"heading {element['level']}", labels)
        self.assertIn(MARKUP[0], audit.text_in("td"))

    def test_review_flags_are_checked_before_any_work(self):
        cases = (
            (("parse", MARKUP_PDF, "--bank", "x", "--review", MARKUP_PDF), "input of this run"),
            (("parse", MARKUP_PDF, "--bank", "x", "--out", "same.html", "--review", "same.html"),
             "also where the run writes"),
            (("extract", MARKUP_PDF, "--review", "r.html", "--review-dpi", "1000"), "--review-dpi"),
            (("run", HAND_PARSER, PLAIN, "--review", HAND_PARSER), "not a folder"),
            (("extract", MARKUP_PDF, "--review", "-"), "needs a path"),
        )
        for args, message in cases:
            with self.subTest(args=args):
                proc = run_dua(*args, cwd=self.tmp)
                self.assertEqual(proc.returncode, 2, proc.stderr)
                self.assertIn(message, proc.stderr)


class LedgerDrawingTest(unittest.TestCase):
    """The statement page draws the ledger it is given: every row part, cell, furniture line
    and unaccounted word, each once, and the checks linked to the rows they name."""

    @classmethod
    def setUpClass(cls):
        from dua.statements.learning.analysis import reader_pages

        tmp = tempfile.mkdtemp(prefix="dua-review-ledger-")
        try:
            run_dua("parse", UNACCOUNTED, "--bank", "un", "--parsers-dir", tmp,
                    "--out", os.path.join(tmp, "un.csv"), "-q")
            settings, _ = sources.parser_settings(os.path.join(tmp, "un_parser.py"))
        finally:
            shutil.rmtree(tmp, True)
        reading, why = sources.engine_reading(reader_pages(pdf.read_document(UNACCOUNTED)),
                                              settings)
        cls.acc = reading["accounting"]
        cls.pages = pdf.render_pages(UNACCOUNTED, dpi=36)

    def _audit(self, **fields) -> Audit:
        review = statement.StatementReview(UNACCOUNTED, "unverified", accounting=self.acc,
                                           pages=self.pages, **fields)
        return Audit(statement.render(review))

    def test_each_part_cell_furniture_line_and_unaccounted_word_is_drawn_once(self):
        audit = self._audit()
        classes = [a.get("class", "") for a in audit.named("rect") if "key" not in a.get("class", "")]
        rows_ = self.acc["rows"]
        self.assertEqual(classes.count("box row"), sum(len(r["parts"]) for r in rows_))
        self.assertEqual(sum(c.startswith("cell ") for c in classes),
                         sum(len(r["cells"]) for r in rows_))
        self.assertEqual(len(audit.named("g")), len(self.acc["furniture"]))
        self.assertEqual(classes.count("lost"), len(self.acc["unaccounted"]))
        self.assertEqual(len(self.acc["unaccounted"]), 4)

    def test_a_check_that_names_rows_links_to_their_boxes_and_a_soft_one_reads_unverified(self):
        checks = [{"name": "balance_reconciles", "passed": False,
                   "detail": "row 3: 1.0 with movement 2.0 does not give 4.0 in 'Balance'"},
                  {"name": "text_cells", "passed": False, "soft": True, "detail": "not verified"}]
        audit = self._audit(checks=checks)
        self.assertIn("#row-3", [a.get("href") for a in audit.named("a")])
        self.assertIn("row-3", [r.get("id") for r in audit.named("rect")])
        self.assertEqual([t for t in audit.text_in("span").splitlines() if t in
                          ("failed", "unverified")], ["unverified", "failed", "unverified"])

    def test_many_unaccounted_words_are_listed_by_the_line_they_stand_on_with_a_count(self):
        # 387 words on 9 printed lines of two pages: 9 items, not 387 (issue 30).
        lost = [{"page": 1 + (n // 200), "text": f"w{n}",
                 "box": [10 + (n % 43) * 12, 100 + (n // 43) * 14, 20 + (n % 43) * 12,
                         109 + (n // 43) * 14]} for n in range(387)]
        lost.reverse()  # the ledger's order is no reading order
        acc = dict(self.acc, unaccounted=lost)
        review = statement.StatementReview(UNACCOUNTED, "unverified", accounting=acc,
                                           pages=self.pages)
        audit = Audit(statement.render(review))
        items = [t for t in audit.text_in("li").splitlines() if t.startswith(": w")]
        lines = statement.lost_lines(lost)
        self.assertEqual(sum(len(line) for line in lines), 387)
        self.assertEqual(len(lines), 10)  # line 5 (n 200-214) runs over two pages
        self.assertEqual(len(items), 10)
        self.assertTrue(items[0].startswith(": w0 w1 w2 "), items[0])
        self.assertIn("387", audit.text_in("b").splitlines())
        self.assertIn("accounts for on 10 line(s), outlined in red:", audit.text_in("p"))
        self.assertEqual(sorted({a["class"] for a in audit.named("rect") if a.get("id", "").startswith("w-")}),
                         ["lost"])

    def test_the_answer_key_and_the_rows_stand_in_one_table_the_differing_cells_marked(self):
        columns = ["Date", "Description", "Balance"]
        got = [["01/01", "Rent", "1,200.00"], ["02/01", "Fee", "5.00"], ["03/01", "Tax", "7"]]
        key = [["01/01", "Rent", "1200"], ["02/01", "Fees", "5.00"]]
        review = statement.StatementReview(UNACCOUNTED, "failed", accounting=self.acc,
                                           pages=self.pages, columns=columns, table=got,
                                           key_columns=columns, key=key)
        audit = Audit(statement.render(review))
        self.assertEqual([td for t, td in audit.texts if t == "td" and td in ("Fees", "Fee")],
                         ["Fees", "Fee"])
        marked = [a for a in audit.named("td") if a.get("class") == "differs"]
        self.assertEqual(len(marked), 2)  # 1,200.00 and 1200 agree; Fee and Fees do not
        self.assertIn("no row 2 is expected", audit.text_in("td"))
        fails = [a["class"] for a in audit.named("tr") if "fail" in a.get("class", "").split()]
        self.assertEqual(fails, ["r1 fail exp", "r1 fail", "r2 fail exp", "r2 fail"])
        cell = [a for a in audit.named("rect") if "differs" in a.get("class", "")]
        self.assertEqual(len(cell), 1)  # row 1's Description on the page
        self.assertIn("the answer key says 'Fees'", audit.text_in("title"))

    def test_the_title_holds_the_pdfs_name_and_folder(self):
        audit = self._audit()
        self.assertEqual(audit.text_in("title").splitlines()[0],
                         f"a.pdf in {os.path.dirname(UNACCOUNTED)} — dua review")

    def test_furniture_reasons_are_shortened_on_the_page_and_whole_in_the_tooltip(self):
        reason = ("a running header or footer (the same text in the same place on other "
                  "pages)")
        self.assertEqual(statement.short(reason), "a running header or footer")
        self.assertEqual(statement.short("watermark: text 6 times the size of the page's text"),
                         "watermark")


if __name__ == "__main__":
    unittest.main()
