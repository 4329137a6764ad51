"""`dua run`: reuse a generated parser on more statements, one or thousands (no agent, no LLM)."""
from __future__ import annotations

import json
import os
import sys

from ..errors import PolicyViolationError, UsageError

DESCRIPTION = (
    "Run a parser written by `dua parse` over one or many statements of the same bank, through "
    "the same safe execution, with no agent and no LLM. Each file's rows are put to the "
    "statement's own checks, as dua parse does without --expected: the balances and totals "
    "it prints, and every word of its table accounted for. Rows that pass become "
    "<out-dir>/<name>.csv (written atomically; .jsonl, .ofx or .qif with --format, the "
    "common schema with --normalize); rows that do not are written apart, as "
    "<name>.failed.csv (they do not add up), <name>.unverified.csv (the checks cannot tell) or "
    "<name>.unchecked.csv (they could not be checked: a parser not written by dua's engine), "
    "each with its reason on stderr, one line a file. A file whose output this same parser "
    "already made from this same PDF is skipped, keeping its verdict (<out-dir>/.dua/ records "
    "which parser and PDF made each CSV), so an interrupted batch is resumed by running the "
    "same command again. One bad file never stops the batch; a file where the parser finds no "
    "transaction fails too (see --allow-empty). Exit codes: 0 only when every file's rows "
    "passed their checks; else the highest of 1 (some file's rows failed, are unverified or "
    "not checked, --no-check included, or the parser found nothing in some file), 3 (some "
    "are bad PDFs), 4 (the parser failed on some file). --quiet silences progress, never "
    "the per-file verdicts or the summary of a non-zero exit."
)
EXAMPLES = """\
  python -m dua run custom_parsers/mybank_parser.py statement.pdf --out statement.csv
  python -m dua run custom_parsers/mybank_parser.py statement.pdf --out - | head
  python -m dua run custom_parsers/mybank_parser.py statements/*.pdf --out-dir out/
  python -m dua run custom_parsers/mybank_parser.py statements/*.pdf --out-dir out/ --format ofx
  python -m dua run custom_parsers/mybank_parser.py --from-list todo.txt --out-dir out/ --json > report.json
"""


def add_arguments(p) -> None:
    from ..review import options as review_options  # lazy: only this command's flags need it

    p.add_argument("parser", metavar="PARSER.py", help="a parser written by dua parse")
    p.add_argument("pdfs", metavar="PDF", nargs="*", help="statements to convert")
    p.add_argument("--from-list", metavar="FILE",
                   help="read PDF paths from FILE, one per line ('-' for stdin; # comments)")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--out", metavar="CSV",
                     help="output CSV (one PDF only); '-' writes it on stdout (not with --json, "
                     "which prints the report there); a device or a named pipe is written in place")
    out.add_argument("--out-dir", metavar="DIR", help="folder for <name>.csv outputs, and "
                     "<name>.failed|unverified|unchecked.csv for rows that did not pass "
                     "(default: .)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="files converted at once (default: one per CPU)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="seconds the parser may run on each file (default: 60)")
    from ..cli import add_read_options, add_row_options  # lazy: cli imports this module on use

    add_row_options(p)
    add_read_options(p)
    from .ocr import add_ocr_options

    add_ocr_options(p)
    p.add_argument("--password", help="password of encrypted statements")
    p.add_argument("--allow-empty", action="store_true",
                   help="a statement where the parser finds no transaction counts as converted "
                   "(by default it fails: it is most often another bank's or layout's statement)")
    p.add_argument("--force", action="store_true",
                   help="convert again even when this parser already made an output from this PDF")
    p.add_argument("--no-check", dest="check_rows", action="store_false",
                   help="skip each file's checks (its printed balances and totals, every word "
                   "of its table accounted for): faster; every file is 'not checked', its rows "
                   "go to <name>.csv as asked, and the exit is never 0 (1 when all converted): "
                   "nothing was verified")
    review_options.add_arguments(p, folder=True)


def read_list(path: str) -> list:
    """PDF paths from a list file: one per line, blank lines and '#' comments ignored."""
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8-sig") as fh:  # -sig: Notepad starts lists with a BOM
                text = fh.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"Cannot read the list {path}: {getattr(exc, 'strerror', None) or exc}",
                         hint="Pass --from-list with a text file of PDF paths.") from exc
    base = os.path.dirname(os.path.abspath(path)) if path != "-" else os.getcwd()
    lines = (line.strip() for line in text.splitlines())
    return [os.path.join(base, line) if not os.path.isabs(line) else line
            for line in lines if line and not line.startswith("#")]


