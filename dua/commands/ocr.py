"""`dua ocr`: a scan written again as a searchable PDF; and the OCR flags every reading command takes.

``searchable_copy`` is how parse, run and extract read scans: the pages without text are read
by tesseract into a searchable copy in a temporary folder, which the command then reads as any
PDF, and which is removed when the command ends.
"""
from __future__ import annotations

import contextlib
import json
import os
import sys

from ..errors import NoTextLayerError, UsageError

DESCRIPTION = (
    "Write a scanned PDF again with an invisible text layer where tesseract saw each word (as "
    "ocrmypdf does), so that any PDF reader, dua's own commands and pdfplumber among them, can "
    "read its words. Pages that already have text are kept as they are (--ocr always reads "
    "them too). Where tesseract reads a figure one way in its line and another read again smaller, "
    "the copy holds the reading a statement's balances and totals follow (the first, where "
    "none do). Needs tesseract on PATH; the page images stay in memory, never on disk.")
EXAMPLES = """\
  python -m dua ocr scan.pdf --out searchable.pdf
  python -m dua ocr scan.pdf --out searchable.pdf --ocr-lang eng+deu --ocr-dpi 400
"""
OCR_NOTE = "OCR, not checked letter by letter"
MIN_DPI, MAX_DPI = 100, 600


def add_arguments(p) -> None:
    from ..cli import add_read_options  # lazy: cli imports this module only when needed

    p.add_argument("pdf", metavar="SCAN.pdf", help="the scanned PDF")
    p.add_argument("--out", metavar="PDF", required=True, help="where to write the searchable copy")
    p.add_argument("--password", metavar="PW", help="password of an encrypted PDF")
    add_read_options(p)
    add_ocr_options(p, modes=("auto", "always"))


def add_ocr_options(p, modes=("auto", "always", "never")) -> None:
    """--ocr, --ocr-lang and --ocr-dpi, for every command that reads PDFs."""
    g = p.add_argument_group("OCR (scanned pages, through tesseract when it is installed)")
    g.add_argument("--ocr", choices=modes, default="auto",
                   help="auto: read pages without text with tesseract (default); always: every "
                   "page" + ("; never: no OCR (a scan ends in exit 3)" if "never" in modes else ""))
    g.add_argument("--ocr-lang", metavar="LANGS",
                   help="tesseract's language codes, e.g. eng or eng+deu (default: eng where "
                   "installed, else the first language installed)")
    g.add_argument("--ocr-dpi", type=int, metavar="DPI",
                   help=f"resolution the pages are drawn at for tesseract ({MIN_DPI}-{MAX_DPI}; "
                   "default: 300)")


def _check(args) -> None:
    dpi = getattr(args, "ocr_dpi", None)
    if dpi is not None and not MIN_DPI <= dpi <= MAX_DPI:
        raise UsageError(f"--ocr-dpi must be in [{MIN_DPI}, {MAX_DPI}], got {dpi}",
                         hint="300 suits print; 200 is faster and reads most statements.")


@contextlib.contextmanager
def searchable_copy(args, path: str, progress=None, judge=None):
    """``(path to read, what OCR did or None)``: ``path`` itself when no page needs OCR (or
    --ocr never), else its searchable copy, removed when the block ends; with ``judge``
    (``figures.settle``), its figures read two ways settled by the statement's arithmetic.

    Raises:
        NoTextLayerError (pages without text, and no tesseract), OCRFailedError, UsageError,
        DocumentError, PDFReadTimeoutError
    """
    mode = getattr(args, "ocr", "auto")
    if mode == "never":
        yield path, None
        return
    _check(args)
    import shutil  # lazy: keeps import dua fast
    import tempfile

    from ..cli import read_budget
    from ..pdf import make_searchable

    folder = tempfile.mkdtemp(prefix="dua-ocr-")
    try:
        copy = os.path.join(folder, os.path.basename(path) or "scan.pdf")
        answer = make_searchable(path, copy, mode=mode, lang=args.ocr_lang, dpi=args.ocr_dpi,
                                 password=getattr(args, "password", None),
                                 budget=read_budget(args), on_page=progress)
        if not answer["pages"]:
            yield path, None
        else:
            answer["dpi"] = args.ocr_dpi or 300
            if judge is not None:
                from .figures import settle

                settle(copy, answer, judge)
            yield copy, answer
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Copies:
    """The searchable copies of a batch's scans: where each PDF is read from, and what OCR did."""

    def __init__(self, folder: str | None) -> None:
        self.folder, self.read, self.answers = folder, {}, {}

    def path(self, pdf: str) -> str:
        return self.read.get(pdf, pdf)

    def outputs(self, pdfs: list, out: str | None, out_dir: str | None) -> dict | None:
        """The batch's ``outputs``: each copy's CSV named after its original, as without OCR."""
        from ..batch import output_paths  # lazy: keeps dua --help fast
        from ..outputs import STDOUT

        if out:
            return {self.path(pdfs[0]): out} if out != STDOUT else None
        return {self.path(p): csv for p, csv in output_paths(pdfs, out_dir or ".").items()}

    def restore(self, result) -> None:
        """Each result told of its original PDF again (the copies go when the run ends)."""
        back = {copy: pdf for pdf, copy in self.read.items()}
        for r in result.results:
            r.pdf_path = back.get(r.pdf_path, r.pdf_path)

    def annotate(self, report: dict) -> None:
        for entry in report.get("files", []):
            if entry["pdf_path"] in self.answers:
                entry["ocr"] = report_of(self.answers[entry["pdf_path"]])


