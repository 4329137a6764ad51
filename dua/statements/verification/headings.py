"""Lines that print the table's heading again: where they are what they say, and where
they are not (a row's words the heading took in). The page's own header printed again is
the reading's to mark (``wordlines.letterhead``).
"""
from __future__ import annotations

from collections import Counter

from ..table import wordlines


def stray(items: list, settings: dict) -> set:
    """``(page, line)`` of the heading's lines printed where its names are not: a run of
    heading lines that does not print, in one tier or across its tiers, every word of the
    line that names the most columns is no heading printed again ('agreed', a description's
    last word the heading took in where a row's text stood over the first row)."""
    header = settings.get("header") or []
    if not header or not isinstance(header, list):
        return set()
    names = Counter(max(header, key=lambda h: len(h.split())).split())
    out = set()
    for page, lines in enumerate(items):
        run: list = []
        for k, item in enumerate(lines + [None]):
            if item is not None and item[0] == "furniture" and item[5] == wordlines.HEADING:
                run.append(k)
                continue
            printed = Counter(w for j in run for w in wordlines.normalize(lines[j][3]).split())
            if run and names - printed:
                out |= {(page, j) for j in run}
            run = []
    return out