def _is_pdf(path: str) -> bool:
    """A PDF by its first bytes (a parser is Python text), or by its name when unreadable."""
    try:
        with open(path, "rb") as fh:
            return fh.read(1024).lstrip().startswith(b"%PDF")
    except OSError:
        return path.lower().endswith(".pdf")


def _check_order(args, pdfs: list) -> None:
    """The parser first, then the PDFs: a PDF where the parser goes is a forgotten parser,
    or the two swapped, and is named as such.

    Raises:
        UsageError
    """
    if not _is_pdf(args.parser):
        return
    parsers = [p for p in pdfs if p.endswith(".py")]
    if parsers:
        raise UsageError(f"the parser comes first: {args.parser} is a PDF and {parsers[0]} "
                         "a parser", hint=f"Run: dua run {parsers[0]} {args.parser}")
    raise UsageError(f"{args.parser} is a PDF, not a parser: dua run needs the parser that "
                     "dua parse wrote, then the PDFs",
                     hint=f"Run: dua run custom_parsers/BANK_parser.py {args.parser} (or write "
                     f"one first: dua parse {args.parser} --bank BANK)")


def _check(args, pdfs: list) -> None:
    _check_order(args, pdfs)
    if not pdfs:
        raise UsageError("No PDF to convert", hint="Pass PDF paths or --from-list FILE.")
    if args.out and len(pdfs) != 1:
        raise UsageError(f"--out takes one PDF, got {len(pdfs)}", hint="Use --out-dir DIR for many PDFs.")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers must be at least 1, got {args.workers}", hint="See --help.")
    from .. import batch, outputs  # lazy: keeps --help fast

    if args.out == outputs.STDOUT and args.json:
        raise UsageError("--out - writes the CSV on stdout, where --json prints the report",
                         hint="Pass --out FILE with --json, or leave --json out.")
    inputs = (pdfs[0], args.parser, args.from_list)
    outputs.require_folder(args.out, "--out", args.mkdir)
    outputs.require_folder(args.out_dir, "--out-dir", args.mkdir, folder=True)
    if args.out:
        outputs.check_file(args.out, "--out")
        outputs.check_not_an_input(args.out, "--out", inputs)
    else:
        outputs.check_folder(args.out_dir or ".", "--out-dir")
        if args.from_list:  # the PDFs and the parser are the batch's to check; the list is ours
            planned = batch.output_paths(pdfs, args.out_dir or ".",
                                         "." + args.row_format).values()
            outputs.check_none_is_an_input(planned, "--out-dir", (args.from_list,))
    from ..sandbox import MAX_TIMEOUT, valid_timeout  # lazy: keeps dua --help fast

    if not valid_timeout(args.timeout):
        raise UsageError(f"--timeout must be seconds in (0, {MAX_TIMEOUT:g}], got {args.timeout}")
    from ..review import options as review_options  # lazy: keeps dua --help fast

    review_options.check(args)


class _ProgressLine:
    """One line on stderr: rewritten in place on a terminal, at most once a second otherwise.

    A failed file is reported as it happens, on a line of its own.
    """

    def __init__(self, stream=None):
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.shown_at = 0.0

    def __call__(self, progress) -> None:
        clear = "\r\x1b[K" if self.tty else ""
        if progress.last is not None and not progress.last.ok:
            self.stream.write(f"{clear}dua run: {_failure_line(progress.last)}\n")
        final = progress.done == progress.total
        if self.tty or final or progress.elapsed - self.shown_at >= 1.0:
            self.shown_at = progress.elapsed
            end = "\n" if final or not self.tty else ""
            self.stream.write(f"{clear}dua run: {progress.line()}{end}")
        self.stream.flush()


def _failure_line(result) -> str:
    message = (result.feedback or {}).get("user_message") or str(result.error)
    return f"failed {result.pdf_path}: {message}"


