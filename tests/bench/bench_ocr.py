"""Scanned statements read through tesseract, scored against their answer keys (issue 34).

``python -m tests.bench ocr [FOLDER…]``: each corpus statement (c01-c11 statement B, every
real bank's statement; or the case folders named) is scanned back into a temporary folder
(``fixtures.make_scans``: clean 300 dpi grey, and the rougher kinds; set ``DUA_OCR_KINDS``
to choose), made searchable by dua (tesseract's seconds a page and dua's own part timed apart),
then read by the built-in writer without the key and with it. Numbers and dates must be exact
(descriptions, references and other text are OCR text: their character error rate is
printed instead); a statement whose
numbers or dates are wrong must never pass. Nothing scanned is kept.
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

from .bench_corpus_keys import SHARED, _bad_input, _folders, statements
from .figures import Figure

KINDS = tuple(k for k in os.environ.get("DUA_OCR_KINDS", "clean,skew,dpi200,jpeg,photo")
              .split(",") if k)


def cases(paths: list) -> list:
    """``(name, pdf, key)``: statement B of a corpus's made-up layout (c..), every statement of a
    real bank's, both statements of a fixture layout folder."""
    out = []
    for folder in _folders(paths):
        name = os.path.basename(folder)
        found = statements(folder)
        made_up = os.path.exists(os.path.join(folder, "case.json")) and name[:1] == "c"
        chosen = [s for s in found if s[0] == "b"] if made_up else found
        out += [(f"{name}:{tag}", pdf, key) for tag, pdf, key in chosen or found[:1]]
    return out


def _text_columns(key) -> list:
    """The key's text columns (descriptions, references): neither numbers, nor dates (most
    cells a date's shape), nor a short code beside an amount (Dr/Cr)."""
    import re

    from pandas.api.types import is_numeric_dtype

    date = re.compile(r"\d{1,4}[-/. ]?(\d{1,2}|[A-Za-z]{3,9})[-/. ]?\d{0,4}")
    out = []
    for column in key.columns:
        cells = [str(v).strip() for v in key[column].dropna()]
        if is_numeric_dtype(key[column]) or not cells:
            continue
        dates = sum(1 for c in cells if len(c) <= 12 and date.fullmatch(c))
        if dates < 0.9 * len(cells) and statistics.median(len(c) for c in cells) > 3:
            out.append(column)
    return out


def judge(frame, key) -> tuple:
    """(numbers and dates exact, the descriptions' character error rate or None)."""
    if frame is None or frame.shape != key.shape:
        return False, None
    frame = frame.set_axis(key.columns, axis=1)
    text = _text_columns(key)
    rest = [c for c in key.columns if c not in text]
    exact = frame[rest].astype(str).equals(key[rest].astype(str))
    said = "\n".join(frame[c].fillna("").astype(str).str.cat(sep="\n") for c in text)
    truth = "\n".join(key[c].fillna("").astype(str).str.cat(sep="\n") for c in text)
    return exact, (_distance(said, truth) / len(truth) if truth else 0.0)


def _distance(a: str, b: str) -> int:
    """Levenshtein's edit distance, row by row."""
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        prev, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            prev, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, prev + (ca != cb))
    return row[-1]


