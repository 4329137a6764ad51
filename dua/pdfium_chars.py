"""pdfium's characters measured as pdfminer measures them, for ``dua.words``.

Copied verbatim with ``dua.words`` into every generated parser: standard library only at
import, pypdfium2 and pdfminer inside the functions that use them.
"""
from __future__ import annotations

from .words import _LIGATURE_OF, _PdfiumUnmapped, _cluster_words


def _pdfium_page(doc, number, miner_page, fonts):
    import ctypes

    import pypdfium2.raw as pdfium_c

    left, bottom, right, top = (float(v) for v in miner_page.mediabox)
    if miner_page.rotate % 360 or left or bottom or right < left or top < bottom:
        raise _PdfiumUnmapped("the page is rotated or its media box does not start at 0,0")
    page = doc[number - 1]
    try:
        textpage = page.get_textpage()
        try:
            reader = _PdfiumPage(pdfium_c, ctypes, top, miner_page, fonts)
            reader.read_chars(textpage.raw)
            reader.read_blank_objects(page.raw)
        finally:
            textpage.close()
    finally:
        page.close()
    reader.check_space_runs()
    return {"number": number, "width": right, "height": top,
            "words": _cluster_words(reader.chars), "chars": len(reader.chars),
            "reader": "pdfium", "why": "", "graphics": reader.graphics}


