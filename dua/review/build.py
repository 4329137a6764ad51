"""Each command's review, built from what the command produced and written to disk.

``parse_review`` and ``extract_review`` write one file; ``run_reviews`` writes one page per
statement and an index. Files are written by ``dua.outputs.write_output`` (whole or not at
all). A statement's boxes are its ledger (``dua.statements.verification.ledger``, in its
JSON form): the one the parse verified with, or, for ``dua run``, the one dua's own checks
build from the rows its engine reads with the parser's SETTINGS.
"""
from __future__ import annotations

import os
import re

from ..outputs import write_output
from ..statements.verification import rulesfired
from . import extraction, index, sources, statement


def parse_review(path: str, report: dict, pdf_path: str, password: str | None = None,
                 dpi: float | None = None, accounting: dict | None = None,
                 expected_path: str | None = None) -> str:
    """Write the review of a ``dua parse`` run from its ``--json`` report and the ledger it
    was verified with (``accounting``, the ledger's JSON form with its rows; the report's
    own account leaves the rows' boxes out); with the answer key (``expected_path``), each
    row beside the key's, the cells that differ marked; return ``path``."""
    expected = any(c.get("name") == "equals_expected" for c in report.get("checks", []))
    review, _ = _statement(pdf_path, report.get("parser_path"), report.get("output_path"),
                           password, dpi, accounting)
    if expected and expected_path:
        review.key_columns, review.key = sources.csv_table(expected_path)
    review.links = links(path, [("rows", report.get("output_path")),
                                ("parser", report.get("parser_path")),
                                ("answer key", expected_path if expected else None)])
    review.status, review.checks = report.get("status", "failed"), report.get("checks", [])
    review.mode = ("checked against the expected CSV" if expected
                   else "checked by its own arithmetic (no answer key)")
    if report.get("output_path") and ".partial" in os.path.basename(report["output_path"]):
        review.notes.insert(0, "The table holds the closest attempt's rows, which are not verified.")
    write_output(path, statement.render(review))
    return path


def check_review(path: str, report: dict, pdf_path: str, csv_path: str,
                 password: str | None = None, dpi: float | None = None,
                 settings: dict | None = None) -> str:
    """Write the review of a ``dua check`` run: the rows of ``csv_path`` beside the page,
    each cell outlined where the reading that matched them found it, and the reading rules
    of that reading (``settings``); return ``path``."""
    review, _ = _statement(pdf_path, None, csv_path, password, dpi,
                           report.get("accounting") or {"rows": [], "furniture": [],
                                                        "unaccounted": []}, settings)
    review.status, review.checks = report.get("status", "failed"), report.get("checks", [])
    review.mode = "rows from elsewhere, checked against the statement (dua check)"
    review.links = links(path, [("rows", csv_path)])
    write_output(path, statement.render(review))
    return path


def _statement(pdf_path: str, parser_path: str | None, csv_path: str | None,
               password: str | None, dpi: float | None, accounting: dict | None = None,
               read_with: dict | None = None) -> tuple:
    """``(StatementReview, reading)``: everything but the verdict, and what dua's checks
    found in the engine's rows when ``accounting`` was not given (else None).
    ``read_with``: the settings the rows were read with, where no parser holds them."""
    from ..pdf import DEFAULT_DPI  # lazy: the PDF libraries load only when a review is drawn

    pages = sources.read_pages(pdf_path, password, dpi or DEFAULT_DPI)
    settings, why = sources.parser_settings(parser_path) if parser_path else (read_with, "")
    notes, reading = list(pages.notes), None
    if accounting is None:
        reading, unfit = sources.engine_reading(pages.words, settings, pages.chars)
        accounting, why = (reading or {}).get("accounting"), why or unfit
    columns, table = sources.csv_table(csv_path)
    rules = rulesfired.fired(settings, pages.words, pages.chars)
    if why:
        notes.append(f"No row is drawn on the pages: {why}.")
    placed = len((accounting or {}).get("rows", []))
    if accounting is not None and placed != len(table):
        notes.append(f"The pages show {placed} rows and the CSV has {len(table)}: rows past "
                     "the shorter of the two have no twin.")
    return statement.StatementReview(pdf_path, "", columns=columns, table=table,
                                     accounting=accounting, pages=pages.images,
                                     notes=notes, rules=rules), reading