@contextlib.contextmanager
def searchable_copies(args, pdfs: list, command: str = "run"):
    """``Copies`` of a batch's PDFs: each scan's searchable copy; a file OCR fails on is kept as
    it is (the batch then fails it, one file among the others), its reason on stderr."""
    from ..errors import DuaError

    if getattr(args, "ocr", "auto") == "never":
        yield Copies(None)
        return
    _check(args)
    import shutil  # lazy: keeps import dua fast
    import tempfile

    from ..cli import read_budget
    from ..pdf import make_searchable
    from .figures import settle, statement_judge

    copies = Copies(tempfile.mkdtemp(prefix="dua-ocr-"))
    progress = progress_printer(command, args.quiet)
    try:
        for i, pdf in enumerate(pdfs):
            if not os.path.isfile(pdf):
                continue  # the batch says "No such file" for it, as for any file
            copy = os.path.join(copies.folder, str(i), os.path.basename(pdf) or "scan.pdf")
            os.makedirs(os.path.dirname(copy))
            try:
                answer = make_searchable(pdf, copy, mode=args.ocr, lang=args.ocr_lang,
                                         dpi=args.ocr_dpi, password=args.password,
                                         budget=read_budget(args), on_page=progress)
            except DuaError as exc:
                if not isinstance(exc, NoTextLayerError) and not args.quiet:
                    print(f"dua {command}: OCR failed on {pdf}: {exc.message}", file=sys.stderr)
                continue
            if answer["pages"]:
                answer["dpi"] = args.ocr_dpi or 300
                settle(copy, answer, statement_judge(args.password, None, read_budget(args)))
                copies.read[pdf], copies.answers[pdf] = copy, answer
        yield copies
    finally:
        shutil.rmtree(copies.folder, ignore_errors=True)


def report_of(answer: dict | None, state=None) -> dict | None:
    """What OCR did, for a command's report: its pages, engine and language, the words it was
    unsure of (and, with a parse's ``state``, those near a check that failed), and that
    descriptions are OCR text."""
    if not answer:
        return None
    low = answer.get("words", [])
    out = {"pages": answer["pages"], "engine": answer.get("engine"), "lang": answer.get("lang"),
           "dpi": answer.get("dpi"), "descriptions": OCR_NOTE,
           "tesseract_seconds": round(answer.get("tesseract_seconds", 0.0), 3),
           "low_confidence": [{k: w[k] for k in ("page", "text", "confidence")} for w in low],
           "read_twice": [{k: f.get(k, f["text"] if k == "read_as" else "not judged")
                           for k in ("page", "text", "other", "read_as", "why")}
                          for f in answer.get("read_twice", [])]}
    if state is not None:
        out["near_failures"] = near_failures(low, state.comparison_result or {})
    return out


def twice_lines(report: dict) -> list:
    """A line for each figure tesseract read two ways, saying which reading the copy holds."""
    out = []
    for f in report.get("read_twice", []):
        out.append(f"page {f['page']}: `{f['text']}` read in its line, `{f['other']}` read again "
                   f"smaller; `{f['read_as']}` kept: {f['why']}")
    return out


def near_failures(low: list, result: dict) -> list:
    """Lines naming each unsure word near a failed check: in a row the check names (or the
    row before, whose balance it starts from), or on a word no cell accounts for."""
    import re  # lazy: keeps import dua fast

    ledger = result.get("accounting") or {}
    rows = {r["row"]: r for r in ledger.get("rows", [])}
    out = []
    for check in result.get("checks", []):
        if check.get("passed") is not False:
            continue
        named = {int(n) for n in re.findall(r"\brow (\d+)", check.get("detail", ""))}
        places = [(f"row {n}", rows[m]) for n in sorted(named) for m in (n - 1, n) if m in rows]
        for word in low:
            where = _where(word, places, ledger.get("unaccounted", []))
            if where:
                out.append(f"{check['name']}: {where} `{word['text']}` read with "
                           f"{word['confidence']:.0f}% confidence (page {word['page']})")
    return list(dict.fromkeys(out))


def _where(word: dict, places: list, unaccounted: list) -> str:
    for name, row in places:
        for cell in row.get("cells", []):
            if cell["page"] == word["page"] and _inside(word, cell["box"]):
                return f"{name}'s {cell['column']}"
        if any(p["page"] == word["page"] and _inside(word, p["box"]) for p in row["parts"]):
            return name
    for other in unaccounted:
        if other["page"] == word["page"] and _inside(word, other["box"]):
            return "the unaccounted word"
    return ""