class _PdfiumPage:
    """One page's characters as ``[text, x0, x1, top, bottom, font, size, object]``.

    Boxes are pdfminer's: x0 at the glyph origin, x1 from pdfminer's width for the glyph,
    top and bottom from the font's descent, since pdfium's loose boxes use other metrics
    and include the ink.
    """

    def __init__(self, pdfium_c, ctypes, height, miner_page, fonts):
        self.c, self.ctypes, self.height = pdfium_c, ctypes, height
        self.miner_page, self.fonts = miner_page, fonts
        self.chars, self.objects, self.runs = [], {}, []
        self.graphics = False  # any line, shape or image: pdfplumber reads those

    def object_state(self, handle, matrix):
        """Font, horizontal and vertical scale of a text object's glyphs (cached)."""
        key = self.ctypes.addressof(handle.contents)
        state = self.objects.get(key)
        if state is None:
            size = self.ctypes.c_float()
            self.c.FPDFTextObj_GetFontSize(handle, size)
            a, b, c, d = matrix
            if abs(b) > 1e-6 or abs(c) > 1e-6 or a <= 0 or d <= 0:
                raise _PdfiumUnmapped("rotated, skewed or mirrored text")
            font = self.fonts.find(self.c, self.ctypes, self.c.FPDFTextObj_GetFont(handle),
                                   self.miner_page)
            state = self.objects[key] = (font, a * size.value, d * size.value, key)
        return state

    def add(self, text, x0, y, state, width):
        font, across, up = state[0], state[1], state[2]
        bottom = y + font.descent * up
        self.chars.append([text, x0, x0 + width * across, self.height - bottom - up,
                           self.height - bottom, font.name, up, state[3]])

    def read_chars(self, textpage):
        c, ctypes = self.c, self.ctypes
        origin_x, origin_y, fs_matrix = ctypes.c_double(), ctypes.c_double(), c.FS_MATRIX()
        last = None  # (origin x, y, state, text) of the previous glyph
        for i in range(c.FPDFText_CountChars(textpage)):
            code = c.FPDFText_GetUnicode(textpage, i)
            if code in (13, 10, 32) and c.FPDFText_IsGenerated(textpage, i) == 1:
                continue  # pdfium's own spaces and line ends; pdfminer has none
            handle = c.FPDFText_GetTextObject(textpage, i)
            if not handle:
                raise _PdfiumUnmapped("a character pdfium places outside any text object")
            state = self.objects.get(ctypes.addressof(handle.contents))
            if state is None:
                c.FPDFText_GetMatrix(textpage, i, fs_matrix)
                state = self.object_state(handle, (fs_matrix.a, fs_matrix.b, fs_matrix.c,
                                                   fs_matrix.d))
            font, text = state[0], state[0].text(code)
            c.FPDFText_GetCharOrigin(textpage, i, origin_x, origin_y)
            x, y = origin_x.value, origin_y.value
            same = last and last[2] is state and last[1] == y
            if same and last[0] == x and font.joined(last[3], text):
                text = font.joined(last[3], text)  # one glyph pdfium split ("fl")
                self.chars.pop()
            if same and self.runs and self.runs[-1][1] is None:
                self.runs[-1][1] = x  # the glyph after a space ends its run
            if text.isspace():
                self.add(text, x, y, state, 0.0)
                self.runs.append([x, None, self.chars[-1], font.width(" ", float) * state[1]])
            else:
                width = font.width(text, lambda: self.loose_width(textpage, i) / state[1])
                self.add(text, x, y, state, width)
                if font.metrics_by_text and (font.file_width_differs(text, width) or
                                             self.advances_differ(textpage, i, x, width)):
                    # pdfminer advances by the standard 14 fonts' own metrics, pdfium by the
                    # file's /Widths: every later glyph of the text object would move.
                    raise _PdfiumUnmapped(f"font {font.name!r}: pdfminer's built-in widths "
                                          "differ from the file's")
            last = (x, y, state, text)

    def advances_differ(self, textpage, index, origin, width):
        """Whether pdfium advances past a glyph otherwise than pdfminer (by ``width``).

        pdfium's loose box is the advance joined with the ink; where the ink reaches
        past the advance, the advance is unknown and only a shorter one is proven.
        """
        loose, left, right = self.c.FS_RECTF(), self.ctypes.c_double(), self.ctypes.c_double()
        bottom, top = self.ctypes.c_double(), self.ctypes.c_double()
        self.c.FPDFText_GetLooseCharBox(textpage, index, loose)
        self.c.FPDFText_GetCharBox(textpage, index, left, right, bottom, top)
        ours = self.chars[-1][2] - self.chars[-1][1] + origin
        if loose.right > right.value + 0.01:
            return abs(loose.right - ours) > 0.01
        return ours > loose.right + 0.01

    def loose_width(self, textpage, index):
        rect = self.c.FS_RECTF()  # pdfium's box for the glyph, in points
        self.c.FPDFText_GetLooseCharBox(textpage, index, rect)
        return rect.right - rect.left

    def read_blank_objects(self, page):
        """Text objects pdfium drops for having no ink: pdfminer's spaces and tabs."""
        c, ctypes = self.c, self.ctypes
        todo = [(c.FPDFPage_CountObjects(page), lambda k: c.FPDFPage_GetObject(page, k),
                 (1.0, 0.0, 0.0, 1.0, 0.0, 0.0))]
        matrix = c.FS_MATRIX()
        while todo:
            count, get, outer = todo.pop()
            for k in range(count):
                obj = get(k)
                kind = c.FPDFPageObj_GetType(obj)
                if kind in (c.FPDF_PAGEOBJ_PATH, c.FPDF_PAGEOBJ_IMAGE, c.FPDF_PAGEOBJ_SHADING):
                    self.graphics = True
                elif kind == c.FPDF_PAGEOBJ_FORM:
                    c.FPDFPageObj_GetMatrix(obj, matrix)
                    inner = _compose((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e,
                                      matrix.f), outer)
                    todo.append((c.FPDFFormObj_CountObjects(obj),
                                 lambda k, form=obj: c.FPDFFormObj_GetObject(form, k), inner))
                elif (kind == c.FPDF_PAGEOBJ_TEXT and
                      ctypes.addressof(obj.contents) not in self.objects):
                    c.FPDFPageObj_GetMatrix(obj, matrix)
                    m = _compose((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f),
                                 outer)
                    self.add(" ", m[4], m[5], self.object_state(obj, m[:4]), 0.0)

    def check_space_runs(self):
        """pdfium keeps one of several spaces in a row. Where other text stands over such a
        run, pdfplumber breaks words at the hidden spaces, so the page falls back."""
        runs = [r for r in self.runs if r[1] is not None and r[1] - r[0] >= 4 * r[3]]
        if not runs:
            return
        by_line = {}
        for ch in self.chars:
            if not ch[0].isspace():
                by_line.setdefault(round(ch[3]), []).append(ch)
        for x0, x1, blank, step in runs:
            near = [ch for t in range(round(blank[3]) - 3, round(blank[3]) + 4)
                    for ch in by_line.get(t, ()) if abs(ch[3] - blank[3]) <= 3]
            if sum(1 for ch in near if x0 + step < ch[1] < x1 - step and
                   ch[7] != blank[7]) >= 3:
                raise _PdfiumUnmapped("text stands over a run of spaces pdfium merged")


def _compose(m, n):
    """The matrix ``m`` then ``n`` (PDF's row-vector convention)."""
    (a, b, c, d, e, f), (p, q, r, s, t, u) = m, n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s,
            e * p + f * r + t, e * q + f * s + u)


class _PdfiumFonts:
    """pdfium's fonts matched by name to pdfminer's, which hold pdfplumber's metrics."""

    def __init__(self, manager):
        self.manager, self.by_handle, self.by_page = manager, {}, {}

    def find(self, pdfium_c, ctypes, handle, miner_page):
        key = (ctypes.addressof(handle.contents), id(miner_page))
        if key not in self.by_handle:
            buffer = ctypes.create_string_buffer(256)
            pdfium_c.FPDFFont_GetBaseFontName(handle, buffer, 256)
            name = buffer.value.decode("latin-1")
            plain, fonts = _plain_font_name(name), self._page_fonts(miner_page)
            exact = [f for n, f in fonts if name in (n, f.fontname)]
            found = [f for n, f in fonts if plain in (_plain_font_name(n),
                                                        _plain_font_name(str(f.fontname)))]
            if not found:
                raise _PdfiumUnmapped(f"font {name!r} is not among the page's fonts")
            self.by_handle[key] = _PdfiumFont(exact or found)
        return self.by_handle[key]

    def _page_fonts(self, page):
        if id(page) not in self.by_page:
            self.by_page[id(page)] = _miner_fonts(self.manager, page.resources)
        return self.by_page[id(page)]