def extract_review(path: str, result: dict, pdf_path: str, password: str | None = None,
                   dpi: float | None = None) -> str:
    """Write the review of a ``dua extract`` result; return ``path``."""
    from ..pdf import DEFAULT_DPI  # lazy

    numbers = (result.get("source") or {}).get("pages_read")
    pages = sources.read_pages(pdf_path, password, dpi or DEFAULT_DPI, numbers, with_words=False)
    sizes = {p["number"]: (p["width"], p["height"]) for p in result.get("pages", [])}
    for image in pages.images:  # the elements' boxes are in the reader's frame
        image.width, image.height = sizes.get(image.number, (image.width, image.height))
    write_output(path, extraction.render(result, pages.images, pages.notes))
    return path


def run_reviews(folder: str, result, parser_path: str, password: str | None = None,
                dpi: float | None = None) -> dict:
    """One page per statement of a ``dua run`` and ``index.html``; return their paths:
    ``{"index": path, "files": {pdf_path: path}}``."""
    entries, files, taken = [], {}, set()
    for r in result.results:
        name = page_name(r.pdf_path, taken)
        review, verdict, detail = _run_file(r, parser_path, password, dpi)
        files[r.pdf_path] = os.path.join(folder, name)
        review.links = links(files[r.pdf_path], [("rows", r.output_path), ("parser", parser_path)])
        review.links.append(("every statement of this run", "index.html", "index.html"))
        write_output(files[r.pdf_path], statement.render(review))
        rows = links(os.path.join(folder, "index.html"), [("rows", r.output_path)])
        entries.append(index.IndexEntry(r.pdf_path, name, r.status, r.rows, verdict, detail,
                                        rows[0][1] if rows else ""))
    home = os.path.join(folder, "index.html")
    parser = links(home, [("parser", parser_path)])
    write_output(home, index.render(entries, parser_path, parser[0][1] if parser else ""))
    return {"index": home, "files": files}


def links(review_path: str, targets: list) -> list:
    """``(what, href, shown)`` for each file that exists, its href relative to the review's
    folder (the review and its files move together)."""
    from urllib.parse import quote  # lazy: keeps import dua fast

    here = os.path.dirname(os.path.abspath(review_path))
    out = []
    for what, target in targets:
        if target and target != "-" and os.path.isfile(target):
            rel = os.path.relpath(os.path.abspath(target), here).replace(os.sep, "/")
            out.append((what, quote(rel), os.path.basename(target)))
    return out


def page_name(pdf_path: str, taken: set) -> str:
    """A file name for a statement's page: its own name in safe characters, made unique."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "_", os.path.splitext(os.path.basename(pdf_path))[0])
    stem = stem.strip("_-") or "statement"
    name, n = f"{stem}.html", 1
    while name in taken or name == "index.html":
        n += 1
        name = f"{stem}-{n}.html"
    taken.add(name)
    return name


def _run_file(r, parser_path: str, password, dpi) -> tuple:
    """``(review, verdict, detail)`` of one file of a run."""
    review, reading = _statement(r.pdf_path, parser_path, r.output_path, password, dpi)
    if not r.ok:
        review.status = "failed"
        detail = str((r.feedback or {}).get("user_message") or r.error or "failed")
        review.notes.insert(0, f"dua run failed on this file: {detail}")
        return review, "", detail
    review.notes.insert(0, f"dua run {r.status} it: {r.rows} rows" +
                        (f" in {r.output_path}" if r.output_path else ""))
    if reading is None:
        review.status = r.status
        return review, "", "no checks could run on this parser's rows"
    review.status, review.checks = reading["status"], reading["checks"]
    review.mode = "dua's own checks of the engine's rows (as dua parse makes them without --expected)"
    return review, reading["status"], reading["summary"]
