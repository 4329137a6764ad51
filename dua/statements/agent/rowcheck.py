"""``dua check``: rows from anywhere put to the statement's own checks.

The rows are not trusted to say where the table is. Their values are located on the page
the way an answer key's are (``learning``), which gives a reading of the page: engine
settings, structure only. That reading must give back exactly these rows — a row lost,
doubled, moved or changed reads differently from the page — and the page read that way
must pass the checks a parse without a key passes (``verify.intrinsic``: the arithmetic
and every word of the table accounted for). Rows the page cannot be read back to are
``failed`` when a reading of the page that verifies says otherwise, else ``unverified``.
"""
from __future__ import annotations

import dataclasses

from ..learning import analysis, sample
from ..table import dataframe, engine
from ..verification import verify
from . import writer

# Settings tried beyond what the rows teach: rows a reading gives back come out at once or
# after a few steps of the search (every keyed statement here needs fewer than this), and
# wrong rows would otherwise spend the parse's whole budget on a match that cannot be.
SEARCH_BUDGET = 12


@dataclasses.dataclass
class RowsCheck:
    """The verdict on a set of rows and what it rests on."""

    status: str  # passed | failed | unverified
    checks: list  # [{"name", "passed", "detail"}]
    settings: dict | None  # the reading of the page the rows were matched with
    accounting: dict | None
    rows: int

    @property
    def summary(self) -> str:
        return "; ".join(f"{c['name']}: {c['detail']}" for c in self.checks)

    def to_dict(self) -> dict:
        return {"status": self.status, "rows": self.rows, "checks": self.checks,
                "summary": self.summary, "accounting": self.accounting}


def check(pages: list, apart: list, rows, layout=None) -> RowsCheck:
    """The verdict on ``rows`` (a DataFrame in the answer-key convention) for the statement
    whose engine words are ``pages`` (``apart``: the words set apart, with reasons);
    ``layout``, the pages' own reading (``analysis.layout_of``) when several sets of rows
    are checked against one statement."""
    found = analysis.analyze_pages(pages, rows, layout)
    if not found.settings:
        return _unread(rows, "no transaction table found on the page: "
                       + sample.explain_no_table(pages))
    try:
        best = writer.BuiltinWriter(pages, found, rows, budget=SEARCH_BUDGET, apart=apart)
        best.write()
    except LookupError as exc:
        return _unread(rows, str(exc))
    _, settings, result = best._best()
    if result.get("equal"):
        return _verified(rows, pages, apart, settings)
    return _not_read_back(rows, pages, apart, found, settings, result)


def _verified(rows, pages: list, apart: list, settings: dict) -> RowsCheck:
    """The page reads back to exactly these rows: the statement's own checks decide."""
    extraction = engine.extract(pages, settings)
    frame = dataframe.frame_of(extraction[0], settings)
    verdict = verify.intrinsic(frame, pages, settings, apart, extraction)
    read_back = {"name": "rows_read_back", "passed": True,
                 "detail": f"the page, read with the columns and notations these {len(rows)} "
                           "rows are printed in, gives exactly these rows"}
    return RowsCheck(verdict["status"], [read_back] + verdict["checks"], settings,
                     verdict.get("accounting"), len(rows))


def _not_read_back(rows, pages: list, apart: list, found, settings: dict,
                   result: dict) -> RowsCheck:
    """The rows differ from every reading tried. When some reading of the page verifies on
    its own, the page says these rows are wrong; otherwise nothing here can tell."""
    where = result.get("summary", "").splitlines()
    differ = {"name": "rows_read_back", "passed": False,
              "detail": "the page does not read back to these rows: "
                        + "; ".join(where[:3] or ["no reading matches"])}
    own = _own_reading(pages, apart, found, settings)
    if own is not None:
        rows_seen = own["diagnostics"]["row_count"]["got"]
        check = {"name": "page_verifies_otherwise", "passed": False,
                 "detail": f"read on its own, the page gives {rows_seen} rows that pass its "
                           f"checks ({own['summary'].split(';')[0]}), and they are not these"}
        return RowsCheck("failed", [differ, check], settings, own.get("accounting"), len(rows))
    note = {"name": "page_verifies_otherwise", "passed": None,
            "detail": "no reading of the page passes its own checks either, so it cannot say "
                      "which rows are right"}
    return RowsCheck("unverified", [differ, note], settings, None, len(rows))


def _own_reading(pages: list, apart: list, found, settings: dict) -> dict | None:
    """A reading of the page that passes its own checks: the one learned from the rows,
    else the layout's own; None when neither does."""
    for candidate in (settings, found.settings):
        try:
            extraction = engine.extract(pages, candidate)
            frame = dataframe.frame_of(extraction[0], candidate)
        except (KeyError, ValueError, TypeError, IndexError):
            continue
        verdict = verify.intrinsic(frame, pages, candidate, apart, extraction)
        if verdict["status"] == "passed":
            return verdict
    return None


def _unread(rows, why: str) -> RowsCheck:
    check = {"name": "rows_read_back", "passed": None, "detail": why}
    return RowsCheck("unverified", [check], None, None, len(rows))
