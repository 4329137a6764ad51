"""Words as pdfplumber's ``extract_words()`` finds them, read faster than pdfplumber does.

dua reads each page's content stream itself (``content``), places every glyph as pdfminer
does, with pdfminer's own fonts (``chars``), and cuts words by pdfplumber's rule
(``wordrule``): the same words, to the last bit of every box. A page whose content it cannot
read as pdfminer does is read by pdfplumber instead, and says why.

Copied verbatim into every generated parser (the sandbox recognises it by its exact
source), so it needs only the standard library at import; pdfminer loads inside
``read_pages``.
"""
from __future__ import annotations

from .chars import _page
from .fonts import _PageFonts
from .wordrule import _Refused, _runs, _stream, _usual_size


def read_pages(pdf_path, password=None, pages=None):
    """Every page (or the 1-based ``pages``) as a dict of plain values.

    Keys: number, of (the page count), width, height, words (``(text, x0, x1, top,
    bottom, font, size, runs, stream)`` in pdfplumber's order; ``runs`` splits a word where
    its glyphs stand apart or change size, ``stream`` is its text in the order drawn where
    that differs among glyphs of no width, see ``wordrule``), chars, reader ("dua" or
    "pdfplumber"), why (why a page fell back, else "") and graphics (it may hold lines,
    shapes or images). A file pdfminer cannot open is read by pdfplumber, which raises
    pdfminer's errors for a bad one.
    """
    return _read_pages(pdf_path, password, pages, None)[0]


def _read_pages(pdf_path, password, pages, drawing, rule=None):
    """``(pages, what the document draws)``: ``drawing``, given the pdfminer document,
    makes what collects each page's paths and images (``dua.pdf.graphics``), kept in the
    page's "paths"; the pages pdfplumber reads have none. ``rule``, given a page's
    characters, cuts them into words instead of pdfplumber's rule (``dua.pdf.reading``)."""
    with open(pdf_path, "rb") as fh:
        data = fh.read()
    drawn = None
    try:
        out, todo, drawn = _own_pages(data, password, pages, drawing, rule)
    except ImportError:
        out, todo = {}, "pdfminer is not installed"
    except _Refused as exc:  # the whole file
        out, todo = {}, str(exc)
    if isinstance(todo, str):
        out.update(_plumber_pages(pdf_path, password, pages, todo, None, rule))
    elif todo:
        out.update(_plumber_pages(pdf_path, password, sorted(todo), "", todo, rule))
    return [out[n] for n in sorted(out)], drawn


def _own_pages(data, password, wanted, drawing, rule):
    import io

    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfinterp import PDFResourceManager
    from pdfminer.pdfpage import PDFPage
    from pdfminer.pdfparser import PDFParser

    try:
        miner = PDFDocument(PDFParser(io.BytesIO(data)), password=password or "")
        found, count = _miner_pages(PDFPage.create_pages(miner), miner, wanted)
    except MemoryError:  # the reader's budget, not the file: pdfplumber would need as much
        raise
    except Exception as exc:  # pdfminer's errors are pdfplumber's to raise and explain
        raise _Refused(f"pdfminer cannot read the pages ({type(exc).__name__})") from exc
    fonts, out, todo = _PageFonts(PDFResourceManager()), {}, {}
    drawn = drawing(miner) if drawing else None
    for n in sorted(found):
        try:
            out[n] = _page(found[n], n, fonts, drawn, rule)
            out[n]["of"] = count
        except _Refused as exc:
            todo[n] = str(exc)
        except MemoryError:
            raise
        except Exception as exc:  # a font or page pdfminer chokes on: pdfplumber will too
            todo[n] = f"pdfminer failed on the page ({type(exc).__name__})"
    return out, todo, drawn


def _miner_pages(pages, miner, wanted):
    """``({number: pdfminer's page}, page count)``: pdfminer's pages up to the last one
    wanted (each costs pdfminer a parse), the count from the page tree's /Count where the
    rest is not walked."""
    from pdfminer.pdftypes import resolve1

    wanted = {n for n in wanted if n >= 1} if wanted else None
    found, n = {}, 0
    for n, page in enumerate(pages, 1):
        if wanted is None or n in wanted:
            found[n] = page
        if wanted is not None and n >= max(wanted, default=0):
            tree = resolve1(miner.catalog.get("Pages"))
            count = resolve1(tree.get("Count")) if isinstance(tree, dict) else None
            if isinstance(count, int) and count >= n:
                return found, count
    return found, n


def _plumber_pages(pdf_path, password, wanted, why, reasons, rule=None):
    import pdfplumber

    options = {"password": password} if password else {}  # else pdfplumber's own default
    out = {}
    with pdfplumber.open(pdf_path, **options) as pdf:
        for n in wanted or range(1, len(pdf.pages) + 1):
            if not 1 <= n <= len(pdf.pages):
                continue
            page = pdf.pages[n - 1]
            order = {id(c): i for i, c in enumerate(page.chars)}  # the order drawn
            if rule is None:
                words = [_plumber_word(w, order) for w in
                         page.extract_words(keep_blank_chars=False, return_chars=True)]
            else:  # the same characters as the reader's own, in the order drawn
                words = rule([[c["text"], c["x0"], c["x1"], c["top"], c["bottom"],
                               c.get("fontname", ""), c.get("size", 0.0), c.get("upright", True),
                               order[id(c)]] for c in page.chars])
            out[n] = {"number": n, "of": len(pdf.pages), "width": float(page.width),
                      "height": float(page.height), "words": words, "chars": len(page.chars),
                      "reader": "pdfplumber", "why": reasons[n] if reasons else why,
                      "graphics": True}
            page.close()  # frees pdfminer's layout cache: long documents stay flat
    return out


def _plumber_word(word, order):
    chars = word["chars"]
    sizes = [c.get("size", 0.0) for c in chars]
    texts, x0s, x1s, tops, bottoms = ([c[k] for c in chars]
                                      for k in ("text", "x0", "x1", "top", "bottom"))
    runs = _runs(texts, x0s, x1s, tops, bottoms, sizes) if len(chars) > 1 else ()
    stream = _stream(texts, x0s, x1s, [order[id(c)] for c in chars]) if len(chars) > 1 else ""
    return (word["text"], word["x0"], word["x1"], word["top"], word["bottom"],
            chars[0].get("fontname", ""), _usual_size(sizes), runs, stream)
