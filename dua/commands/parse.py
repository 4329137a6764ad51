"""`dua parse`: write, run and verify a parser for a bank statement (seed 001's agent)."""
from __future__ import annotations

import glob
import json
import os
import sys
import time

from ..errors import EXIT_NOT_VERIFIED, EXIT_OK, DocumentNotFoundError, UsageError

DESCRIPTION = """\
Write custom_parsers/BANK_parser.py for a bank statement, run it safely, verify the
result (against --expected, or by its own running balances without one), refine it until
it is right, and write the transactions as CSV. The built-in writer needs no network;
--provider openai|gemini lets an LLM write the parser, falling back to the built-in one.
The parser is a standalone file: reuse it with `dua run` on every later statement. It starts
with its provenance (dua's version, the PDF's sha256, the verdict and its checks, the date).
A run that does not pass never replaces a parser that passed: it keeps its attempt beside it,
as BANK_parser.failed.py (or .unverified.py), and says so. Exit 0 when the result passed, 1
when it did not (its verdict line is printed even with --quiet).

When a step fails (the parser crashes, the result does not match, the LLM is down, the PDF
cannot be read) the Error Handler decides what happens next: refine the parser, retry the
LLM after a delay, fall back to the built-in writer, or stop and say what to do. Each
decision is a line on stderr and an entry in the --json report's "recovery" list
{node, error_code, error_id, next_action, step, delay_s, automated_actions, user_message,
recovery_suggestions}; a failed run's "feedback" is the handler's own answer."""
EXAMPLES = """\
  python -m dua parse statement.pdf --bank mybank --expected result.csv
  python -m dua parse statement.pdf --bank mybank --out transactions.csv --json
  python -m dua parse statement.pdf --bank mybank --normalize --out rows.csv   # one schema
  python -m dua parse statement.pdf --bank mybank --out - --quiet | head   # the CSV on stdout
  python -m dua parse --target icici            # data/icici/*.pdf and data/icici/result.csv
  python -m dua parse big.pdf --bank mybank --checkpoint run.json   # then, if interrupted:
  python -m dua parse --checkpoint run.json --resume
"""


def add_arguments(p) -> None:
    from ..cli import add_llm_options, add_read_options, add_row_options  # lazy: cli imports this
    from ..review import options as review_options

    p.add_argument("pdf", nargs="?", help="the statement PDF")
    p.add_argument("--bank", help="bank name: the parser is saved as PARSERS_DIR/BANK_parser.py")
    p.add_argument("--target", metavar="NAME",
                   help="challenge convention: data/NAME/*.pdf with data/NAME/result.csv")
    p.add_argument("--expected", metavar="CSV", help="known-good CSV the result must equal")
    p.add_argument("--out", metavar="CSV", help="where to write the transactions "
                   "(default: PARSERS_DIR/BANK_result.csv); '-' writes them on stdout (not with "
                   "--json, which prints the report there; the summary goes to stderr); a device "
                   "or a named pipe is written in place, and a failed run's rows go to "
                   "PARSERS_DIR/BANK_result.partial.csv instead")
    p.add_argument("--parsers-dir", default="custom_parsers", metavar="DIR",
                   help="folder for generated parsers (default: custom_parsers)")
    p.add_argument("--max-retries", type=int, default=3, metavar="N",
                   help="at most N refinements after the first attempt; the Error Handler "
                   "may stop sooner (default: 3)")
    p.add_argument("--password", metavar="PW", help="password of an encrypted PDF")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="seconds the generated parser may run (default: 60)")
    add_row_options(p)
    add_read_options(p)
    from .ocr import add_ocr_options

    add_ocr_options(p)
    p.add_argument("--checkpoint", metavar="FILE",
                   help="save the run's state to FILE (a file: --resume reads it) after every step")
    p.add_argument("--resume", action="store_true",
                   help="continue the interrupted run saved in --checkpoint FILE")
    review_options.add_arguments(p)
    add_llm_options(p)
    p.add_argument("--llm-mode", choices=("code", "settings"), default="code",
                   help="with an LLM: write free code, or answer the built-in engine's settings "
                   "as JSON (best for small local models)")


