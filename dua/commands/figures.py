"""The figures OCR read two ways, settled by the statement's own arithmetic.

Tesseract reads some figures one way in their line and another read again at another size
(``secondlook.read_twice``), each surely, and nothing on the image tells which is right. A
statement tells: its balances and totals hold with the printed figure only. So where the
copy's first readings do not pass, the copy is written again with the other readings of the
figures near what failed, one figure at a time, then those together; the first copy whose
every check then passes is the one read. No reading is made up: each is tesseract's, and a
copy is kept only on the same verdict any reading must earn.
"""
from __future__ import annotations

import os

MAX_TRIES = 6  # copies judged at most: each is a whole reading of the statement


def settle(copy: str, answer: dict, judge) -> None:
    """``copy`` becomes the copy with other readings where only they let it pass;
    ``judge(path)`` is the verdict on a copy (a dict with ``status`` and, where it names
    rows, ``checks`` and ``accounting``), None where the copy holds no statement. Each
    figure of ``answer["read_twice"]`` is told which reading the copy holds and why."""
    twice = answer.get("read_twice") or []
    if not twice:
        return
    first = judge(copy)
    if not first or first.get("status") == "passed":
        _said(twice, "the checks pass with the first reading" if first
              else "no statement was found to judge by")
        return
    _said(twice, "not judged: more figures were read two ways than are tried")
    other = copy + ".other.pdf"
    try:
        for chosen in _tries(twice, first):
            from ..pdf.searchable import reword  # lazy: only scans need it

            if not reword(copy, other, [(f["shown"], f["other_shown"]) for f in chosen]):
                continue
            verdict = judge(other)
            if verdict and verdict.get("status") == "passed":
                os.replace(other, copy)
                _said(chosen, "only it lets every check pass", taken=True)
                return
            _said(chosen, "the other reading lets no more checks pass")
    finally:
        if os.path.exists(other):
            os.remove(other)


def _said(figures: list, why: str, taken: bool = False) -> None:
    for figure in figures:
        figure["read_as"] = figure["other"] if taken else figure["text"]
        figure["why"] = why


def _tries(twice: list, verdict: dict) -> list:
    """The sets of figures to read the other way: each alone, those near a failed check
    first (``near``), then all those near it (or all) together."""
    near = [f for f in twice if near_failure(f, verdict)]
    ordered = near + [f for f in twice if f not in near]
    tries = [[f] for f in ordered]
    together = near if len(near) > 1 else ordered
    if len(together) > 1:
        tries = tries[:MAX_TRIES - 1] + [together]
    return tries[:MAX_TRIES]


def near_failure(word: dict, verdict: dict) -> bool:
    """The word lies in a row a failed check names (or the row before, whose balance it
    starts from), or, where a failed check names no row, in any row of the table."""
    import re  # lazy: keeps import dua fast

    ledger = verdict.get("accounting") or {}
    rows = {r["row"]: r for r in ledger.get("rows") or []}
    for check in verdict.get("checks") or []:
        if check.get("passed") is not False:
            continue
        named = {int(n) for n in re.findall(r"\brow (\d+)", check.get("detail", ""))}
        places = [rows[m] for n in named for m in (n - 1, n) if m in rows] or rows.values()
        if any(_inside(word, part) for row in places for part in row.get("parts") or []):
            return True
    return False


def _inside(word: dict, part: dict) -> bool:
    x, y = (word["x0"] + word["x1"]) / 2, (word["top"] + word["bottom"]) / 2
    box = part["box"]
    return part["page"] == word["page"] and box[0] - 1 <= x <= box[2] + 1 and \
        box[1] - 1 <= y <= box[3] + 1


def statement_judge(password: str | None = None, expected=None, budget=None):
    """``judge(path)`` for ``settle``: the built-in reading's verdict on a copy, None where it
    finds no statement. With ``expected``, the answer key, the copy passes where the reading
    the key teaches gives the key's figures (its descriptions are OCR text: they are not
    letter for letter the key's, whatever is read)."""
    def judge(path: str) -> dict | None:
        from ..errors import DuaError
        from ..statements.agent.writer import BuiltinWriter
        from ..statements.learning import analysis
        from ..statements.table import dataframe

        try:
            pages, apart = analysis.statement_pages(_document(path, password, budget))
            found = analysis.analyze_pages(pages, expected)
            draft = BuiltinWriter(pages, found, expected, apart=apart).write()
            if expected is None:
                return draft.in_process
            agree = _figures_agree(dataframe.build_frame(pages, draft.settings), expected)
        except (LookupError, DuaError):
            return None
        return {"status": "passed" if agree else "failed"}
    return judge


def _figures_agree(frame, key) -> bool:
    """The frame holds the key's rows, and in each of the key's columns of numbers the key's
    numbers."""
    from pandas.api.types import is_numeric_dtype  # lazy: keeps import dua fast

    if frame.shape != key.shape:
        return False
    frame = frame.set_axis(key.columns, axis=1)
    numbers = [c for c in key.columns if is_numeric_dtype(key[c])]
    return bool(numbers) and all(frame[c].astype(str).equals(key[c].astype(str))
                                 for c in numbers)


def rows_judge(rows, password: str | None = None, budget=None):
    """``judge(path)`` for ``settle``: ``dua check``'s verdict on ``rows`` against a copy."""
    def judge(path: str) -> dict | None:
        from ..errors import DuaError
        from ..statements.agent import rowcheck
        from ..statements.learning import analysis

        try:
            pages, apart = analysis.statement_pages(_document(path, password, budget))
            return rowcheck.check(pages, apart, rows).to_dict()
        except DuaError:
            return None
    return judge


def _document(path: str, password: str | None, budget):
    from .. import pdf  # lazy: keeps import dua fast

    reading = pdf.start_reading(path, password, budget=budget)
    try:
        return reading.document()
    finally:
        reading.cancel()
