"""dua.words: pdfium's words equal pdfplumber's, page by page, on every PDF we hold.

The parity test prints each page that differs (and why) and each page that fell back to
pdfplumber with its reason; it fails on a difference, never on a named fallback.
"""
from __future__ import annotations

import glob
import os
import sys
import unittest

from dua import words

from .support import FIXTURES, SHARED_DATA

TOLERANCE = 0.5  # points, on x0, x1, top and bottom


def corpus() -> list:
    """Every readable PDF under fixtures/ and the shared samples (bad inputs excluded)."""
    paths = sorted(glob.glob(os.path.join(FIXTURES, "**", "*.pdf"), recursive=True))
    paths = [p for p in paths if os.sep + "bad" + os.sep not in p]
    paths += sorted(glob.glob(os.path.join(SHARED_DATA, "**", "*.pdf"), recursive=True))
    return paths


def plumber_words(path: str) -> list:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return [[(w["text"], w["x0"], w["x1"], w["top"], w["bottom"]) for w in page.extract_words()]
                for page in pdf.pages]


def difference(fast: list, reference: list) -> str:
    """Why one page's words differ, or '' when the text is identical and boxes agree."""
    if [w[0] for w in fast] != [w[0] for w in reference]:
        for i, (a, b) in enumerate(zip(fast, reference)):
            if a[0] != b[0]:
                return f"word {i}: pdfium {a[0]!r}, pdfplumber {b[0]!r}"
        return f"pdfium has {len(fast)} words, pdfplumber {len(reference)}"
    for a, b in zip(fast, reference):
        worst = max(abs(x - y) for x, y in zip(a[1:5], b[1:5]))
        if worst > TOLERANCE:
            return f"{a[0]!r} box {tuple(round(v, 2) for v in a[1:5])} vs {b[1:5]}"
    return ""


class WordParityTest(unittest.TestCase):
    def test_fast_words_equal_pdfplumber_words_on_every_page(self):
        paths = corpus()
        self.assertTrue(paths, "no PDF found under fixtures/")
        compared, fell_back, differ = 0, [], []
        for path in paths:
            name = os.path.relpath(path, os.path.dirname(FIXTURES))
            reference = plumber_words(path)
            for page in words.read_pages(path):
                compared += 1
                where = f"{name} page {page['number']}"
                if page["reader"] != "pdfium":
                    fell_back.append(f"{where}: {page['why']}")
                    continue
                why = difference(page["words"], reference[page["number"] - 1])
                if why:
                    differ.append(f"{where}: {why}")
        print(f"\nword parity: {compared} pages, {compared - len(fell_back)} read by pdfium, "
              f"{len(fell_back)} by pdfplumber, {len(differ)} differ", file=sys.stderr)
        for line in fell_back:
            print(f"  fell back: {line}", file=sys.stderr)
        for line in differ:
            print(f"  DIFFERS: {line}", file=sys.stderr)
        self.assertEqual(differ, [])

    def test_a_statement_printed_by_a_browser_is_read_by_pdfium(self):
        path = os.path.join(FIXTURES, "statements", "longform_us_html", "a.pdf")
        pages = words.read_pages(path)
        self.assertEqual([p["reader"] for p in pages], ["pdfium"] * 5)
        self.assertEqual(difference(pages[0]["words"], plumber_words(path)[0]), "")

    def test_pages_are_read_in_the_order_asked_and_out_of_range_ones_skipped(self):
        path = os.path.join(FIXTURES, "statements", "longform_us_html", "a.pdf")
        self.assertEqual([p["number"] for p in words.read_pages(path, pages=[3, 1, 99])], [1, 3])

    def test_without_pypdfium2_every_page_is_read_by_pdfplumber_with_the_reason(self):
        path = os.path.join(FIXTURES, "statements", "plain_western", "a.pdf")
        saved = sys.modules.get("pypdfium2")
        sys.modules["pypdfium2"] = None  # import pypdfium2 now raises ImportError
        try:
            pages = words.read_pages(path)
        finally:
            if saved is None:
                del sys.modules["pypdfium2"]
            else:
                sys.modules["pypdfium2"] = saved
        self.assertEqual({p["reader"] for p in pages}, {"pdfplumber"})
        self.assertIn("not installed", pages[0]["why"])
        self.assertEqual(difference(pages[0]["words"], plumber_words(path)[0]), "")

    def test_an_encrypted_file_opens_with_its_password_and_not_without(self):
        path = os.path.join(FIXTURES, "bad", "encrypted.pdf")
        self.assertEqual(words.read_pages(path, password="secret")[0]["reader"], "pdfium")
        with self.assertRaises(Exception) as caught:
            words.read_pages(path)
        self.assertTrue(type(caught.exception).__module__.startswith(("pdfminer", "pdfplumber")))


if __name__ == "__main__":
    unittest.main()