def resolve_inputs(args) -> tuple:
    """(pdf, bank, expected) from PDF/--bank/--expected or from --target NAME.

    Raises:
        UsageError, DocumentNotFoundError
    """
    if args.target:
        folder = os.path.join("data", args.target)
        pdfs = sorted(glob.glob(os.path.join(folder, "*.pdf")))
        if not pdfs:
            raise DocumentNotFoundError(
                f"No PDF in {folder}", path=folder,
                hint="--target NAME reads data/NAME/*.pdf from the current folder.")
        expected = args.expected or os.path.join(folder, "result.csv")
        return args.pdf or pdfs[0], args.bank or args.target, expected
    if not args.pdf or not args.bank:
        raise UsageError("dua parse needs a PDF and --bank NAME (or --target NAME)",
                         hint="Example: python -m dua parse statement.pdf --bank mybank")
    return args.pdf, args.bank, args.expected


def _key_frame(expected: str | None):
    """The answer key's rows, for judging a scan's figures by (None without a key, or where
    it cannot be read: the run says why, in its own words)."""
    if not expected:
        return None
    from ..errors import DuaError
    from ..statements.verification import verify

    try:
        return verify.load_expected(expected)
    except (DuaError, OSError):
        return None


def check_destinations(args, pdf: str | None, bank: str | None, expected: str | None) -> None:
    """Refuse, before any work, outputs that only the end of the run would find unusable:
    --out - with --json (both on stdout), a checkpoint or parser path that is not a file, an
    output that is an input, two outputs that are one file.

    Raises:
        UsageError
    """
    from .. import outputs  # lazy: keeps dua --help fast
    from ..statements.agent import provenance

    if expected and not os.path.isfile(expected):  # exit 2, before the PDF is read
        raise UsageError(f"No such file: {expected} (--expected)",
                         hint="Check the --expected path, or leave --expected out.")
    if args.out == outputs.STDOUT and args.json:
        raise UsageError("--out - writes the CSV on stdout, where --json prints the report",
                         hint="Pass --out FILE with --json, or leave --json out.")
    if args.checkpoint:
        outputs.check_file(args.checkpoint, "--checkpoint", streams=False)
    if bank is None:  # --resume: the run's own paths are in its checkpoint
        outputs.require_folder(args.out, "--out", args.mkdir)
        return
    outputs.check_folder(args.parsers_dir, "--parsers-dir")
    parser = provenance.parser_path(args.parsers_dir, provenance.check_bank(bank))
    partial = provenance.result_path(args.out, args.parsers_dir, bank, partial=True)
    outputs.check_file(parser, "the parser file", streams=False)
    kept_apart = [(provenance.apart_path(args.parsers_dir, bank, v), "the parser file")
                  for v in ("attempt", "failed", "unverified")]
    for path, what in [(parser, "the parser file"), (partial, "the partial CSV")] + kept_apart:
        outputs.check_not_an_input(path, what, (pdf, expected))
    outputs.check_apart(((args.out, "--out"), (args.checkpoint, "--checkpoint"),
                         (parser, "the parser file"), (partial, "the partial CSV")))
    # PARSERS_DIR is dua's own folder, made with the parser: an output there needs no --mkdir
    folder = os.path.dirname(os.path.abspath(args.out or ""))
    if args.out and folder != os.path.abspath(args.parsers_dir):
        outputs.require_folder(args.out, "--out", args.mkdir)


def _ledger_key(expected: str | None) -> str | None:
    """``expected`` when it is a key in the common schema alone (see ``ledgerkey``)."""
    if not expected:
        return None
    from ..statements.output import ledgerkey  # lazy: keeps dua --help fast

    return expected if ledgerkey.is_ledger_key(expected) else None


def _judge_by_ledger(report: dict, state, key: str, password: str | None) -> None:
    """The key decides: the rows, normalised, must equal it (its verdict and check join
    the report's)."""
    from ..statements.output import ledgerkey
    from ..statements.output.normalize import normalize_statement

    if state.generated_df is None:
        return
    found = normalize_statement(state.generated_df, state.pdf_path, password=password,
                                settings=state.writer_settings)
    check = ledgerkey.judge(found, key)
    report["checks"].insert(0, check)
    report["status"] = "passed" if check["passed"] else "failed"
    if check["passed"]:  # the key decides: what the page alone could not tell is moot
        report.pop("feedback", None)
    else:
        report["feedback"] = {"user_message": f"the rows do not equal the key: {check['detail']}"}


