"""Getting the payload out of a model's reply: markdown code fences, BOMs and whitespace.

Pure string work; it never decides whether the payload is JSON (``parsing`` does that).
"""
from __future__ import annotations

import collections
import re

# A fence line: optional indentation, ``` or ~~~ (three or more), then an optional info string
# such as "json" (CommonMark: a backtick fence's info string may not contain a backtick).
# Runs are found with str.find and their line checked by hand: a MULTILINE "^" regex, or
# even a bare `{3,}|~{3,} scan, cost 1-2 ms on a 127 KB reply; str.find costs microseconds.
_MARKS = ("```", "~~~")
Fence = collections.namedtuple("Fence", "start end fence info")
# A whole reply on one line: ```json {"a": 1}```  (small models do this).
_INLINE = re.compile(
    r"\A(?P<fence>`{3,}|~{3,})(?P<info>[A-Za-z0-9_+.-]*)[ \t]*(?P<body>.*?)(?P=fence)\Z", re.S)
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
    fences = fence_lines(text)
    if not fences:
        return text, 0
    blocks, unclosed = _pair(fences)
    if len(blocks) > 1 or (blocks and unclosed is not None):
        return text, len(blocks) + (unclosed is not None)
    if blocks:
        start, end = blocks[0]
        return _trim(text[start:end]), 1
    opener = fences[unclosed]
    before, after = text[:opener.start], text[opener.end:]
    if not after.strip() and before.strip() and not opener.info:
        # A closing fence with no opening one: the payload is what precedes it.
        return _trim(before), 0
    after = _trim(after)
    if after.endswith(opener.fence):
        # A closing fence glued to the last line of the payload: {"a": 1}```
        after = after[:-len(opener.fence)]
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
        blocks.append((opener.end + 1, fences[closer].start))
        i = closer + 1
    return blocks, None


def _closing(fences: list, i: int) -> int | None:
    # CommonMark: the closer uses the same character, is at least as long, and has no info string.
    fence = fences[i].fence
    for j in range(i + 1, len(fences)):
        candidate = fences[j].fence
        if candidate[0] == fence[0] and len(candidate) >= len(fence) and not fences[j].info:
            return j
    return None


def fence_lines(text: str) -> list:
    """Every line that is a fence: ``Fence(line start, line end, fence, info string)``."""
    out = []
    for start, end in sorted(_runs(text)):
        line_start = text.rfind("\n", 0, start) + 1
        if text[line_start:start].strip(" \t"):
            continue  # text before the run: inline backticks, not a fence
        line_end = text.find("\n", end)
        line_end = len(text) if line_end < 0 else line_end
        info = text[end:line_end].strip(" \t\r")
        if text[start] == "`" and "`" in info:
            continue
        out.append(Fence(line_start, line_end, text[start:end], info))
    return out


def _runs(text: str):
    """(start, end) of every maximal run of three or more backticks or tildes."""
    for mark in _MARKS:
        i = text.find(mark)
        while i >= 0:
            j = i + len(mark)
            while j < len(text) and text[j] == mark[0]:
                j += 1
            yield i, j
            i = text.find(mark, j)


def _trim(text: str) -> str:
    # str.strip() keeps U+FEFF (it is not whitespace), and some servers prefix every reply with it.
    text = text.strip()
    while text.startswith(_BOM):
        text = text[len(_BOM):].strip()
    return text
