"""The answer key located on the page: where each expected row's tokens are printed.

Each expected row is looked up in order: the line that prints its amounts (under any
notation, sign or currency) and its date exactly as printed, then the words of its text
cells on that line or on the lines around it (wrapped, split by OCR or by glyphs).
``learning`` turns what is found here into settings.
"""
from __future__ import annotations

import collections
import dataclasses
import math
import re

from ..notation import columndates, datenotation
from ..notation.dates import DATE_PATTERNS
from ..table import engine, wordlines
from ..table.columns import GLUE_GAP, LINE_TOLERANCE

_SPAN = 3  # an amount may print over up to three words: '12 345,67', 'EUR 1.234,56'
_PHRASE = 6  # a date may print over up to six words: '23 / 06 / 2025', '2024 年 12 月 16 日'
_DIGIT = re.compile(r"\d")
MARKS = {"dr", "dr.", "cr", "cr.", "-", "+"}  # a sign printed as a word of its own


@dataclasses.dataclass
class Row:
    """One expected row as found on the page."""

    index: int  # its position in the expected CSV
    page: int
    line: int  # index of its anchor line among the page's lines
    cells: dict  # expected column index -> the words printing it
    dated: bool  # its date is printed on the anchor line
    lines: set = dataclasses.field(default_factory=set)  # line indices holding its cells


def roles(expected) -> list:
    """'date', 'amount' or 'text' for each expected column, judged by its values."""
    out, dates = [], []
    for c, name in enumerate(expected.columns):
        series = expected[name]
        values = [str(v) for v in series.dropna()]
        if str(series.dtype) == "float64":
            out.append("amount")
            continue
        if values and (sum(1 for v in values if _is_date(v)) >= 0.8 * len(values)
                       or date_notation(values) is not None):
            dates.append(c)
        out.append("text")
    # the first date column anchors rows, a value date is text; but a date printed once a
    # day prints the first row's, and a column blank there is one a part of the table
    # leaves out (a card's purchase date, beside the booking date every row prints)
    filled = [c for c in dates if len(expected) and value(expected.iloc[0, c]) is not None]
    if dates:
        out[(filled or dates)[0]] = "date"
    return out


def dtype_of(series) -> str | None:
    """The engine's dtype for an expected column: float, str, or None (inferred)."""
    dtype = str(series.dtype)
    return "float" if dtype == "float64" else "str" if dtype in ("str", "object", "string") else None


def date_notation(values: list) -> dict | None:
    """The notation the key's dates share when none of the usual shapes reads them
    ('15 ago 2024', '2024年12月16日', '21-07'): it must name a month in words, mark its
    parts (年月日), print a year, or, numbers alone, run in order through the rows as
    days do, so that a column of small numbers is no date."""
    found = datenotation.induce(values)
    if found and (found["languages"] or {"y", "mark"} & set(found["roles"])):
        return found
    keys = datenotation.order_keys(values, found) if found and len(values) >= 3 else None
    if keys and len(set(keys)) >= 3 and columndates.in_order(keys):
        return found
    return None


def _is_date(text: str) -> bool:
    return any(re.fullmatch(p, text, re.IGNORECASE) for p in DATE_PATTERNS)


def value(cell) -> object:
    if cell is None or (isinstance(cell, float) and math.isnan(cell)):
        return None
    return cell.item() if hasattr(cell, "item") else cell


# --- finding the rows ---------------------------------------------------------------------


class Page:
    """One page's lines, with the amounts each line prints cached per notation."""

    def __init__(self, words: list):
        self.lines = wordlines.group_lines(words, LINE_TOLERANCE)
        self._amounts: dict = {}
        self._phrases: dict = {}

    def amounts(self, k: int, settings: dict) -> dict:
        """Value in cents -> word spans ``(i, j)`` of line ``k`` printing it (any sign)."""
        key = (k, settings["decimal"])
        if key not in self._amounts:
            line, out = self.lines[k], collections.defaultdict(list)
            digits = [bool(_DIGIT.search(w[0])) for w in line]
            for i in range(len(line)):
                for j in range(i + 1, min(i + _SPAN, len(line)) + 1):
                    if not any(digits[i:j]):
                        continue  # an amount prints a digit (the engine's \d): skip the parse
                    amount = engine.parse_amount(" ".join(w[0] for w in line[i:j]), settings)
                    if amount is not None:
                        out[round(abs(amount) * 100)].append((i, j))
            self._amounts[key] = out
        return self._amounts[key]

    def phrases(self, k: int) -> dict:
        """Text -> the first span ``(i, j)`` of at most ``_PHRASE`` words printing it on line k."""
        if k not in self._phrases:
            line, out = self.lines[k], {}
            for i in range(len(line)):
                for j in range(i + 1, min(i + _PHRASE, len(line)) + 1):
                    for text in (wordlines.join_words(line[i:j], GLUE_GAP),
                                 " ".join(w[0] for w in line[i:j])):
                        out.setdefault(text, (i, j))
            self._phrases[k] = out
        return self._phrases[k]


