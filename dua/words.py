"""Words as pdfplumber's ``extract_words()`` finds them, measured from pdfium's characters.

Copied verbatim into every generated parser (the sandbox recognises it by its exact
source), so it needs only the standard library at import; pypdfium2 and pdfminer load
inside ``read_pages``, and a page pdfium cannot map is read by pdfplumber instead.
"""
from __future__ import annotations


def read_pages(pdf_path, password=None, pages=None):
    """Every page (or the 1-based ``pages``) as a dict of plain values.

    Keys: number, of (the page count), width, height, words (``(text, x0, x1, top,
    bottom, font, size)`` in pdfplumber's order), chars, reader ("pdfium" or
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


class _PdfiumUnmapped(Exception):
    """Characters pdfium reads but cannot map onto pdfminer's: pdfplumber reads them."""


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
    return (word["text"], word["x0"], word["x1"], word["top"], word["bottom"],
            chars[0].get("fontname", ""), _usual_size([c.get("size", 0.0) for c in chars]))


def _usual_size(sizes):
    """A word's most common size: one odd glyph (an OCR layer's) does not decide it."""
    sizes = [round(float(s), 2) for s in sizes]
    return max(set(sizes), key=sizes.count)


_LIGATURES = {"\ufb00": "ff", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb01": "fi", "\ufb02": "fl",
              "\ufb06": "st", "\ufb05": "st"}  # pdfplumber expands these in words
_LIGATURE_OF = {v: k for k, v in _LIGATURES.items()}


def _char_lines(chars):
    """pdfplumber's lines, as ``(line of each top, lines)``: tops chained within 3 pt,
    each line's characters by x0, ties in reading order as pdfplumber keeps them."""
    from operator import itemgetter

    line_of, line, last = {}, -1, None
    for top in sorted({c[3] for c in chars}):
        if last is None or top > last + 3:
            line += 1
        line_of[top], last = line, top
    lines = [[] for _ in range(line + 1)]
    for c in chars:
        lines[line_of[c[3]]].append(c)
    for row in lines:
        row.sort(key=itemgetter(1))
    return line_of, lines


def _cluster_words(lines):
    """pdfplumber's default word rule: in a line, a word ends at a blank, a gap over 3 pt
    or a 3 pt jump in top (a step back cannot happen once the line is sorted by x0)."""
    words = []
    for row in lines:
        word, end, top = [], 0.0, 0.0
        for c in row:
            if c[0].isspace():
                if word:
                    _add_word(words, word)
                    word = []
            else:
                if word and (c[1] > end + 3 or abs(c[3] - top) > 3):
                    _add_word(words, word)
                    word = []
                word.append(c)
                end, top = c[2], c[3]
        if word:
            _add_word(words, word)
    return words


def _add_word(words, chars):
    first = chars[0]
    text, _, x1, top, bottom, _, sizes, _ = zip(*chars)  # the columns, in one C call
    text = "".join(text)
    if not text.isascii():
        text = "".join([_LIGATURES.get(t, t) for t in text])
    size = first[6]
    if sizes.count(size) != len(sizes):
        size = _usual_size(sizes)
    words.append((text, first[1], max(x1), min(top), max(bottom), first[5],
                  round(float(size), 2)))


from .pdfium_chars import _pdfium_page  # noqa: E402  (they need the above)
from .pdfium_fonts import _PdfiumFonts  # noqa: E402
