"""pdfium's characters measured as pdfminer measures them, for ``dua.pdf.words``.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pypdfium2 and pdfminer inside the functions that use them.
"""
from __future__ import annotations

from .content import _page_content, _show_operators
from .wordrule import _NEAR, _PdfiumUnmapped, _char_lines, _cluster_words


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
    reader.place_continued_text()
    line_of, lines = _char_lines(reader.chars)
    reader.check_space_runs(line_of, lines)
    return {"number": number, "width": right, "height": top,
            "words": _cluster_words(lines), "chars": len(reader.chars),
            "reader": "pdfium", "why": "", "graphics": reader.graphics}


_CALLS = {}


def _pdfium_calls(pdfium_c, ctypes):
    """pdfium's functions called once per character or object, on plain pointers.

    The hot ones declare no arguments: ctypes' conversions cost more than the calls
    (measured 0.9 us a call declared, 0.35 us not). Undeclared, a Python int goes in as
    a C int, so every pointer must go in as a c_void_p; indices are ints.
    """
    if not _CALLS:
        ptr, num, size = ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t
        for name, result in (
                ("FPDFText_GetTextObject", ptr), ("FPDFText_GetCharOrigin", num),
                ("FPDFText_IsGenerated", num), ("FPDFText_GetLooseCharBox", num),
                ("FPDFText_HasUnicodeMapError", num),
                ("FPDFText_GetCharBox", num), ("FPDFText_GetMatrix", num),
                ("FPDFTextObj_GetFontSize", num), ("FPDFTextObj_GetFont", ptr),
                ("FPDFPage_CountObjects", num), ("FPDFPage_GetObject", ptr),
                ("FPDFPageObj_GetType", num), ("FPDFPageObj_GetMatrix", num),
                ("FPDFFormObj_CountObjects", num)):
            _CALLS[name] = ctypes.CFUNCTYPE(result)(_pdfium_address(pdfium_c, ctypes, name))
            _CALLS[name].argtypes = None
        for name, result, *args in (
                ("FPDFFont_GetBaseFontName", size, ptr, ctypes.c_char_p, size),
                ("FPDFFormObj_GetObject", ptr, ptr, ctypes.c_ulong)):
            declared = ctypes.CFUNCTYPE(result, *args)
            _CALLS[name] = declared(_pdfium_address(pdfium_c, ctypes, name))
    return _CALLS


def _pdfium_address(pdfium_c, ctypes, name):
    return ctypes.cast(getattr(pdfium_c, name), ctypes.c_void_p).value


