"""pdfminer's fonts, which pdfplumber's text and boxes come from, found by the names the
content stream uses, for ``dua.pdf.content`` and ``dua.pdf.chars``.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pdfminer inside the functions that use it.
"""
from __future__ import annotations

from .wordrule import _LIGATURES, _PdfiumUnmapped


class _PageFonts:
    """A document's fonts and forms as pdfminer reads them, by resource name.

    A font is loaded when a show first uses it (pdfminer loads every font a page lists),
    and shared by the pages and forms that use the same font object, as pdfminer's are.
    """

    def __init__(self, manager):
        self.manager, self.by_miner, self.named, self.forms = manager, {}, {}, {}

    def font(self, resources, name):
        """The font a Tf names in ``resources``, or _PdfiumUnmapped where it names none."""
        key = (id(resources), name)
        found = self.named.get(key)
        if found is None:
            found = self.named[key] = (self._load(resources, name), resources)
        return found[0]  # the resources are kept with it: their id stays theirs

    def _load(self, resources, name):
        from pdfminer.pdftypes import PDFObjRef, resolve1

        listed = resolve1(resources.get("Font")) if isinstance(resources, dict) else None
        ref = listed.get(name) if isinstance(listed, dict) else None
        spec = resolve1(ref)
        if not isinstance(spec, dict):
            raise _PdfiumUnmapped(f"font {name!r} is not among the page's fonts")
        font = self.manager.get_font(ref.objid if isinstance(ref, PDFObjRef) else None, spec)
        if id(font) not in self.by_miner:
            widths = resolve1(spec.get("Widths"))
            first = resolve1(spec.get("FirstChar", 0)) or 0
            if isinstance(widths, list):  # pdfminer may use its own (the standard 14)
                font.dua_file_widths = {first + i: resolve1(w) for i, w in enumerate(widths)}
            self.by_miner[id(font)] = (_PdfiumFont(font), font)
        return self.by_miner[id(font)][0]

    def form(self, resources, name):
        """``(content, resources or None)`` of the form a Do names, where pdfminer draws
        it (a form with a /BBox); None for an image, an unknown name or another kind."""
        from pdfminer.pdftypes import PDFStream, resolve1
        from pdfminer.psparser import literal_name

        listed = resolve1(resources.get("XObject")) if isinstance(resources, dict) else None
        stream = resolve1(listed.get(name)) if isinstance(listed, dict) else None
        if not isinstance(stream, PDFStream):
            return None
        if id(stream) not in self.forms:
            drawn = (literal_name(resolve1(stream.get("Subtype", ""))) == "Form"
                     and "BBox" in stream)
            inner = resolve1(stream.get("Resources")) if drawn else None
            self.forms[id(stream)] = (
                (stream.get_data(), inner if isinstance(inner, dict) and inner else None)
                if drawn else None, stream)
        return self.forms[id(stream)][0]


class _PdfiumFont:
    """What pdfminer reads for each code of one font: its text (``(cid:N)`` where pdfminer
    has none), its width, and how much further pdfium advances past it."""

    def __init__(self, font):
        from pdfminer.pdffont import PDFUnicodeNotDefined

        if font.is_vertical():
            raise _PdfiumUnmapped("a vertical font")
        self.font, self.name, self.undefined = font, font.fontname, PDFUnicodeNotDefined
        self.descent = font.get_descent()
        self.multibyte = font.is_multibyte()
        self.given = _pdfium_widths(font)
        self.codes = {}  # code -> (text, width, step, blank, the text's one UTF-16 unit or -1)

    def decode(self, strings):
        """The codes of a show's strings, as pdfminer decodes them (string by string)."""
        if not self.multibyte:
            return b"".join(strings)  # a simple font's codes are its bytes
        codes = []
        for string in strings:
            codes.extend(self.font.decode(string))
        return codes

    def code(self, cid):
        """``(text, width, step, blank, unit)`` of a code (see ``codes``): pdfminer's text
        and width per unit of size, pdfium's advance less pdfminer's, whether pdfplumber
        takes it for a blank, and the code pdfium gives where it reads the same text."""
        info = self.codes.get(cid)
        if info is None:
            try:
                text = self.font.to_unichr(cid)
            except self.undefined:
                text = f"(cid:{cid})"  # pdfminer's text for a code it cannot name
            width = self.font.char_width(cid)
            given = self.given(cid)
            unit = ord(text) if len(text) == 1 and ord(text) < 0x10000 else -1
            info = self.codes[cid] = (text, width, 0.0 if given is None else given - width,
                                      text.isspace(), unit)
        return info

    def agrees(self, seen, text):
        """Whether pdfium's text for a glyph is pdfminer's ``text`` for its code, as far as
        pdfium tells: the same, or with a ligature expanded, a surrogate pair joined, or
        composed otherwise (pdfium may compose a letter and its mark)."""
        if any(0xD800 <= ord(c) < 0xE000 for c in seen):
            seen = seen.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
        if seen == text or seen == _expanded(text):
            return True
        import unicodedata

        return unicodedata.normalize("NFKC", seen) == unicodedata.normalize("NFKC", text)


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
    if given is None and not font.widths and not font.is_multibyte():
        raise _PdfiumUnmapped(f"font {font.fontname!r} gives no widths")
    if hasattr(font, "matrix"):  # a Type 3 font: its matrix scales its widths
        return _type3_widths(font)
    default = _whole(font.default_width)
    return lambda cid: _whole(font.widths[cid]) if cid in font.widths else default


def _type3_widths(font):
    """pdfium's widths of a Type 3 font: each /Widths entry times the matrix's x scale,
    rounded to whole thousandths in single precision; where that is 0, the glyph's own
    procedure gives it, which pdfium alone reads: a page that shows it falls back."""
    import struct

    def single(value):
        return struct.unpack("f", struct.pack("f", value))[0]

    a, b, c = (float(v) for v in font.matrix[:3])
    if b or c or a <= 0:
        raise _PdfiumUnmapped(f"a Type 3 font, {font.fontname!r}, turned by its matrix")
    scale, rounded = single(a), {}
    for cid, width in (font.widths or {}).items():
        if isinstance(cid, int) and isinstance(width, (int, float)):
            value = single(single(single(float(width)) * scale) * 1000)
            rounded[cid] = int(value + 0.5) if value >= 0 else -int(-value + 0.5)

    def given(cid):
        if not rounded.get(cid):
            raise _PdfiumUnmapped(f"a glyph of Type 3 font {font.fontname!r} that pdfium "
                                  "measures by its own procedure")
        return rounded[cid] * 0.001
    return given


def _whole(thousandths):
    """A width as pdfium reads it: whole thousandths (truncated), per unit of size."""
    return int(thousandths) * 0.001 if isinstance(thousandths, (int, float)) else None
