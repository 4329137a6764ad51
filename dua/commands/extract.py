"""`dua extract`: turn a PDF into typed elements (JSON or Markdown), nothing lost."""
from __future__ import annotations

import json

from .. import outputs
from ..errors import EXIT_OK, CoverageError, DuaError, UnexpectedError, UsageError

DESCRIPTION = """\
Turn a PDF into typed elements: headings (with levels), paragraphs, lists, tables,
figures, captions, running headers and footers, page numbers. Every word of the
PDF's text layer ends up in exactly one element. The built-in rule classifier is
the default (no network); --provider also asks an LLM, in batches, about the blocks
the rules are unsure of. An answer the schema cannot take is asked again once with
the validation error; a block whose answer is still unusable keeps the rules' type
with annotations.classification_error, and only a block neither the rules nor the
LLM can type is kept as an unclassified_text_block with the error attached.

JSON result (schema "dua.extract/1"): {source: {path, pages_read, metadata},
pages: [{number, width, height, words, chars}], elements: [{type, bbox, page_number,
block_ids, ...type keys}], stats: {pages, blocks, words, elements, counts (per type),
unclassified, classifier, llm_calls, seconds, recovery, and with an LLM llm_batches,
llm_retried_blocks, llm_reasked (answers asked again), llm_mapped (answers mapped to
the schema's names), llm_kept_rules, llm_errors (per seed-000 error type), llm_down,
json_mode}}.

When the LLM fails, dua's Error Handler decides what happens next: a transient
failure (timeout, 429, 5xx, connection) is retried after its backoff delay up to 3
times, then the built-in rules classify every block left; an unusable LLM (bad key,
quota, unknown model) goes to the rules at once; what the handler escalates ends the
run with that error. Each decision is a progress line on stderr and an entry of
stats.recovery: {node, batch, error_code, error_id, next_action, step, delay_s,
automated_actions, user_message, recovery_suggestions}; stats.llm_down repeats the
final one with the handler's user_message."""
EXAMPLES = """\
  python -m dua extract report.pdf                       # JSON on stdout
  python -m dua extract report.pdf --format markdown --out report.md
  python -m dua extract report.pdf --out - | jq '.stats'   # '-' is stdout too
  python -m dua extract statement.pdf --pages 1-2 --password s3cret
  python -m dua extract report.pdf --provider openai --base-url http://127.0.0.1:11434/v1 --model qwen2.5
"""


def add_arguments(p) -> None:
    from .. import cli  # lazy: cli imports this module only when the command runs
    from ..review import options as review_options

    p.add_argument("file", metavar="FILE.pdf", help="the PDF to read")
    p.add_argument("--format", choices=("json", "markdown"), default="json",
                   help="output format (default: json)")
    p.add_argument("--out", metavar="FILE",
                   help="write the result here (default and '-': stdout); a file is replaced "
                   "whole, a device or a named pipe is written in place")
    p.add_argument("--pages", metavar="RANGES", help="pages to read, 1-based: 1-3,5 (default: all)")
    p.add_argument("--password", help="password of an encrypted PDF")
    p.add_argument("--batch-size", type=int, default=20, metavar="N",
                   help="blocks per LLM call (default: 20)")
    review_options.add_arguments(p)
    cli.add_read_options(p)
    from .ocr import add_ocr_options

    add_ocr_options(p)
    cli.add_llm_options(p)


MAX_PAGE = 100_000


def parse_pages(spec: str | None) -> list | None:
    """``"1-3,5"`` -> ``[1, 2, 3, 5]``.

    Raises:
        UsageError: not a list of positive page numbers and ranges.
    """
    if not spec:
        return None
    pages: dict = {}  # ordered and de-duplicated in constant time per page
    for part in spec.split(","):
        lo, dash, hi = part.strip().partition("-")
        try:
            first, last = int(lo), int(hi if dash else lo)
        except ValueError:
            raise UsageError(f"--pages {spec!r}: {part.strip()!r} is not a page or a range",
                             hint="Write pages as 1-3,5.") from None
        if first < 1 or last < first:
            raise UsageError(f"--pages {spec!r}: {part.strip()!r} is not an increasing range "
                             "of pages counted from 1", hint="Write pages as 1-3,5.")
        if last > MAX_PAGE:  # a typo such as 1-99999999 must not build a list that size
            raise UsageError(f"--pages {spec!r}: {part.strip()!r} goes past page {MAX_PAGE:,}",
                             hint="Write pages as 1-3,5, within the document.")
        pages.update(dict.fromkeys(range(first, last + 1)))
    return list(pages)


