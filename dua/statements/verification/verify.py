"""Verification of a parsed statement: against an expected CSV, or by its own evidence.

``compare`` gives DataFrame.equals plus diagnostics that steer the next attempt;
``intrinsic`` checks the statement's own arithmetic (running balances, or printed totals)
and the accounting of every word (``ledger``): ``passed`` needs both.
"""
from __future__ import annotations

import math

from ...errors import DocumentNotFoundError, SchemaError
from ..table import dataframe, engine, tablestarts, totals
from ..table import reconcile as reconcile_mod
from . import dated, direction, gutters, owners, pagecount, printed, shapes, textcheck

# the common schema ``normalize`` writes: a key or rows to check may come in it
SCHEMA = ("date", "description", "amount", "balance", "currency", "account", "page", "row")
_MAX_CELLS = 5


# checks whose "could not tell" leaves the rows unverified: each says the rows may be wrong
_UNDECIDED = ("wrapped_lines_owned", "pages_complete", "cells_in_shape", "rows_dated",
              "one_column_each")


def preload() -> None:
    """Import pandas now, at a moment chosen to overlap other work; a missing pandas is
    reported where it is first used, as before."""
    import importlib  # lazy: keeps import dua fast

    try:
        importlib.import_module("pandas")
    except ImportError:
        pass


def load_expected(path: str, what: str = "--expected"):
    """The expected CSV as ``pandas.read_csv`` reads it (``what``: how the user named it).

    Raises:
        DocumentNotFoundError: no such file. SchemaError: not a readable CSV.
    """
    import os

    import pandas as pd  # lazy: keeps import dua fast

    if not os.path.isfile(path):
        raise DocumentNotFoundError(f"No such file: {path}", path=path,
                                    hint=f"Check the {what} path.")
    try:
        # utf-8-sig: spreadsheet exports start with a BOM that would rename the first column
        frame = pd.read_csv(path, encoding="utf-8-sig")
        header = str(frame.columns[0]) if len(frame.columns) == 1 else ""
        for sep in (";", "\t"):  # a European or tab-separated export: read it as it was meant
            if sep in header:
                frame = pd.read_csv(path, encoding="utf-8-sig", sep=sep)
                break
    except (ValueError, UnicodeDecodeError, OSError) as exc:
        why = " ".join(str(exc).split())  # pandas' messages span lines; ours is one
        raise SchemaError([f"{path}: not a readable CSV ({why})"], path=path) from exc
    if frame.empty:  # nothing to match: every parser would "pass" or fail on dtypes alone
        raise SchemaError([f"{path} has no rows: the expected CSV lists the statement's "
                           "transactions"], path=path)
    return own_columns(frame, path)  # a key in the common schema: its own columns judge


def own_columns(frame, path: str = "the CSV"):
    """The statement's own columns of rows in either schema: rows written by --normalize
    (the common schema, then the statement's columns) give back the columns after it.

    Raises:
        SchemaError: the common schema alone, with none of the statement's columns after it
    """
    names = [str(c) for c in frame.columns]
    if names[:len(SCHEMA)] != list(SCHEMA):
        return frame
    if len(names) == len(SCHEMA):
        raise SchemaError([f"{path} holds the common schema alone: an answer key or rows to "
                           "check need the statement's own columns after it, as --normalize "
                           "writes them"], path=path)
    own = frame.iloc[:, len(SCHEMA):].copy()
    own.columns = [n[:-len(" (printed)")] if n.endswith(" (printed)") and
                   n[:-len(" (printed)")] in SCHEMA else n for n in names[len(SCHEMA):]]
    return own


def _cell(value: object) -> object:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):
        value = value.item()
    return value


def _same(a: object, b: object) -> bool:
    a, b = _cell(a), _cell(b)
    if isinstance(a, float) and isinstance(b, float):
        return abs(a - b) < 1e-9
    return a == b and type(a) is type(b) if a is not None and b is not None else a is b