def _render(args, notes: dict):
    """The rows' text as --normalize and --format ask (None: the statement's own CSV);
    ``notes`` receives how each field of the common schema was found."""
    if not args.normalize and args.row_format == "csv":
        return None

    def render(frame, state, ctx) -> str:
        from ..statements.output.normalize import rows_text  # lazy: only these outputs need it

        return rows_text(frame, args.row_format, args.normalize, ctx.words,
                         state.writer_settings, account=state.target_bank, notes=notes)

    return render


def _progress(args):
    if args.quiet:
        return None, None

    def on_event(event) -> None:
        extra = f" -> {event.next}" if event.next and event.outcome == "ok" else ""
        print(f"dua parse: {event.node:<8} {event.outcome} {event.duration:6.2f} s{extra}",
              file=sys.stderr, flush=True)

    def on_progress(line: str) -> None:
        print(f"dua parse: {line}", file=sys.stderr, flush=True)

    return on_event, on_progress


def run(args, settings) -> int:
    from ..cli import feedback_for, read_budget  # lazy
    from ..errors import VerificationError
    from ..review import options as review_options
    from ..statements.agent.agent import resume_agent, run_agent
    from ..statements.agent.recovery import AGENT_ID
    from . import figures, ocr

    scanned = None
    started = time.perf_counter()
    on_event, on_progress = _progress(args)
    review_options.check(args, (args.pdf, args.expected), (args.out,))
    normalized: dict = {}  # how --normalize found each field, for the report
    common = dict(out=args.out, parsers_dir=args.parsers_dir, settings=settings,
                  render=_render(args, normalized),
                  password=args.password, timeout=args.timeout, on_event=on_event,
                  on_progress=on_progress, llm_mode=args.llm_mode, read_budget=read_budget(args))
    if args.resume:
        if not args.checkpoint:
            raise UsageError("--resume needs --checkpoint FILE", hint="Pass the same --checkpoint.")
        check_destinations(args, None, None, None)
        state = resume_agent(args.checkpoint, **common)
        bank = state.target_bank
    else:
        pdf, bank, expected = resolve_inputs(args)
        ledger = _ledger_key(expected)
        if ledger:  # it cannot teach the page's columns: the parser is learned without it
            expected = None
        if args.out is None and args.row_format != "csv":  # BANK_result.ofx, not .csv
            args.out = common["out"] = os.path.join(args.parsers_dir,
                                                    f"{bank}_result.{args.row_format}")
        check_destinations(args, pdf, bank, expected)
        judge = figures.statement_judge(args.password, _key_frame(expected), read_budget(args))
        with ocr.searchable_copy(args, pdf, ocr.progress_printer("parse", args.quiet),
                                 judge) as (read, scanned):
            state = run_agent(read, bank, expected=expected, max_retries=args.max_retries,
                              checkpoint=args.checkpoint, **common)
        state = ocr.verdict(state, pdf, scanned, args.out, args.parsers_dir)
    report = summary(state, time.perf_counter() - started)
    if normalized:
        report["normalized"] = normalized
    if scanned:
        report["ocr"] = ocr.report_of(scanned, state)
    if state.feedback:  # the handler's answer that ended the run (its budget or our cap)
        report["feedback"] = state.feedback
    elif state.final_status != "passed":  # unverified: ran, but nothing could prove it
        why = state.comparison_result.get("summary") or "; ".join(state.errors[-2:])
        exc = VerificationError(f"The parser for {bank} is {state.final_status}: "
                                f"{why.splitlines()[0] if why else 'no result'}")
        report["feedback"] = feedback_for(exc, AGENT_ID)
    if not args.resume and ledger:
        _judge_by_ledger(report, state, ledger, args.password)
    if args.review:
        from ..review import parse_review  # lazy: only a review draws pages

        report["review_path"] = parse_review(args.review, report, state.pdf_path, args.password,
                                             args.review_dpi,
                                             state.comparison_result.get("accounting"),
                                             state.expected_csv_path)
    if args.json:
        print(json.dumps(report, indent=2, default=str))
    elif not args.quiet:  # with --out - stdout holds the CSV alone
        _print_human(report, sys.stderr if args.out == "-" else sys.stdout)
    code = EXIT_OK if report["status"] == "passed" else EXIT_NOT_VERIFIED
    _print_verdict(report, quiet=args.quiet and code != EXIT_OK)
    return code


