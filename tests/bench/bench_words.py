"""Reading words: dua.pdf.words (pdfminer's characters, placed by dua) against pdfplumber's
extract_words.

The floor is pdfplumber reading the same pages in the same run; the issue's target is
8x on the multi-page fixtures. Pages that fall back to pdfplumber count against us.
"""
from __future__ import annotations

import glob
import os

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ROUNDS = 5


def _multi_page() -> list:
    paths = sorted(glob.glob(os.path.join(REPO, "fixtures", "statements", "*", "*.pdf")))
    paths += sorted(glob.glob(os.path.join(REPO, "fixtures", "documents", "real", "*.pdf")))
    from dua.pdf import words

    return [p for p in paths if words.read_pages(p, pages=[1])[0]["of"] >= 3]


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
    from dua.pdf import words

    return sum(len(words.read_pages(p)) for p in paths)


def _rounds(paths: list, rounds: int = ROUNDS) -> tuple:
    """(pages, our pages/s, the floor's pages/s), each the median over rounds that time
    the floor and then us back to back: on a machine busy with other work, a busy moment
    weighs on both."""
    import statistics
    import time

    pages, ours, floor = 0, [], []
    for _ in range(rounds):
        started = time.perf_counter()
        _plumber(paths)
        middle = time.perf_counter()
        pages = _fast(paths)
        ended = time.perf_counter()
        floor.append(pages / (middle - started))
        ours.append(pages / (ended - middle))
    ratios = [o / f for o, f in zip(ours, floor)]
    keep = ratios.index(statistics.median_low(ratios))
    return pages, ours[keep], floor[keep]


def run() -> list:
    paths = _multi_page()
    _fast(paths)  # warms imports and the OS cache for both readers
    _plumber(paths[:1])
    pages, fast, floor = _rounds(paths)
    browser = [p for p in paths if "longform_us_html" in p]
    b_pages, b_fast, b_floor = _rounds(browser)
    return [
        Figure(f"dua.pdf.words on {len(paths)} multi-page fixtures ({pages} pages)", fast, floor,
               unit="pages/s", floor_name="pdfplumber extract_words", higher_is_better=True,
               target=">= 8x"),
        Figure(f"dua.pdf.words on browser-printed statements ({b_pages} pages, all read by dua)",
               b_fast, b_floor, unit="pages/s", floor_name="pdfplumber extract_words",
               higher_is_better=True, target=">= 8x"),
    ]
