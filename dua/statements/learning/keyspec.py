"""The answer key as the specification: its row order, its columns (blank ones too), its labels.

What the learner reads from the key beyond where its values stand: that the key lists the
page's rows newest first, that a column it names is blank on every row, and which words
printed beside every value of a column the key leaves out of its cells. Settings only,
never the key's values; ``notes`` says in words what was learned.
"""
from __future__ import annotations

import collections
import re

from ..table import engine, wordlines
from . import evidence

_LABEL_SHARE = 0.9  # a label stands beside (nearly) every value of its column


def orient(pages: list, expected, kinds: list, settings: dict, rows: list) -> tuple:
    """``(expected, rows, reversed)``: the key in the page's order. A key that lists the
    rows newest first, where the page prints them oldest first (or the other way), finds
    more of its rows read backwards; the learner then reads the page's order and the
    output is turned back to the key's."""
    found = sum(1 for r in rows if r)
    if found == len(expected) or len(expected) < 2:
        return expected, rows, False
    backwards = expected.iloc[::-1].reset_index(drop=True)
    again = evidence.locate(pages, backwards, kinds, settings)
    if sum(1 for r in again if r) > found:
        return backwards, again, True
    return expected, rows, False


def specify(settings: dict, pages: list, rows: list, expected, ranges: dict,
            backwards: bool) -> None:
    """What the key specifies beyond where its values stand, into ``settings``."""
    settings["blank_columns"] = blank_columns(expected, ranges)
    if backwards:
        settings["row_order"] = "reversed"
    labels(pages, rows, expected, settings["columns"])


def blank_columns(expected, ranges: dict) -> list:
    """The key's columns that are empty on every row and printed nowhere: each becomes an
    output column with no band on the page, always empty, typed as the key types it."""
    out = []
    for c, name in enumerate(expected.columns):
        if c not in ranges and expected.iloc[:, c].isna().all():
            out.append({"name": str(name), "dtype": evidence.dtype_of(expected.iloc[:, c])})
    return out


def carried(rows: list, expected, settings: dict, kinds: list) -> None:
    """Columns the key fills on rows where the page prints nothing, each time with the
    value of the row above (a booking date printed on a day's first row only): the output
    carries them down too (``carry_columns``). The key decides alone: columns carried in
    the pages' own reading are counted in that reading's columns, not the key's."""
    names = [c["name"] for c in settings["columns"]]
    out = []
    for c, name in enumerate(expected.columns):
        if str(name) not in names or kinds[c] != "text":
            continue
        blank = [r for r in rows if r.index and c not in r.cells]
        if blank and all(evidence.value(expected.iloc[r.index, c]) is not None and
                         evidence.value(expected.iloc[r.index, c])
                         == evidence.value(expected.iloc[r.index - 1, c]) for r in blank):
            out.append(names.index(str(name)))
    settings.pop("carry_columns", None)
    if out:
        settings["carry_columns"] = sorted(set(out))


def labels(pages: list, rows: list, expected, columns: list) -> None:
    """Words printed in a text column's band on a row's lines beside (nearly) every value,
    that no cell of the key holds ('Ref:', 'Details'): the column's labels, dropped from
    its cells (``labels``)."""
    names = [str(n) for n in expected.columns]
    claimed = {id(w) for r in rows for ws in r.cells.values() for w in ws}
    for at, col in enumerate(columns):
        if col.get("kind") != "text" or col["name"] not in names:
            continue
        c, seen, total = names.index(col["name"]), collections.Counter(), 0
        for row in rows:
            if evidence.value(expected.iloc[row.index, c]) is None:
                continue
            total += 1
            for k in row.lines:
                seen.update({w[0] for w in pages[row.page].lines[k] if id(w) not in claimed
                             and wordlines.column_of(w, columns) == at})
        said = {t for v in expected.iloc[:, c].dropna() for t in str(v).split()}
        found = [t for t, n in seen.items() if total >= 3 and n >= _LABEL_SHARE * total
                 and not re.search(r"\d", t) and t not in said]
        if found:
            col["labels"] = sorted(found)


def notes(settings: dict | None) -> list:
    """What the parser learned from the key that a person should know, in words."""
    if not settings:
        return []
    out = []
    if settings.get("row_order") == "reversed":
        out.append("the answer key lists the rows in the reverse of the page's order; they "
                   "were matched read backwards, and the output follows the key's order")
    for col in settings.get("blank_columns", []):
        out.append(f"column {col['name']!r} is empty on every row of the key and printed "
                   "nowhere on the page: kept, always empty")
    for col in settings.get("columns", []) + settings.get("second_line", []):
        if col.get("labels"):
            out.append(f"column {col['name']!r}: {', '.join(map(repr, col['labels']))} printed "
                       "beside every value and left out by the key: a label, dropped")
    return out


def where(result: dict, pages: list, settings: dict | None) -> None:
    """Each cell where the output and the key disagree, told with what the page prints in
    that row's cell (its text before it is read as a number or a date), in ``summary``."""
    diffs = (result.get("diagnostics") or {}).get("first_differences") or []
    if not diffs or not settings or "columns" not in settings:
        return
    try:
        rows = engine.extract(pages, settings)[0]
    except (KeyError, ValueError, TypeError, IndexError, re.error):
        return  # the parser's own error is reported elsewhere
    if settings.get("row_order") == "reversed":
        rows = rows[::-1]
    names = [c["name"] for c in settings["columns"] + settings.get("second_line", [])]
    lines = result["summary"].splitlines()
    for d in diffs:
        told = (f"row {d['row']} column {d['column']!r}: expected {d['expected']!r}, "
                f"got {d['got']!r}")
        if d["row"] >= len(rows) or told not in lines:
            continue
        at = names.index(d["column"]) if d["column"] in names else None
        printed = rows[d["row"]][0][at] if at is not None else None
        d["printed"] = printed
        shown = f"prints {printed!r} there" if printed else "prints nothing there"
        lines[lines.index(told)] = (f"row {d['row']} column {d['column']!r}: the key says "
                                    f"{d['expected']!r}, the page {shown} (read as {d['got']!r})")
    result["summary"] = "\n".join(lines)