def _match_line(page: Page, k: int, want: list, date, settings: dict, xs: dict):
    """Spans of line ``k`` for the row's date and amounts, or None when any is missing."""
    line, used, spans = page.lines[k], set(), {}
    amounts = page.amounts(k, settings)
    if any(cents not in amounts and cents for _, cents in want):
        return None
    if date is not None:
        found = page.phrases(k).get(date[1])
        # printed whole, or wrapped (each way the first line may end: two columns may print
        # the day's first words on one line, only one is this column's)
        tries = [(found, [])] if found else _wrapped(page, k, date[1])
        span, tail = next(((s, t) for s, t in tries
                           if not _elsewhere(line, s, xs.get(date[0]))), (None, []))
        if span is None:
            return None
        spans[date[0]] = span
        if tail:
            spans["tail"] = tail
        used.update(range(*span))
    for col, cents in want:
        free = [s for s in amounts.get(cents, ()) if not used.intersection(range(*s))]
        if not free:
            if cents == 0:
                continue  # a zero is often printed as a dash or not at all
            return None
        # The fewest words (a marker beside the number may be a column of its own); for
        # equal values in two columns, the span nearest where this column stood before.
        centre = lambda s: (line[s[0]][1] + line[s[1] - 1][2]) / 2  # noqa: E731
        span = min(free, key=lambda s: (s[1] - s[0], abs(centre(s) - _median(
            [c for c, _ in xs[col]])) if xs.get(col) else centre(s)))
        spans[col] = span
        used.update(range(*span))
    return spans


def _wrapped(page: Page, k: int, text: str) -> list:
    """``[(span, tail words)]``: the ways ``text`` is printed over line ``k`` and the lines
    below it, wrapped in a narrow cell ('11 June' over '2023', 'MAR' over '07' over '2024'):
    its first words on line ``k``, the rest on the next lines, each starting at the same
    edge; the longest first line first."""
    tokens = text.split()
    if len(tokens) < 2 or k + 1 >= len(page.lines):
        return []
    line, out = page.lines[k], []
    for cut in range(len(tokens) - 1, 0, -1):
        span = page.phrases(k).get(" ".join(tokens[:cut]))
        if span is not None:
            tail = _tail(page, k, line[span[0]][1], tokens[cut:])
            if tail:
                out.append((span, tail))
    return out


def _tail(page: Page, k: int, edge: float, rest: list) -> list:
    """The words spelling ``rest`` on the lines right under line ``k``, each line's run
    starting at ``edge``; [] when they do not."""
    out, height = [], max(w[4] - w[3] for w in page.lines[k])
    for below in page.lines[k + 1:k + 1 + len(rest)]:
        if below[0][3] - page.lines[k][0][3] > 2.0 * height * (1 + len(out)):
            return []
        start = next((i for i, w in enumerate(below) if abs(w[1] - edge) <= 2.0), None)
        if start is None:
            return []
        for n, w in enumerate(below[start:], start):
            if len(out) == len(rest) or w[0] != rest[len(out)] or (
                    n > start and w[1] - below[n - 1][2] > w[4] - w[3]):
                break  # the cell's words stand a word space apart: further on, another cell
            out.append(w)
        if len(out) == len(rest):
            return out
    return []


def _elsewhere(line: list, span: tuple, xs: list | None) -> bool:
    """Whether the date found on the line stands a date's width or more away from where
    the column's dates stood so far (``xs``: their centres and left edges): another column
    printing the same day (a value date on a line whose booking date is printed once, on
    the day's first row). A date that starts where the column's start is the column's,
    however much of it a narrow cell wraps ('03' over 'Noviembre' beside '30 Octubre')."""
    if not xs:
        return False
    left, right = line[span[0]][1], line[span[1] - 1][2]
    if abs(left - _median([x for _, x in xs])) <= 1.0:
        return False
    return abs((left + right) / 2 - _median([c for c, _ in xs])) > right - left


