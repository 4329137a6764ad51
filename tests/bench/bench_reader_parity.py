"""The word reader on real PDFs: parity with pdfplumber and speed, fallbacks included.

``python -m tests.bench reader_parity [PDF or folder…]``: by default the fixtures, everything
under ../shared/ and Debian's TeX documentation (the first 40 pages of each) when installed.
Prints each corpus's pages equal, differing and read by the fallback (with the reasons), the
words changed, and both readers' time; the floor is pdfplumber reading the same pages in the
same run, file by file just before us.
"""
from __future__ import annotations

from ..reader_parity import default_corpora, given_corpus, measure, report
from .figures import Figure


def run(paths: list | None = None) -> list:
    corpora = [given_corpus(paths)] if paths else default_corpora()
    figures = []
    for corpus in corpora:
        measure(corpus)
        report(corpus)
        pages = corpus.compared
        figures.append(Figure(
            f"dua.pdf.read_pages on {corpus.name} ({pages} pages, {len(corpus.differ)} differ, "
            f"{sum(corpus.fallbacks.values())} by the fallback)",
            pages / corpus.ours if corpus.ours else 0.0,
            pages / corpus.plumber if corpus.plumber else 0.0, unit="pages/s",
            floor_name="pdfplumber extract_words", higher_is_better=True,
            target=">= 5x" if corpus.name == "debian" else ""))
    return figures