def compare(got, expected) -> dict:
    """``DataFrame.equals`` plus what differs: columns, dtypes, row count, first cells, rows.

    The result's ``distance`` ranks attempts (0 when equal).
    """
    equal = bool(got.equals(expected))
    gcols, ecols = [str(c) for c in got.columns], [str(c) for c in expected.columns]
    diag: dict = {
        "missing_columns": [c for c in ecols if c not in gcols],
        "extra_columns": [c for c in gcols if c not in ecols],
        "renamed_columns": [[e, g] for e, g in zip(ecols, gcols) if e != g]
        if len(ecols) == len(gcols) else [],
        "dtype_differences": {c: [str(expected[c].dtype), str(got[c].dtype)] for c in ecols
                              if c in gcols and str(expected[c].dtype) != str(got[c].dtype)},
        "row_count": {"expected": len(expected), "got": len(got)},
        "first_differences": [],
        "rows_only_expected": [],
        "rows_only_got": [],
    }
    diffs = 0
    common = [c for c in ecols if c in gcols and gcols.count(c) == ecols.count(c) == 1]
    # whole columns as Python values: a cell at a time through pandas is the slow part
    got_cells = {c: got[c].tolist() for c in common}
    expected_cells = {c: expected[c].tolist() for c in common}
    for i in range(min(len(got), len(expected))):
        for c in common:
            g, e = got_cells[c][i], expected_cells[c][i]
            if not _same(g, e):
                diffs += 1
                if len(diag["first_differences"]) < _MAX_CELLS:
                    diag["first_differences"].append({"row": i, "column": c,
                                                      "expected": _cell(e), "got": _cell(g)})
    _one_sided(got, expected, common, diag)
    distance = 0 if equal else (1 + diffs + 50 * abs(len(got) - len(expected))
                                + 500 * (len(diag["missing_columns"]) + len(diag["extra_columns"]))
                                + 10 * len(diag["dtype_differences"]))
    return {"status": "passed" if equal else "failed", "mode": "expected", "equal": equal,
            "distance": distance, "diagnostics": diag, "summary": summarize(diag, equal)}


def _one_sided(got, expected, common: list, diag: dict) -> None:
    def keys(df):
        return [tuple(str(_cell(v)) for v in row) for row in df[common].itertuples(index=False)]

    g, e = keys(got), keys(expected)
    gs, es = set(g), set(e)
    diag["rows_only_expected"] = [list(r) for r in e if r not in gs][:_MAX_CELLS]
    diag["rows_only_got"] = [list(r) for r in g if r not in es][:_MAX_CELLS]


def summarize(diag: dict, equal: bool = False) -> str:
    """The diagnostics as short lines for a person or a refine prompt."""
    if equal:
        return "the result equals the expected CSV"
    out = []
    rc = diag.get("row_count", {})
    empty = rc.get("got") == 0 and rc.get("expected")
    if empty:  # the cause first: every other difference follows from it
        out.append(f"0 rows, expected {rc['expected']}: no line of the statement was read as a "
                   "transaction (its date or amounts did not match where the parser looks)")
    for key in ("missing_columns", "extra_columns", "renamed_columns"):
        if diag.get(key):
            out.append(f"{key.replace('_', ' ')}: {diag[key]}")
    for col, (want, got) in diag.get("dtype_differences", {}).items():
        if not empty:  # an empty column's dtype is no finding of its own
            out.append(f"column {col!r} has dtype {got}, expected {want}")
    if rc and rc.get("expected") != rc.get("got") and not empty:
        out.append(f"{rc['got']} rows, expected {rc['expected']}")
    for d in diag.get("first_differences", []):
        out.append(f"row {d['row']} column {d['column']!r}: expected {d['expected']!r}, "
                   f"got {d['got']!r}")
    for key in ("rows_only_expected", "rows_only_got"):
        for row in diag.get(key, [])[:3]:
            out.append(f"{key.replace('_', ' ')}: {row}")
    return "\n".join(out) or "the frames differ (index or dtypes)"


# --- without an answer key -------------------------------------------------------------


def reconcile(frame) -> dict:
    """Running balance check: some column is the balance and the others move it (to the cent)."""
    return reconcile_mod.reconcile(frame)


def accounting(ledger) -> dict:
    """The accounting check: every word of the table pages in a cell or on furniture."""
    if ledger is None:
        return {"name": "words_accounted", "passed": None,
                "detail": "no settings to account for the page's words with"}
    return {"name": "words_accounted", "passed": ledger.complete, "detail": ledger.summary(),
            "unaccounted": len(ledger.unaccounted)}


def attach_accounting(result: dict, pages: list, settings: dict, apart: list | None) -> None:
    """Add the ledger to a comparison's result: the answer key decided the verdict, and the
    words it leaves out are shown with the furniture reason that covers them, or as words
    no reason covers. The verdict does not change."""
    from . import ledger as ledger_mod

    if not settings.get("columns"):
        return
    ledger = ledger_mod.build(pages, settings, apart)
    check = accounting(ledger)
    if check["passed"] is False:  # the key decided; what it leaves out is worth a look
        check.update(passed=None, note=True,
                     detail="a note, not a verdict (the answer key decides): "
                            + check["detail"])
    result["checks"] = [{"name": "equals_expected", "passed": result["equal"],
                         "detail": result["summary"]}, check]
    result["accounting"] = ledger.to_dict()


