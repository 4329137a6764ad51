"""pdfium's fonts matched to pdfminer's, whose metrics pdfplumber's boxes come from,
for ``dua.pdf.chars``.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pdfminer inside the functions that use it.
"""
from __future__ import annotations

from .wordrule import _LIGATURE_OF, _LIGATURES, _PdfiumUnmapped


class _PdfiumFonts:
    """pdfium's fonts matched by name to pdfminer's, which hold pdfplumber's metrics."""

    def __init__(self, manager):
        self.manager, self.by_handle, self.by_page, self.by_miner = manager, {}, {}, {}

    def find(self, call, ctypes, handle, miner_page):
        key = (handle, id(miner_page))
        if key not in self.by_handle:
            buffer = ctypes.create_string_buffer(256)
            call["FPDFFont_GetBaseFontName"](handle, buffer, 256)
            name = buffer.value.decode("latin-1")
            plain, fonts = _plain_font_name(name), self._page_fonts(miner_page)
            exact = [f for n, f in fonts if name in (n, f.fontname)]
            found = [f for n, f in fonts if plain in (_plain_font_name(n),
                                                        _plain_font_name(str(f.fontname)))]
            if not found:
                raise _PdfiumUnmapped(f"font {name!r} is not among the page's fonts")
            # pdfminer's fonts are shared by the pages that use them, and so are ours
            same = tuple(id(f) for f in exact or found)
            if same not in self.by_miner:
                self.by_miner[same] = _PdfiumFont(exact or found)
            self.by_handle[key] = self.by_miner[same]
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
                if isinstance(widths, list):  # pdfminer may use its own (the standard 14)
                    font.dua_file_widths = {first + i: resolve1(w)
                                            for i, w in enumerate(widths)}
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
        self.widths, self.file_widths, self.agree, self.prefixes = {}, None, None, None
        for font in candidates:
            for cid, text in _miner_cids(font):
                self.widths.setdefault(text, set()).add(font.char_width(cid))
        self.widths = {text: tuple(found) for text, found in self.widths.items()}
        self.single = {text: found[0] for text, found in self.widths.items()
                       if len(found) == 1}
        self.space_width = min(self.widths.get(" ", (0.0,)))
        # pdfminer's built-in metrics (the standard 14 fonts) look widths up by text
        self.metrics_by_text = any(isinstance(next(iter(f.widths), 0), str)
                                   for f in candidates if f.widths)
        # pdfium reads a font's widths as whole thousandths, pdfminer keeps the fraction
        self.drifts = self.metrics_by_text or any(
            w != int(w) for f in candidates for w in _given_widths(f).values())

    def file_width(self, text):
        """pdfium's width for ``text`` where the file gives one width, else None: the
        file's /Widths (or /W) in whole thousandths, as pdfium reads them."""
        if self.file_widths is None:
            found = {}
            for font in self.candidates:
                given = _given_widths(font)
                for cid, glyph in _miner_cids(font) if given else ():
                    if cid in given:
                        found.setdefault(glyph, set()).add(int(given[cid]) * 0.001)
            self.file_widths = {t: next(iter(w)) for t, w in found.items() if len(w) == 1}
        return self.file_widths.get(text)

    def agreeing(self):
        """The texts whose one width in the file is pdfminer's one width: no drift."""
        if self.agree is None:
            self.file_width(" ")
            self.agree = frozenset(t for t, w in self.file_widths.items()
                                   if t in self.single and abs(w - self.single[t]) <= 0.0005)
        return self.agree

    def joined(self, first, second):
        """The text of one glyph pdfium split in pieces (a ligature), as far as the pieces
        go: a glyph's whole text, or the start of one (see ``pending``); else ''."""
        whole = _expanded(first) + second
        found = [t for t in (whole, _LIGATURE_OF.get(whole)) if t in self.widths]
        if len(found) > 1:
            raise _PdfiumUnmapped(f"two glyphs of font {self.name!r} read {whole!r}")
        return found[0] if found else (whole if whole in self.starts() else "")

    def pending(self, text):
        """Whether ``text`` only starts a glyph's text: the first pieces of a ligature."""
        return text not in self.widths and text in self.starts()

    def starts(self):
        if self.prefixes is None:
            self.prefixes = {whole[:k] for whole in map(_expanded, self.widths)
                             for k in range(1, len(whole))}
        return self.prefixes

    def text(self, code):
        if code == 2:  # pdfium's mark for a hyphen that ends a line
            hyphens = [h for h in ("-", "\xad", "\u2010") if h in self.widths]
            if len(hyphens) == 1:
                return hyphens[0]
        if code in (0, 2, 0xFFFE, 0xFFFF) or 0xD800 <= code < 0xE000:
            raise _PdfiumUnmapped(f"a glyph pdfium maps to U+{code:04X}")
        if 0x590 <= code < 0x900 or 0xFB1D <= code < 0xFE00 or 0xFE70 <= code < 0xFF00:
            raise _PdfiumUnmapped("right-to-left text, which pdfium reorders")
        return chr(code)

    def width(self, text, textpage, index, across, page):
        """pdfminer's width of ``text`` (per unit of font size); where glyphs of that text
        differ, the one nearest pdfium's box for the character."""
        found = self.widths.get(text)
        if not found:
            raise _PdfiumUnmapped(f"no glyph of font {self.name!r} reads {text!r}")
        if len(found) == 1:
            return found[0]
        near = page.loose_width(textpage, index) / across
        if len(found) == 2:  # the usual case, without min's key function (the first on a tie)
            return found[0] if abs(found[0] - near) <= abs(found[1] - near) else found[1]
        return min(found, key=lambda w: abs(w - near))


def _expanded(text):
    return "".join([_LIGATURES.get(t, t) for t in text]) if not text.isascii() else text


def _given_widths(font):
    """The widths the file gives a font, by character code: its /Widths, or a CID font's
    /W, which pdfminer keeps as its own (the standard 14 fonts' own are by name)."""
    given = getattr(font, "dua_file_widths", None)
    if given is None:
        given = {k: v for k, v in (font.widths or {}).items() if isinstance(k, int)}
        font.dua_file_widths = given
    return {k: v for k, v in given.items() if isinstance(v, (int, float))}


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
