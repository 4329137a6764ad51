"""pdfium's characters read as pdfminer reads them, for ``dua.pdf.words``.

pdfium tells where each glyph stands; the content stream tells which code it is
(``content``), and pdfminer's font what pdfplumber reads for that code and how wide it is
(``fonts``). Each of pdfium's text objects is one show of the content, in the same order:
its glyphs are matched to the show's codes one by one, and a page where they do not match
falls back to pdfplumber.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pypdfium2 and pdfminer inside the functions that use them.
"""
from __future__ import annotations

from .content import _Scan
from .wordrule import _NEAR, _PdfiumUnmapped, _char_lines, _cluster_words


def _pdfium_page(doc, number, miner_page, fonts):
    import ctypes

    import pypdfium2.raw as pdfium_c

    left, bottom, right, top = (float(v) for v in miner_page.mediabox)
    if miner_page.rotate % 360 or left or bottom or right < left or top < bottom:
        raise _PdfiumUnmapped("the page is rotated or its media box does not start at 0,0")
    page = doc[number - 1]
    try:
        box = [ctypes.c_float() for _ in range(4)]
        if pdfium_c.FPDFPage_GetMediaBox(page.raw, *[ctypes.byref(v) for v in box]) and any(
                abs(v.value - w) > 0.01 for v, w in zip(box, (left, bottom, right, top))):
            raise _PdfiumUnmapped("pdfium and pdfminer read different pages")
        reader = _PdfiumPage(pdfium_c, ctypes, top, miner_page)
        reader.read_objects(page.raw)
        reader.match_shows(_Scan(fonts))
        textpage = page.get_textpage()
        try:
            reader.read_chars(textpage.raw)
            reader.read_dropped()
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
        ptr, num = ctypes.c_void_p, ctypes.c_int
        for name, result in (
                ("FPDFText_GetTextObject", ptr), ("FPDFText_GetCharOrigin", num),
                ("FPDFText_IsGenerated", num), ("FPDFText_HasUnicodeMapError", num),
                ("FPDFText_GetCharBox", num), ("FPDFText_GetMatrix", num),
                ("FPDFTextObj_GetFontSize", num), ("FPDFPage_CountObjects", num),
                ("FPDFPage_GetObject", ptr), ("FPDFPageObj_GetType", num),
                ("FPDFPageObj_GetMatrix", num), ("FPDFFormObj_CountObjects", num)):
            _CALLS[name] = ctypes.CFUNCTYPE(result)(_pdfium_address(pdfium_c, ctypes, name))
            _CALLS[name].argtypes = None
        declared = ctypes.CFUNCTYPE(ptr, ptr, ctypes.c_ulong)
        _CALLS["FPDFFormObj_GetObject"] = declared(
            _pdfium_address(pdfium_c, ctypes, "FPDFFormObj_GetObject"))
    return _CALLS


def _pdfium_address(pdfium_c, ctypes, name):
    return ctypes.cast(getattr(pdfium_c, name), ctypes.c_void_p).value


def _right_to_left(code):
    """Hebrew, Arabic and their presentation forms: pdfium reorders such text."""
    return 0x590 <= code < 0x900 or 0xFB1D <= code < 0xFE00 or 0xFE70 <= code < 0xFF00


