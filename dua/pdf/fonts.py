"""pdfminer's fonts and forms, found by the names a content stream uses, for
``dua.pdf.content`` and ``dua.pdf.chars``.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pdfminer inside the functions that use it.
"""
from __future__ import annotations

from .tounicode import _cmap_codes
from .wordrule import _Refused

# the font types whose ToUnicode stream pdfminer reads whatever the stream holds (a CID font
# named at the top level reads a reference to one as a name instead)
_MAPPED_TYPES = frozenset(("Type1", "MMType1", "TrueType", "Type3", "Type0"))


class _PageFonts:
    """A document's fonts and forms as pdfminer reads them, by resource name.

    A font is loaded when a show first uses it (pdfminer loads every font a page lists)
    and shared by the pages and forms that use the same font object, as pdfminer's are.
    """

    def __init__(self, manager):
        self.manager, self.by_miner, self.named, self.forms = manager, {}, {}, {}
        self.made = {}  # font object number -> pdfminer's font

    def font(self, resources, name):
        """The font a Tf names in ``resources``; where it names none, pdfminer's default
        font (no widths: its glyphs stand one on another)."""
        key = (id(resources), name)
        found = self.named.get(key)
        if found is None:
            found = self.named[key] = (self._load(resources, name), resources)
        return found[0]  # the resources are kept with it: their id stays theirs

    def _load(self, resources, name):
        from pdfminer.pdftypes import PDFObjRef, resolve1

        listed = resolve1(resources.get("Font")) if isinstance(resources, dict) else None
        if not isinstance(listed, dict) or name not in listed:
            font = self.manager.get_font(None, {})  # pdfminer's own, for a name it lacks
        else:
            ref = listed[name]
            objid = ref.objid if isinstance(ref, PDFObjRef) else None
            font = self.made.get(objid) if objid else None  # pdfminer keeps its fonts so
            if font is None:
                spec = resolve1(ref)
                font = _miner_font(self.manager, objid, spec if isinstance(spec, dict) else {})
                if objid:
                    self.made[objid] = font
        if id(font) not in self.by_miner:
            self.by_miner[id(font)] = (_Font(font), font)
        return self.by_miner[id(font)][0]

    def form(self, resources, name):
        """What a Do draws, as pdfminer draws it: ``(content, resources or None, matrix,
        object number)`` for a form with a /BBox, ``(None,) * 4`` for an image, else None."""
        from pdfminer.pdftypes import PDFStream, resolve1
        from pdfminer.psparser import literal_name

        listed = resolve1(resources.get("XObject")) if isinstance(resources, dict) else None
        stream = resolve1(listed.get(name)) if isinstance(listed, dict) else None
        if not isinstance(stream, PDFStream):
            return None
        if id(stream) not in self.forms:
            self.forms[id(stream)] = (_drawn(stream, resolve1, literal_name), stream)
        return self.forms[id(stream)][0]


def _miner_font(manager, objid, spec):
    """pdfminer's font for ``spec``, its ToUnicode map read by ``tounicode`` where that can:
    pdfminer reads an empty stream in its place, so that the font is made the same way."""
    from pdfminer.cmapdb import FileUnicodeMap
    from pdfminer.pdftypes import PDFStream, resolve1
    from pdfminer.psparser import PSLiteral

    stream = resolve1(spec.get("ToUnicode"))
    kind = spec.get("Subtype")
    kind = kind.name if isinstance(kind, PSLiteral) else "Type1" if kind is None else None
    if not isinstance(stream, PDFStream) or kind not in _MAPPED_TYPES:
        return manager.get_font(objid, spec)
    try:
        codes = _cmap_codes(stream.get_data())
    except MemoryError:
        raise
    except Exception:  # pdfminer fails on it as it would have
        codes = None
    if codes is None:
        return manager.get_font(objid, spec)
    font = manager.get_font(objid, dict(spec, ToUnicode=PDFStream({}, b"")))
    font.unicode_map = FileUnicodeMap()
    font.unicode_map.cid2unichr = codes  # shared, never written again: pdfminer only reads it
    return font


def _drawn(stream, resolve1, literal_name):
    kind = literal_name(resolve1(stream.get("Subtype", "")))
    if kind == "Image" and "Width" in stream and "Height" in stream:
        return (None,) * 4
    if kind != "Form" or "BBox" not in stream:
        return None
    inner = resolve1(stream.get("Resources"))
    matrix = [resolve1(v) for v in resolve1(stream.get("Matrix", [1, 0, 0, 1, 0, 0]))]
    if len(matrix) != 6 or not all(isinstance(v, (int, float)) for v in matrix):
        raise _Refused("a form whose matrix the scan cannot read")
    return (stream.get_data(), inner if isinstance(inner, dict) and inner else None,
            tuple(matrix), stream.objid)


class _Font:
    """What pdfminer reads for each code of one font: its text (``(cid:N)`` where pdfminer
    has none) and its width per unit of size."""

    def __init__(self, font):
        from pdfminer.pdffont import PDFUnicodeNotDefined

        self.font, self.name, self.undefined = font, font.fontname, PDFUnicodeNotDefined
        self.vertical = font.is_vertical()
        self.descent = font.get_descent()
        self.multibyte = font.is_multibyte()
        self.codes = {}  # code -> (text, width)

    def code(self, cid):
        """``(text, width)`` of a code, as pdfminer's ``render_char`` finds them."""
        info = self.codes.get(cid)
        if info is None:
            try:
                text = self.font.to_unichr(cid)
            except self.undefined:
                text = f"(cid:{cid})"  # pdfminer's text for a code it cannot name
            info = self.codes[cid] = (text, self.font.char_width(cid))
        return info