def _with_balance(settings: dict, arithmetic: dict) -> dict:
    """The settings with the balance column the arithmetic found, where they name none:
    the ledger asks it what a line printing a balance is."""
    roles, columns = arithmetic.get("roles"), settings.get("columns") or []
    names = [c["name"] for c in columns]
    if settings.get("balance_column") is not None or not roles or roles[0] not in names:
        return settings
    return dict(settings, balance_column=names.index(roles[0]))


def _arithmetic(frame, settings: dict, printed: list, openings: dict | None = None,
                in_table: list | None = None, starts: list = (), tables: tuple = (),
                among: list = (), ends: dict | None = None) -> dict:
    """Running balances, else the ``printed`` totals; the daily balances a summary prints,
    reached from its opening one; and where sections sign the amounts, whether the other
    way round adds up as well (then only the daily balances can say which is right)."""
    if not len(frame):
        return {"name": "rows_found", "passed": False, "bad_rows": 0,
                "detail": "0 rows: the parser read no transaction from a statement whose "
                          "layout shows some"}
    columns = settings.get("columns") or []
    date = columns[settings["date_column"]]["name"] if columns else None

    def check(f):
        result = reconcile_mod.reconcile(f, openings, tables)
        if result["passed"] is None and columns and not result.get("roles"):
            result = totals.reconcile_totals(f, printed, in_table, among=among)
            if not result["passed"] and starts:
                result = totals.totals_by_table(f, printed, starts, in_table, ends) or result
        if result["passed"] is not False and not result.get("roles"):
            result["running"] = reconcile_mod.running_balances(f, printed, date)
        return result

    result = check(frame)
    idle = _rows_without_money(frame, _with_balance(settings, result))
    if idle:  # a balance line read as a row moves nothing, and the chain still holds
        return {"name": "rows_move_money", "passed": False, "bad_rows": len(idle),
                "detail": f"{len(idle)} row(s) print no amount, as row {idle[0]} does: "
                          "every transaction moves money"}
    signed, what = direction.signed_by_guess(frame, settings)
    if what == direction.LONE and result.get("way") is not None:
        signed = []  # a running balance settles a marker's way (``signs_as_marked``)
    if result["passed"] and signed:
        mirrored = frame.copy()
        for name in signed:
            mirrored[name] = -mirrored[name]
        pairs, opened = ((), ()), what == direction.LONE
        if opened:  # a lone marker: the balance the summary's totals follow opens
            pairs = tuple(direction.opened_pairs(f, printed) for f in (frame, mirrored))
        elif direction.oldest_first(frame, date):  # the page's order is then time's
            pairs = tuple(direction.pairs_of(f, printed, result.get("restarts", ()))
                          for f in (frame, mirrored))
        return direction.decide(result, check(mirrored), what, pairs, opened)
    return direction.with_running(result)


def _rows_without_money(frame, settings: dict) -> list:
    """Rows with no amount in any column of money but the balance."""
    columns = settings.get("columns") or []
    balance = settings.get("balance_column")
    names = [c["name"] for i, c in enumerate(columns) if c["kind"] == "amount"
             and i != balance and c.get("output", True) and c["name"] in frame.columns]
    if not names or not len(frame):
        return []
    idle = frame[names].isna().all(axis=1)
    return [int(i) for i in idle[idle].index]


def _same_rows(frame, pages: list, settings: dict, extraction: tuple | None) -> bool:
    """Whether ``frame`` is what the engine reads from ``pages`` with ``settings``."""
    rows = (extraction or engine.extract(pages, settings))[0]
    if len(rows) != len(frame):
        return False
    try:
        return bool(dataframe.frame_of(rows, settings).equals(frame))
    except (KeyError, ValueError, TypeError, IndexError):
        return False


