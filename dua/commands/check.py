"""`dua check`: put rows from anywhere to a statement's own checks."""
from __future__ import annotations

import json
import sys
import time

from ..errors import EXIT_NOT_VERIFIED, EXIT_OK

DESCRIPTION = """\
Check rows that any tool extracted from a statement (a saved parser's output, another
program's, a hand-made CSV) against the statement itself. The rows are located on the
page by their own values, the way an answer key is; the page read with what that teaches
(its columns, date and number notations) must give back exactly these rows, and the page
read that way must pass the statement's own checks: the running balances reconcile row by
row, every balance, total and subtotal printed about the rows agrees with them, and every
word of the table, from its column heading to its end on every page it runs over, is in
its cell or on a line whose reason the arithmetic confirms.

passed (exit 0): every check that could be made held. failed (exit 1): a check does not
hold, or the page reads to other rows that do verify. unverified (exit 1): nothing on the
page could prove the rows right or wrong, and the report says what could not be checked.
The CSV follows the answer-key convention: the statement's own column names, dates as
printed, amounts as numbers, one row per transaction in page order (or as --normalize wrote
it: the common schema, then those columns). --out FILE writes the rows checked again, as
--normalize and --format csv|jsonl|ofx|qif ask."""
EXAMPLES = """\
  python -m dua check statement.pdf rows.csv
  python -m dua check statement.pdf rows.csv --json > verdict.json
  python -m dua check statement.pdf rows.csv --review check.html
  python -m dua check statement.pdf rows.csv --format ofx --out rows.ofx
  python -m dua run custom_parsers/mybank_parser.py june.pdf --out june.csv; python -m dua check june.pdf june.csv
"""


def add_arguments(p) -> None:
    from ..cli import add_read_options, add_row_options  # lazy: cli imports this on use
    from ..review import options as review_options

    p.add_argument("pdf", metavar="STATEMENT.pdf", help="the statement the rows come from")
    p.add_argument("rows", metavar="ROWS.csv", help="the rows to check (answer-key convention, "
                   "or as --normalize writes them)")
    p.add_argument("--out", metavar="FILE", help="write the checked rows there too, as "
                   "--normalize and --format ask ('-': on stdout, not with --json)")
    add_row_options(p)
    p.add_argument("--password", metavar="PW", help="password of an encrypted PDF")
    add_read_options(p)
    from .ocr import add_ocr_options

    add_ocr_options(p)
    review_options.add_arguments(p)


def run(args, settings) -> int:
    from .. import pdf
    from ..cli import read_budget
    from ..review import options as review_options
    from ..statements.learning import analysis
    from ..statements.verification import verify
    from ..statements.agent import rowcheck
    from ..statements.output import ledgerkey
    from . import figures, ocr

    started = time.perf_counter()
    review_options.check(args, (args.pdf, args.rows))
    _check_out(args)
    pdf.check_file(args.pdf)  # a missing PDF is said before anything is read
    rows = verify.load_expected(args.rows, "ROWS.csv")  # before the reading: costs nothing
    if not args.quiet:
        print(f"dua check: reading {args.pdf}", file=sys.stderr, flush=True)
    judge = None if ledgerkey.is_ledger_key(args.rows) else \
        figures.rows_judge(rows, args.password, read_budget(args))
    with ocr.searchable_copy(args, args.pdf, ocr.progress_printer("check", args.quiet),
                             judge) as (read, scanned):
        reading = pdf.start_reading(read, args.password, budget=read_budget(args))
        try:
            doc = reading.document()
        finally:
            reading.cancel()
    pdf.require_text_layer(doc)
    pages, apart = analysis.statement_pages(doc)
    if not args.quiet:
        print(f"dua check: checking {len(rows)} rows on {len(pages)} page(s)", file=sys.stderr,
              flush=True)
    if ledgerkey.is_ledger_key(args.rows):
        verdict = _check_ledger(pages, apart, rows, reading.pages, args.rows)
    else:
        verdict = rowcheck.check(pages, apart, rows)
    verdict = ocr.checked_scan(verdict, rows, scanned)
    if args.out:
        _write_rows(args, rows, reading.pages, verdict.settings)
    report = dict(verdict.to_dict(), pdf=args.pdf, csv=args.rows,
                  seconds=round(time.perf_counter() - started, 3))
    if scanned:
        report["ocr"] = ocr.report_of(scanned)
    if args.review:
        from ..review import check_review  # lazy: only a review draws pages

        report["review_path"] = check_review(args.review, report, args.pdf, args.rows,
                                             args.password, args.review_dpi,
                                             verdict.settings)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    else:
        _print_human(report, sys.stderr if args.out == "-" else sys.stdout, sys.stderr,
                     args.quiet)  # with --out - stdout holds the rows alone
    return EXIT_OK if verdict.status == "passed" else EXIT_NOT_VERIFIED


