"""Making a scan searchable: which pages need OCR, each drawn by pdfium and read by tesseract,
then written again with its words (``searchable``), the other pages kept as they are.

It runs inside the bounded reading child (``bounded.make_searchable``), so a hostile file or a
stuck tesseract ends with the child's budget; page images live in memory and in tesseract's
stdin only, never on disk.
"""
from __future__ import annotations

import os
import time
import zlib

from ..errors import (CorruptPDFError, DocumentError, EncryptedPDFError, MissingDependencyError,
                      NoTextLayerError)
from . import ocr, searchable, secondlook

MODES = ("auto", "always", "never")
DEFAULT_DPI = 300  # tesseract reads print best at 300 dpi (its own advice)
LOW_CONFIDENCE = ocr.SURE  # below it a word is "unsure", and named where a check fails near it
RULE_INCHES = 0.4  # a dark run this long is a ruling line: print's tallest letters are shorter
RULE_THICKNESS = 0.04  # inches: a rule is thinner than this across (1 to 3 pt drawn)
PAPER_MARGIN = 16  # grey levels below the paper at which a pixel counts as drawn (a 0.25 pt
# hairline at 300 dpi comes out 149-249 on white, by where it falls between pixels)


def make(request: dict, progress) -> dict:
    """Write ``request["out"]``, the searchable copy of ``request["path"]``; the answer says
    which pages were read by OCR (none: no copy was written, pdfium could not open the file or
    tesseract found no word) and what tesseract saw there.

    ``progress(n, of)`` is called before each page's OCR.

    Raises:
        NoTextLayerError: pages need OCR and tesseract is not installed
        OCRFailedError, UsageError (a language tesseract lacks), DocumentError
    """
    path, mode = request["path"], request.get("mode", "auto")
    try:
        doc = _open(path, request.get("password"))
    except DocumentError:  # the reader that follows says so, in its own words
        return {"count": 0, "pages": [], "words": [], "tesseract_seconds": 0.0}
    try:
        todo = [n for n in range(1, len(doc) + 1) if mode == "always" or not _has_text(doc, n)]
        answer = {"count": len(doc), "pages": todo, "words": [], "texts": {}, "read_twice": [],
                  "tesseract_seconds": 0.0}
        if not todo:
            return answer
        program = ocr.find()
        if program is None:
            raise NoTextLayerError(
                f"{path} has no text layer on {_pages(todo, len(doc))}, and tesseract (which "
                f"would read it) is not installed", path=path, pages=todo)
        scanned = _read_pages(doc, todo, program, request, progress, answer)
        if not any(line.words for page in scanned for line in page.lines):
            answer["blank"], answer["pages"] = todo, []  # nothing to read: no copy either
            return answer
        _write(request["out"], path, doc, todo, scanned)
        return answer
    finally:
        doc.close()


def _read_pages(doc, todo: list, program: str, request: dict, progress, answer: dict) -> list:
    """Each page of ``todo`` read by tesseract (``searchable.ScanPage``), ``answer`` told what
    it saw: the unsure words, every word's text, tesseract's seconds."""
    lang = ocr.choose_language(program, request.get("lang"))
    answer.update(engine=ocr.version(program), lang=lang)
    scanned = []
    for i, number in enumerate(todo, 1):
        progress(i, len(todo))
        page, seconds, twice = _read_page(doc, number, program, lang, request)
        answer["tesseract_seconds"] += seconds
        answer["words"].extend(_words(page, number))
        answer["read_twice"].extend(_twice(page, number, twice))
        answer["texts"][str(number)] = [w.text for line in page.lines for w in line.words]
        scanned.append(page)
    return scanned


def _open(path: str, password: str | None):
    try:
        import pypdfium2  # lazy: only OCR draws pages here
    except ImportError as exc:
        raise MissingDependencyError("pypdfium2 is not installed (pdfplumber needs it)",
                                     module="pypdfium2") from exc
    try:
        return pypdfium2.PdfDocument(path, password=password)
    except pypdfium2.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise EncryptedPDFError(f"{path} is encrypted and pdfium cannot open it",
                                    path=path) from exc
        raise CorruptPDFError(f"pdfium cannot open {path}: {exc}", path=path) from exc


def _has_text(doc, number: int) -> bool:
    page = doc[number - 1]
    try:
        text = page.get_textpage()
        try:
            return text.count_chars() > 0
        finally:
            text.close()
    finally:
        page.close()


def _pages(todo: list, count: int) -> str:
    if len(todo) == count:
        return "any page" if count > 1 else "its page"
    return "page" + ("s " if len(todo) > 1 else " ") + ", ".join(map(str, todo))


