"""A font's ToUnicode CMap read without pdfminer's PostScript parser, for ``dua.pdf.fonts``.

pdfminer reads a ToUnicode stream token by token (its PSStackParser), the largest cost of
loading a font. Nearly every such stream is a few keywords around lists of hex strings: this
reads those with one regular expression into the very map pdfminer's CMapParser makes, and
answers None for anything it does not follow to the letter (pdfminer then reads the stream).
Maps are kept by the stream's bytes: documents from the same program carry the same maps,
and a reading child reads one document after another.

Copied verbatim with ``dua.pdf.words`` into every generated parser: standard library only.
"""
from __future__ import annotations

_CMAP_PATTERN = []  # the tokenizer, compiled on first use
_CMAP_MAPS = {}  # a stream's bytes -> {code: text} pdfminer reads from it, or None
_CMAP_KEPT = 256  # maps kept at most: the oldest goes first
_CMAP_RANGE = 1 << 16  # a bfrange longer than this is left to pdfminer
# the keywords that act on the operand stack: one inside an array or dictionary is in doubt
_CMAP_ACTS = frozenset((b"begincmap", b"endcmap", b"usecmap", b"def", b"begincodespacerange",
                        b"endcodespacerange", b"begincidrange", b"endcidrange",
                        b"begincidchar", b"endcidchar", b"beginbfrange", b"endbfrange",
                        b"beginbfchar", b"endbfchar", b"beginnotdefrange", b"endnotdefrange"))
_CMAP_CLEARS = frozenset((b"begincodespacerange", b"endcodespacerange", b"begincidrange",
                          b"begincidchar", b"beginbfrange", b"beginbfchar",
                          b"beginnotdefrange", b"endnotdefrange"))


class _CMapDoubt(Exception):
    """Something pdfminer might read otherwise than this module does."""


_CMAP_OTHER = object()  # an operand that is neither a string nor an array (a name, a number)


def _cmap_patterns():
    """The tokenizer, each token as pdfminer's parser ends it (a hex string must have its
    digits in pairs and nothing inside; a literal string no escape or parenthesis; a name no
    #-escape; a number no fraction: the rest is ``bad`` and in doubt), where a bfchar or
    bfrange section of hex strings alone is one token; a hex string; a bfrange entry."""
    if not _CMAP_PATTERN:
        import re

        end = rb"(?![#])"  # pdfminer ends a name or keyword at '#' and reads on otherwise
        hexes = rb"<(?:[0-9A-Fa-f]{2})*>(?!>)"
        entry = hexes + rb"\s*" + hexes + rb"\s*(?:" + hexes + rb"|\[(?:\s*" + hexes + rb")*\s*\])"
        closed = rb"(?=[/%\[\]()<>{}\s])"  # a keyword pdfminer ends before the stream does
        _CMAP_PATTERN.extend((re.compile(
            rb"[\s\x00]+|%[^\r\n]*"
            rb"|(?P<bfchar>beginbfchar(?:\s*" + hexes + rb"\s*" + hexes + rb")*\s*endbfchar)" + closed +
            rb"|(?P<bfrange>beginbfrange(?:\s*" + entry + rb")*\s*endbfrange)" + closed +
            rb"|(?P<open><<|\[|\{)|(?P<close>>>|\]|\})"
            rb"|<(?P<hex>(?:[0-9A-Fa-f]{2})*)>(?!>)"
            rb"|\((?P<string>[^()\\]*)\)"
            rb"|/(?P<name>[^#/%\[\]()<>{}\s]*)" + end +
            rb"|(?P<int>[+-]?\d+)(?![\d.])"
            rb"|(?P<word>[A-Za-z][^#/%\[\]()<>{}\s]*)" + end +
            rb"|(?P<bad>.)", re.S),
            re.compile(rb"<([0-9A-Fa-f]*)>"),
            re.compile(rb"<([0-9A-Fa-f]*)>\s*<([0-9A-Fa-f]*)>\s*(?:<([0-9A-Fa-f]*)>|\[([^\]]*)\])")))
    return _CMAP_PATTERN


def _cmap_codes(data):
    """``{code: text}`` as pdfminer's CMapParser reads the ToUnicode stream ``data``
    (``FileUnicodeMap.cid2unichr``), or None where this reading is in doubt."""
    if data in _CMAP_MAPS:
        return _CMAP_MAPS[data]
    try:
        found = _read_cmap(data)
    except _CMapDoubt:
        found = None
    if len(_CMAP_MAPS) >= _CMAP_KEPT:
        del _CMAP_MAPS[next(iter(_CMAP_MAPS))]
    _CMAP_MAPS[data] = found
    return found


def _read_cmap(data):
    # pdfminer's operand stack, levels for the arrays, dictionaries and procedures open
    levels, codes, in_cmap = [[None, []]], {}, True
    token, hexes, entry = _cmap_patterns()
    for m in token.finditer(data):  # a token the stream ends in counts: pdfminer ends it
        kind = m.lastgroup
        if kind is None:
            continue  # blanks and comments
        if kind == "bad":
            raise _CMapDoubt(m.group())
        items = levels[-1][1]
        if kind in ("bfchar", "bfrange"):
            _section(m.group(), kind, hexes, entry, levels, codes, in_cmap)
        elif kind == "open":
            levels.append([m.group(), []])
        elif kind == "close":
            _close(levels, m.group())
        elif kind == "hex":
            items.append(bytes.fromhex(m.group("hex").decode()))
        elif kind == "string":
            items.append(m.group("string"))
        elif kind == "word" and m.group() not in (b"true", b"false"):
            in_cmap = _keyword(m.group(), levels, codes, in_cmap)
        else:
            items.append(_CMAP_OTHER)
    return codes


