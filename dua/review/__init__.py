"""Review pages: one self-contained HTML file that shows what dua read, drawn over the PDF.

``parse_review``, ``check_review``, ``run_reviews`` and ``extract_review`` write the commands' reviews
(``--review``); ``shell`` holds the document, its Content-Security-Policy and script,
``statement`` and ``extraction`` the two overlays (a statement's from its ledger),
``index`` a run's index page, ``sources`` what they are drawn from. Standard library only;
the PDF is read through dua.pdf and the statement's rows through dua.statements.
"""
from __future__ import annotations

from .build import check_review, extract_review, parse_review, run_reviews

__all__ = ("check_review", "extract_review", "parse_review", "run_reviews")
