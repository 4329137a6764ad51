"""`dua extract` throughput against reading the same pages' characters with pdfplumber,
and LLM calls per page with batching against one call per block.

Issue 32 asks ``extract`` for at least 5x the rate of pdfplumber reading ``page.chars``, on
fixtures/documents/real and on Debian's TeX PDFs, the bounded children included: a batch
(``extract_each``) is read by reading children forked at its start and timed with it (two
on a machine of two cores or more, one else), each handed the next files in turn and reading
them while the one before is typed (``dua.pdf.child``); the same files one after another,
each read by one child and then typed, are timed too (what one core gives). Each round times the
floor and dua in turn (a busy moment weighs on both); the figure is the median of three
rounds. ``dua extract`` as a command, one interpreter per file, is timed too: there the
interpreter's start counts too.
"""
from __future__ import annotations

import glob
import json
import os
import subprocess
import sys
import time

from .figures import Figure, best_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DOCS = sorted(glob.glob(os.path.join(REPO, "fixtures", "documents", "*.pdf")))
REAL = sorted(glob.glob(os.path.join(REPO, "fixtures", "documents", "real", "*.pdf")))
# Debian's TeX documentation, a spread of producers (pdfTeX, LuaTeX, dvipdfmx) and sizes
DEBIAN = [os.path.join("/usr/share/doc", p) for p in (
    "lmodern/lm-info.pdf", "texlive-doc/bibtex/base/btxdoc.pdf", "texlive-doc/dvipdfm/dvipdfm.pdf",
    "texlive-doc/dvipdfmx/tug2003-slides.pdf", "texlive-doc/etex/base/etex_man.pdf",
    "texlive-doc/fonts/amsfonts/amsfonts.pdf", "texlive-doc/generic/hyph-utf8/hyph-utf8.pdf",
    "texlive-doc/generic/iftex/iftex.pdf", "texlive-doc/luatex/base/graphics/luaharfbuzz.pdf",
    "texlive-doc/support/makeindex/ind.pdf", "texlive-doc/support/texdoc/texdoc.pdf",
    "texlive-doc/latex/koma-script/examples/letter-example-21-en.pdf")] + [
    "/usr/share/texmf/doc/fonts/lm/tstlmot1.pdf"]
ROUNDS = 3
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
    """``extract_each``: the children read the next files while this one's pages are typed."""
    from dua.documents.pipeline import extract_each

    for path, result in extract_each(paths):
        if not isinstance(result, dict):
            raise result


def _extract_one_by_one(paths: list) -> None:
    from dua.documents.pipeline import extract

    for path in paths:
        extract(path)


def _command_all(paths: list) -> None:
    """``python -m dua extract`` once per file, as a user runs it."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for path in paths:
        subprocess.run([sys.executable, "-m", "dua", "extract", path, "--quiet", "--out",
                        os.devnull], check=True, env=env, cwd=REPO)


def _timed(fn, paths: list) -> float:
    started = time.perf_counter()
    fn(paths)
    return time.perf_counter() - started


def _against_floor(name: str, paths: list, run, target: str = "") -> Figure:
    """dua's pages/s (``run`` over ``paths``) against pdfplumber's ``page.chars`` in the same
    rounds: the median round's rates, by its ratio."""
    pages = _read_chars(paths)  # also loads what both need from disk
    from dua.pdf import child

    rounds = []
    for _ in range(ROUNDS):
        floor = _timed(_read_chars, paths)
        child.end_idle()  # each round starts its reading child, and times that
        took = _timed(run, paths)
        rounds.append((floor / took, floor, took))
    _, floor, took = sorted(rounds)[len(rounds) // 2]
    return Figure(f"{name} ({len(paths)} files, {pages} pages, median of {ROUNDS} rounds)",
                  pages / took, pages / floor, unit="pages/s",
                  floor_name="pdfplumber reading page.chars", higher_is_better=True,
                  target=target)


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
    from dua.documents import pipeline

    paths = DOCS + REAL + [p for p in SAMPLES if os.path.exists(p)]
    pages = _read_chars(paths)
    floor = best_of(lambda: _read_chars(paths), repeat=3)
    took = best_of(lambda: _extract_all(paths), repeat=3)
    debian = [p for p in DEBIAN if os.path.exists(p)]
    readers = pipeline._readers()
    batch = f"a batch, {readers} reading child{'ren' if readers > 1 else ''} included"
    issue = [_against_floor(f"extract of fixtures/documents/real, {batch}", REAL,
                            _extract_all, ">= 5x")]
    if debian:  # issue 24 and 32: rules, images and tables from dua's own scan
        issue.append(_against_floor(f"extract of Debian's TeX PDFs, {batch}", debian,
                                    _extract_all, ">= 5x"))
        # the same files without reading ahead: one child, then the typing, file by file
        issue.append(_against_floor("extract of Debian's TeX PDFs, one file after another",
                                    debian, _extract_one_by_one))
    else:
        print("   skipped Debian's TeX PDFs: not installed")
    issue.append(_against_floor("`python -m dua extract` of fixtures/documents/real, "
                                "an interpreter a file", REAL, _command_all))
    calls, llm_pages, blocks = _llm_calls(DOCS, batch_size=20)
    return [
        Figure(f"extract, built-in classifier ({pages} pages)", pages / took, pages / floor,
               unit="pages/s", floor_name="pdfplumber reading page.chars", higher_is_better=True),
        *issue,
        *_corpus_figures(),
        Figure("LLM calls per page, batches of 20 blocks", calls / llm_pages, blocks / llm_pages,
               unit="calls/page", floor_name="one call per text block", target="well under 1"),
    ]