class _PdfiumPage:
    """One page's characters as ``[text, x0, x1, top, bottom, font, size, object]``.

    Boxes are pdfminer's: x0 at the glyph origin less what pdfium's advances gained on
    pdfminer's before it in its text object, x1 from pdfminer's width for the code, top
    and bottom from the font's descent.
    """

    def __init__(self, pdfium_c, ctypes, height, miner_page):
        self.c, self.ctypes, self.height = pdfium_c, ctypes, height
        self.call = _pdfium_calls(pdfium_c, ctypes)
        self.miner_page = miner_page
        self.chars, self.runs = [], []  # runs: [space, next glyph, step]
        self.order, self.outer = [], {}  # the text objects; the forms' matrix around one
        self.shows, self.show_of = [], {}
        self.objects, self.states, self.end_drift = {}, {}, {}
        self.graphics = False  # any line, shape or image: pdfplumber reads those
        self.drifted = self.forms = False
        self.matrix, self.size = pdfium_c.FS_MATRIX(), ctypes.c_float()
        self.at_size, self.page_text = ctypes.byref(self.size), None
        self.box = (ctypes.c_double * 4)()
        self.at_box = [ctypes.byref(self.box, 8 * k) for k in range(4)]

    def read_objects(self, page):
        """pdfium's text objects in content order (a form's where the form is drawn), and
        whether the page draws any line, shape or image."""
        pointer = self.ctypes.c_void_p
        page = self.ctypes.cast(page, pointer)
        self.walk(self.call["FPDFPage_GetObject"], page,
                  self.call["FPDFPage_CountObjects"](page), None)

    def walk(self, get, holder, count, outer):
        c, call, order = self.c, self.call, self.order
        get_type, pointer = call["FPDFPageObj_GetType"], self.ctypes.c_void_p
        text_kind, form_kind = c.FPDF_PAGEOBJ_TEXT, c.FPDF_PAGEOBJ_FORM
        for k in range(count):
            obj = get(holder, k)
            kind = get_type(pointer(obj))
            if kind == text_kind:
                order.append(obj)
                if outer is not None:
                    self.outer[obj] = outer
            elif kind == form_kind:
                self.forms = True
                at_obj = pointer(obj)
                inner = _compose(self.object_matrix(at_obj), outer or _IDENTITY)
                self.walk(call["FPDFFormObj_GetObject"], at_obj,
                          call["FPDFFormObj_CountObjects"](at_obj), inner)
            elif kind in (c.FPDF_PAGEOBJ_PATH, c.FPDF_PAGEOBJ_IMAGE, c.FPDF_PAGEOBJ_SHADING):
                self.graphics = True

    def object_matrix(self, at_obj):
        m = self.matrix
        self.call["FPDFPageObj_GetMatrix"](at_obj, self.ctypes.byref(m))
        return (m.a, m.b, m.c, m.d, m.e, m.f)

    def match_shows(self, scan):
        """Each text object's show: pdfium makes one object of each show, in order."""
        self.shows = scan.page(self.miner_page)
        self.show_of = dict(zip(self.order, self.shows))
        if len(self.shows) != len(self.order) or len(self.show_of) != len(self.order):
            raise _PdfiumUnmapped(f"pdfium has {len(self.order)} text objects where the "
                                  f"content shows text {len(self.shows)} times")

    def object_state(self, handle, font, matrix):
        """Horizontal and vertical scale, descent below the origin, font name and codes
        of an object's glyphs: shared by the objects drawn alike, cached per object."""
        self.call["FPDFTextObj_GetFontSize"](self.ctypes.c_void_p(handle), self.at_size)
        a, b, c, d, size = matrix.a, matrix.b, matrix.c, matrix.d, self.size.value
        key = (font, size, a, b, c, d)
        state = self.states.get(key)
        if state is None:
            if abs(b) > 1e-6 or abs(c) > 1e-6 or a <= 0 or d <= 0:
                raise _PdfiumUnmapped("rotated, skewed or mirrored text")
            state = self.states[key] = (font, a * size, d * size, font.descent * d * size,
                                        font.name, font.codes)
        self.objects[handle] = state
        return state

    def read_chars(self, textpage):
        """Every glyph pdfium reads, with its code's text and width: a glyph is the run of
        characters pdfium gives it (a ligature's letters, a surrogate pair), and each takes
        its object's next code; a blank pdfminer reads where pdfium merged it with the blank
        before it stands where pdfium's generated one does."""
        ctypes, chars, runs, height = self.ctypes, self.chars, self.runs, self.height
        page_text = self.page_text = ctypes.cast(textpage, ctypes.c_void_p)
        call = self.call
        get_object, get_origin = call["FPDFText_GetTextObject"], call["FPDFText_GetCharOrigin"]
        get_matrix, at_matrix = call["FPDFText_GetMatrix"], ctypes.byref(self.matrix)
        is_generated, show_of, objects = call["FPDFText_IsGenerated"], self.show_of, self.objects
        origin_x, origin_y = ctypes.c_double(), ctypes.c_double()
        at_x, at_y = ctypes.byref(origin_x), ctypes.byref(origin_y)
        last_handle, last_x, last_y = 0, None, None  # 0: no object, so a NULL one is told
        codes, k, font, info, pieces, drift = b"", 0, None, None, None, 0.0
        last, generated, open_run = -1, -2, None  # last: the glyph's first character
        for i, code in enumerate(self.codes(textpage)):
            if code in (13, 10, 32) and is_generated(page_text, i) == 1:
                if code == 32:  # pdfium's own spaces and line ends; pdfminer has none
                    generated = i
                continue
            if code >= 0x590 and _right_to_left(code):
                raise _PdfiumUnmapped("right-to-left text, which pdfium reorders")
            handle = get_object(page_text, i)
            get_origin(page_text, i, at_x, at_y)
            x, y = origin_x.value, origin_y.value
            if handle == last_handle and x == last_x and y == last_y and self.one_glyph(i):
                pieces = (pieces or [first]) + [code]  # one glyph, several characters
                continue
            if info is not None and (pieces is not None or info[4] != first):
                self.check_glyph(pieces or [first], info, last, font)
                pieces = None
            if handle == last_handle:
                same = y == last_y
            else:
                if last_handle:
                    drift = self.end_object(last_handle, codes, k, drift, across)
                if not handle or handle in objects:
                    raise _PdfiumUnmapped("characters pdfium places outside their text object")
                show = show_of.get(handle)
                if show is None:
                    raise _PdfiumUnmapped("a text object of pdfium's that the content lacks")
                get_matrix(page_text, i, at_matrix)
                _, across, up, drop, name, known = self.object_state(handle, show.font,
                                                                     self.matrix)
                font, codes, k, drift, same = show.font, show.codes, 0, 0.0, False
            while True:  # the object's next code, past the blanks pdfium merged
                if k == len(codes):
                    raise _PdfiumUnmapped("pdfium reads more glyphs in a text object than "
                                          "the content shows")
                cid = codes[k]
                info = known.get(cid) or font.code(cid)
                k += 1
                if code == 32 or code == info[4] or not (info[3] or cid == 32 and (
                        info[0][:5] == "(cid:" and not font.multibyte)):
                    break  # else pdfium reads it as a space: it may have merged it
                at = self.merged_blank(k == 1, generated == i - 1, handle, i)
                generated = -2
                if at is None and not info[3]:
                    raise _PdfiumUnmapped("a glyph pdfium merged with the space before it")
                if at is not None:
                    at -= drift
                    char = [info[0], at, at + (0.0 if info[3] else info[1] * across),
                            height - y - drop - up, height - y - drop, name, up, handle]
                    chars.append(char)
                    if info[3]:
                        open_run = [char, None, info[1] * across]
                        runs.append(open_run)
                if info[2]:
                    drift += info[2] * across
            text, width, step, blank, first = info
            left, bottom = x - drift, height - y - drop
            if same and chars[-1][2] == chars[-1][1] and abs(left - chars[-1][1]) < _NEAR:
                left = chars[-1][1]  # after a glyph pdfminer gives no width: the same x
            if blank:
                char = [text, left, left, bottom - up, bottom, name, up, handle]
                if open_run is not None and same:
                    open_run[1] = char  # the glyph after a space ends its run
                open_run = [char, None, width * across]
                runs.append(open_run)
            else:
                char = [text, left, left + width * across, bottom - up, bottom, name, up,
                        handle]
                if open_run is not None and same:
                    open_run[1], open_run = char, None  # the glyph after a space ends its run
            chars.append(char)
            if step:
                drift += step * across
                self.drifted = True
            first, last, last_handle, last_x, last_y = code, i, handle, x, y
        if last_handle:
            if pieces is not None or info[4] != first:
                self.check_glyph(pieces or [first], info, last, font)
            self.end_object(last_handle, codes, k, drift, across)

    def check_glyph(self, pieces, info, index, font):
        """Raises _PdfiumUnmapped where pdfium reads a glyph otherwise than pdfminer reads
        its code and both claim to know: a sign that glyphs and codes are out of step."""
        seen = "".join(map(chr, pieces))
        text = info[0]
        if font.agrees(seen, text) or text.startswith("(cid:") or seen == "\x00":
            return  # the same, or pdfminer cannot name the code, or pdfium cannot
        if seen == "\x02" and text in ("-", "\xad", "\u2010"):
            return  # pdfium's mark for a hyphen that ends a line
        if self.call["FPDFText_HasUnicodeMapError"](self.page_text, index) == 1:
            return  # pdfium has no text for it: the code stands in
        if len(pieces) > 1 and self.actual_text(index):
            return  # pdfium reads a span's /ActualText in its first glyph, pdfminer not
        raise _PdfiumUnmapped(f"pdfium reads {seen!r} where pdfminer reads {text!r}, in "
                              f"font {font.name!r}")

    def actual_text(self, index):
        """Whether the text object of character ``index`` is marked with /ActualText."""
        c = self.c
        handle = self.call["FPDFText_GetTextObject"](self.page_text, index)
        obj = self.ctypes.cast(handle, c.FPDF_PAGEOBJECT)
        for k in range(c.FPDFPageObj_CountMarks(obj)):
            mark = c.FPDFPageObj_GetMark(obj, k)
            if c.FPDFPageObjMark_GetParamValueType(mark, b"ActualText") != \
                    c.FPDF_OBJECT_UNKNOWN:
                return True
        return False

    def end_object(self, handle, codes, k, drift, across):
        """The codes of an object pdfium read no glyph for must be blanks it merged with
        the blank before them; what they advance counts for text that continues."""
        for cid in codes[k:]:
            info = self.show_of[handle].font.code(cid)
            if not info[3]:
                raise _PdfiumUnmapped("pdfium reads fewer glyphs in a text object than the "
                                      "content shows")
            drift += info[2] * across
        if drift:
            self.end_drift[handle], self.drifted = drift, True
        return drift

    def merged_blank(self, first, after_generated, handle, index):
        """Where a blank pdfium merged stands, if pdfium tells: at its object's origin if
        it is the object's first code, at pdfium's generated space if one is just before
        it (pdfium placed that one at the blank's origin); else it is one of a run of
        blanks, whose first pdfium kept."""
        if first:
            return self.object_origin(handle)[0]
        if after_generated:
            x, y = self.ctypes.c_double(), self.ctypes.c_double()
            self.call["FPDFText_GetCharOrigin"](self.page_text, index - 1,
                                                self.ctypes.byref(x), self.ctypes.byref(y))
            return x.value
        return None

    def object_origin(self, handle):
        m = _compose(self.object_matrix(self.ctypes.c_void_p(handle)),
                     self.outer.get(handle, _IDENTITY))
        return m[4], m[5], m

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
        """Every character's UTF-16 unit: one call for the page, or one per character where
        the page's text and its characters do not line up."""
        c, count = self.c, self.c.FPDFText_CountChars(textpage)
        units = (self.ctypes.c_ushort * (count + 1))()
        if c.FPDFText_GetText(textpage, 0, count, units) == count + 1:
            codes = units[:count]
            marked = 0xFFFE in codes  # pdfium's mark, not a glyph (a scan in C, most pages)
            for i in (i for i, code in enumerate(codes) if code == 0xFFFE) if marked else ():
                codes[i] = c.FPDFText_GetUnicode(textpage, i)
            return codes
        return [c.FPDFText_GetUnicode(textpage, i) for i in range(count)]

    def read_dropped(self):
        """Text objects pdfium reads no character of: blank ones (no ink), and ones of a
        single glyph (no ink, a duplicate of the one before, an /ActualText span's rest),
        placed at the object's origin; any other falls back."""
        for handle in self.order:
            if handle in self.objects:
                continue
            show = self.show_of[handle]
            font, infos = show.font, [show.font.code(cid) for cid in show.codes]
            x, y, m = self.object_origin(handle)
            self.matrix.a, self.matrix.b, self.matrix.c, self.matrix.d = m[:4]
            _, across, up, drop, name, _ = self.object_state(handle, font, self.matrix)
            bottom = self.height - y - drop
            if all(info[3] for info in infos):
                self.chars.append([infos[0][0], x, x, bottom - up, bottom, name, up, handle])
            elif len(infos) == 1:
                self.chars.append([infos[0][0], x, x + infos[0][1] * across, bottom - up,
                                   bottom, name, up, handle])
            else:
                raise _PdfiumUnmapped(f"text pdfium drops (glyphs of no ink, a duplicate, an "
                                      f"/ActualText span), in font {font.name!r}")
            drift = sum(info[2] for info in infos) * across
            if drift:
                self.end_drift[handle], self.drifted = drift, True

    def place_continued_text(self):
        """Text objects that start where the previous one stopped start where pdfminer
        stopped it, which pdfium may not (see ``content``): each is moved by what pdfium
        had gained by then."""
        if not self.drifted and not any(show.lost for show in self.shows):
            return
        if all(show.positioned for show in self.shows):
            return
        if self.forms:
            raise _PdfiumUnmapped("text continues where earlier text stopped, inside a form")
        shift, lead = {}, 0.0  # lead: how far pdfium is ahead at the end of an object
        for handle in self.order:
            show = self.show_of[handle]
            start = 0.0 if show.positioned else lead
            shift[handle] = start
            lead = start + self.end_drift.get(handle, 0.0) + \
                show.lost * self.objects[handle][1] / 1000
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


_IDENTITY = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)


def _compose(m, n):
    """The matrix ``m`` then ``n`` (PDF's row-vector convention)."""
    (a, b, c, d, e, f), (p, q, r, s, t, u) = m, n
    return (a * p + b * r, a * q + b * s, c * p + d * r, c * q + d * s,
            e * p + f * r + t, e * q + f * s + u)