def _median(values: list) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def locate(pages: list, expected, kinds: list, settings: dict) -> list:
    """Each expected row's anchor line and the words of its date and amounts (None: not found).

    Rows are searched in order, each after the previous one; the line must print the
    row's date too unless no line does (a date printed once, over the day's rows).
    """
    found, flat = [], [(p, k) for p, page in enumerate(pages) for k in range(len(page.lines))]
    cursor, xs = 0, collections.defaultdict(list)
    date_col = kinds.index("date") if "date" in kinds else None
    for r in range(len(expected)):
        values = [value(v) for v in expected.iloc[r].tolist()]
        want = [(c, round(abs(float(v)) * 100)) for c, (k, v) in enumerate(zip(kinds, values))
                if k == "amount" and v is not None]
        date = (date_col, str(values[date_col])) if date_col is not None and \
            values[date_col] is not None else None
        hit = None
        for wanted_date in ((date, None) if date else (None,)):
            if not want and wanted_date is None:
                break
            for pos in range(cursor, len(flat)):
                p, k = flat[pos]
                spans = _match_line(pages[p], k, want, wanted_date, settings, xs)
                if spans is not None:
                    hit = (pos, p, k, spans, wanted_date is not None)
                    break
            if hit:
                break
        if hit is None:
            found.append(None)
            continue
        pos, p, k, spans, dated = hit
        cursor, line = pos + 1, pages[p].lines[k]
        tail = spans.pop("tail", [])
        cells = {c: line[i:j] for c, (i, j) in spans.items()}
        # where each column stood on the anchor line, as the next rows' spans are measured
        # there: a date's wrapped month would move its centre off the day's
        for c, words in cells.items():
            xs[c].append(((min(w[1] for w in words) + max(w[2] for w in words)) / 2,
                          min(w[1] for w in words)))
        if tail:  # the date's last words, wrapped onto the line below
            cells[date_col] = cells[date_col] + tail
        if date and not dated:  # the day's date printed once, as a heading over its rows
            heading = _heading_above(pages, flat, pos, date[1])
            if heading:
                cells[date[0]] = heading
                xs[date[0]].append(((min(w[1] for w in heading) + max(w[2] for w in heading))
                                    / 2, min(w[1] for w in heading)))
        lines = pages[p].lines
        wrapped = {j for j in range(k + 1, min(k + 4, len(lines)))
                   if any(x is w for w in tail for x in lines[j])}
        found.append(Row(r, p, k, cells, dated, {k} | wrapped))
    return found


def _heading_above(pages: list, flat: list, pos: int, date: str) -> list:
    """The nearest line above ``pos`` that prints ``date`` and nothing else."""
    for p, k in reversed(flat[max(0, pos - 200):pos]):
        if pages[p].phrases(k).get(date) == (0, len(pages[p].lines[k])):
            return pages[p].lines[k]
    return []


def attach_text(pages: list, expected, kinds: list, rows: list) -> None:
    """Find each row's text cells, word by word in reading order, on and around its line."""
    anchors = collections.defaultdict(list)
    for row in rows:
        if row:
            anchors[row.page].append(row.line)
    for row in rows:
        if row is None:
            continue
        page = pages[row.page]
        lo, hi = _region(page, row, sorted(anchors[row.page]))
        taken = {id(w) for ws in row.cells.values() for w in ws}
        for c, kind in enumerate(kinds):
            cell = value(expected.iloc[row.index, c])
            if kind != "text" or cell is None:
                continue
            words = _read_cell(page, row.line, lo, hi, str(cell).split(), taken)
            if words:
                row.cells[c] = [w for _, w in words]
                row.lines.update(k for k, _ in words)
                taken.update(id(w) for _, w in words)


def _region(page: Page, row: Row, anchors: list) -> tuple:
    """Lines ``lo..hi-1`` that may hold the row's wrapped cells: between its neighbours, near it."""
    top = page.lines[row.line][0][3]
    reach = 10 * max(w[4] - w[3] for w in page.lines[row.line])  # seven wrapped lines, and more
    lo = max([a for a in anchors if a < row.line], default=-1) + 1
    hi = min([a for a in anchors if a > row.line], default=len(page.lines))
    while lo < row.line and top - page.lines[lo][0][3] > reach:
        lo += 1
    while hi > row.line + 1 and page.lines[hi - 1][0][3] - top > reach:
        hi -= 1
    return lo, hi


def _read_cell(page: Page, anchor: int, lo: int, hi: int, tokens: list, taken: set) -> list:
    """``(line, word)`` spelling the cell's tokens in reading order.

    Reading starts on the anchor line or on a line above it (a cell centred on its row);
    the start that spells the most tokens wins, the anchor line on a tie. Less than half
    the cell spelled is no cell: a value the page leaves blank (a date printed once a day)
    would take a neighbour's words for its own, and stretch its column over theirs.
    """
    best, best_count = [], 0
    for start in range(anchor, lo - 1, -1):
        stream = [(k, w) for k in range(start, hi) for w in page.lines[k] if id(w) not in taken]
        found, count = _spell(stream, tokens)
        if count > best_count:
            best, best_count = found, count
    return best if 2 * best_count >= len(tokens) else []


def _spell(stream: list, tokens: list) -> tuple:
    """Greedy in-order match of tokens to words (or to fragments glued into a token)."""
    out, count, at = [], 0, 0
    for token in tokens:
        for j in range(at, len(stream)):
            parts = _fragments(stream, j, token)
            if parts:
                out += parts
                count, at = count + 1, j + len(parts)
                break
    return out, count


def _fragments(stream: list, j: int, token: str) -> list:
    """Words from ``j`` on one line whose texts, glued, spell ``token`` (an OCR or glyph split)."""
    parts, text = [], ""
    for k, w in stream[j:]:
        if parts and (k != parts[-1][0] or w[1] - parts[-1][1][2] > 3.0):
            return []
        parts.append((k, w))
        text += w[0]
        if text == token:
            return parts
        if not token.startswith(text):
            return []
    return []
