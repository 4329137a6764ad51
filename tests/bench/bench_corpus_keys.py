"""The statement writer on corpora nobody here made, scored the way issue 25 counts.

``python -m tests.bench corpus_keys [FOLDER…]``: every case folder under the given folders
(default ``../shared/corpus/statements`` and ``../shared/corpus/real``) in the answer-key
convention (``case.json`` with ``statement.pdf``/``expected.csv`` and its later statements),
or a fixture layout folder (``a.pdf``/``a.csv``/``b.pdf``/``b.csv``). In-process, built-in
writer, no LLM: supervised on the first statement, its settings on the later ones, and each
statement without a key. Prints the counts, wrong-but-``passed`` and right-but-``unverified``
(both must be 0), and the seconds beyond reading the words as a ratio to that read.
"""
from __future__ import annotations

import glob
import json
import os
import sys
import time

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("DUA_SHARED_CORPUS") or os.path.join(os.path.dirname(REPO), "shared",
                                                             "corpus")


def statements(folder: str) -> list:
    """``(tag, pdf, key)`` of a case, its first statement first."""
    if os.path.exists(os.path.join(folder, "a.pdf")):
        return [(t, os.path.join(folder, f"{t}.pdf"), os.path.join(folder, f"{t}.csv"))
                for t in "ab"]
    with open(os.path.join(folder, "case.json"), encoding="utf-8") as fh:
        info = json.load(fh)
    more = [info.get("second_statement")] + info.get("more_statements", [])
    found = [("a", "statement.pdf", "expected.csv")] + [
        ("bcdefg"[i], m["pdf"], m["expected"]) for i, m in enumerate(x for x in more if x)]
    return [(t, os.path.join(folder, p), os.path.join(folder, e)) for t, p, e in found]


def _read(path: str) -> tuple:
    from dua import pdf
    from dua.statements.learning import analysis

    started = time.perf_counter()
    pages, apart = analysis.statement_pages(pdf.read_document(path))
    return pages, apart, time.perf_counter() - started


def _same_values(frame, key) -> bool:
    return frame is not None and frame.shape == key.shape and \
        frame.set_axis(key.columns, axis=1).equals(key)


def score(folder: str) -> dict:
    """Supervised, reused (each later statement) and unsupervised (each statement)."""
    import pandas as pd

    from dua.statements.table import dataframe
    from dua.statements.learning import analysis
    from dua.statements.verification import verify
    from dua.statements.agent import writer

    found = statements(folder)
    out = {"supervised": False, "reused": [], "unsupervised": [], "seconds": 0.0, "read": 0.0}
    (_, pdf, key), later = found[0], found[1:]
    pages, apart, read = _read(pdf)
    out["read"] += read
    started, settings = time.perf_counter(), None
    expected = verify.load_expected(key)
    try:
        draft = writer.BuiltinWriter(pages, analysis.analyze_pages(pages, expected), expected,
                                     apart=apart).write()
        out["supervised"], settings = draft.in_process["status"] == "passed", draft.settings
    except LookupError:
        pass
    out["seconds"] += time.perf_counter() - started
    for tag, pdf, key in later:
        pages, _, read = _read(pdf)
        out["read"] += read
        frame = dataframe.build_frame(pages, settings) if settings else None
        out["reused"].append(bool(frame is not None and frame.equals(pd.read_csv(key))))
    for tag, pdf, key in found:
        pages, apart, read = _read(pdf)
        out["read"] += read
        started = time.perf_counter()
        try:
            draft = writer.BuiltinWriter(pages, analysis.analyze_pages(pages), apart=apart).write()
            status = draft.in_process["status"]
            right = _same_values(dataframe.build_frame(pages, draft.settings), pd.read_csv(key))
        except LookupError:
            status, right = "no table", False
        out["seconds"] += time.perf_counter() - started
        out["unsupervised"].append((tag, status, right))
    return out


def _folders(paths: list) -> list:
    roots = paths or [os.path.join(SHARED, "statements"), os.path.join(SHARED, "real")]
    out = []
    for root in roots:
        if os.path.exists(os.path.join(root, "case.json")) or os.path.exists(
                os.path.join(root, "a.pdf")):
            out.append(root)
            continue
        out += sorted(os.path.dirname(p) for p in glob.glob(os.path.join(root, "*", "*.csv"))
                      if os.path.basename(p) in ("expected.csv", "a.csv"))
    return [f for f in dict.fromkeys(out) if not _bad_input(f)]


def _bad_input(folder: str) -> bool:
    """A case that must end in an error (a password, a broken file), not in rows."""
    path = os.path.join(folder, "case.json")
    if not os.path.exists(path):
        return False
    with open(path, encoding="utf-8") as fh:
        return "expect" in json.load(fh)


def run(paths: list | None = None) -> list:
    folders = _folders(paths or [])
    if not folders:
        print(f"   no corpus found (looked in {paths or SHARED}); set DUA_SHARED_CORPUS",
              file=sys.stderr)
        return []
    results = {os.path.basename(f): score(f) for f in folders}
    for name, r in results.items():
        unsup = ", ".join(f"{t} {s}{'' if ok else ' WRONG'}" for t, s, ok in r["unsupervised"])
        print(f"   {name:36s} supervised {'ok' if r['supervised'] else 'FAILED':6s} "
              f"reused {sum(r['reused'])}/{len(r['reused'])}  unsupervised: {unsup}")
    n = len(results)
    runs = [u for r in results.values() for u in r["unsupervised"]]
    reused = [x for r in results.values() for x in r["reused"]]
    read = sum(r["read"] for r in results.values()) or 1.0
    return [
        Figure("supervised exact", sum(r["supervised"] for r in results.values()), n,
               unit="layouts", floor_name="of", higher_is_better=True),
        Figure("saved settings on later statements exact", sum(reused), len(reused) or 1,
               unit="statements", floor_name="of", higher_is_better=True),
        Figure("unsupervised passed with right values", sum(1 for _, s, ok in runs
                                                            if s == "passed" and ok),
               len(runs), unit="statements", floor_name="of", higher_is_better=True),
        Figure("unsupervised values right", sum(1 for _, _, ok in runs if ok), len(runs),
               unit="statements", floor_name="of", higher_is_better=True),
        Figure("wrong but passed", sum(1 for _, s, ok in runs if s == "passed" and not ok),
               len(runs), unit="statements", floor_name="of", target="0"),
        Figure("right but unverified", sum(1 for _, s, ok in runs if s != "passed" and ok),
               len(runs), unit="statements", floor_name="of", target="0"),
        Figure("writing and verifying, beyond reading the words",
               sum(r["seconds"] for r in results.values()) / read, 1.0, unit="x",
               floor_name="reading the words"),
    ]