def _print_verdict(report: dict, quiet: bool) -> None:
    """What --quiet never silences: the verdict of a run that did not pass, and which parser
    was kept (the user's parser did not change)."""
    if quiet:
        why = (report.get("feedback") or {}).get("user_message") or "not verified"
        print(f"dua parse: {report['status']}: {why}", file=sys.stderr)
    if report["kept_parser_path"]:
        print(f"dua parse: kept {report['kept_parser_path']}, which only a parser that passes "
              f"replaces; this {report['status']} attempt is at {report['parser_path']}",
              file=sys.stderr)


def summary(state, seconds: float) -> dict:
    """The --json object: status, bank, attempts, LLM usage, paths, rows, seconds, checks."""
    from ..statements.learning import keyspec  # lazy: keeps dua --help fast
    from ..statements.agent import provenance

    result = state.comparison_result
    checks = provenance.checks_of(result)
    parser = state.parser_file_path
    own = provenance.parser_path(os.path.dirname(parser), state.target_bank) if parser else ""
    return {"status": state.final_status, "bank": state.target_bank,
            "attempts": len(state.attempts), "llm_calls": state.llm_calls, "tokens": state.tokens,
            "parser_path": parser, "kept_parser_path": own if parser and parser != own else None,
            "output_path": state.output_csv_path,
            "rows": state.rows, "seconds": round(seconds, 3), "checks": checks,
            "writer": state.writer, "fallback_reason": state.fallback_reason,
            "notes": keyspec.notes(state.writer_settings),
            "accounting": _accounting(result.get("accounting")),
            "recovery": state.recovery, "history": state.attempts}


def _accounting(ledger: dict | None) -> dict | None:
    """The ledger's account for the report: words in cells, furniture lines by reason, the
    unaccounted words; the rows' boxes stay in the review page."""
    if not ledger:
        return None
    reasons: dict = {}
    for line in ledger["furniture"]:
        reasons[line["reason"]] = reasons.get(line["reason"], 0) + 1
    return {"words_in_cells": ledger["words_in_cells"],
            "words_unaccounted": ledger["words_unaccounted"], "pages": ledger["pages"],
            "furniture_by_reason": reasons, "furniture": ledger["furniture"],
            "unaccounted": ledger["unaccounted"]}


def _print_human(report: dict, out) -> None:
    print(f"{report['status']}: {report['rows']} rows from {report['bank']} in "
          f"{report['seconds']:.2f} s ({report['attempts']} attempt(s), {report['llm_calls']} LLM calls)",
          file=out)
    print(f"parser: {report['parser_path']}", file=out)
    if report["output_path"]:
        partial = " (partial: the rows of the closest attempt, not verified)" \
            if report["status"] == "failed" else ""
        print(f"output: {report['output_path']}{partial}", file=out)
    if report.get("review_path"):
        print(f"review: {report['review_path']}", file=out)
    for note in report.get("notes", []):
        print(f"  note: {note}", file=out)
    for field, how in (report.get("normalized") or {}).get("notes", {}).items():
        print(f"  {field}: {how}", file=out)
    for check in report["checks"]:
        mark = "note" if check.get("note") else \
            {True: "ok", False: "FAILED", None: "not checked"}[check["passed"]]
        detail = check["detail"].splitlines()[0] if check["detail"] else ""
        print(f"  {check['name']}: {mark} - {detail}", file=out)
    scanned = report.get("ocr")
    if scanned:
        print(f"  descriptions: {scanned['descriptions']} (pages {scanned['pages']} read by "
              f"{scanned['engine']})", file=out)
        from .ocr import twice_lines

        for line in scanned.get("near_failures", []) + twice_lines(scanned):
            print(f"  ocr: {line}", file=out)
    if report.get("fallback_reason"):
        print(f"dua parse: note: {report['fallback_reason']}", file=sys.stderr)
    told = any(r["step"] in ("ask", "stop") for r in report["recovery"])
    if report.get("feedback") and not told:  # a handler's ending was already a progress line
        print(f"dua parse: {report['feedback']['user_message']}", file=sys.stderr)
