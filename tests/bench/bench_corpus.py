"""The statement writer over the whole fixture corpus (fixtures/statements and fixtures/wave3).

For every layout: supervised A (``--expected``), the saved parser on B, unsupervised B (its
values right; and ``passed`` as well), all in-process on the built-in writer with no LLM;
and the settings learned from A's answer key alone (no layout guess, no search) applied to
B. Prints the success counts, the set-aside thirds' counts apart, and each run's seconds as
a ratio to reading the same pages' words in the same run (the floor).
"""
from __future__ import annotations

import glob
import os
import time

from .figures import Figure

OUTCOMES = ("supervised", "reused", "unsupervised", "unsupervised passed", "answer key alone")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _words(path: str) -> tuple:
    """(engine pages, words set apart, seconds) for reading a PDF the way dua does."""
    from dua import pdf
    from dua.statements.learning import analysis

    started = time.perf_counter()
    pages, apart = analysis.statement_pages(pdf.read_document(path))
    return pages, apart, time.perf_counter() - started


def score(folder: str) -> dict:
    """One layout's three outcomes and the seconds each took beyond reading the words."""
    import pandas as pd

    from dua.statements.table import dataframe
    from dua.statements.learning import analysis, learning
    from dua.statements.verification import verify
    from dua.statements.agent import writer

    a_pages, a_apart, a_read = _words(os.path.join(folder, "a.pdf"))
    b_pages, b_apart, b_read = _words(os.path.join(folder, "b.pdf"))
    b_csv = pd.read_csv(os.path.join(folder, "b.csv"))
    started = time.perf_counter()
    expected = verify.load_expected(os.path.join(folder, "a.csv"))
    try:
        draft = writer.BuiltinWriter(a_pages, analysis.analyze_pages(a_pages, expected), expected,
                                     apart=a_apart).write()
        supervised = draft.in_process["status"] == "passed"
        reused = dataframe.build_frame(b_pages, draft.settings).equals(b_csv)
    except LookupError:
        supervised = reused = False
    sup_s = time.perf_counter() - started
    learned = learning.learn(a_pages, expected)
    key_only = learned is not None and dataframe.build_frame(b_pages, learned).equals(b_csv)
    started = time.perf_counter()
    try:
        blind = writer.BuiltinWriter(b_pages, analysis.analyze_pages(b_pages),
                                     apart=b_apart).write()
        frame = dataframe.build_frame(b_pages, blind.settings)
        unsupervised = frame.set_axis(b_csv.columns, axis=1).equals(b_csv) \
            if frame.shape == b_csv.shape else False
        passed = unsupervised and blind.in_process["status"] == "passed"
    except LookupError:
        unsupervised = passed = False
    return {"supervised": supervised, "reused": reused, "unsupervised": unsupervised,
            "unsupervised passed": passed, "answer key alone": key_only,
            "sup_ratio": (a_read + sup_s) / a_read, "unsup_ratio": (b_read + time.perf_counter()
                                                                   - started) / b_read}


def run() -> list:
    from fixtures.producers.layouts import HOLDOUT
    from fixtures.producers.layouts_wave2 import HOLDOUT2
    from fixtures.producers.layouts_wave3 import HOLDOUT3

    folders = sorted(os.path.dirname(p) for p in
                     glob.glob(os.path.join(REPO, "fixtures", "statements", "*", "b.pdf"))
                     + glob.glob(os.path.join(REPO, "fixtures", "wave3", "*", "b.pdf")))
    results = {os.path.basename(f): score(f) for f in folders}
    for name, r in results.items():
        marks = ", ".join(k for k in OUTCOMES if not r[k])
        print(f"   {name:24s} {'ok' if not marks else 'FAILED ' + marks:28s} "
              f"supervised {r['sup_ratio']:.2f}x, unsupervised {r['unsup_ratio']:.2f}x the read")
    figures = []
    for label, names in (("all layouts", list(results)),
                         ("set-aside layouts", [n for n in results
                                                if n in HOLDOUT + HOLDOUT2 + HOLDOUT3])):
        for key in OUTCOMES:
            ok = sum(1 for n in names if results[n][key])
            figures.append(Figure(f"{label}: {key} exact", ok, len(names), unit="layouts",
                                  floor_name="of", higher_is_better=True))
    worst = max(max(r["sup_ratio"], r["unsup_ratio"]) for r in results.values())
    mean = sum(r["unsup_ratio"] for r in results.values()) / len(results)
    figures.append(Figure("unsupervised run, mean over layouts", mean, 1.0, unit="x",
                          floor_name="reading the words"))
    figures.append(Figure("slowest run (either mode)", worst, 1.0, unit="x",
                          floor_name="reading the words"))
    return figures