def intrinsic(frame, pages: list, settings: dict, apart: list | None = None,
              extraction: tuple | None = None) -> dict:
    """Verification without an answer key: the statement's own arithmetic and the accounting
    of every word. ``passed`` needs both; rows that do not add up are ``failed``; anything
    that could not be checked, or words no cell accounts for, leave it ``unverified``."""
    from . import ledger as ledger_mod

    # amounts printed on lines that are no row: read once, for the totals and the summary
    outside = reconcile_mod.amounts_outside_rows(pages, settings) if settings.get("columns") \
        else []
    if settings.get("columns") and extraction is None:  # once, for every check below
        extraction = engine.extract(pages, settings)
    same = extraction is not None and _same_rows(frame, pages, settings, extraction)
    arithmetic = _arithmetic(frame, settings, outside,
                             tablestarts.openings(extraction, settings) if same else None,
                             reconcile_mod.amounts_in_table(extraction, settings)
                             if extraction else None,
                             tablestarts.under_headings(extraction) if same else (),
                             tuple(tablestarts.new_tables(extraction)) if same else (),
                             tablestarts.amounts_among_rows(extraction, settings)
                             if same else (),
                             tablestarts.table_ends(extraction, settings) if same else None)
    reached = set((arithmetic.get("running") or {}).get("balances") or ()) | set(
        arithmetic.get("explained") or ())
    settings = _with_balance(settings, arithmetic)
    ledger = ledger_mod.build(pages, settings, apart, extraction, reached,
                              tuple(arithmetic.get("restarts") or ())) \
        if settings.get("columns") else None
    checks = [arithmetic, accounting(ledger)]
    same = ledger is not None and same
    if ledger is not None and not same:
        checks[1] = {"name": "words_accounted", "passed": None,
                     "detail": "the accounting reads the pages with the built-in engine, and "
                               "its rows are not the rows of this result"}
    if same:
        checks += [gutters.check(*extraction, settings), gutters.bands(*extraction, settings),
                   gutters.apart(*extraction, settings),
                   gutters.one_column_each(*extraction, settings)]
        checks += [c for c in (owners.check(*extraction, settings),
                               shapes.check(*extraction, settings),
                               dated.check(*extraction, settings)) if c]
    signed = printed.balances_as_printed(settings, arithmetic)
    checks += [signed] if signed else []
    marked = printed.signs_as_marked(extraction[0], settings, arithmetic) if same else None
    checks += [marked] if marked else []
    cut_short = pagecount.missing(pages)
    if settings.get("columns") and len(frame):
        checks.append(printed.check(outside, settings, frame,
                                    reconcile_mod.lines_outside_rows(pages, settings)))
        if cut_short and checks[-1]["passed"] is False:  # it counts rows the file lacks
            checks[-1] = dict(checks[-1], passed=None, detail=checks[-1]["detail"]
                              + f"; but {cut_short}, and the summary counts their rows too")
    if cut_short:
        whole = any(c["name"] == "summary_agrees" and c.get("complete") for c in checks)
        checks.append({"name": "pages_complete", "passed": True if whole else None,
                       "detail": cut_short + ("; but the summary's balances and totals are "
                                              "these rows': the pages missing print none"
                                              if whole else "")})
    hints = [textcheck.gutter_hint(pages, settings)] if settings.get("columns") else []
    if arithmetic["passed"] is False or any(c["passed"] is False for c in checks[2:]):
        status = "failed"
    else:
        undecided = any(c["name"] in _UNDECIDED and c["passed"] is None for c in checks)
        status = "passed" if arithmetic["passed"] and checks[1]["passed"] and not undecided \
            else "unverified"
    left = len(ledger.unaccounted) if ledger and checks[1]["passed"] is not None else 0
    if not len(frame):  # no row accounts for any word: the worst reading of its pages
        left = sum(len(words) for words in pages)
    # Failed arithmetic dominates; rows that do not reconcile and words left over rank the
    # rest, so that the search moves towards a result whose every word is accounted for.
    distance = {"failed": 1000 + arithmetic.get("bad_rows", 0) + left,
                "unverified": left, "passed": 0}[status]
    summary = "; ".join(f"{c['name']}: {c['detail']}" for c in checks)
    checks[0] = {k: v for k, v in checks[0].items() if k not in ("running", "explained")}
    return {"status": status, "mode": "intrinsic", "equal": None, "distance": distance,
            "checks": checks, "hints": [h for h in hints if h], "summary": summary,
            "accounting": ledger.to_dict() if ledger else None,
            "diagnostics": {"unaccounted": (ledger.unaccounted[:20] if ledger else []),
                            "row_count": {"got": len(frame)}}}


def on_words(words: list, settings: dict, frame=None, chars: list | None = None) -> dict:
    """``intrinsic`` from the reader's words (one list a page) read with ``settings``: of
    ``frame``, rows a parser returned, or without one of the rows the engine reads itself.
    The engine's reading is made once, for the accounting and for the rows alike."""
    pages, apart = engine.statement_pages(words, settings, chars)
    extraction = engine.extract(pages, settings)
    if frame is None:
        frame = dataframe.frame_of(extraction[0], settings)
    return intrinsic(frame, pages, settings, apart, extraction)