class _PdfiumPage:
    """One page's characters as ``[text, x0, x1, top, bottom, font, size, object]``.

    Boxes are pdfminer's: x0 at the glyph origin, x1 from pdfminer's width for the glyph,
    top and bottom from the font's descent, since pdfium's loose boxes use other metrics
    and include the ink.
    """

    def __init__(self, pdfium_c, ctypes, height, miner_page, fonts):
        self.c, self.ctypes, self.height = pdfium_c, ctypes, height
        self.call = _pdfium_calls(pdfium_c, ctypes)
        self.miner_page, self.fonts = miner_page, fonts
        self.chars, self.objects, self.runs = [], {}, []  # runs: [space, next glyph, step]
        self.order, self.end_drift = [], {}  # the page's text objects; pdfium's lead at the end
        self.graphics = False  # any line, shape or image: pdfplumber reads those
        self.drifted = self.forms = False
        self.font_at, self.states = {}, {}  # pdfium's font handle -> _PdfiumFont
        self.matrix, self.size = pdfium_c.FS_MATRIX(), ctypes.c_float()
        self.at_size = ctypes.byref(self.size)
        self.rect = pdfium_c.FS_RECTF()
        self.at_rect, self.page_text = ctypes.byref(self.rect), None
        self.box = (ctypes.c_double * 4)()
        self.at_box = [ctypes.byref(self.box, 8 * k) for k in range(4)]
        self.get_size = self.call["FPDFTextObj_GetFontSize"]
        self.get_font = self.call["FPDFTextObj_GetFont"]

    def object_state(self, handle, matrix):
        """Font, horizontal and vertical scale, descent below the origin, font name, the
        font's single widths, whether pdfium's advances drift from pdfminer's, a space's
        step and the drift per glyph (see ``_PdfiumFont.steps``), of a text object's
        glyphs: shared by the objects drawn alike, cached per object."""
        pointer = self.ctypes.c_void_p(handle)
        self.get_size(pointer, self.at_size)
        font_handle = self.get_font(pointer)
        key = (font_handle, self.size.value, matrix.a, matrix.b, matrix.c, matrix.d)
        state = self.states.get(key)
        if state is None:
            a, b, c, d, size = matrix.a, matrix.b, matrix.c, matrix.d, self.size.value
            if abs(b) > 1e-6 or abs(c) > 1e-6 or a <= 0 or d <= 0:
                raise _PdfiumUnmapped("rotated, skewed or mirrored text")
            font = self.font_at.get(font_handle)
            if font is None:
                font = self.font_at[font_handle] = self.fonts.find(
                    self.call, self.ctypes, font_handle, self.miner_page)
            across = a * size
            state = self.states[key] = (
                font, across, d * size, font.descent * d * size, font.name, font.single,
                font.drifts, font.space_width * across, font.steps)
        self.objects[handle] = state
        return state

    def read_chars(self, textpage):
        ctypes, chars, runs, height = self.ctypes, self.chars, self.runs, self.height
        page_text = self.page_text = ctypes.cast(textpage, ctypes.c_void_p)
        get_object, get_origin = (self.call["FPDFText_GetTextObject"],
                                  self.call["FPDFText_GetCharOrigin"])
        get_matrix, at_matrix = self.call["FPDFText_GetMatrix"], ctypes.byref(self.matrix)
        objects, origin_x, origin_y = self.objects, ctypes.c_double(), ctypes.c_double()
        at_x, at_y = ctypes.byref(origin_x), ctypes.byref(origin_y)
        last_handle, last_x, last_y = 0, None, None  # 0: no object, so a NULL one is told
        last_text, drift, step, pending = "", 0.0, 0.0, False
        open_run = None  # a space's run, until the next glyph of its object and line
        is_generated = self.call["FPDFText_IsGenerated"]
        unmapped = self.call["FPDFText_HasUnicodeMapError"]
        for i, code in enumerate(self.codes(textpage)):
            if code in (13, 10, 32) and is_generated(page_text, i) == 1:
                continue  # pdfium's own spaces and line ends; pdfminer has none
            if unmapped(page_text, i) == 1:  # the code stands in for the text pdfium lacks
                raise _PdfiumUnmapped("a glyph pdfium has no text for")
            handle = get_object(page_text, i)
            get_origin(page_text, i, at_x, at_y)
            x, y = origin_x.value, origin_y.value
            if handle != last_handle:
                if not handle:
                    raise _PdfiumUnmapped("a character pdfium places outside any text object")
                state = objects.get(handle)
                if state is None:
                    get_matrix(page_text, i, at_matrix)
                    state = self.object_state(handle, self.matrix)
                font, across, up, drop, name, single, drifts, space_step, steps = state
                text = chr(code) if 32 <= code < 0x590 else font.text(code)
                drift = step = 0.0  # pdfminer and pdfium agree where a text object starts
                same = False
            else:
                text = chr(code) if 32 <= code < 0x590 else font.text(code)
                same = y == last_y
                whole = same and x == last_x and font.joined(last_text, text)
                if whole and self.one_glyph(i):
                    text, pending = whole, False  # one glyph pdfium split ("ffi")
                    drift, step = drift - step, 0.0
                    split = chars.pop()  # always: a page with no spaces has no runs
                    if runs and runs[-1][1] is split:
                        runs[-1][1], open_run = None, runs[-1]
            if pending:
                raise _PdfiumUnmapped(f"pieces of a glyph, {last_text!r}, that no glyph reads")
            left, bottom = x - drift, height - y - drop
            if same and chars[-1][2] == chars[-1][1] and abs(left - chars[-1][1]) < _NEAR:
                left = chars[-1][1]  # after a glyph pdfminer gives no width: the same x
            if text.isspace():
                width = 0.0
                char = [text, left, left, bottom - up, bottom, name, up, handle]
                if open_run is not None and same:
                    open_run[1] = char  # the glyph after a space ends its run
                open_run = [char, None, space_step]
                runs.append(open_run)
            else:
                width = single.get(text)
                if width is None:
                    pending = font.pending(text)  # its width comes with its last piece
                    width = 0.0 if pending else font.width(text, textpage, i, across, self)
                if font.unnamed and not pending:
                    font.check_named(text, width, self, i, across)
                char = [text, left, left + width * across, bottom - up, bottom, name, up,
                        handle]
                if open_run is not None and same:
                    open_run[1], open_run = char, None  # the glyph after a space ends its run
            chars.append(char)
            if drifts and not pending:  # else drift and step stay 0 for the whole object
                if text.isspace():
                    width = font.width(text, textpage, i, across, self)
                step = steps.get((text, width))
                if step is None:
                    step = font.step(text, width, self, i, across)
                if step:
                    step *= across
                    drift += step
                    self.drifted, self.end_drift[handle] = True, drift
            last_handle, last_x = handle, x  # pairs: Python builds no tuple for two
            last_y, last_text = y, text
        if pending:
            raise _PdfiumUnmapped(f"pieces of a glyph, {last_text!r}, that no glyph reads")

    def one_glyph(self, index):
        """Whether characters ``index - 1`` and ``index`` are pieces of one glyph: pdfium
        gives each piece the glyph's origin and either its whole ink box (a ligature
        character it expands) or the next slice of it (a glyph whose text is several
        characters); two glyphs drawn at one origin have other boxes."""
        box, get = self.box, self.call["FPDFText_GetCharBox"]  # left, right, bottom, top
        get(self.page_text, index - 1, *self.at_box)
        before = tuple(box)
        get(self.page_text, index, *self.at_box)
        return before == tuple(box) or (before[1] == box[0] and before[2:] == tuple(box)[2:])

    def codes(self, textpage):
        """Every character's code: one call for the page, or one per character where the
        page's text holds characters beyond 16 bits."""
        c, count = self.c, self.c.FPDFText_CountChars(textpage)
        units = (self.ctypes.c_ushort * (count + 1))()
        if c.FPDFText_GetText(textpage, 0, count, units) == count + 1:
            codes = units[:count]
            marked = 0xFFFE in codes  # pdfium's mark, not a glyph (a scan in C, most pages)
            for i in (i for i, code in enumerate(codes) if code == 0xFFFE) if marked else ():
                codes[i] = c.FPDFText_GetUnicode(textpage, i)
            return codes
        return [c.FPDFText_GetUnicode(textpage, i) for i in range(count)]

    def loose_width(self, textpage, index):
        rect = self.rect  # pdfium's box for the glyph, in points
        self.call["FPDFText_GetLooseCharBox"](self.page_text, index, self.at_rect)
        return rect.right - rect.left

    def read_blank_objects(self, page):
        """Text objects pdfium drops for having no ink: pdfminer's spaces and tabs."""
        c, call, objects, matrix = self.c, self.call, self.objects, self.matrix
        get_type, get_matrix = call["FPDFPageObj_GetType"], call["FPDFPageObj_GetMatrix"]
        text_kind, form_kind, at_matrix = (c.FPDF_PAGEOBJ_TEXT, c.FPDF_PAGEOBJ_FORM,
                                           self.ctypes.byref(matrix))
        pointer, page = self.ctypes.c_void_p, self.ctypes.cast(page, self.ctypes.c_void_p)
        order = self.order
        todo = [(call["FPDFPage_CountObjects"](page), call["FPDFPage_GetObject"], page,
                 (1.0, 0.0, 0.0, 1.0, 0.0, 0.0))]
        while todo:
            count, get, holder, outer = todo.pop()
            for k in range(count):
                obj = get(holder, k)
                if obj in objects:  # a text object whose characters were read: no call
                    if holder is page:
                        order.append(obj)
                    continue
                at_obj = pointer(obj)
                kind = get_type(at_obj)
                if kind == text_kind:
                    if holder is page:
                        order.append(obj)
                    get_matrix(at_obj, at_matrix)
                    m = _compose((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f),
                                 outer)
                    matrix.a, matrix.b, matrix.c, matrix.d = m[:4]
                    self.add_blank(m, obj, self.object_state(obj, matrix))
                elif kind == form_kind:
                    self.forms = True
                    get_matrix(at_obj, at_matrix)
                    inner = _compose((matrix.a, matrix.b, matrix.c, matrix.d, matrix.e,
                                      matrix.f), outer)
                    todo.append((call["FPDFFormObj_CountObjects"](at_obj),
                                 call["FPDFFormObj_GetObject"], at_obj, inner))
                elif kind in (c.FPDF_PAGEOBJ_PATH, c.FPDF_PAGEOBJ_IMAGE,
                              c.FPDF_PAGEOBJ_SHADING):
                    self.graphics = True

    def add_blank(self, matrix, handle, state):
        font, up, bottom = state[0], state[2], matrix[5] + state[3]
        if font.invisible():
            raise _PdfiumUnmapped(f"text pdfium drops for its width, in font {font.name!r} "
                                  "which has glyphs of no width")
        if font.drifts and font.step(" ", font.space_width):
            self.end_drift[handle] = None  # its spaces drift, and they are not counted
        self.chars.append([" ", matrix[4], matrix[4], self.height - bottom - up,
                           self.height - bottom, state[4], up, handle])

    def place_continued_text(self):
        """Text objects that start where the previous one stopped start where pdfminer
        stopped it, which pdfium may not (see ``content``): each is moved by
        what pdfium had gained by then. Only where that gain can be nonzero (drifting
        widths, or an empty string in the content) is the content stream scanned."""
        content = None
        if not self.drifted:
            content = _page_content(self.miner_page)
            if b"()" not in content:
                return
        shows = _show_operators(content or _page_content(self.miner_page))
        if shows is None:
            raise _PdfiumUnmapped("a content stream the continuation scan cannot read")
        if all(positioned for positioned, _ in shows):
            return
        if self.forms or len(shows) != len(self.order):
            raise _PdfiumUnmapped("text continues where earlier text stopped, and pdfium's "
                                  "text objects do not match the content's operators")
        shift, lead = {}, 0.0  # lead: how far pdfium is ahead at the end of an object
        for handle, (positioned, lost) in zip(self.order, shows):
            start = 0.0 if positioned else lead
            own = self.end_drift.get(handle, 0.0)
            if own is None and not positioned:
                raise _PdfiumUnmapped("text continues after spaces whose widths drift")
            shift[handle] = start
            lead = start + (own or 0.0) + lost * self.objects[handle][1] / 1000
        for char in self.chars:
            moved = shift.get(char[7])
            if moved:
                char[1] -= moved
                char[2] -= moved

    def check_space_runs(self, line_of, lines):
        """pdfium keeps one of several spaces in a row. Where other text stands over such a
        run, pdfplumber breaks words at the hidden spaces, so the page falls back.

        Text within 3 pt of a run's top is on the run's line (``_char_lines`` chains tops
        within 3 pt), already sorted by x0: only the lines with a run are searched.
        """
        import bisect

        starts = {}  # a line's x0s, for the lines that hold a run
        for space, after, step in self.runs:
            if after is None or after[1] - space[1] < 4 * step:
                continue
            n, top, over = line_of[space[3]], space[3], 0
            if n not in starts:
                starts[n] = [ch[1] for ch in lines[n]]
            xs = starts[n]
            for ch in lines[n][bisect.bisect_right(xs, space[1] + step):
                               bisect.bisect_left(xs, after[1] - step)]:
                over += (ch[7] != space[7] and abs(ch[3] - top) <= 3
                         and not ch[0].isspace())
            if over >= 3:
                raise _PdfiumUnmapped("text stands over a run of spaces pdfium merged")


def _compose(m, n):
    """The matrix ``m`` then ``n`` (PDF's row-vector convention)."""
    (a, b, c, d, e, f), (p, q, r, s, t, u) = m, n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s,
            e * p + f * r + t, e * q + f * s + u)
