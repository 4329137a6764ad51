"""A page's content streams read as pdfminer reads them, for ``dua.pdf.chars``.

The scan finds the operators that place or show text (BT, Td, TD, Tm, T*, Tf, Tc, Tw, Tz,
TL, Ts, cm, q, Q, Do and the four shows) with their operands, and hands them to the text
interpreter in ``chars``; whatever else the stream holds is skipped in runs, one regular
expression match per run, so that the Python steps are per operator that matters, not per
token. It tokenizes as pdfminer's parser does, and where that is in doubt (a token pdfminer
would split otherwise, an operator without its operands, an array it cannot read whole) it
raises, and the page falls back to pdfplumber.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pdfminer inside the functions that use it.
"""
from __future__ import annotations

from .wordrule import _Refused

_CONTENT = {}  # the compiled patterns, built on first use
_FORM_DEPTH = 12  # forms inside forms: deeper than this, the page falls back
_PAINTS = rb"(?:S|s|f\*?|F|B\*?|b\*?)"  # the operators that paint a path


def _content_patterns(re, paths=False):
    """The scan's patterns: a token inside an array; the stream's, where a show is one
    match with its operand, a run of moves each followed by a show one more, an operator
    that matters one match with the skipped run before it (and the show right after it, as
    a typesetter moves, then shows), and a skipped run one more; an operand (a number, an
    operator that ends the operands before it); a literal string's escapes; a move and its
    show; and what may paint. With ``paths``, the operators that build and paint paths
    matter too."""
    if paths not in _CONTENT:
        string = rb"\((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)|<[0-9A-Fa-f\s]*>"
        array = rb"\[(?:" + string + rb"|[^\[\]()<>%])*\]"
        end = rb"(?![^\s()<>\[\]{}/%])"  # a token ends at a blank or a delimiter
        # one way only to match each token: an ambiguous one backtracks exponentially
        number = rb"[+-]?(?:\d+(?:\.\d*)?|\.\d+)"
        words = rb"BT|Td|TD|Tm|T\*|Tf|Tc|Tw|Tz|TL|Ts|cm|q|Q|Do|BI" + (
            rb"|re|[mlcvyhn]|f\*|[SsfFBb]\*?" if paths else b"")
        matter = rb"(?:" + words + rb"|Tj|TJ)" + end
        # the tokens pdfminer reads as the scan does: names, numbers and keywords whole
        token = (rb"/[^\s()<>\[\]{}/%#]*" + end + rb"|" + number + end + rb"|(?!" + matter +
                 rb")[A-Za-z][A-Za-z0-9*]*" + end + rb"|<<|>>|[{}]|%[^\r\n]*(?![^\r\n])")
        skipped = rb"(?:(?:" + token + rb")\s*)+"
        pair = number + rb"\s+" + number + rb"\s+Td\s*(?:" + string + rb")\s*Tj" + end
        _CONTENT[paths] = (
            re.compile(rb"(" + string + rb")|(" + number + rb")" + end + rb"|\S+"),
            re.compile(
                rb"(?P<show>(?P<operand>" + string + rb"|" + array + rb")\s*"
                rb"(?P<operator>(?:Tj|TJ)" + end + rb"|'|\"))"
                rb"|(?P<pairs>" + pair + rb"(?:\s*" + pair + rb")*)"
                rb"|(?P<op>(?:" + skipped + rb")?(?P<word>" + words + rb")" + end + rb")"
                rb"(?P<then>\s*(?P<shown>" + string + rb"|" + array + rb")\s*"
                rb"(?P<shows>Tj|TJ)" + end + rb")?"
                rb"|(?P<text>" + string + rb")|(?P<array>" + array + rb")"
                rb"|(?P<skipped>" + skipped + rb")|(?P<other>\S)", re.S),
            re.compile(number + rb"\Z"),
            # the tokens of a skipped run, as operands: comments are none, keywords end them
            re.compile(rb"(%[^\r\n]*)|(?!(?:true|false|null)" + end + rb")([A-Za-z][A-Za-z0-9*]*)"
                       + end + rb"|<<|>>|[{}]|/?[^\s()<>\[\]{}/%]+|\S"),
            re.compile(rb"\\([0-7]{1,3}|\r\n|[\s\S])"),
            re.compile(rb"/?[^\s()<>\[\]{}/%]+\Z"),  # a token that a blank ends
            re.compile(rb"(?!(?:true|false|null)\Z)[A-Za-z][A-Za-z0-9*]*\Z"),
            re.compile(rb"(" + number + rb")\s+(" + number + rb")\s+Td\s*(" + string +
                       rb")\s*Tj", re.S),
            re.compile(rb"(?<![^\s\])>}])" + _PAINTS + end))
    return _CONTENT[paths]