def run(args, settings) -> int:
    try:
        return _run(args, settings)
    except Exception as exc:
        if is_bug(exc):
            exc.feedback = bug_feedback(exc, args)  # cli.report_error prints this one
        raise


def is_bug(exc: BaseException) -> bool:
    """True for a failure that is dua's fault: a broken invariant, or an exception no layer
    translated (bad input, LLM and system failures all arrive as typed DuaErrors)."""
    if isinstance(exc, (CoverageError, UnexpectedError)):
        return True
    return not isinstance(exc, (DuaError, OSError, MemoryError))


def bug_feedback(exc: BaseException, args) -> dict:
    """The Error Handler's feedback, with a message that is true at a shell prompt: nobody
    is told about the failure unless the user reports it, so say what a report needs."""
    from .. import cli  # lazy: cli imports this module only when the command runs

    feedback = dict(cli.feedback_for(exc, agent_id="dua_extract"))
    what = str(exc).rstrip(".") or type(exc).__name__
    page = getattr(exc, "page", None)  # CoverageError names the page it failed on
    pdf = f"page {page} of {args.file}" if page else args.file
    feedback["user_message"] = (
        f"This is a bug in dua, not a problem with your PDF ({what}). Nothing has been "
        f"reported; to report it, attach {pdf} (the whole file if the page alone does not "
        "fail), the command you ran, the output of `python -m dua --version`, and the output "
        "of the same command with --debug.")
    feedback["recovery_suggestions"] = [
        "Re-run the same command with --debug and keep its output for the report",
        "Try --pages to skip the failing page meanwhile"]
    return feedback


def _progress():
    """Page counts as one moving line (``dua.progress``), every other message a line."""
    import re  # lazy: keeps dua --help fast

    from ..progress import StatusLine

    line = StatusLine("dua extract")

    def on_progress(message: str) -> None:
        page = re.fullmatch(r"page (\d+)/(\d+) read", message)
        if page:
            line.update(message, final=page.group(1) == page.group(2))
        else:
            line.say(message)

    return on_progress


def _run(args, settings) -> int:
    from .. import cli  # lazy: cli imports this module only when the command runs
    from ..documents.pipeline import extract  # lazy: pdfplumber loads only when the command runs
    from ..documents.markdown import to_markdown
    from ..review import options as review_options

    if args.batch_size < 1:
        raise UsageError(f"--batch-size must be at least 1, got {args.batch_size}")
    budget = cli.read_budget(args)
    if args.out:  # checked before the work, not after it
        outputs.require_folder(args.out, "--out", args.mkdir)
        outputs.check_file(args.out, "--out")
        outputs.check_not_an_input(args.out, "--out", [args.file])
    review_options.check(args, (args.file,), (args.out,))
    provider = llm_budget = None
    if settings.uses_llm:
        from ..llm import get_provider  # lazy: the LLM layer loads only when asked for
        from ..llm.session import run_budget
        from ..llm.transport import RetryPolicy

        # The Error Handler retries a failed batch (with backoff) and then falls back to the
        # rules; one transport retry per call keeps the two from multiplying into 16 requests.
        provider = get_provider(settings, retry=RetryPolicy(max_retries=1))
        llm_budget = run_budget(settings)  # one deadline for every batch, retry and wait
    progress = None if args.quiet else _progress()
    from . import ocr

    with ocr.searchable_copy(args, args.file, ocr.progress_printer("extract", args.quiet)) as (
            read, scanned):
        result = extract(read, password=args.password, pages=parse_pages(args.pages),
                         provider=provider, batch_size=args.batch_size, on_progress=progress,
                         llm_budget=llm_budget, read_budget=budget)
    if scanned:  # the copy is gone: the result names the file the user gave
        result["source"]["path"], result["ocr"] = args.file, ocr.report_of(scanned)
    if args.review:
        from ..review import extract_review  # lazy: only a review draws pages

        result["review_path"] = extract_review(args.review, result, args.file, args.password,
                                               args.review_dpi)
    markdown = args.format == "markdown" and not args.json
    text = to_markdown(result) if markdown else json.dumps(result, indent=2, ensure_ascii=False) + "\n"
    outputs.write_output(args.out or outputs.STDOUT, text)
    if progress:
        s = result["stats"]
        where = f" -> {args.out}" if args.out and args.out != outputs.STDOUT else ""
        where += f", review -> {args.review}" if args.review else ""
        rules = " (then the built-in rules)" if s.get("llm_down") else ""
        progress(f"{s['elements']} elements from {s['pages']} page(s), {s['unclassified']} "
                 f"unclassified, {s['llm_calls']} LLM call(s){rules}, {s['seconds']:.2f}s{where}")
    return EXIT_OK
