"""Getting the payload out of a model's reply: markdown code fences, BOMs and whitespace.

Pure string work; it never decides whether the payload is JSON (``parsing`` does that).
"""
from __future__ import annotations

import re

# A fence line: optional indentation, ``` or ~~~ (three or more), then an optional info string
# such as "json" (CommonMark: a backtick fence's info string may not contain a backtick).
_FENCE_LINE = re.compile(r"^[ \t]*(?P<fence>`{3,}|~{3,})[ \t]*(?P<info>[^\n`]*?)[ \t]*$", re.M)
# A whole reply on one line: ```json {"a": 1}```  (small models do this).
_INLINE = re.compile(r"\A(?P<fence>`{3,}|~{3,})(?P<info>[A-Za-z0-9_+.-]*)[ \t]*(?P<body>.*?)(?P=fence)\Z",
                     re.S)
_BOM = "\ufeff"


def strip_fences(text: str) -> tuple[str, int]:
    """The payload of ``text`` and how many fenced blocks were found.

    One fenced block (with or without a language tag, with prose around it) yields its
    content; an opening fence that is never closed (a cut-off reply) yields everything after
    it; a stray closing fence is dropped. With two or more blocks nothing is chosen: the
    stripped text comes back unchanged and the count tells the caller why.
    """
    text = _trim(text)
    inline = _INLINE.match(text)
    if inline and "\n" not in inline.group("body").strip():
        return _trim(inline.group("body")), 1
    fences = list(_FENCE_LINE.finditer(text))
    if not fences:
        return text, 0
    blocks, unclosed = _pair(fences)
    if len(blocks) > 1 or (blocks and unclosed is not None):
        return text, len(blocks) + (unclosed is not None)
    if blocks:
        start, end = blocks[0]
        return _trim(text[start:end]), 1
    opener = fences[unclosed]
    before, after = text[:opener.start()], text[opener.end():]
    if not after.strip() and before.strip() and not opener.group("info"):
        # A closing fence with no opening one: the payload is what precedes it.
        return _trim(before), 0
    after = _trim(after)
    if after.endswith(opener.group("fence")):
        # A closing fence glued to the last line of the payload: {"a": 1}```
        after = after[:-len(opener.group("fence"))]
    return _trim(after), 1


def _pair(fences: list) -> tuple[list, int | None]:
    """(content spans of closed blocks, index of an opening fence left unclosed or None)."""
    blocks = []
    i = 0
    while i < len(fences):
        opener = fences[i]
        closer = _closing(fences, i)
        if closer is None:
            return blocks, i
        # Content starts after the opener's newline and ends before the closer's line.
        blocks.append((opener.end() + 1, fences[closer].start()))
        i = closer + 1
    return blocks, None


def _closing(fences: list, i: int) -> int | None:
    # CommonMark: the closer uses the same character, is at least as long, and has no info string.
    fence = fences[i].group("fence")
    for j in range(i + 1, len(fences)):
        candidate = fences[j].group("fence")
        if candidate[0] == fence[0] and len(candidate) >= len(fence) and not fences[j].group("info"):
            return j
    return None


def _trim(text: str) -> str:
    # str.strip() keeps U+FEFF (it is not whitespace), and some servers prefix every reply with it.
    text = text.strip()
    while text.startswith(_BOM):
        text = text[len(_BOM):].strip()
    return text