def run(args, settings) -> int:
    from .. import batch  # lazy: keeps dua --help fast
    from ..cli import feedback_for, read_budget  # lazy: cli imports this module on use
    from ..outputs import STDOUT

    pdfs = list(args.pdfs) + (read_list(args.from_list) if args.from_list else [])
    _check(args, pdfs)
    read_timeout = read_budget(args).seconds
    # A batch writes files (or a device, a pipe); stdout is this process's, written below.
    targets = {pdfs[0]: args.out} if args.out and args.out != STDOUT else None
    out_dir = None if args.out else (args.out_dir or ".")
    progress = None if args.quiet else _ProgressLine()
    try:
        batch.check_parser(args.parser)
    except PolicyViolationError as exc:  # ends the command: the handler hears it only once
        batch.no_agent(exc, pdfs[0])
        exc.feedback = feedback_for(exc, batch.AGENT_ID)
        raise
    from .ocr import searchable_copies

    # scans become searchable copies first: the parser's sandbox never starts tesseract
    with searchable_copies(args, pdfs) as copies:
        result = batch.run(args.parser, [copies.path(p) for p in pdfs], out_dir=out_dir,
                           outputs=copies.outputs(pdfs, args.out, out_dir) if copies.read
                           else targets, on_progress=progress, timeout=args.timeout,
                           password=args.password, workers=args.workers, resume=not args.force,
                           allow_empty=args.allow_empty, read_timeout=read_timeout,
                           check_rows=args.check_rows, row_format=args.row_format,
                           normalize=args.normalize)
        copies.restore(result)
    if args.out:
        _finish_out(args.out, result.results[0], args.check_rows)
    if args.quiet:  # no progress, but failures still go to stderr
        for failure in result.failed:
            print(f"dua run: {_failure_line(failure)}", file=sys.stderr)
    _print_verdicts(result)
    report = _report(args, result, copies)
    if args.json:
        print(json.dumps(report, indent=2))
    code = result.exit_code()
    if not args.quiet or code != 0:  # --quiet silences progress, never a non-zero verdict
        where = "stdout" if args.out == STDOUT else args.out or out_dir
        print(f"dua run: {_summary(result, where)}", file=sys.stderr)
        if args.review and not args.quiet:
            print(f"dua run: review -> {report['review_path']}", file=sys.stderr)
    return code


def _report(args, result, copies) -> dict:
    """The --json report (scans' searchable copies told of their PDFs), with the review
    pages when --review asks for them."""
    report = result.to_dict()
    copies.annotate(report)
    if args.review:
        from ..review import run_reviews  # lazy: only a review draws pages

        written = run_reviews(args.review, result, args.parser, args.password, args.review_dpi)
        report["review_path"] = written["index"]
        for entry in report["files"]:
            entry["review_path"] = written["files"].get(entry["pdf_path"])
    return report


def _print_verdicts(result) -> None:
    """One line on stderr for each file whose rows did not pass, saying why and where they
    went; files not checked by the user's choice (--no-check) share one line."""
    by_choice = 0
    for r in result.not_passed:
        if r.check is None:  # --no-check: the rows were not put to their checks
            by_choice += 1
            continue
        why = (r.check.get("summary") or "no check was made").strip().splitlines()
        print(f"dua run: {r.check_status} {r.pdf_path}: {why[0] if why else ''} "
              f"(rows in {r.output_path or 'the report'})", file=sys.stderr)
    if by_choice:
        print(f"dua run: not checked: the rows of {by_choice} file(s) were not put to their "
              "checks (--no-check), so they are not verified (exit 1)", file=sys.stderr)


def _finish_out(out: str, result, checked: bool) -> None:
    """The one CSV on stdout for ``--out -``, when its rows passed (or were not to be
    checked); rows that did not pass go apart, to ``./<name>.<verdict>.csv``. A named pipe
    that gets no rows (a failed file, rows gone apart) is given the end of its input."""
    from ..batch import verdict_path
    from ..outputs import STDOUT, end_stream, write_output  # lazy: keeps dua --help fast

    if result.ok and out == STDOUT:
        stem = os.path.splitext(os.path.basename(result.pdf_path))[0]
        target = STDOUT
        if checked and result.check_status != "passed":
            target = verdict_path(os.path.join(os.getcwd(), stem + ".csv"), result.check_status)
        frame = result.frame  # the rows' text where --normalize or --format made it
        write_output(target, frame if isinstance(frame, str) else
                     (lambda fh: frame.to_csv(fh, index=False)))
        result.output_path, result.frame = target, None
    elif not result.ok or result.output_path != out:
        end_stream(out)


def _summary(result, where: str) -> str:
    t = result.total()
    skipped = f" ({t['skipped']} already complete)" if t["skipped"] else ""
    checked = ", ".join(f"{n} {s}" for s, n in t["checks"].items() if n)
    return (f"{t['converted'] + t['skipped']} of {t['files']} files done{skipped}, {t['failed']} failed, "
            f"{t['rows']:,} rows in {t['seconds']:.1f}s -> {where}"
            + (f"; rows checked: {checked}" if checked else ""))