def _plain_font_name(name):
    head, plus, tail = name.partition("+")
    return tail if plus and len(head) == 6 and head.isupper() else name


def _miner_fonts(manager, resources):
    """``(BaseFont, pdfminer font)`` for the page's fonts and its forms' fonts."""
    from pdfminer.pdftypes import PDFObjRef, resolve1
    from pdfminer.psparser import literal_name

    out, todo, seen = [], [(resources, 0)], set()
    while todo:
        res, depth = todo.pop()
        res = resolve1(res)
        if not isinstance(res, dict) or id(res) in seen or depth > 8:
            continue
        seen.add(id(res))
        for ref in (resolve1(res.get("Font")) or {}).values():
            spec = resolve1(ref)
            if isinstance(spec, dict):
                objid = ref.objid if isinstance(ref, PDFObjRef) else None
                font = manager.get_font(objid, spec)
                out.append((literal_name(resolve1(spec.get("BaseFont", ""))), font))
                widths = resolve1(spec.get("Widths"))
                first = resolve1(spec.get("FirstChar", 0)) or 0
                # pdfium's widths, where pdfminer may use its own for the standard 14 fonts
                font.dua_file_widths = ({first + i: resolve1(w) for i, w in enumerate(widths)}
                                        if isinstance(widths, list) else {})
        for ref in (resolve1(res.get("XObject")) or {}).values():
            stream = resolve1(ref)
            attrs = getattr(stream, "attrs", {})
            if literal_name(resolve1(attrs.get("Subtype", ""))) == "Form":
                todo.append((attrs.get("Resources"), depth + 1))
    return out


class _PdfiumFont:
    """Text, width and descent of characters as pdfminer measures them in one font."""

    def __init__(self, candidates):
        first = candidates[0]
        if any(f.is_vertical() for f in candidates):
            raise _PdfiumUnmapped("a vertical font")
        self.candidates, self.name = candidates, first.fontname
        self.descent = first.get_descent()
        self.widths = self.file_widths = None
        # pdfminer's built-in metrics (the standard 14 fonts) look widths up by text
        self.metrics_by_text = any(isinstance(next(iter(f.widths), 0), str)
                                   for f in candidates if f.widths)

    def file_width_differs(self, text, width):
        """Whether the file's /Widths give ``text`` another width than pdfminer's metrics."""
        if self.file_widths is None:
            self.file_widths = {}
            for font in self.candidates:
                given = getattr(font, "dua_file_widths", {})
                for cid, glyph in _miner_cids(font) if given else ():
                    if isinstance(given.get(cid), (int, float)):
                        self.file_widths.setdefault(glyph, set()).add(given[cid] * 0.001)
        return any(abs(w - width) > 0.0005 for w in self.file_widths.get(text, ()))

    def joined(self, first, second):
        """The text of one glyph pdfium split in two (a ligature), or ''."""
        for text in (first + second, _LIGATURE_OF.get(first + second, "")):
            if text and text in self._widths():
                return text
        return ""

    def text(self, code):
        if code == 2:  # pdfium's mark for a hyphen that ends a line
            hyphens = [h for h in ("-", "\xad", "\u2010") if h in self._widths()]
            if len(hyphens) == 1:
                return hyphens[0]
        if code in (0, 2, 0xFFFE, 0xFFFF) or 0xD800 <= code < 0xE000:
            raise _PdfiumUnmapped(f"a glyph pdfium maps to U+{code:04X}")
        if 0x590 <= code < 0x900 or 0xFB1D <= code < 0xFE00 or 0xFE70 <= code < 0xFF00:
            raise _PdfiumUnmapped("right-to-left text, which pdfium reorders")
        return chr(code)

    def width(self, text, measured):
        """pdfminer's width of ``text`` (per unit of font size), the one nearest pdfium's."""
        found = self._widths().get(text)
        if not found:
            raise _PdfiumUnmapped(f"no glyph of font {self.name!r} reads {text!r}")
        if len(found) == 1:
            return next(iter(found))
        near = measured()
        return min(found, key=lambda w: abs(w - near))

    def _widths(self):
        if self.widths is None:
            self.widths = {}
            for font in self.candidates:
                for cid, text in _miner_cids(font):
                    self.widths.setdefault(text, set()).add(font.char_width(cid))
        return self.widths


def _miner_cids(font):
    unicode_map = getattr(font, "unicode_map", None)
    cids = set(getattr(unicode_map, "cid2unichr", {}))
    cids.update(getattr(font, "cid2unicode", {}))
    for cid in sorted(cids):
        try:
            text = font.to_unichr(cid)
        except Exception:  # pdfminer's PDFUnicodeNotDefined and friends
            continue
        if isinstance(text, str) and text:
            yield cid, text
