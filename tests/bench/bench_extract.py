"""`dua extract` throughput against reading the same pages' characters with pdfplumber,
and LLM calls per page with batching against one call per block."""
from __future__ import annotations

import glob
import json
import os

from .figures import Figure, best_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = sorted(glob.glob(os.path.join(REPO, "fixtures", "documents", "*.pdf")))
REAL = sorted(glob.glob(os.path.join(REPO, "fixtures", "documents", "real", "*.pdf")))
SAMPLES = [os.path.join(os.path.dirname(REPO), "shared", "data", *p) for p in
           (("icici", "icici_sample.pdf"), ("monopoly_example", "statement.pdf"))]


def _read_chars(paths: list) -> int:
    import pdfplumber

    pages = 0
    for path in paths:
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages:
                len(page.chars)
                pages += 1
    return pages


def _extract_all(paths: list) -> None:
    from dua.documents.pipeline import extract

    for path in paths:
        extract(path)


def _llm_calls(paths: list, batch_size: int) -> tuple:
    """(LLM calls, pages, text blocks) when a well-behaved model answers every batch."""
    from dua.documents.pipeline import extract
    from tests.llm_server import LLMServer, Turn
    from tests.test_classify import asked_ids, llm_provider

    def handler(request):
        return Turn(text=json.dumps({i: {"type": "paragraph", "text": "t"} for i in asked_ids(request)}))

    calls = pages = blocks = 0
    with LLMServer(handler=handler) as server:
        for path in paths:
            stats = extract(path, provider=llm_provider(server.url), batch_size=batch_size)["stats"]
            calls, pages = calls + stats["llm_calls"], pages + stats["pages"]
            blocks += sum(n for k, n in stats["counts"].items() if k not in ("table", "figure"))
    return calls, pages, blocks


def _corpus_figures() -> list:
    """Scores of the built-in rules on the real-producer corpus and on the typeset one
    (issue 32: six producers, >= 0.93), development and holdout."""
    from tests.documents_score import CORPUS, TYPESET, score_corpus

    out = []
    for corpus, root, bar in (("corpus", CORPUS, 0.90), ("typeset", TYPESET, 0.93)):
        for side, holdout in (("development", False), ("holdout", True)):
            f = score_corpus(holdout, root=root)[0].figures()
            worst = min(f["per_class"].items(), key=lambda kv: kv[1][2])
            out.append(Figure(f"{corpus} {side}: macro-F1 (worst class {worst[0]} {worst[1][2]:.2f}; "
                              f"levels {f['heading_level_accuracy']:.2f}, tau {f['kendall_tau']:.3f}, "
                              f"coverage {f['word_coverage']:.0%})", f["macro_f1"], bar,
                              unit="", floor_name="the issue's target", target=f">= {bar:.2f}"))
    return out


def run() -> list:
    paths = DOCS + REAL + [p for p in SAMPLES if os.path.exists(p)]
    pages = _read_chars(paths)
    floor = best_of(lambda: _read_chars(paths), repeat=3)
    took = best_of(lambda: _extract_all(paths), repeat=3)
    real_pages = _read_chars(REAL)
    real_floor = best_of(lambda: _read_chars(REAL), repeat=3)
    real_took = best_of(lambda: _extract_all(REAL), repeat=3)
    calls, llm_pages, blocks = _llm_calls(DOCS, batch_size=20)
    return [
        Figure(f"extract, built-in classifier ({pages} pages)", pages / took, pages / floor,
               unit="pages/s", floor_name="pdfplumber reading page.chars", higher_is_better=True),
        # issue 24: rules, images and tables from dua's own scan, not pdfplumber's pages
        Figure(f"extract of fixtures/documents/real ({real_pages} pages)", real_pages / real_took,
               real_pages / real_floor, unit="pages/s",
               floor_name="pdfplumber reading page.chars", higher_is_better=True,
               target=">= 5x"),
        *_corpus_figures(),
        Figure("LLM calls per page, batches of 20 blocks", calls / llm_pages, blocks / llm_pages,
               unit="calls/page", floor_name="one call per text block", target="well under 1"),
    ]