def _check_ledger(pages: list, apart: list, rows, reader_pages: list, path: str):
    """Rows in the common schema alone (ISO date, one signed amount) say nothing of where
    the page prints its columns: the page is read on its own, and its reading, when it
    passes the statement's checks, must normalise to these rows (dates, amounts, balances).
    Descriptions are not compared, and the verdict says so."""
    from ..errors import DuaError
    from ..statements.table import dataframe, engine
    from ..statements.learning import analysis
    from ..statements.verification import verify
    from ..statements.agent import writer
    from ..statements.agent.rowcheck import RowsCheck
    from ..statements.output import ledgerkey, normalize

    found = analysis.layout_of(pages)
    try:
        settings = writer.BuiltinWriter(pages, found, apart=apart).write().settings
        extraction = engine.extract(pages, settings)
        frame = dataframe.frame_of(extraction[0], settings)
        own = verify.intrinsic(frame, pages, settings, apart, extraction)
        normalized = normalize.normalize(frame, [p["words"] for p in reader_pages], settings,
                                         [p.get("chars") for p in reader_pages])
    except (LookupError, DuaError) as exc:
        why = {"name": "rows_read_back", "passed": None,
               "detail": "the rows hold the common schema alone, so the page is read on its "
                         f"own, and it cannot be: {exc}"}
        return RowsCheck("unverified", [why], None, None, len(rows))
    judged = ledgerkey.judge(normalized, path)
    judged["detail"] += " (descriptions not compared: the common schema's rows do not say " \
                        "where the page prints them)" if judged["passed"] else ""
    if own["status"] == "passed":
        status = "passed" if judged["passed"] else "failed"
        return RowsCheck(status, [judged] + own["checks"], settings, own.get("accounting"),
                         len(rows))
    note = {"name": "page_verifies", "passed": None,
            "detail": "read on its own, the page does not pass its checks, so it cannot "
                      f"say whether these rows are right ({own['summary'].split(';')[0]})"}
    return RowsCheck("unverified", [judged, note], settings, own.get("accounting"), len(rows))


def _check_out(args) -> None:
    """--out, before any reading: a usable destination that is not an input.

    Raises:
        UsageError
    """
    from .. import outputs  # lazy: keeps dua --help fast
    from ..errors import UsageError

    if args.out is None:
        if args.normalize or args.row_format != "csv":
            raise UsageError("--normalize and --format say how to write the rows: pass --out",
                             hint="Pass --out FILE (or --out - for stdout).")
        return
    if args.out == outputs.STDOUT and args.json:
        raise UsageError("--out - writes the rows on stdout, where --json prints the report",
                         hint="Pass --out FILE with --json, or leave --json out.")
    outputs.require_folder(args.out, "--out", args.mkdir)
    outputs.check_file(args.out, "--out")
    outputs.check_not_an_input(args.out, "--out", (args.pdf, args.rows))


def _write_rows(args, rows, reader_pages: list, settings: dict | None) -> None:
    from ..outputs import write_output  # lazy: only --out needs them
    from ..statements.output.normalize import rows_text

    write_output(args.out, rows_text(rows, args.row_format, args.normalize, reader_pages,
                                     settings))


def _print_human(report: dict, out, err, quiet: bool) -> None:
    """The verdict and each check, one line each; under --quiet only a verdict that is not
    ``passed``, on stderr, so that a script's log still says why it stopped."""
    head = f"{report['status']}: {report['rows']} rows of {report['csv']} against {report['pdf']}"
    why = next((c for c in report["checks"] if c["passed"] is False), None) or next(
        (c for c in report["checks"] if c["passed"] is None and not c.get("note")), None)
    if report["status"] != "passed" and why:
        head += f" ({why['name']}: {why['detail']})"
    if quiet:
        if report["status"] != "passed":
            print(f"dua check: {head}", file=err)
        return
    print(head, file=out)
    for check in report["checks"]:
        mark = {True: "ok", False: "FAILED", None: "not checked"}[check["passed"]]
        print(f"  {check['name']}: {mark} - {check['detail']}", file=out)
    from .ocr import twice_lines

    for line in twice_lines(report.get("ocr") or {}):
        print(f"  ocr: {line}", file=out)
    if report.get("review_path"):
        print(f"review: {report['review_path']}", file=out)
