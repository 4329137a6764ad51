"""Where text continues from where earlier text stopped, for ``dua.pdf.chars``.

A text-showing operator that follows no positioning operator starts where the previous
one left the pen, and pdfium leaves it elsewhere than pdfminer in two ways: it advances
by the file's /Widths where pdfminer uses the standard 14 fonts' own metrics, and it
drops a TJ array's last move when only empty strings follow it. Both are measured: the
first glyph by glyph while reading, the second here, from the page's content stream.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only at
import, pdfminer inside the function that uses it.
"""
from __future__ import annotations

_CONTENT_TOKEN = []


def _page_content(miner_page):
    from pdfminer.pdftypes import resolve1

    streams = miner_page.contents or []
    return b"\n".join(resolve1(s).get_data() for s in streams)


def _content_patterns(re):
    """The scan's two patterns: one token at a time (inside an array), and the stream's,
    where a show is one match with its operand, a move one match with its operands, and
    a run of what the scan skips (names, numbers, Tf, cm...) one more: a Python step per
    operator that matters, not per token."""
    if not _CONTENT_TOKEN:
        string = rb"\((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)|<[0-9A-Fa-f\s]*>"
        array = rb"\[(?:" + string + rb"|[^\[\]()<>%])*\]"
        regular = rb"[^\s()<>\[\]{}/%]"
        end = rb"(?!" + regular + rb")"
        keyword = rb"(?:BT|Td|TD|Tm|T\*|Tj|TJ|BI|ID|'|\")" + end
        # each token whole (what follows cannot extend it), so a run parses one way only
        skipped = (rb"(?:(?:/" + regular + rb"*" + end + rb"|(?!" + keyword + rb")" + regular +
                   rb"+" + end + rb"|<<|>>|[{}]|%[^\r\n]*(?![^\r\n]))\s*)+")
        _CONTENT_TOKEN.append(re.compile(
            rb"(" + string + rb")|<<|>>|%[^\r\n]*|/" + regular + rb"*|[\[\]{}]|" + regular +
            rb"+|(\S)", re.S))
        _CONTENT_TOKEN.append(re.compile(
            rb"(?P<show>(?P<operand>" + string + rb"|" + array + rb")\s*"
            rb"(?P<operator>Tj|TJ|'|\")" + end + rb")"
            rb"|(?P<moved>(?:" + skipped + rb")?(?:BT|Td|TD|Tm|T\*)" + end + rb")"
            rb"|(?P<text>" + string + rb")|(?P<array>" + array + rb")"
            rb"|(?P<skipped>" + skipped + rb")|(?P<op>" + keyword + rb")|(?P<other>\S)", re.S))
    return _CONTENT_TOKEN


def _show_operators(content):
    """``(positioned, lost)`` for each operator of the content stream that shows text,
    in order, or None where the scan cannot read the stream.

    positioned: it follows BT, Td, TD, Tm or T* (' and " move to the next line
    themselves); an operator that shows nothing is skipped, as both readers skip it.
    lost: the moves, in thousandths of the font size, that end a TJ array before empty
    strings only (pdfium drops them); a TJ whose empty strings stand anywhere else is
    read by neither rule, so the scan gives up, as it does on an array it cannot read
    whole (nested, unclosed, or holding a comment or a dictionary).
    """
    import re

    token, stream = _content_patterns(re)
    shows, positioned, operands = [], False, []
    for match in stream.finditer(content):
        kind = match.lastgroup
        if kind == "show":
            operator, operand = match.group("operator"), match.group("operand")
            if operand[:1] != b"[":  # one string: it loses no move, and shows if not empty
                if _string_length(operand):
                    shows.append((positioned or operator in (b"'", b'"'), 0.0))
                    positioned = False
                operands = []
                continue
            elements = _operand(token, operand)
        elif kind == "moved":
            positioned, operands = True, []
            continue
        elif kind == "text" or kind == "array":
            operands = [_operand(token, match.group())]
            continue
        elif kind == "skipped":
            operands = []
            continue
        elif kind == "other" or match.group() in (b"BI", b"ID"):
            return None  # an unbalanced string or bracket, or an inline image's binary data
        elif match.group() in (b"BT", b"Td", b"TD", b"Tm", b"T*"):
            positioned, operands = True, []
            continue
        else:  # Tj, TJ, ' or " after what is not its operand
            operator, elements = match.group(), operands[-1] if operands else []
        lost = None if elements is None else _tj_lost_move(elements)
        if lost is None:
            return None
        if any(isinstance(e, int) and e for e in elements):
            shows.append((positioned or operator in (b"'", b'"'), lost))
            positioned = False
        operands = []
    return shows


def _operand(token, operand):
    """A string as ``[its length]``; an array as its strings' lengths (ints) and its
    numbers (floats); None for an array the scan cannot read."""
    if operand[:1] != b"[":
        return [_string_length(operand)]
    return _array_elements(token, operand[1:-1])


def _array_elements(token, body):
    """An array's strings as their lengths (ints) and its numbers as floats."""
    elements = []
    for match in token.finditer(body):
        text = match.group(1)
        if match.group(2) is not None or match.group() in (b"BI", b"ID"):
            return None
        elements.append(_string_length(text) if text else _content_number(match.group()))
    return elements


def _string_length(token):
    """How many bytes (literal) or hex digits a string token holds: an int, where
    numbers are floats."""
    if token[:1] == b"<":
        return len(token[1:-1].translate(None, b" \t\r\n\f"))
    return len(token) - 2


def _content_number(token):
    try:
        return float(token)
    except ValueError:
        return 0.0


def _tj_lost_move(elements):
    """The moves pdfium drops at the end of a TJ array (see ``_show_operators``)."""
    shown = [i for i, e in enumerate(elements) if isinstance(e, int) and e]
    head, tail = (elements[:shown[-1]], elements[shown[-1] + 1:]) if shown else ([], elements)
    if any(isinstance(e, int) for e in head if not e):
        return None  # an empty string before a shown one
    empties = [i for i, e in enumerate(tail) if isinstance(e, int)]
    if not empties:
        return 0.0
    if any(isinstance(e, float) for e in tail[empties[0]:]):
        return None  # a move after an empty string
    return sum(tail[:empties[0]])