def _section(text, kind, hexes, entry, levels, codes, in_cmap):
    """A bfchar or bfrange section read whole: its keywords clear the stack, and its
    strings, between them, are what the section's end reads."""
    if len(levels) > 1:
        raise _CMapDoubt(kind)  # its keywords would act inside an array or dictionary
    if not in_cmap:  # its keywords do nothing: its strings stay on the stack
        levels[-1][1].extend(bytes.fromhex(h.decode()) for h in hexes.findall(text))
        return
    levels[-1][1].clear()
    if kind == "bfchar":
        _bfchar([bytes.fromhex(h.decode()) for h in hexes.findall(text)], codes)
        return
    items = []
    for e in entry.finditer(text):
        first, last, target, listed = e.groups()
        items += (bytes.fromhex(first.decode()), bytes.fromhex(last.decode()),
                  bytes.fromhex(target.decode()) if listed is None else
                  [bytes.fromhex(h.decode()) for h in hexes.findall(listed)])
    _bfrange(items, codes)


def _close(levels, token):
    """A closed array or procedure is a list on the stack, a dictionary another operand;
    a closing token pdfminer would skip, or a dictionary it would refuse, is in doubt."""
    opened = {b">>": b"<<", b"]": b"[", b"}": b"{"}[token]
    if len(levels) == 1 or levels[-1][0] != opened:
        raise _CMapDoubt(token)
    items = levels.pop()[1]
    if token == b">>" and len(items) % 2:
        raise _CMapDoubt("a dictionary of odd length")  # pdfminer raises on it
    levels[-1][1].append(_CMAP_OTHER if token == b">>" else items)


def _keyword(word, levels, codes, in_cmap):
    """What a keyword does to the stack and the map, as CMapParser.do_keyword does;
    whether the map is open after it."""
    if word in _CMAP_ACTS and len(levels) > 1:
        raise _CMapDoubt(word)
    items = levels[-1][1]
    if word == b"begincmap":
        items.clear()
        return True
    if word == b"endcmap" or not in_cmap:
        return False if word == b"endcmap" else in_cmap
    if word in (b"usecmap", b"endcidrange", b"endcidchar"):
        raise _CMapDoubt(word)  # another CMap's codes, or CIDs: rare in a ToUnicode map
    if word == b"def":
        if len(items) < 2:
            raise _CMapDoubt(word)  # pdfminer fails to unpack what it pops
        del items[-2:]  # the map's attributes: no text depends on them
    elif word in _CMAP_CLEARS:
        items.clear()
    elif word == b"endbfchar":
        _bfchar(items, codes)
        items.clear()
    elif word == b"endbfrange":
        _bfrange(items, codes)
        items.clear()
    else:
        items.append(_CMAP_OTHER)  # pdfminer keeps an unknown keyword as an operand
    return in_cmap


def _bfchar(items, codes):
    for i in range(0, len(items) - 1, 2):
        code, text = items[i], items[i + 1]
        if isinstance(code, bytes) and isinstance(text, bytes):
            _add(codes, int.from_bytes(code, "big"), text)


def _bfrange(items, codes):
    for i in range(0, len(items) - 2, 3):
        first, last, target = items[i:i + 3]
        if not (isinstance(first, bytes) and isinstance(last, bytes)) or len(first) != len(last):
            continue  # pdfminer warns and skips the entry
        start, end = int.from_bytes(first, "big"), int.from_bytes(last, "big")
        if end - start >= _CMAP_RANGE:
            raise _CMapDoubt("a long range")
        if isinstance(target, list):
            for code, text in zip(range(start, end + 1), target):
                if not isinstance(text, bytes):
                    raise _CMapDoubt("a name or number for a text")
                _add(codes, code, text)
        elif isinstance(target, bytes) and target:
            _add_run(codes, start, end, target)
        else:
            raise _CMapDoubt("a range's target")  # pdfminer asserts it is a string


def _add_run(codes, start, end, target):
    """Codes start..end to ``target`` counted up in its last (up to) four bytes, which
    wrap around within their width as pdfminer's struct.pack(">L")[-width:] does."""
    prefix, tail = target[:-4], target[-4:]
    base, width = int.from_bytes(tail, "big"), len(tail)
    if end >= start and base + end - start >= 1 << 32:
        raise _CMapDoubt("a range past four bytes")  # struct.pack raises on it
    mask = (1 << 8 * width) - 1
    for i in range(end - start + 1):
        _add(codes, start + i, prefix + ((base + i) & mask).to_bytes(width, "big"))


def _add(codes, code, utf16):
    text = utf16.decode("utf-16-be", "ignore")
    # pdfminer keeps a space a later no-break space would replace (fonts that map both)
    if text != "\u00a0" or codes.get(code) != " ":
        codes[code] = text