def _read_page(doc, number: int, program: str, lang: str, request: dict) -> tuple:
    """(``searchable.ScanPage``, tesseract's seconds, its figures read two ways) for one page."""
    dpi = float(request.get("dpi") or DEFAULT_DPI)
    page = doc[number - 1]
    try:
        width, height = page.get_size()
        bitmap = page.render(scale=dpi / 72.0, grayscale=True)
        w, h, stride = bitmap.width, bitmap.height, bitmap.stride
        image = ocr.pgm(w, h, bytes(bitmap.buffer), stride)
    finally:
        page.close()
    started = time.monotonic()
    seen, budget = _without_rules(image, w, h, dpi), float(request.get("page_seconds", 120))
    lines = ocr.read_image(program, ocr.pgm(w, h, seen, w), dpi, lang, budget)
    secondlook.reread(program, seen, w, h, dpi, lang, lines,
                      max(1.0, budget - (time.monotonic() - started)))
    twice = secondlook.read_twice(program, seen, w, h, dpi, lang, lines,
                                  max(1.0, budget - (time.monotonic() - started)))
    seconds = time.monotonic() - started
    # kept deflated until written: a page is 8.7 MB of pixels at 300 dpi, a tenth of it so
    scan = searchable.ScanPage(width, height, zlib.compress(image[image.index(b"\n") + 1:], 6),
                               w, h, dpi, lines)
    scan.angle = searchable.skew(lines)
    return scan, seconds, twice


def _without_rules(image: bytes, w: int, h: int, dpi: float) -> bytes:
    """The page's pixels with its ruling lines made white, for tesseract's eyes only (the copy
    keeps them): tesseract reads a table's rules as letters glued to the cells' words
    (``98,749.45}``, ``|Value Dt}Withdrawal}``) and a light grey rule as ``+`` or ``.``. A rule is
    a run darker than the paper, longer than RULE_INCHES along a row or a column (no letter of
    print is so tall or wide) and thinner than RULE_THICKNESS across it (a shaded band is
    thicker: its words stay). numpy comes with pandas."""
    import numpy  # lazy: only OCR needs it

    pixels = numpy.frombuffer(image, dtype=numpy.uint8, offset=len(image) - w * h)
    pixels = pixels.reshape(h, w)
    # the paper is the page's commonest light: a rule is well darker than it, even a light one
    dark = pixels < int(numpy.median(pixels)) - PAPER_MARGIN
    length, thick = max(int(dpi * RULE_INCHES), 2), max(int(dpi * RULE_THICKNESS), 2)
    down = _runs(dark, length)
    down &= ~_runs(down.T, thick).T
    across = _runs(dark.T, length).T
    across &= ~_runs(across, thick)
    rules = down | across
    if not rules.any():
        return pixels.tobytes()
    out = pixels.copy()
    out[rules] = 255
    return out.tobytes()


def _runs(dark, length: int):
    """Where ``dark`` holds a run of at least ``length`` down a column: each window of
    ``length`` wholly dark, spread back over the pixels it covers."""
    import numpy  # lazy: only OCR needs it

    n = dark.shape[0]
    if n < length:
        return numpy.zeros(dark.shape, dtype=bool)
    total = numpy.zeros((n + 1,) + dark.shape[1:], dtype=numpy.int32)
    numpy.cumsum(dark, axis=0, out=total[1:])
    full = (total[length:] - total[:-length]) == length  # windows starting at 0 .. n - length
    starts = numpy.zeros((n + length,) + dark.shape[1:], dtype=numpy.int32)
    numpy.cumsum(full, axis=0, out=starts[length:length + len(full)])
    starts[length + len(full):] = starts[length + len(full) - 1]
    # a pixel at i is covered when a window starts in [i - length + 1, i]
    return (starts[length:] - starts[:n]) > 0


def _words(page: searchable.ScanPage, number: int) -> list:
    """The words tesseract was unsure of, with their page and box in points, for the verdict."""
    scale = 72.0 / page.dpi
    return [{"page": number, "text": w.text, "confidence": w.confidence,
             "x0": w.x0 * scale, "x1": w.x1 * scale, "top": w.top * scale,
             "bottom": w.bottom * scale}
            for line in page.lines for w in line.words if w.confidence < LOW_CONFIDENCE]


def _twice(page: searchable.ScanPage, number: int, twice: list) -> list:
    """The figures read two ways (``secondlook.read_twice``), each with its box in points and
    how the copy shows it either way, for the statement's arithmetic to choose."""
    scale = 72.0 / page.dpi
    out = []
    for line, k, other in twice:
        w = line.words[k]
        shown, other_shown = searchable.shown_either_way(page, line, k, other)
        out.append({"page": number, "text": w.text, "other": other,
                    "x0": w.x0 * scale, "x1": w.x1 * scale, "top": w.top * scale,
                    "bottom": w.bottom * scale, "shown": shown, "other_shown": other_shown})
    return out


def _write(out: str, path: str, doc, todo: list, scanned: list) -> None:
    """All pages scanned: written at once; else the scanned ones written apart and every page
    joined with pdfium, each from where it is good (a text page keeps its own layer)."""
    if len(todo) == len(doc):
        searchable.write(out, scanned)
        return
    import pypdfium2  # lazy: opened already by the caller

    part = out + ".ocr-pages.pdf"
    try:
        searchable.write(part, scanned)
        ocred = pypdfium2.PdfDocument(part)
        joined = pypdfium2.PdfDocument.new()
        try:
            for index in range(len(doc)):
                number = index + 1
                if number in todo:
                    joined.import_pages(ocred, [todo.index(number)])
                else:
                    joined.import_pages(doc, [index])
            joined.save(out)
        finally:
            joined.close()
            ocred.close()
    finally:
        if os.path.exists(part):
            os.remove(part)