class _Scan:
    """A page's content (and its forms', where pdfminer draws them) fed to ``text``, the
    interpreter of ``chars``; ``drawn`` tells whether anything may paint a line, a shape or
    an image (pdfplumber reads those)."""

    def __init__(self, text, fonts, paths=None):
        import re

        self.re, self.text, self.fonts, self.paths = re, text, fonts, paths
        (self.token, self.stream, self.number, self.operand_token, self.escape,
         self.plain, self.keyword, self.pair, self.paint) = _content_patterns(re, bool(paths))
        self.drawn, self.region = False, (0, None)

    def page(self, miner_page):
        from pdfminer.pdftypes import PDFStream, resolve1

        streams, ids = [], set()
        for ref in miner_page.contents or []:
            stream = resolve1(ref)
            if isinstance(stream, PDFStream) and stream.objid is not None:
                streams.append(stream.get_data())  # pdfminer skips a direct stream
                ids.add(stream.objid)
        # pdfminer reads the streams as one: a token may run on from one into the next
        self.run(b"".join(streams), miner_page.resources, ids, 0)

    def run(self, content, resources, ids, depth):
        """Every operator of ``content`` that matters, in order, to ``self.text``.

        Raises _Refused where the scan cannot read the stream as pdfminer does.
        """
        text, search, at, before = self.text, self.stream.search, 0, None
        if not self.drawn and self.paint.search(content):
            self.drawn = True
        while True:
            match = search(content, at)
            if match is None:
                return
            at, kind = match.end(), match.lastgroup
            if kind == "show":
                operator, start = match.group("operator"), match.start("operand")
                elements = self.operand(match.group("operand"))
                if operator == b"'":
                    text.next_line()
                elif operator == b'"':  # its two numbers end the skipped run before it
                    if before is None or before[0] != "skipped" or before[2] != start:
                        raise _Refused("an operator whose operands the scan cannot read")
                    text.spacing(*self.numbers(content, start, 2, before[1]))
                self.show(operator, elements)
            elif kind == "pairs":  # moves each followed by a show, as a browser prints
                if before is not None and before[0] not in ("op", "show", "pairs"):
                    raise _Refused("an operator with more operands than it takes")
                text.move_shows([(float(tx), float(ty), self.bytes(string)) for tx, ty, string
                                 in self.pair.findall(content, match.start(), at)])
            elif kind == "op" or kind == "then":
                self.region = (match.start(), before[0] if before else None)
                done = match.end("op")
                at = self.operator_at(content, match.start("word"), match.group("word"), done,
                                      resources, ids, depth)
                if kind == "then" and at == done:  # else an inline image's data, skipped
                    self.show(match.group("shows"), self.operand(match.group("shown")))
                    at = match.end()
                    before = ("show", match.start("shown"), at)
                    continue
                kind = "op"
            elif kind == "other":
                raise _Refused("a content stream whose tokens the scan cannot read")
            # a string or array that no show follows is another operator's operand
            before = (kind, match.start(), match.end())

    def show(self, operator, elements):
        """A show's glyphs to ``self.text``: ``elements`` as ``operand`` reads them."""
        if operator == b"TJ":
            if not isinstance(elements[0], list):  # pdfminer: its bytes as numbers
                raise _Refused("TJ shows a string, not an array")
            self.text.show(elements[0])
        elif isinstance(elements[0], bytes):  # an array: pdfminer shows nothing
            self.text.show(elements)

    def operator_at(self, content, start, word, at, resources, ids, depth):
        """Applies one operator that matters; where the scan goes on."""
        text, paths = self.text, self.paths
        taken = paths.takes(word) if paths is not None else None
        if taken is not None:  # a path operator: the ruling lines' reader paints it
            paths.op(word, self.numbers(content, start, taken) if taken else (), text.ctm)
        elif word == b"BT":
            text.begin()
        elif word in (b"Td", b"TD"):
            text.move(*self.numbers(content, start, 2), word == b"TD")
        elif word == b"Tm":
            text.set_matrix(self.numbers(content, start, 6))
        elif word == b"T*":
            text.next_line()
        elif word == b"cm":
            text.concat(self.numbers(content, start, 6))
        elif word == b"q":
            text.save()
        elif word == b"Q":
            text.restore()
        elif word == b"Tf":
            name, size = self.operands(content, start, 2)
            text.set_font(self.font(resources, name), self.to_number(size))
        elif word == b"Do":
            self.form(resources, self.name(self.operands(content, start, 1)[0]), ids, depth)
        elif word == b"BI":
            return self.skip_image(content, at)
        else:  # Tc, Tw, Tz, TL, Ts
            text.set(word, self.numbers(content, start, 1)[0])
        return at

    def operands(self, content, start, n, region=False):
        """The ``n`` tokens before an operator: pdfminer's operands, no more, no fewer.

        They are the last of the skipped run that the operator's match holds (or, for ",
        of the run before its string); before them stands an operator, in the run or as
        the match before it (``region``: where the run starts, and what came before it).
        """
        begin, came = self.region if region is False else region
        pieces = content[begin:start].split()  # most streams put a blank between tokens
        if len(pieces) >= n and all(map(self.plain.match, pieces[-n - 1:])):
            if len(pieces) > n:
                if not self.keyword.match(pieces[-n - 1]):
                    raise _Refused("an operator with more operands than it takes")
                return pieces[-n:]
            if came in (None, "op", "show", "pairs"):
                return pieces
        found = [m for m in self.operand_token.finditer(content, begin, start)
                 if not m.group(1)]  # pdfminer ignores comments
        if len(found) > n:
            if not found[-n - 1].group(2):
                raise _Refused("an operator with more operands than it takes")
        elif len(found) < n or came not in (None, "op", "show", "pairs"):
            raise _Refused("an operator whose operands the scan cannot read")
        return [m.group() for m in found[-n:]]

    def numbers(self, content, start, n, region=False):
        """The ``n`` numbers before an operator, as ``operands`` finds them (and raises);
        at once where the last tokens of a blank-separated run are numbers and an operator
        stands before them, as nearly every stream writes them."""
        begin, came = self.region if region is False else (region, "skipped")
        pieces = content[begin:start].split()
        if len(pieces) >= n and all(map(self.number.match, pieces[-n:])) and (
                self.keyword.match(pieces[-n - 1]) if len(pieces) > n
                else came in (None, "op", "show", "pairs")):
            return [float(chunk) if b"." in chunk else int(chunk) for chunk in pieces[-n:]]
        return [self.to_number(chunk) for chunk in self.operands(content, start, n,
                                                                 (begin, came))]

    def to_number(self, chunk):
        if not self.number.match(chunk):
            raise _Refused("an operator whose operands are not numbers")
        return float(chunk) if b"." in chunk else int(chunk)

    def name(self, chunk):
        if chunk[:1] != b"/" or b"#" in chunk or not chunk[1:].isascii():
            raise _Refused("an operator whose name operand the scan cannot read")
        return chunk[1:].decode("latin-1")

    def font(self, resources, chunk):
        return self.fonts.font(resources, self.name(chunk))

    def operand(self, token):
        """A string as ``[its bytes]``; an array as ``[[its strings and numbers]]``.
        Raises _Refused for an array the scan cannot read whole."""
        if token[:1] != b"[":
            return [self.bytes(token)]
        found = self.token.findall(token, 1, len(token) - 1)
        if not all(string or number for string, number in found):
            raise _Refused("a TJ array the scan cannot read")
        return [[self.bytes(string) if string else
                 float(number) if b"." in number else int(number) for string, number in found]]

    def bytes(self, token):
        """A string token's bytes, as pdfminer reads them: an escape that is not one
        (``\\q``) and a backslash before a line end are dropped; a lone last hex digit
        is its own value (pdfminer's reading, not the standard's)."""
        if token[:1] == b"<":
            if not len(token) % 2:  # an even count of digits, the usual hex string
                try:
                    return bytes.fromhex(token[1:-1].decode())
                except ValueError:
                    pass  # blanks among them, maybe an odd count
            digits = token[1:-1].translate(None, b" \t\r\n\f\v")
            out = bytes.fromhex(digits[:len(digits) // 2 * 2].decode())
            return out + bytes((int(digits[-1:], 16),)) if len(digits) % 2 else out
        body = token[1:-1]
        return self.escape.sub(_unescape, body) if b"\\" in body else body

    def form(self, resources, name, ids, depth):
        """The text of a form the page draws, where pdfminer draws it (a form with a
        /BBox, not one already being drawn), in a fresh text state."""
        found = self.fonts.form(resources, name)
        if found is None:
            return
        content, inner, matrix, objid = found
        if content is None:  # an image
            self.drawn = True
            if self.paths is not None:
                self.paths.image(self.text.ctm)
            return
        if objid in ids:
            return  # pdfminer refuses to draw a form inside itself
        if depth >= _FORM_DEPTH:
            raise _Refused("forms nested too deep")
        saved = self.text.enter_form(matrix)
        path = self.paths.enter_form() if self.paths is not None else None
        self.run(content, inner if inner is not None else resources, ids | {objid}, depth + 1)
        self.text.leave_form(saved)
        if self.paths is not None:
            self.paths.leave_form(path)

    def skip_image(self, content, at):
        """Past an inline image's data: where pdfminer ends it, at the first EI (or ~> for
        ASCII85 data) that a blank follows."""
        self.drawn = True
        head = self.re.compile(rb"\sID(?=\s)").search(content, at)
        if head is None:
            raise _Refused("an inline image the scan cannot read")
        head_text = content[at:head.start()]
        ascii85 = self.re.search(rb"/F\s*\[?\s*/(?:A85|ASCII85Decode)(?![^\s()<>\[\]{}/%])",
                                 head_text)
        if self.paths is not None and all(  # pdfminer draws one with /W and /H only
                self.re.search(rb"/" + key + rb"(?![^\s()<>\[\]{}/%])", head_text)
                for key in (b"W", b"H")):
            self.paths.image(self.text.ctm)
        tail = self.re.compile(rb"~>\s" if ascii85 else rb"EI\s").search(content,
                                                                         head.end() + 1)
        if tail is None:
            raise _Refused("an inline image the scan cannot read")
        return tail.end()


_ESCAPED = {b"b": b"\x08", b"t": b"\t", b"n": b"\n", b"f": b"\x0c", b"r": b"\r",
            b"(": b"(", b")": b")", b"\\": b"\\"}


def _unescape(match):
    code = match.group(1)
    if code[:1].isdigit() and code[:1] not in b"89":
        value = int(code, 8)
        if value > 255:
            raise _Refused("a string escape pdfminer refuses")
        return bytes((value,))
    return _ESCAPED.get(code, b"")  # pdfminer drops what no escape names, and line ends
