"""What a reading child answers (``dua.pdf.child``): the pages it read as plain values, or its
failure typed: a dua error as it is, a foreign one by where it was raised (inside the PDF
libraries: a damaged file; inside dua: a bug), one near the memory cap as wanting memory."""
from __future__ import annotations

import json
import os

from .. import errors, lifetime


def _page_count(path: str, password: str | None) -> int | None:
    try:
        import pypdfium2  # lazy: the reader imports it anyway
    except ImportError:
        return None
    try:
        doc = pypdfium2.PdfDocument(path, password=password)
    except pypdfium2.PdfiumError:
        return None  # the reader says why
    try:
        return len(doc)
    finally:
        doc.close()


def _read(request: dict) -> dict:
    from . import document

    path, password, pages = request["path"], request.get("password"), request.get("pages")
    rule = request.get("word_rule", "parser")
    if not request.get("graphics"):
        read, count = document.read_words(path, password, pages, rule)
        return {"pages": read, "count": count}
    doc = document.read_document(path, password, pages, with_tables=True, word_rule=rule)
    out, drawn = [], {}
    for p in doc.pages:
        words = [(w.text, w.x0, w.x1, w.top, w.bottom, w.font, w.size, w.runs, w.stream)
                 for w in p.words]
        out.append({"number": p.number, "of": doc.page_count, "width": p.width,
                    "height": p.height, "words": words, "chars": p.char_count,
                    "reader": p.reader, "why": p.why, "graphics": True})
        if p.h_rules or p.v_rules or p.images or p.tables:
            drawn[str(p.number)] = {"h_rules": p.h_rules, "v_rules": p.v_rules,
                                    "images": p.images,
                                    "tables": [(t.bbox, t.rows) for t in p.tables]}
    return {"pages": out, "count": doc.page_count, "drawn": drawn,
            "metadata": document.plain_metadata(doc.metadata)}


def _failed(exc: BaseException, request: dict) -> dict | None:
    """The answer to a failed reading; None where there was no memory left to word it. A
    reader that failed near its memory cap wanted memory, whatever the library said."""
    try:
        if lifetime.used_half_of(int(request["memory"])):
            exc = MemoryError()
        return {"error": _typed(exc, request)}
    except MemoryError:
        return None


def _typed(exc: BaseException, request: dict) -> dict:
    """``exc`` as the child's answer: a dua error as it is; a foreign one typed by where it
    was raised (inside the PDF libraries: a damaged file; inside dua: a bug)."""
    if not isinstance(exc, errors.DuaError):
        exc = _translate(exc, request["path"], request.get("memory"))
    hint = exc.hint if exc.hint != type(exc).hint else None
    details = json.loads(json.dumps(exc.details, default=str))
    return {"class": type(exc).__name__, "message": exc.message, "details": details,
            "hint": hint}


_LIBRARIES = ("pdfminer", "pdfplumber", "pypdfium2", "PIL")


def _levels() -> dict:
    """The libraries' log levels here, which a request carries to its child (--quiet
    silences their warnings there too)."""
    import logging  # lazy: loaded by dua already
    return {name: logging.getLogger(name).level for name in _LIBRARIES}


def _set_levels(request: dict) -> None:
    import logging  # lazy: loaded by dua already

    for name, level in request.get("log_levels", {}).items():
        logging.getLogger(name).setLevel(level)


def _translate(exc: BaseException, path: str, memory: int | None = None) -> errors.DuaError:
    import traceback  # lazy: only a failure needs it

    what = f"{type(exc).__name__}: {errors.excerpt(str(exc), 200)}".rstrip(": ")
    if isinstance(exc, MemoryError):
        budget = f" {int(memory) / (1 << 20):,.0f} MB of" if memory else ""
        return errors.PDFMemoryLimitError(f"{path} could not be read within the reader's"
                                          f"{budget} memory: it needed more", path=path)
    if isinstance(exc, RecursionError):
        return errors.CorruptPDFError(f"{path} is damaged: its objects are nested too deeply "
                                      f"to read ({what})", path=path)
    frames = traceback.extract_tb(exc.__traceback__)
    inner = frames[-1] if frames else None
    where = f"{_short(inner.filename)}:{inner.lineno} in {inner.name}" if inner else "?"
    library = next((name for name in _LIBRARIES
                    if inner and f"{os.sep}{name}{os.sep}" in inner.filename), None)
    if library:
        return errors.CorruptPDFError(f"{path} is damaged: {library} failed on it ({what})",
                                      path=path, where=where)
    return errors.UnexpectedError(
        f"the PDF reader failed on {path} ({what}, at {where})", path=path, where=where,
        exception=type(exc).__name__, traceback="".join(traceback.format_exception(
            type(exc), exc, exc.__traceback__))[-4000:])


def _short(filename: str) -> str:
    """A source path from its package folder on (``dua/pdf/chars.py``)."""
    parts = filename.replace(os.sep, "/").split("/")
    for i, part in enumerate(parts):
        if part in ("dua",) + _LIBRARIES or part.endswith("site-packages"):
            return "/".join(parts[i + (part.endswith("site-packages")):])
    return filename
