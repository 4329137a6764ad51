"""Built-in vs LLM-assisted against a real model server; never part of CI.

``python -m tests.bench llm_real --base-url URL --model NAME [--only NAME…] [--budget S]``

Every fixture statement, supervised (a.pdf with a.csv) and unsupervised (b.pdf), runs
through the built-in writer and through the LLM writer in settings mode; every
real-producer document runs through the rules and through the rules checked by the LLM
(macro-F1 against its truth). One table: result, LLM calls, tokens, seconds. Without
``--base-url`` it prints why it skipped and measures nothing.
"""
from __future__ import annotations

import glob
import os
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _options(argv: list) -> dict:
    out = {"base_url": None, "model": None, "only": [], "budget": 300.0, "timeout": 300.0}
    i = 0
    while i < len(argv):
        flag = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if flag in ("--base-url", "--model", "--budget", "--timeout") and value is not None:
            key = flag[2:].replace("-", "_")
            out[key] = float(value) if key in ("budget", "timeout") else value
            i += 2
            continue
        if flag == "--only" and value is not None:
            out["only"].append(value)
            i += 2
            continue
        i += 1
    return out


def _provider(opts: dict):
    from dua.config import Settings
    from dua.llm import get_provider
    from dua.llm.transport import RetryPolicy

    settings = Settings(provider="openai", base_url=opts["base_url"], model=opts["model"],
                        timeout=opts["timeout"])
    return settings, get_provider(settings, retry=RetryPolicy(max_retries=1))


def _statement(folder: str, supervised: bool, opts: dict) -> list:
    """Two rows (builtin, llm) for one statement."""
    from dua import pdf
    from dua.statements import analysis, verify, writer
    from dua.statements.llm_writer import LLMWriter

    name = os.path.basename(folder) + (" (a, --expected)" if supervised else " (b)")
    path = os.path.join(folder, "a.pdf" if supervised else "b.pdf")
    pages = analysis.pages_from_document(pdf.read_document(path))
    expected = verify.load_expected(os.path.join(folder, "a.csv")) if supervised else None
    truth = None if supervised else verify.load_expected(os.path.join(folder, "b.csv"))
    rows = []
    for mode in ("builtin", "llm"):
        found = analysis.analyze_pages(pages, expected)
        started, calls, tokens = time.perf_counter(), 0, 0
        try:
            builtin = writer.BuiltinWriter(pages, found, expected)
            if mode == "builtin":
                draft = builtin.write()
            else:
                settings, provider = _provider(opts)
                w = LLMWriter(settings, found, expected, builtin, mode="settings",
                              provider=provider, budget=opts["budget"])
                draft = w.write(None)
                calls, tokens = draft.llm_calls, draft.tokens
            result = _outcome(draft, pages, truth)
        except LookupError:
            result = "no table"
        rows.append((name, mode, result, calls, tokens, time.perf_counter() - started))
    return rows


def _outcome(draft, pages: list, truth) -> str:
    from dua.statements import engine

    status = draft.in_process["status"]
    if truth is None:
        return status
    exact = engine.build_frame(pages, draft.settings).equals(truth)
    return f"{status}, {'exact' if exact else 'not exact'}"


def _document(pdf_path: str, truth: dict, opts: dict) -> list:
    from dua.documents.pipeline import extract
    from tests.documents_score import score_document, truth_words

    words, rows = truth_words(pdf_path), []
    for mode in ("rules", "llm"):
        started = time.perf_counter()
        provider = _provider(opts)[1] if mode == "llm" else None
        result = extract(pdf_path, provider=provider)
        f1 = score_document(truth, words, result["elements"]).figures()["macro_f1"]
        usage = provider.usage if provider else None
        rows.append((truth["name"] + " (document)", mode, f"macro-F1 {f1:.2f}",
                     usage.calls if usage else 0,
                     (usage.input_tokens + usage.output_tokens) if usage else 0,
                     time.perf_counter() - started))
    return rows


class _Row:
    """One table line, printed by the bench runner."""

    def __init__(self, cells: tuple):
        self.cells = cells

    def line(self) -> str:
        name, mode, result, calls, tokens, seconds = self.cells
        seconds = f"{seconds:.1f}" if isinstance(seconds, float) else seconds
        return f"{name:44s} {mode:8s} {result:28s} {calls:>5} {tokens:>8} {seconds:>8}"


def run() -> list:
    opts = _options(sys.argv[1:])
    if not opts["base_url"] or not opts["model"]:
        print("   skipped: pass --base-url URL --model NAME (a running OpenAI-compatible server, "
              "e.g. shared/tools/llm-server.sh)")
        return []
    from tests.documents_score import corpus

    folders = sorted(os.path.dirname(p) for p in
                     glob.glob(os.path.join(REPO, "fixtures", "statements", "*", "b.pdf")))
    docs = corpus(None)
    if opts["only"]:
        folders = [f for f in folders if any(o in f for o in opts["only"])]
        docs = [d for d in docs if any(o in d[0] for o in opts["only"])]
    rows = [_Row(("what", "engine", "result", "calls", "tokens", "seconds"))]
    for folder in folders:
        for supervised in (True, False):
            rows += [_Row(r) for r in _statement(folder, supervised, opts)]
            print(rows[-2].line() + "\n" + rows[-1].line(), file=sys.stderr)  # progress
    for pdf_path, truth in docs:
        rows += [_Row(r) for r in _document(pdf_path, truth, opts)]
    return rows
