"""A page's characters as pdfminer places them, for ``dua.pdf.words``.

pdfplumber's characters are pdfminer's: each glyph's text and width come from pdfminer's
font for its code, and its box from pdfminer's text state, moved and shown operator by
operator. ``_Text`` keeps that state and does pdfminer's arithmetic in pdfminer's order
(``PDFPageInterpreter``'s text operators, ``PDFTextDevice.render_string_horizontal`` and
``LTChar``), so that every box is the very float pdfplumber computes; the content scan
(``content``) feeds it. What it does not do as pdfminer does, it refuses, and the page
falls back to pdfplumber.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pdfminer inside the functions that use them.
"""
from __future__ import annotations

from .content import _Scan
from .wordrule import _Refused, _words


def _page(miner_page, number, fonts, drawn=None, rule=None):
    """One page read as pdfplumber reads it; _Refused where it cannot be. ``drawn``, where
    given, collects its paths and images too (see ``words._read_pages``); ``rule`` cuts its
    characters into words (None: pdfplumber's rule, ``wordrule._words``)."""
    if "MediaBox" not in miner_page.attrs:
        raise _Refused("a page without a media box")  # pdfminer guesses one, pdfplumber not
    x0, y0, x1, y1 = miner_page.mediabox
    rotate = miner_page.rotate
    ctm = ((0, -1, 1, 0, -y0, x1) if rotate == 90 else (-1, 0, 0, -1, x1, y1)
           if rotate == 180 else (0, 1, -1, 0, y1, -x0) if rotate == 270
           else (1, 0, 0, 1, -x0, -y0))  # pdfminer's page matrix
    left, right = sorted((x0, x1))  # pdfplumber's page box: its corners in order, turned
    low, high = sorted((y0, y1))
    if rotate % 360 in (90, 270):
        left, low, right, high = low, left, high, right
    height = ((high - low) - low) - ((high - low) - high)  # pdfplumber's (inverted box)
    shift = (left, (high - low) - high)  # pdfplumber moves boxes by its box's corner
    text = _Text(height, ctm)
    paths = drawn.page(height, shift) if drawn is not None else None
    scan = _Scan(text, fonts, paths)
    scan.page(miner_page)
    if shift != (0, 0):
        _moved(text.chars, *shift)
    page = {"number": number, "width": right - left, "height": height,
            "words": (rule or _words)(text.chars), "chars": len(text.chars), "reader": "dua", "why": "",
            "graphics": scan.drawn}
    if paths is not None:
        page["paths"] = paths
    return page


def _moved(chars, right, down):
    """pdfplumber's boxes on a page whose box does not start at 0,0: x by its left, top
    and bottom by its top."""
    for c in chars:
        if right:
            c[1], c[2] = c[1] + right, c[2] + right
        c[3], c[4] = c[3] + down, c[4] + down


def _mult(m1, m0):
    """pdfminer's ``mult_matrix``: ``m1`` then ``m0``, its sums in its order."""
    (a1, b1, c1, d1, e1, f1), (a0, b0, c0, d0, e0, f0) = m1, m0
    return (a0 * a1 + c0 * b1, b0 * a1 + d0 * b1, a0 * c1 + c0 * d1, b0 * c1 + d0 * d1,
            a0 * e1 + c0 * f1 + e0, b0 * e1 + d0 * f1 + f0)


