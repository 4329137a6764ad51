"""Every statement the project can read with an answer key: its fixtures and ../shared/corpus.

A case is ``(name, pdf, key, ok_exits)``. ``ok_exits`` is the exit ``dua check`` may give
on the right rows: 0 (``passed``) unless the case says otherwise with its reason — a
case.json's ``check_exit_ok``, or a layout drawn from the space that prints nothing to check its
rows by.
"""
from __future__ import annotations

import glob
import json
import os

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SHARED = os.environ.get("DUA_SHARED_CORPUS") or os.path.join(os.path.dirname(REPO), "shared",
                                                             "corpus")
# The layouts written by hand (statements, wave3), then the notation cases and the sample
# drawn from the space of layouts, whose right rows some readings still miss.
FIXTURE_ROOTS = [os.path.join(REPO, "fixtures", name)
                 for name in ("statements", "wave3", "notations", "space_sample")]
SHARED_ROOTS = [os.path.join(SHARED, "statements"), os.path.join(SHARED, "real")]

def _fixture_cases(root: str) -> list:
    out = []
    for folder in sorted(glob.glob(os.path.join(root, "*", "a.pdf"))):
        folder = os.path.dirname(folder)
        name = os.path.basename(folder)
        ok = [0] if _prints_a_check(folder) else [1]
        for tag in "ab":
            pdf, key = (os.path.join(folder, f"{tag}.{x}") for x in ("pdf", "csv"))
            if os.path.exists(pdf) and os.path.exists(key):
                out.append((f"{name}/{tag}", pdf, key, ok))
    return out


def _prints_a_check(folder: str) -> bool:
    """A layout drawn from the space that prints no balance, total or summary has nothing
    its right rows can pass by (``fixtures.space.axes.prints_a_check``)."""
    path = os.path.join(folder, "layout.json")
    if not os.path.exists(path):
        return True
    from fixtures.space.axes import prints_a_check

    with open(path, encoding="utf-8") as fh:
        layout = json.load(fh)
    return "effective" not in layout or prints_a_check(layout)  # hand-written layouts say


def _corpus_cases(root: str) -> list:
    out = []
    for path in sorted(glob.glob(os.path.join(root, "*", "case.json"))):
        folder = os.path.dirname(path)
        with open(path, encoding="utf-8") as fh:
            info = json.load(fh)
        if "expect" in info:  # a bad input: it must end in an error, not in rows
            continue
        ok = info.get("check_exit_ok") or [0]
        more = [info.get("second_statement")] + info.get("more_statements", [])
        found = [("statement.pdf", "expected.csv")] + [(m["pdf"], m["expected"])
                                                         for m in more if m]
        for n, (pdf, key) in enumerate(found):
            out.append((f"{os.path.basename(folder)}/{'abcdefg'[n]}", os.path.join(folder, pdf),
                        os.path.join(folder, key), ok))
    return out


def keyed_statements(roots: list | None = None) -> list:
    """Every keyed statement under ``roots`` (default: the fixtures, then ../shared/corpus)."""
    if roots is None:
        roots = FIXTURE_ROOTS + SHARED_ROOTS
    out = []
    for root in roots:
        if glob.glob(os.path.join(root, "*", "case.json")):
            out += _corpus_cases(root)
        else:
            out += _fixture_cases(root)
    return out


def read_statement(pdf: str) -> tuple:
    """(pages, apart) of a statement, as ``dua parse`` reads it."""
    from dua import pdf as reader
    from dua.statements.learning import analysis

    return analysis.statement_pages(reader.read_document(pdf))
