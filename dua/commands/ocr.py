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

from ..errors import UsageError

DESCRIPTION = (
    "Write a scanned PDF again with an invisible text layer where tesseract saw each word (as "
    "ocrmypdf does), so that any PDF reader, dua's own commands and pdfplumber among them, can "
    "read its words. Pages that already have text are kept as they are (--ocr always reads "
    "them too). Needs tesseract on PATH; the page images stay in memory, never on disk.")
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
def searchable_copy(args, path: str, progress=None):
    """``(path to read, what OCR did or None)``: ``path`` itself when no page needs OCR (or
    --ocr never), else its searchable copy, removed when the block ends.

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
            yield copy, answer
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def report(answer: dict | None, state=None) -> dict | None:
    """What OCR did, for a command's report: its pages, engine and language, the words it was
    unsure of, and that descriptions are OCR text."""
    if not answer:
        return None
    return {"pages": answer["pages"], "engine": answer.get("engine"), "lang": answer.get("lang"),
            "dpi": answer.get("dpi"), "descriptions": OCR_NOTE,
            "tesseract_seconds": round(answer.get("tesseract_seconds", 0.0), 3),
            "low_confidence": [{k: w[k] for k in ("page", "text", "confidence")}
                               for w in answer.get("words", [])]}


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

    outputs.check_file(args.out, "--out", streams=False)
    outputs.check_not_an_input(args.out, "--out", (args.pdf,))
    with searchable_copy(args, args.pdf, progress_printer("ocr", args.quiet)) as (copy, answer):
        if answer is None:
            raise UsageError(f"{args.pdf}: every page has text already; nothing to OCR",
                             hint="Pass --ocr always to read every page with tesseract anyway.")
        _replace(copy, args.out)
    info = dict(report(answer), output_path=args.out)
    if args.json:
        print(json.dumps(info, indent=2))
    elif not args.quiet:
        low = len(info["low_confidence"])
        print(f"dua ocr: {len(answer['pages'])} page(s) read by {info['engine']} ({info['lang']}, "
              f"{info['dpi']} dpi) -> {args.out}; {low} word(s) below 60% confidence",
              file=sys.stderr)
    return 0


def verdict(state, pdf: str, answer: dict | None):
    """The run's state told of the original file (the copy is gone once the run ends)."""
    if not answer:
        return state
    import dataclasses  # lazy: keeps import dua fast

    return dataclasses.replace(state, pdf_path=pdf)