class _Text:
    """pdfminer's text state and graphics matrix, and the characters shown so far as
    ``[text, x0, x1, top, bottom, font name, size, upright, place]`` in the order drawn
    (``place`` counts them)."""

    def __init__(self, height, ctm):
        self.height, self.chars, self.stack = height, [], []
        self.fresh(ctm)

    def fresh(self, ctm):
        """pdfminer's ``init_state``: a new text state (no font) under ``ctm``."""
        self.ctm, self.font, self.fontsize, self.charspace = ctm, None, 0, 0
        self.wordspace, self.scaling, self.leading, self.rise = 0, 100, 0, 0
        self.begin()

    def begin(self):  # BT
        self.matrix, self.linematrix = (1, 0, 0, 1, 0, 0), (0, 0)

    def state(self):
        return (self.ctm, self.font, self.fontsize, self.charspace, self.wordspace,
                self.scaling, self.leading, self.rise, self.matrix, self.linematrix)

    def save(self):  # q: pdfminer keeps the text state, its matrix included
        self.stack.append(self.state())

    def restore(self):  # Q
        if self.stack:
            (self.ctm, self.font, self.fontsize, self.charspace, self.wordspace,
             self.scaling, self.leading, self.rise, self.matrix,
             self.linematrix) = self.stack.pop()

    def enter_form(self, matrix):
        """A form's own interpreter: a fresh state under the form's matrix."""
        saved = (self.state(), self.stack)
        self.stack = []
        self.fresh(_mult(matrix, self.ctm))
        return saved

    def leave_form(self, saved):
        state, self.stack = saved
        self.stack.append(state)
        self.restore()

    def concat(self, values):  # cm
        self.ctm = _mult(tuple(float(v) for v in values), self.ctm)

    def set_font(self, font, size):  # Tf
        self.font, self.fontsize = font, float(size)

    def set(self, word, value):  # Tc, Tw, Tz, TL, Ts
        value = float(value)
        if word == b"Tc":
            self.charspace = value
        elif word == b"Tw":
            self.wordspace = value
        elif word == b"Tz":
            self.scaling = value
        elif word == b"TL":
            self.leading = -value
        else:
            self.rise = value

    def spacing(self, aw, ac):  # the two operands of "
        self.wordspace, self.charspace = float(aw), float(ac)

    def move(self, tx, ty, lead):  # Td, TD
        tx, ty = float(tx), float(ty)
        a, b, c, d, e, f = self.matrix
        self.matrix = (a, b, c, d, tx * a + ty * c + e, tx * b + ty * d + f)
        if lead:
            self.leading = ty
        self.linematrix = (0, 0)

    def set_matrix(self, values):  # Tm
        self.matrix, self.linematrix = tuple(float(v) for v in values), (0, 0)

    def next_line(self):  # T*
        a, b, c, d, e, f = self.matrix
        self.matrix = (a, b, c, d, self.leading * c + e, self.leading * d + f)
        self.linematrix = (0, 0)

    def move_show(self, tx, ty, string):
        """Td, then Tj of one string, as a browser prints glyph by glyph."""
        a, b, c, d, e, f = self.matrix
        self.matrix = (a, b, c, d, tx * a + ty * c + e, tx * b + ty * d + f)
        self.linematrix = (0, 0)
        self.show((string,))

    def move_shows(self, pairs):
        """``move_show`` of each ``(tx, ty, string)``; what the text state fixes is worked
        out once, the rest in the order ``move`` and ``show`` do it."""
        font, (ta, tb, tc, td, te, tf) = self.font, self.matrix
        ca, cb, cc, cd, ce, cf = self.ctm
        a, b, c, d = _mult((ta, tb, tc, td, 0, 0), self.ctm)[:4]
        if font is None or font.vertical or b != 0 or c != 0 or a <= 0:
            for tx, ty, string in pairs:
                self.move_show(tx, ty, string)
            return
        fontsize, scaling = self.fontsize, self.scaling * 0.01
        charspace = self.charspace * scaling
        wordspace = 0 if font.multibyte else self.wordspace * scaling
        decode = font.font.decode if font.multibyte else None
        descent = font.descent * fontsize
        low, high = descent + self.rise, descent + self.rise + fontsize
        upright, name, chars, height = a * d * scaling > 0, font.name, self.chars, self.height
        known, code, place, x = font.codes, font.code, len(chars), 0
        for tx, ty, string in pairs:
            te, tf = tx * ta + ty * tc + te, tx * tb + ty * td + tf  # Td
            e, f = ca * te + cc * tf + ce, cb * te + cd * tf + cf  # the matrix shown under
            fy = 0 * d + f
            y0, y1 = d * low + fy, d * high + fy
            if y1 < y0:
                y0, y1 = y1, y0
            top, bottom, size, x, need = height - y1, height - y0, y1 - y0, 0, False
            for cid in (string if decode is None else decode(string)):
                if need:
                    x += charspace
                text, width = known.get(cid) or code(cid)
                adv = width * fontsize * scaling
                left = x * a + e
                right = a * adv + left
                if right < left:
                    left, right = right, left
                chars.append([text, left, right, top, bottom, name, size, upright, place])
                place += 1
                x += adv
                if cid == 32 and wordspace:
                    x += wordspace
                need = True
        self.matrix, self.linematrix = (ta, tb, tc, td, te, tf), (x, 0)

    def show(self, seq):
        """pdfminer's ``render_string`` of a show's strings (bytes) and moves (numbers)."""
        font = self.font
        if font is None:
            return  # pdfminer shows nothing without a font
        a, b, c, d, e, f = _mult(self.matrix, self.ctm)
        fontsize, scaling = self.fontsize, self.scaling * 0.01
        charspace = self.charspace * scaling
        wordspace = 0 if font.multibyte else self.wordspace * scaling
        dxscale = 0.001 * fontsize * scaling
        descent = font.descent * fontsize
        low, high = descent + self.rise, descent + self.rise + fontsize
        x, y = self.linematrix
        if font.vertical:
            self.linematrix = (x, self.show_vertical(seq, font, x, y, (
                a, b, c, d, e, f, fontsize, scaling, charspace, wordspace, dxscale)))
            return
        if b != 0 or c != 0 or a <= 0:
            x = self.show_turned(seq, font, x, y, (a, b, c, d, e, f, fontsize, scaling,
                                                   charspace, wordspace, dxscale, low, high))
        else:
            x = self.show_upright(seq, font, x, y, (a, d, e, f, fontsize, scaling, charspace,
                                                    wordspace, dxscale, low, high))
        self.linematrix = (x, y)

    def show_upright(self, seq, font, x, y, values):
        """Glyphs neither turned nor mirrored: ``LTChar``'s corners reduced to the terms
        that are not zero (the same floats, a sign of zero apart)."""
        a, d, e, f, fontsize, scaling, charspace, wordspace, dxscale, low, high = values
        fy = y * d + f
        y0, y1 = d * low + fy, d * high + fy
        if y1 < y0:
            y0, y1 = y1, y0
        top, bottom, size = self.height - y1, self.height - y0, y1 - y0
        upright, name, chars = a * d * scaling > 0, font.name, self.chars
        known, code, multibyte = font.codes, font.code, font.multibyte
        need, place = False, len(chars)
        for obj in seq:
            if obj.__class__ is not bytes:
                x -= obj * dxscale
                need = True
                continue
            for cid in (obj if not multibyte else font.font.decode(obj)):
                if need:
                    x += charspace
                text, width = known.get(cid) or code(cid)
                adv = width * fontsize * scaling
                left = x * a + e
                right = a * adv + left
                if right < left:
                    left, right = right, left
                chars.append([text, left, right, top, bottom, name, size, upright, place])
                place += 1
                x += adv
                if cid == 32 and wordspace:
                    x += wordspace
                need = True
        return x

    def show_vertical(self, seq, font, x, y, values):
        """Glyphs of a vertical font: ``render_string_vertical`` and ``LTChar``'s box of
        one, from the font's vertical metrics."""
        a, b, c, d, e, f, fontsize, scaling, charspace, wordspace, dxscale = values
        upright, name, chars, need = a * d * scaling > 0 and b * c <= 0, font.name, [], False
        for obj in seq:
            if obj.__class__ is not bytes:
                y -= obj * dxscale
                need = True
                continue
            for cid in font.font.decode(obj):
                if need:
                    y += charspace
                text, width = font.code(cid)
                adv = width * fontsize * scaling
                vx, vy = font.font.char_disp(cid)
                vx = fontsize * 0.5 if vx is None else vx * fontsize * 0.001
                vy = (1000 - vy) * fontsize * 0.001
                x0, y0, x1, y1 = (-vx, vy + self.rise + adv, -vx + fontsize, vy + self.rise)
                ex, fy = x * a + y * c + e, x * b + y * d + f
                xs = (a * x0 + c * y0 + ex, a * x1 + c * y0 + ex, a * x1 + c * y1 + ex,
                      a * x0 + c * y1 + ex)
                ys = (b * x0 + d * y0 + fy, b * x1 + d * y0 + fy, b * x1 + d * y1 + fy,
                      b * x0 + d * y1 + fy)
                chars.append([text, min(xs), max(xs), self.height - max(ys),
                              self.height - min(ys), name, max(xs) - min(xs), upright,
                              len(self.chars) + len(chars)])
                y += adv
                if cid == 32 and wordspace:
                    y += wordspace
                need = True
        self.chars += chars
        return y

    def show_turned(self, seq, font, x, y, values):
        """Any other glyph: ``translate_matrix`` and ``apply_matrix_rect`` in full."""
        a, b, c, d, e, f, fontsize, scaling, charspace, wordspace, dxscale, low, high = values
        upright = a * d * scaling > 0 and b * c <= 0
        height, name, chars, need = self.height, font.name, self.chars, False
        for obj in seq:
            if obj.__class__ is not bytes:
                x -= obj * dxscale
                need = True
                continue
            for cid in (obj if not font.multibyte else font.font.decode(obj)):
                if need:
                    x += charspace
                text, width = font.code(cid)
                adv = width * fontsize * scaling
                ex, fy = x * a + y * c + e, x * b + y * d + f
                xs = (a * 0 + c * low + ex, a * adv + c * low + ex, a * adv + c * high + ex,
                      a * 0 + c * high + ex)
                ys = (b * 0 + d * low + fy, b * adv + d * low + fy, b * adv + d * high + fy,
                      b * 0 + d * high + fy)
                y0, y1 = min(ys), max(ys)
                chars.append([text, min(xs), max(xs), height - y1, height - y0, name,
                              y1 - y0, upright, len(chars)])
                x += adv
                if cid == 32 and wordspace:
                    x += wordspace
                need = True
        return x
