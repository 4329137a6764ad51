"""The answer key beside the rows: which cells differ, and the two-line table that shows them.

Cells are compared as a reader would: numbers by value (``1,200.00`` is ``1200.0``, as
pandas writes it), text with its spaces closed up, an empty cell equal to ``nan``. It
decides nothing (``verify.compare`` does); it only shows where the rows and the key part.
"""
from __future__ import annotations

import dataclasses
import re

from .shell import esc

_NUMBER = re.compile(r"^\(?[-+]?[\d,'’ ]*\.?\d+\)?-?$")
_EMPTY = ("", "nan", "NaN", "None")


@dataclasses.dataclass
class Diff:
    """Where the rows written (got) and the answer key (expected) part."""

    columns: list                     # the key's columns, then any only the rows have
    cells: set                        # (row, column) whose values differ
    missing: list                     # the key's rows past the last row written
    extra: list                       # rows written past the key's last row

    def failing_rows(self) -> set:
        return {row for row, _ in self.cells} | set(self.missing) | set(self.extra)


def same(a: str, b: str) -> bool:
    """Whether two printed cells say the same."""
    a, b = " ".join(str(a).split()), " ".join(str(b).split())
    if a in _EMPTY or b in _EMPTY:
        return (a in _EMPTY) == (b in _EMPTY)
    if _NUMBER.match(a) and _NUMBER.match(b):
        x, y = _value(a), _value(b)
        if x is not None and y is not None:
            return x == y
    return a == b


def _value(text: str) -> float | None:
    negative = text.startswith("(") or text.startswith("-") or text.endswith("-")
    digits = re.sub(r"[^\d.]", "", text)
    try:
        number = float(digits)
    except ValueError:
        return None
    return -number if negative else number


def compare(got_columns: list, got: list, key_columns: list, key: list) -> Diff:
    """The cells where ``got`` (the CSV written) and ``key`` (the answer key) part."""
    columns = list(key_columns) + [c for c in got_columns if c not in key_columns]
    cells = set()
    for i in range(min(len(got), len(key))):
        mine, theirs = dict(zip(got_columns, got[i])), dict(zip(key_columns, key[i]))
        for column in columns:
            if not same(mine.get(column, ""), theirs.get(column, "")):
                cells.add((i, column))
    return Diff(columns, cells, list(range(len(got), len(key))), list(range(len(key), len(got))))


def table(diff: Diff, got_columns: list, got: list, key_columns: list, key: list,
          pages: dict) -> str:
    """Each row as two lines, expected over got, the differing cells marked on both.

    ``pages`` maps a row to the pages its box stands on (for the page filter); a row with a
    box links to it, as the single table does.
    """
    head = "".join(f"<th>{esc(c)}</th>" for c in diff.columns)
    out = ['<table class="items diff"><thead><tr><th>row</th><th></th>'
           f"{head}</tr></thead><tbody>"]
    failing = diff.failing_rows()
    for i in range(max(len(got), len(key))):
        on = pages.get(i, "")
        fail = " fail" if i in failing else ""
        number = f'<a href="#row-{i}">{i}</a>' if on else str(i)
        attrs = f'data-k="r{i}" data-page="{esc(on)}"'
        out.append(f'<tr class="r{i}{fail} exp" {attrs}><td rowspan="2">{number}</td>'
                   '<td class="src">expected</td>'
                   + _cells(diff, i, key_columns, key, "expected") + "</tr>")
        out.append(f'<tr id="t-{i}" class="r{i}{fail}" {attrs}><td class="src">got</td>'
                   + _cells(diff, i, got_columns, got, "got") + "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _cells(diff: Diff, i: int, columns: list, rows: list, side: str) -> str:
    if i >= len(rows):
        return f'<td class="gone" colspan="{len(diff.columns)}">no row {i} is {side}</td>'
    values = dict(zip(columns, rows[i]))
    out = []
    for column in diff.columns:
        value = str(values.get(column, ""))
        # Short cells (dates, amounts) stay on one line; a long description wraps, so that
        # the columns after it stay in view.
        classes = ["differs"] * ((i, column) in diff.cells) + ["long"] * (len(value) > 24)
        mark = f' class="{" ".join(classes)}"' if classes else ""
        out.append(f"<td{mark}>{esc(value)}</td>")
    return "".join(out)
