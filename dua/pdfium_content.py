"""Where text continues from where earlier text stopped, for ``dua.pdfium_chars``.

A text-showing operator that follows no positioning operator starts where the previous
one left the pen, and pdfium leaves it elsewhere than pdfminer in two ways: it advances
by the file's /Widths where pdfminer uses the standard 14 fonts' own metrics, and it
drops a TJ array's last move when only empty strings follow it. Both are measured: the
first glyph by glyph while reading, the second here, from the page's content stream.

Copied verbatim with ``dua.words`` into every generated parser: standard library only at
import, pdfminer inside the function that uses it.
"""
from __future__ import annotations

_CONTENT_TOKEN = []


def _page_content(miner_page):
    from pdfminer.pdftypes import resolve1

    streams = miner_page.contents or []
    return b"\n".join(resolve1(s).get_data() for s in streams)


def _show_operators(content):
    """``(positioned, lost)`` for each operator of the content stream that shows text,
    in order, or None where the scan cannot read the stream.

    positioned: it follows BT, Td, TD, Tm or T* (' and " move to the next line
    themselves); an operator that shows nothing is skipped, as both readers skip it.
    lost: the moves, in thousandths of the font size, that end a TJ array before empty
    strings only (pdfium drops them); a TJ whose empty strings stand anywhere else is
    read by neither rule, so the scan gives up.
    """
    import re

    if not _CONTENT_TOKEN:
        string = rb"\((?:[^()\\]|\\.|\((?:[^()\\]|\\.)*\))*\)"
        _CONTENT_TOKEN.append(re.compile(
            rb"(" + string + rb"|<[0-9A-Fa-f\s]*>)|<<|>>|%[^\r\n]*|/[^\s()<>\[\]{}/%]*"
            rb"|[\[\]{}]|[^\s()<>\[\]{}/%]+|(\S)", re.S))
    shows, positioned, array, operands = [], False, None, []
    for match in _CONTENT_TOKEN[0].finditer(content):
        token, text = match.group(), match.group(1)
        if match.group(2) is not None or token in (b"BI", b"ID"):
            return None  # an unbalanced string or an inline image's binary data
        if token == b"[":
            array = []
        elif token == b"]":
            operands, array = [array], None
        elif array is not None:
            array.append(_string_length(text) if text else _content_number(token))
        elif text:
            operands = [[_string_length(text)]]
        elif token in (b"BT", b"Td", b"TD", b"Tm", b"T*"):
            positioned = True
        elif token in (b"Tj", b"TJ", b"'", b'"'):
            elements = operands[-1] if operands else []
            lost = _tj_lost_move(elements)
            if lost is None:
                return None
            if any(isinstance(e, int) and e for e in elements):
                shows.append((positioned or token in (b"'", b'"'), lost))
                positioned = False
        if array is None and token != b"]" and not text:
            operands = []
    return shows


def _string_length(token):
    """How many bytes (literal) or hex digits a string token holds: an int, where
    numbers are floats."""
    if token[:1] == b"<":
        return sum(1 for c in token[1:-1] if c not in b" \t\r\n\f")
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