def score(pdf: str, key_path: str, kind: str, folder: str) -> dict:
    import pandas as pd

    import copy as copy_module
    import shutil

    from dua import pdf as reader
    from dua.commands.figures import settle, statement_judge
    from dua.statements.verification.scanned import dates_check, pages_check
    from dua.statements.table import dataframe
    from dua.statements.learning import analysis
    from dua.statements.verification import verify
    from dua.statements.agent import writer
    from fixtures.make_scans import scan

    scanned = os.path.join(folder, f"scan_{kind}.pdf")
    copy = os.path.join(folder, f"searchable_{kind}.pdf")
    scan(pdf, scanned, kind)
    started = time.perf_counter()
    answer = reader.make_searchable(scanned, copy)
    total = time.perf_counter() - started
    out = {"pages": len(answer["pages"]), "tesseract": answer["tesseract_seconds"],
           "dua": total - answer["tesseract_seconds"]}
    keyed_copy = os.path.join(folder, f"searchable_{kind}_keyed.pdf")
    shutil.copyfile(copy, keyed_copy)
    expected = verify.load_expected(key_path)
    # as dua parse reads a scan: its figures read two ways settled by the arithmetic
    settle(copy, copy_module.deepcopy(answer), statement_judge())
    settle(keyed_copy, copy_module.deepcopy(answer), statement_judge(expected=expected))
    pages, apart = analysis.statement_pages(reader.read_document(copy))
    key = pd.read_csv(key_path)
    try:
        draft = writer.BuiltinWriter(pages, analysis.analyze_pages(pages), apart=apart).write()
        frame = dataframe.build_frame(pages, draft.settings)
        out["status"] = draft.in_process["status"]
        if out["status"] == "passed":  # as dua parse judges a scan (commands.ocr.verdict)
            checks = (dates_check(frame, draft.in_process),
                      pages_check(frame, draft.in_process, answer))
            if any(c and not c["passed"] for c in checks):
                out["status"] = "failed"
        out["right"], out["cer"] = judge(frame, key)
    except LookupError:
        out["status"], out["right"], out["cer"] = "no table", False, None
    pages, apart = analysis.statement_pages(reader.read_document(keyed_copy))
    try:
        draft = writer.BuiltinWriter(pages, analysis.analyze_pages(pages, expected), expected,
                                     apart=apart).write()
        out["keyed"] = judge(dataframe.build_frame(pages, draft.settings), key)[0]
    except LookupError:
        out["keyed"] = False
    return out


def run(paths: list | None = None) -> list:
    found = cases(paths or [])
    if not found:
        print(f"   no corpus found (looked in {paths or SHARED}); set DUA_SHARED_CORPUS",
              file=sys.stderr)
        return []
    from dua.pdf import ocr

    if ocr.find() is None:
        print("   tesseract is not installed: nothing to measure", file=sys.stderr)
        return []
    figures = []
    for kind in KINDS:
        results = {}
        for name, pdf, key in found:
            with tempfile.TemporaryDirectory(prefix="dua-bench-ocr-") as folder:
                r = results[name] = score(pdf, key, kind, folder)
            cer = "-" if r["cer"] is None else f"{100 * r['cer']:.2f}%"
            print(f"   {kind:6s} {name:40s} {r['status']:10s} numbers+dates "
                  f"{'exact' if r['right'] else 'WRONG'}; with key "
                  f"{'exact' if r['keyed'] else 'WRONG'}; text CER {cer}; "
                  f"{r['pages']} p, tesseract {r['tesseract']:.1f} s, dua {r['dua']:.2f} s",
                  flush=True)
        figures += _figures(kind, results)
    return figures


def _figures(kind: str, results: dict) -> list:
    n = len(results)
    rs = list(results.values())
    pages = sum(r["pages"] for r in rs) or 1
    cers = [r["cer"] for r in rs if r["cer"] is not None]
    return [
        Figure(f"{kind}: without key, numbers and dates exact and passed",
               sum(1 for r in rs if r["right"] and r["status"] == "passed"), n,
               unit="statements", floor_name="of", higher_is_better=True, target=">= 80%"),
        Figure(f"{kind}: wrong but passed", sum(1 for r in rs if r["status"] == "passed"
                                                and not r["right"]), n,
               unit="statements", floor_name="of", target="0"),
        Figure(f"{kind}: with key, numbers and dates exact", sum(r["keyed"] for r in rs), n,
               unit="statements", floor_name="of", higher_is_better=True, target=">= 90%"),
        Figure(f"{kind}: description text CER, median", 100 * statistics.median(cers)
               if cers else float("nan"), 1.0, unit="%", floor_name="target", target="<= 1%"),
        Figure(f"{kind}: dua's own part a page (drawing, writing)",
               sum(r["dua"] for r in rs) / pages, sum(r["tesseract"] for r in rs) / pages,
               floor_name="tesseract a page"),
    ]
