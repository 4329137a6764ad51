"""The page's content stream, read for what pdfium does not tell, for ``dua.pdf.chars``.

pdfium gives each character's text but not the code behind it, and pdfminer (whose words
pdfplumber gives) names codes its own way: the scan finds, for each operator that shows
text, the font it uses and the codes it shows, decoded by pdfminer's own font, so that each
of pdfium's text objects (one per such operator, in the same order) is read as pdfminer
reads it. It also finds where text continues from where earlier text stopped: pdfium leaves
the pen elsewhere than pdfminer when it advances by other widths, and when a TJ array ends
with a move before empty strings only (pdfium drops that move).

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pdfminer inside the functions that use it.
"""
from __future__ import annotations

from .wordrule import _PdfiumUnmapped

_CONTENT = []  # the compiled patterns, built on first use
_FORM_DEPTH = 8  # forms inside forms: deeper than this, the page falls back


def _page_content(miner_page):
    from pdfminer.pdftypes import resolve1

    streams = miner_page.contents or []
    return b"\n".join(resolve1(s).get_data() for s in streams)


def _content_patterns(re):
    """The scan's patterns: one token at a time (inside an array), the stream's, where a
    show is one match with its operand, a move one match with its operands, and a run of
    what the scan skips (names, numbers, cm, Tc...) one more, so that the Python steps are
    per operator that matters, not per token; then a string inside an array, the operands
    of Tf and Do at the end of a skipped run, and a literal string's escapes."""
    if not _CONTENT:
        string = rb"\((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)|<[0-9A-Fa-f\s]*>"
        array = rb"\[(?:" + string + rb"|[^\[\]()<>%])*\]"
        regular = rb"[^\s()<>\[\]{}/%]"
        end = rb"(?!" + regular + rb")"
        keyword = rb"(?:BT|Td|TD|Tm|T\*|Tj|TJ|Tf|Do|q|Q|BI|ID|'|\")" + end
        # each token whole (what follows cannot extend it), so a run parses one way only
        skipped = (rb"(?:(?:/" + regular + rb"*" + end + rb"|(?!" + keyword + rb")" + regular +
                   rb"+" + end + rb"|<<|>>|[{}]|%[^\r\n]*(?![^\r\n]))\s*)+")
        _CONTENT.append(re.compile(
            rb"(" + string + rb")|<<|>>|%[^\r\n]*|/" + regular + rb"*|[\[\]{}]|" + regular +
            rb"+|(\S)", re.S))
        _CONTENT.append(re.compile(
            rb"(?P<show>(?P<operand>" + string + rb"|" + array + rb")\s*"
            rb"(?P<operator>Tj|TJ|'|\")" + end + rb")"
            rb"|(?P<moved>(?:" + skipped + rb")?(?:BT|Td|TD|Tm|T\*)" + end + rb")"
            rb"|(?P<text>" + string + rb")|(?P<array>" + array + rb")"
            rb"|(?P<skipped>" + skipped + rb")|(?P<op>" + keyword + rb")|(?P<other>\S)", re.S))
        _CONTENT.append(re.compile(string, re.S))
        _CONTENT.append(re.compile(rb"/(" + regular + rb"*)\s+(?:" + regular + rb"+\s+)?\Z"))
        _CONTENT.append(re.compile(rb"\\([0-7]{1,3}|\r\n|[\s\S])"))
    return _CONTENT


class _Show:
    """One operator that shows text: whether a move placed it (it follows BT, Td, TD, Tm
    or T*; ' and " move to the next line themselves), the moves pdfium drops at its end
    (thousandths of the font size), its font and its codes as pdfminer decodes them, and
    (for content-stream order) its place among the page's shows."""

    __slots__ = ("positioned", "lost", "font", "codes", "seq")

    def __init__(self, positioned, lost, font, codes, seq):
        self.positioned, self.lost, self.font, self.codes = positioned, lost, font, codes
        self.seq = seq


