"""Reading words: dua.words (pdfium's characters) against pdfplumber's extract_words.

The floor is pdfplumber reading the same pages in the same run; the issue's target is
8x on the multi-page fixtures. Pages that fall back to pdfplumber count against us.
"""
from __future__ import annotations

import glob
import os

from .figures import Figure, best_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _multi_page() -> list:
    paths = sorted(glob.glob(os.path.join(REPO, "fixtures", "statements", "*", "*.pdf")))
    paths += sorted(glob.glob(os.path.join(REPO, "fixtures", "documents_real", "pdf", "*.pdf")))
    import pypdfium2

    return [p for p in paths if len(pypdfium2.PdfDocument(p)) >= 3]


def _plumber(paths: list) -> int:
    import pdfplumber

    n = 0
    for path in paths:
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages:
                page.extract_words()
                n += 1
    return n


def _fast(paths: list) -> int:
    from dua import words

    return sum(len(words.read_pages(p)) for p in paths)


def run() -> list:
    paths = _multi_page()
    pages = _fast(paths)  # warms imports and the OS cache for both readers
    _plumber(paths)
    floor = best_of(lambda: _plumber(paths), repeat=2)
    fast = best_of(lambda: _fast(paths), repeat=3)
    browser = [p for p in paths if "longform_us_html" in p]
    b_floor = best_of(lambda: _plumber(browser), repeat=2)
    b_fast = best_of(lambda: _fast(browser), repeat=3)
    b_pages = _fast(browser)
    return [
        Figure(f"dua.words on {len(paths)} multi-page fixtures ({pages} pages)", pages / fast,
               pages / floor, unit="pages/s", floor_name="pdfplumber extract_words",
               higher_is_better=True, target=">= 8x"),
        Figure(f"dua.words on browser-printed statements ({b_pages} pages, all pdfium)",
               b_pages / b_fast, b_pages / b_floor, unit="pages/s",
               floor_name="pdfplumber extract_words", higher_is_better=True, target=">= 8x"),
    ]
