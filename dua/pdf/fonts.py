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
        self.widths, self.prefixes, steps = {}, None, {}
        self.unnamed = set()  # pdfium's widths of glyphs pdfminer cannot name ("(cid:N)")
        self.by_own_metrics = all(getattr(f, "dua_file_widths", None) is None and
                                  any(isinstance(k, str) for k in f.widths or ())
                                  for f in candidates)
        for font in candidates:
            pdfium_width = _pdfium_widths(font)
            if not hasattr(font, "cidcoding"):  # a simple font names codes by encodings
                self.unnamed.update(pdfium_width(cid) for cid in _unnamed(font))
            for cid, text in _miner_cids(font):
                width = font.char_width(cid)
                self.widths.setdefault(text, set()).add(width)
                given = pdfium_width(cid)
                steps.setdefault((text, width), set()).add(
                    width if given is None else given)
        self.widths = {text: tuple(found) for text, found in self.widths.items()}
        self.single = {text: found[0] for text, found in self.widths.items()
                       if len(found) == 1}
        self.space_width = min(self.widths.get(" ", (0.0,)))
        # how much further pdfium advances than pdfminer past a glyph of this text and
        # pdfminer's width, per unit of size; glyphs that share both but not pdfium's
        # width are left out, so reading one falls back
        self.steps = {key: next(iter(given)) - key[1] for key, given in steps.items()
                      if len(given) == 1}
        self.choices = {key: given for key, given in steps.items() if len(given) > 1}
        self.drifts = any(self.steps.values()) or bool(self.choices)

    def step(self, text, width, page=None, index=0, across=1.0):
        """pdfium's advance past a glyph less pdfminer's, per unit of size.

        Where glyphs of that text and width advance differently in pdfium, its box for the
        character tells which (it spans the advance where the file gives widths).

        Raises _PdfiumUnmapped where nothing tells.
        """
        step = self.steps.get((text, width))
        if step is None:
            given = self.choices.get((text, width), ())
            seen = round(page.loose_width(None, index) / across * 1000) * 0.001 if page else None
            found = [w for w in given if abs(w - seen) <= 1e-9] if given and page else []
            if len(found) != 1 or any(w is None for w in given):
                raise _PdfiumUnmapped(f"glyphs of font {self.name!r} that read {text!r} "
                                      "advance differently in pdfium")
            step = found[0] - width
        return step

    def check_named(self, text, width, page, index, across):
        """Raises _PdfiumUnmapped where the glyph could be one pdfminer cannot name that
        pdfium named ``text``: its width in pdfium is one of theirs, or not ``text``'s."""
        given = width + self.steps.get((text, width), 0.0)
        seen = round(page.loose_width(None, index) / across * 1000) * 0.001
        if abs(seen - given) > 1e-9:  # unless the first piece of a ligature, whose box it is
            given = next((w + step for (whole, w), step in self.steps.items()
                          if len(_expanded(whole)) > 1 and _expanded(whole).startswith(text)
                          and abs(w + step - seen) <= 1e-9), given)
        if abs(seen - given) > 1e-9 or any(abs(given - (w or 0.0)) <= 1e-9
                                           for w in self.unnamed):
            raise _PdfiumUnmapped(f"font {self.name!r} has glyphs pdfminer cannot name, and "
                                  f"one that pdfium reads {text!r} may be one")

    def invisible(self):
        """Whether a glyph other than a blank has no width: pdfium drops a text object
        that shows only such glyphs, as it drops blanks, and pdfminer reads it."""
        # the standard 14 without widths: pdfminer's zero is a name its metrics lack
        return not self.by_own_metrics and any(
            not text.isspace() and width == 0.0 and not step
            for (text, width), step in self.steps.items())

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
        if code == 2:  # pdfium's mark for a hyphen that ends a line: which glyph, it hides
            hyphens = [h for h in ("-", "\xad", "\u2010") if h in self.widths]
            if len(hyphens) == 1 and hyphens[0] in self.single:
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


def _pdfium_widths(font):
    """pdfium's width of a character code in ``font``, or None where it is pdfminer's.

    pdfium reads the file's widths (/Widths, /MissingWidth, a CID font's /W and /DW) as
    whole thousandths where pdfminer keeps their fractions; for the standard 14 fonts
    pdfminer uses its own metrics even where the file gives /Widths, and pdfium those
    (and /MissingWidth, 0 unless given, for a code they leave out); where the file
    gives none, pdfium's own metrics advance as pdfminer's do.
    A simple font that gives no widths at all is drawn by its font program's own, which
    only pdfium reads: that font falls back.
    """
    given = getattr(font, "dua_file_widths", None)
    by_name = any(isinstance(k, str) for k in font.widths or ())
    if by_name and given is None:  # the standard 14 drawn by their own metrics
        return lambda cid: None
    if by_name:  # pdfminer's metrics; pdfium's the file's /Widths, else /MissingWidth
        missing = _whole(font.descriptor.get("MissingWidth", 0) if font.descriptor else 0)
        return lambda cid: _whole(given[cid]) if cid in given else missing
    if given is None and not font.widths and not hasattr(font, "cidcoding"):
        raise _PdfiumUnmapped(f"font {font.fontname!r} gives no widths")
    if getattr(font, "hscale", 0.001) != 0.001:  # a Type 3 font's matrix scales its widths
        scaled = [w * font.hscale * 1000 for w in font.widths.values()]
        if any(not isinstance(w, (int, float)) or w != int(w) for w in scaled):
            raise _PdfiumUnmapped(f"a Type 3 font, {font.fontname!r}, whose widths pdfium "
                                  "may round")
        return lambda cid: None
    default = _whole(font.default_width)
    return lambda cid: _whole(font.widths[cid]) if cid in font.widths else default


def _unnamed(font):
    """The codes of glyphs the font gives a width that have no text for pdfminer (code 0,
    .notdef, pdfium gives no text either, and that falls back)."""
    named = {cid for cid, _ in _miner_cids(font)}
    return [cid for cid, w in (font.widths or {}).items()
            if w and isinstance(cid, int) and cid and cid not in named]


def _whole(thousandths):
    """A width as pdfium reads it: whole thousandths (truncated), per unit of size."""
    return int(thousandths) * 0.001 if isinstance(thousandths, (int, float)) else None


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