class _Scan:
    """The shows of a page's content and of the forms it draws, in pdfium's object order.

    ``fonts`` finds the font a Tf names (see ``fonts._PageFonts``); without it the scan
    keeps each show's strings undecoded (the tests' view). pdfminer starts a form's text
    state afresh (no font), and a form pdfminer does not draw (no /BBox) shows nothing.
    """

    def __init__(self, fonts=None):
        import re

        self.re, self.fonts = re, fonts
        self.token, self.stream, self.string, self.operands, self.escape = _content_patterns(re)
        self.shows, self.forms = [], False

    def page(self, miner_page):
        self.run(_page_content(miner_page), miner_page.resources, 0)
        return self.shows

    def run(self, content, resources, depth):
        """Every show of ``content``, appended to ``self.shows``.

        Raises _PdfiumUnmapped where the scan cannot read the stream: an unbalanced
        string or bracket, an array it cannot read whole, a show without a font, an
        empty string before a shown one, or a move after an empty string.
        """
        stream, fonts = self.stream.search, []  # fonts: the q/Q stack of Tf's fonts
        font, positioned, operands, skipped, at = None, False, [], None, 0
        while True:
            match = stream(content, at)
            if match is None:
                return
            at, kind = match.end(), match.lastgroup
            if kind == "show" or kind == "op" and match.group() in (b"Tj", b"TJ", b"'", b'"'):
                if kind == "show":
                    operator, elements = match.group("operator"), self.operand(
                        match.group("operand"))
                else:  # after what is not its operand (a comment between, say)
                    operator, elements = match.group(), operands[-1] if operands else []
                if self.show(elements, positioned or operator in (b"'", b'"'), font):
                    positioned = False
                operands = []
            elif kind == "moved":
                positioned, operands = True, []
            elif kind == "text" or kind == "array":
                operands = [self.operand(match.group())]
            elif kind == "skipped":
                operands, skipped = [], match
                continue
            elif kind == "other":
                raise _PdfiumUnmapped("a content stream the scan cannot read")
            else:
                word = match.group()
                if word in (b"BT", b"Td", b"TD", b"Tm", b"T*"):
                    positioned = True
                elif word == b"q":
                    fonts.append(font)
                elif word == b"Q":
                    font = fonts.pop() if fonts else font
                elif word in (b"Tf", b"Do"):
                    name = self.name_before(content, skipped, match.start())
                    if word == b"Tf":
                        font = self.fonts.font(resources, name) if self.fonts else name
                    else:
                        self.form(resources, name, depth)
                elif word == b"BI" or word == b"ID":
                    at = self.skip_image(content, match)
                operands = []
            skipped = None

    def show(self, elements, positioned, font):
        """Adds a show that shows something; whether it did."""
        shown = [e for e in elements if isinstance(e, bytes) and e]
        if not shown:
            return False
        lost = _tj_lost_move(elements)
        if lost is None:
            raise _PdfiumUnmapped("a TJ array whose empty strings neither reader places alike")
        if font is None and self.fonts:
            raise _PdfiumUnmapped("text shown in no font")
        codes = font.decode(shown) if self.fonts else shown
        self.shows.append(_Show(positioned, lost, font, codes, len(self.shows)))
        return True

    def operand(self, token):
        """A string as ``[its bytes]``; an array as its strings (bytes) and numbers
        (floats). Raises _PdfiumUnmapped for an array the scan cannot read whole."""
        if token[:1] != b"[":
            return [self.bytes(token)]
        elements = []
        for match in self.token.finditer(token, 1, len(token) - 1):
            text = match.group(1)
            if match.group(2) is not None:
                raise _PdfiumUnmapped("a TJ array the scan cannot read")
            elements.append(self.bytes(text) if text else _content_number(match.group()))
        return elements

    def bytes(self, token):
        """A string token's bytes, as pdfminer reads them: an escape that is not one
        (``\\q``) and a backslash before a line end are dropped; a lone last hex digit
        is its own value (pdfminer's reading, not the standard's)."""
        if token[:1] == b"<":
            digits = token[1:-1].translate(None, b" \t\r\n\f\v")
            out = bytes.fromhex(digits[:len(digits) // 2 * 2].decode())
            return out + bytes((int(digits[-1:], 16),)) if len(digits) % 2 else out
        body = token[1:-1]
        return self.escape.sub(_unescape, body) if b"\\" in body else body

    def name_before(self, content, skipped, end):
        """The name operand that ends the skipped run just before an operator."""
        found = skipped and self.operands.search(content, skipped.start(), end)
        if not found or b"#" in found.group(1):
            raise _PdfiumUnmapped("an operator whose name operand the scan cannot read")
        return found.group(1).decode("latin-1")

    def form(self, resources, name, depth):
        """The shows of a form the page draws, where pdfminer draws it (with /BBox)."""
        if self.fonts is None:
            return
        found = self.fonts.form(resources, name)
        if found is None:
            return
        if depth >= _FORM_DEPTH:
            raise _PdfiumUnmapped("forms nested too deep")
        self.forms = True
        content, inner = found
        self.run(content, inner if inner else resources, depth + 1)

    def skip_image(self, content, match):
        """Past an inline image's data: where pdfminer ends it, at the first EI (or ~> for
        ASCII85 data) that a blank follows."""
        if match.group() == b"BI":
            head = self.re.compile(rb"\sID(?=\s)").search(content, match.end())
            if head is None:
                raise _PdfiumUnmapped("an inline image the scan cannot read")
            start, end = match.end(), head.end()
        else:
            start, end = match.start(), match.end()
        ascii85 = self.re.search(rb"/F\s*\[?\s*/(?:A85|ASCII85Decode)(?![^\s()<>\[\]{}/%])",
                                 content[start:end])
        tail = self.re.compile(rb"~>\s" if ascii85 else rb"EI\s").search(content, end + 1)
        if tail is None:
            raise _PdfiumUnmapped("an inline image the scan cannot read")
        return tail.end()


_ESCAPED = {b"b": b"\x08", b"t": b"\t", b"n": b"\n", b"f": b"\x0c", b"r": b"\r",
            b"(": b"(", b")": b")", b"\\": b"\\"}


def _unescape(match):
    code = match.group(1)
    if code[:1].isdigit() and code[:1] not in b"89":
        value = int(code, 8)
        if value > 255:
            raise _PdfiumUnmapped("a string escape pdfminer refuses")
        return bytes((value,))
    return _ESCAPED.get(code, b"")  # pdfminer drops what no escape names, and line ends


def _show_operators(content):
    """``(positioned, lost)`` for each show of a content stream (no forms, no fonts): the
    scan's view that the tests check. None where the scan cannot read the stream."""
    scan = _Scan()
    try:
        scan.run(content, None, 0)
    except _PdfiumUnmapped:
        return None
    return [(show.positioned, show.lost) for show in scan.shows]


def _content_number(token):
    try:
        return float(token)
    except ValueError:
        return 0.0


def _tj_lost_move(elements):
    """The moves pdfium drops at the end of a TJ array (see ``_Show``), or None for an
    array whose empty strings stand where neither rule reads them alike: before a shown
    string, or before a move."""
    shown = [i for i, e in enumerate(elements) if isinstance(e, bytes) and e]
    head, tail = elements[:shown[-1]], elements[shown[-1] + 1:]
    if any(isinstance(e, bytes) and not e for e in head):
        return None  # an empty string before a shown one
    empties = [i for i, e in enumerate(tail) if isinstance(e, bytes)]
    if not empties:
        return 0.0
    if any(isinstance(e, float) for e in tail[empties[0]:]):
        return None  # a move after an empty string
    return sum(tail[:empties[0]])
