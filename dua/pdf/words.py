"""Words as pdfplumber's ``extract_words()`` finds them, measured from pdfium's characters.

Copied verbatim into every generated parser (the sandbox recognises it by its exact
source), so it needs only the standard library at import; pypdfium2 and pdfminer load
inside ``read_pages``, and a page pdfium cannot map is read by pdfplumber instead.
"""
from __future__ import annotations

from .chars import _pdfium_page
from .fonts import _PdfiumFonts
from .wordrule import _PdfiumUnmapped, _runs, _usual_size


def read_pages(pdf_path, password=None, pages=None):
    """Every page (or the 1-based ``pages``) as a dict of plain values.

    Keys: number, of (the page count), width, height, words (``(text, x0, x1, top,
    bottom, font, size, runs)`` in pdfplumber's order; ``runs`` splits a word where its
    glyphs stand apart or change size, see ``wordrule._runs``), chars, reader ("pdfium" or
    "pdfplumber"), why (why a page fell back, else "") and graphics (it may hold lines,
    shapes or images). A file pdfium cannot open is read by pdfplumber, which raises
    pdfminer's errors for a bad one.
    """
    with open(pdf_path, "rb") as fh:
        data = fh.read()
    try:
        out, todo = _pdfium_pages(data, password, pages)
    except ImportError:
        out, todo = {}, "pypdfium2 or pdfminer is not installed"
    except _PdfiumUnmapped as exc:  # the whole file
        out, todo = {}, str(exc)
    if isinstance(todo, str):
        out.update(_plumber_pages(pdf_path, password, pages, todo, None))
    elif todo:
        out.update(_plumber_pages(pdf_path, password, sorted(todo), "", todo))
    return [out[n] for n in sorted(out)]


def _pdfium_pages(data, password, wanted):
    import io

    import pypdfium2
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfinterp import PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    try:
        doc = pypdfium2.PdfDocument(data, password=password)
    except pypdfium2.PdfiumError as exc:
        raise _PdfiumUnmapped(f"pdfium cannot open the file ({exc})") from exc
    try:
        miner = PDFDocument(PDFParser(io.BytesIO(data)), password=password or "")
        miner_pages = list(PDFPage.create_pages(miner))
    except Exception as exc:  # pdfminer's errors are pdfplumber's to raise and explain
        doc.close()
        raise _PdfiumUnmapped(f"pdfminer cannot read the fonts ({type(exc).__name__})") from exc
    try:
        if len(miner_pages) != len(doc):
            raise _PdfiumUnmapped("pdfium and pdfminer count different pages")
        fonts, out, todo = _PdfiumFonts(PDFResourceManager()), {}, {}
        for n in wanted or range(1, len(doc) + 1):
            if not 1 <= n <= len(doc):
                continue
            try:
                out[n] = _pdfium_page(doc, n, miner_pages[n - 1], fonts)
                out[n]["of"] = len(doc)
            except _PdfiumUnmapped as exc:
                todo[n] = str(exc)
            except Exception as exc:  # a font or page pdfminer or pdfium chokes on
                todo[n] = f"pdfium or pdfminer failed on the page ({type(exc).__name__})"
        return out, todo
    finally:
        doc.close()


def _plumber_pages(pdf_path, password, wanted, why, reasons):
    import pdfplumber

    options = {"password": password} if password else {}  # else pdfplumber's own default
    out = {}
    with pdfplumber.open(pdf_path, **options) as pdf:
        for n in wanted or range(1, len(pdf.pages) + 1):
            if not 1 <= n <= len(pdf.pages):
                continue
            page = pdf.pages[n - 1]
            words = [_plumber_word(w) for w in
                     page.extract_words(keep_blank_chars=False, return_chars=True)]
            out[n] = {"number": n, "of": len(pdf.pages), "width": float(page.width),
                      "height": float(page.height), "words": words, "chars": len(page.chars),
                      "reader": "pdfplumber", "why": reasons[n] if reasons else why,
                      "graphics": True}
            page.close()  # frees pdfminer's layout cache: long documents stay flat
    return out


def _plumber_word(word):
    chars = word["chars"]
    sizes = [c.get("size", 0.0) for c in chars]
    runs = _runs(*([c[k] for c in chars] for k in ("text", "x0", "x1", "top", "bottom")),
                 sizes) if len(chars) > 1 else ()
    return (word["text"], word["x0"], word["x1"], word["top"], word["bottom"],
            chars[0].get("fontname", ""), _usual_size(sizes), runs)