def _inside(word: dict, box: list) -> bool:
    """The word's centre lies in ``box`` ([x0, top, x1, bottom], points)."""
    x, y = (word["x0"] + word["x1"]) / 2, (word["top"] + word["bottom"]) / 2
    return box[0] - 1 <= x <= box[2] + 1 and box[1] - 1 <= y <= box[3] + 1


def progress_printer(command: str, quiet: bool):
    """``on_page(n, of)`` printing ``dua COMMAND: page n/of OCR`` on stderr (None when quiet)."""
    if quiet:
        return None
    return lambda n, of: print(f"dua {command}: page {n}/{of} OCR", file=sys.stderr, flush=True)


def _replace(copy: str, out: str) -> None:
    """``out`` becomes the copy whole, by a rename beside it (a reader never sees half)."""
    import shutil  # lazy: keeps import dua fast

    from ..errors import OutputError

    beside = os.path.join(os.path.dirname(os.path.abspath(out)), f".{os.path.basename(out)}.tmp")
    try:
        shutil.copyfile(copy, beside)
        os.replace(beside, out)
    except OSError as exc:
        if os.path.exists(beside):
            os.remove(beside)
        raise OutputError(f"Cannot write {out}: {exc.strerror or exc}", path=out) from exc


def run(args, settings) -> int:
    from .. import outputs  # lazy: keeps dua --help fast

    outputs.require_folder(args.out, "--out", args.mkdir)
    outputs.check_file(args.out, "--out", streams=False)
    outputs.check_not_an_input(args.out, "--out", (args.pdf,))
    from ..cli import read_budget
    from .figures import statement_judge

    judge = statement_judge(args.password, None, read_budget(args))
    with searchable_copy(args, args.pdf, progress_printer("ocr", args.quiet), judge) as (
            copy, answer):
        if answer is None:
            raise UsageError(f"{args.pdf}: every page has text already; nothing to OCR",
                             hint="Pass --ocr always to read every page with tesseract anyway.")
        _replace(copy, args.out)
    info = dict(report_of(answer), output_path=args.out)
    if args.json:
        print(json.dumps(info, indent=2))
    elif not args.quiet:
        low = len(info["low_confidence"])
        print(f"dua ocr: {len(answer['pages'])} page(s) read by {info['engine']} ({info['lang']}, "
              f"{info['dpi']} dpi) -> {args.out}; {low} word(s) read with less than 85% confidence",
              file=sys.stderr)
        for line in twice_lines(info):
            print(f"dua ocr: {line}", file=sys.stderr)
    return 0


def verdict(state, pdf: str, answer: dict | None, out: str | None = None,
            parsers_dir: str = "custom_parsers"):
    """The run's state told of the original file (the copy is gone once the run ends), and,
    for a scan, put to two checks arithmetic cannot make: its dates (a misread digit of a date,
    "41-09-2024", breaks no balance) and its pages (a page whose heading OCR garbled is no table
    page to the ledger, and its rows go unseen). Either failing fails the run, and its rows go
    to the partial CSV."""
    if not answer:
        return state
    import dataclasses  # lazy: keeps import dua fast

    from ..statements.verification.scanned import dates_check, pages_check

    state = dataclasses.replace(state, pdf_path=pdf)
    if state.final_status != "passed" or state.generated_df is None:
        return state
    checks = [c for c in (dates_check(state.generated_df, state.comparison_result),
                          pages_check(state.generated_df, state.comparison_result, answer)) if c]
    if not checks:
        return state
    result = dict(state.comparison_result)
    result["checks"] = list(result.get("checks") or []) + checks
    if all(c["passed"] for c in checks):
        return dataclasses.replace(state, comparison_result=result)
    result["status"] = "failed"
    return dataclasses.replace(state, comparison_result=result, final_status="failed",
                               output_csv_path=_to_partial(state, out, parsers_dir))


def checked_scan(verdict, rows, answer: dict | None):
    """``dua check``'s verdict (``rowcheck.RowsCheck``) on a scan's rows, put to the same two
    checks as ``verdict`` puts a parse's: a passed one fails when either fails."""
    if not answer or verdict.status != "passed":
        return verdict
    import dataclasses  # lazy: keeps import dua fast

    from ..statements.verification.scanned import dates_check, pages_check

    ledger = {"accounting": verdict.accounting}
    checks = [c for c in (dates_check(rows, ledger), pages_check(rows, ledger, answer)) if c]
    failed = any(not c["passed"] for c in checks)
    return dataclasses.replace(verdict, checks=list(verdict.checks) + checks,
                               status="failed" if failed else verdict.status)


def _to_partial(state, out: str | None, parsers_dir: str) -> str | None:
    from ..outputs import FILE, kind  # lazy: keeps dua --help fast
    from ..statements.agent.provenance import result_path

    written = state.output_csv_path
    if not written or kind(written) != FILE:  # a pipe or stdout has its rows already
        return written
    partial = result_path(out, parsers_dir, state.target_bank, partial=True)
    os.replace(written, partial)
    return partial
