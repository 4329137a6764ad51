"""Layout analysis of a statement on words read once: header row, column x-ranges, row anchors.

It turns the cached words into the engine's first SETTINGS guess plus what an LLM
prompt needs (headers, sample rows, raw sample text). It never opens the PDF itself.
"""
from __future__ import annotations

import dataclasses
import re

from . import engine

MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# Most specific first: ties in the vote go to the earlier pattern.
DATE_PATTERNS = (
    r"\d{4}-\d{1,2}-\d{1,2}",
    r"\d{1,2}[/-]\d{1,2}[/-]\d{2,4}",
    r"\d{1,2}\.\d{1,2}\.\d{2,4}",
    r"\d{1,2}[ -]?" + MONTHS + r"[ ,-]*\d{2,4}",
    MONTHS + r" ?\d{1,2},? \d{4}",
    r"\d{1,2}[ -]" + MONTHS,
    MONTHS + r" \d{1,2}",
    r"\d{1,2}/\d{1,2}",
)
# A time printed after the date ("01/08/2024 10:32", "2024-08-01T10:32:05") stays in the cell.
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?: ?[AaPp][Mm])?)?"
DATE_PATTERNS = tuple(p + _TIME for p in DATE_PATTERNS)
DATE_SEARCH = re.compile(r"(?<![\w/.-])(?:%s)(?![\w/-])" % "|".join(DATE_PATTERNS), re.IGNORECASE)
HEADER_WORDS = {
    "date", "description", "particulars", "narration", "details", "amount", "debit", "credit",
    "balance", "withdrawal", "withdrawals", "deposit", "deposits", "txn", "transaction", "value",
    "ref", "reference", "cheque", "chq", "remarks", "type", "dr", "cr", "posting", "post",
    "memo", "payee", "paid", "money", "in", "out", "no", "transactions", "tran", "trans",
}
# Lines that print money but are not transactions (summary, balances carried, page furniture).
SKIP_PATTERNS = [
    r"^\s*(sub\s*-?\s*)?totals?\b",
    r"\btotal (amount|debits?|credits?|due|withdrawals?|deposits?)\b",
    r"\b(opening|closing|previous|last month'?s?|brought|carried)\s+(forward\s+)?balance\b",
    r"\bbalance\s+(brought|carried|b/?f|c/?f|forward)\b",
    r"\b(brought|carried)\s+forward\b",
    r"\bb/f\b|\bc/f\b",
    r"\bpage\s+\d+\s*(of|/)\s*\d+\b",
]
LINE_TOLERANCE = 3.0
GLUE_GAP = 0.8


@dataclasses.dataclass
class Analysis:
    """What the analysis learned: the first settings guess and the prompt material."""

    settings: dict
    column_headers: list
    sample_rows: list
    raw_sample_text: list
    candidate_lines: int
    page_count: int


def pages_from_document(doc) -> list:
    """dua.pdf Words as the engine's ``(text, x0, x1, top, bottom)`` tuples, one list per page."""
    return [[(w.text, w.x0, w.x1, w.top, w.bottom) for w in page.words] for page in doc.pages]


def _has_amount(line: list, skip_until: float) -> bool:
    return any(w[1] >= skip_until and engine.looks_like_amount(w[0]) for w in line)


def candidate_lines(pages: list) -> list:
    """Lines that look like transactions: a date, then an amount after it. ``(page, line)``."""
    out = []
    for index, words in enumerate(pages):
        for line in engine.group_lines(words, LINE_TOLERANCE):
            text = " ".join(w[0] for w in line)
            m = DATE_SEARCH.search(text)
            if not m or any(re.search(p, text, re.IGNORECASE) for p in SKIP_PATTERNS):
                continue
            date_word = line[len(text[:m.end()].split()) - 1]
            if _has_amount(line, date_word[2] + 0.1):
                out.append((index, line, _pattern_of(m.group(0)), date_word[1]))
    return _dominant(out)


def _pattern_of(date: str) -> str:
    return next(p for p in DATE_PATTERNS if re.fullmatch(p, date, re.IGNORECASE))


def _dominant(found: list) -> list:
    """Keep the lines whose date has the commonest format at the commonest x (drops summary strips)."""
    if not found:
        return []
    patterns = [f[2] for f in found]
    pattern = max(DATE_PATTERNS, key=patterns.count)
    xs = sorted(f[3] for f in found if f[2] == pattern)
    x = xs[len(xs) // 2]
    return [(i, ln) for i, ln, p, x0 in found if p == pattern and abs(x0 - x) < 40]


def find_segments(lines: list) -> list:
    """x-ranges that the candidate lines' words cover, split at whitespace rivers."""
    step, cover = 0.5, {}
    for line in lines:
        seen = set()
        for w in line:
            seen.update(range(int(w[1] / step), int(w[2] / step) + 1))
        for x in seen:
            cover[x] = cover.get(x, 0) + 1
    noise = len(lines) // 30
    xs = sorted(x for x, n in cover.items() if n > noise)
    segments = []
    for x in xs:
        if segments and x - segments[-1][1] <= 1:
            segments[-1][1] = x
        else:
            segments.append([x, x])
    return [(a * step, (b + 1) * step) for a, b in segments]


def _header_score(line: list) -> int:
    words = engine.normalize(" ".join(w[0] for w in line)).split()
    return sum(1 for w in words if w in HEADER_WORDS)


def find_header(pages: list, first: tuple) -> list:
    """The header line(s) above the first candidate: the closest with two column keywords."""
    index, anchor = first
    lines = engine.group_lines(pages[index], LINE_TOLERANCE)
    above = [ln for ln in lines if ln[0][3] < anchor[0][3] - 0.5]
    best = None
    for ln in reversed(above):
        text = " ".join(w[0] for w in ln)
        if DATE_SEARCH.search(text) or any(engine.looks_like_amount(w[0]) for w in ln):
            continue
        if _header_score(ln) >= 2:
            best = ln
            break
    if best is None:
        return []
    header = [best]
    height = max(w[4] - w[3] for w in best)
    for ln in lines:  # a second header line hugging the first (e.g. "Debit" over "(INR)")
        gap = min(abs(ln[0][3] - best[0][4]), abs(best[0][3] - ln[0][4]))
        text = " ".join(w[0] for w in ln)
        plain = not DATE_SEARCH.search(text) and not any(engine.looks_like_amount(w[0]) for w in ln)
        under = all(any(min(w[2], h[2]) - max(w[1], h[1]) > -5 for h in best) for w in ln)
        if ln is not best and gap < 0.6 * height and plain and (_header_score(ln) or under):
            header.append(ln)
    return sorted(header, key=lambda ln: ln[0][3])


def _phrases(header: list) -> list:
    """Header words grouped into labels: words one space apart belong to one column's name."""
    phrases = []
    for line in header:
        height = max(w[4] - w[3] for w in line)
        # One space: about 0.3 em in proportional fonts, a whole character cell in Courier.
        char = sum(w[2] - w[1] for w in line) / max(1, sum(len(w[0]) for w in line))
        gap = max(0.6 * height, 1.2 * char)
        for w in line:
            if phrases and phrases[-1][-1] in line and w[1] - phrases[-1][-1][2] < gap:
                phrases[-1].append(w)
            else:
                phrases.append([w])
    return phrases


def _covered(segments: list, phrase: list) -> list:
    a, b = phrase[0][1], phrase[-1][2]
    hit = [i for i, (s0, s1) in enumerate(segments) if min(b, s1) - max(a, s0) > 0]
    if hit:
        return hit
    centre = (a + b) / 2
    return [min(range(len(segments)),
                key=lambda i: min(abs(centre - segments[i][0]), abs(centre - segments[i][1])))]


def _group(segments: list, header: list) -> list:
    """``[x0, x1, phrases]`` groups: segments under one header phrase become one column."""
    groups = [[a, b, []] for a, b in segments]
    owner = list(range(len(segments)))
    for phrase in _phrases(header):
        hit = _covered(segments, phrase)
        first = owner[hit[0]]
        for i in range(hit[0], hit[-1] + 1):
            owner[i] = first
        groups[first][2].append(phrase)
    merged = []
    for i, g in enumerate(groups):
        if merged and owner[i] == owner[i - 1]:
            merged[-1][1] = g[1]
            merged[-1][2].extend(g[2])
        else:
            merged.append(g)
    return merged


def _merge_unlabeled(groups: list) -> list:
    """A segment with no header joins its nearer neighbour (a 'Rs.' prefix, a city sub-column)."""
    while len(groups) > 1 and any(not g[2] for g in groups):
        i = next(i for i, g in enumerate(groups) if not g[2])
        left = groups[i][0] - groups[i - 1][1] if i > 0 else float("inf")
        right = groups[i + 1][0] - groups[i][1] if i + 1 < len(groups) else float("inf")
        j = i - 1 if left <= right else i + 1
        lo, hi = min(i, j), max(i, j)
        groups[lo:hi + 1] = [[groups[lo][0], groups[hi][1], groups[lo][2] + groups[hi][2]]]
    return groups


def build_columns(segments: list, header: list) -> list:
    """Columns named by the header phrases above them, with x0 halfway across each river."""
    groups = _merge_unlabeled(_group(segments, header))
    columns = []
    for i, (a, _, phrases) in enumerate(groups):
        x0 = (groups[i - 1][1] + a) / 2 if i else 0.0
        ordered = sorted(phrases, key=lambda p: (round(p[0][3]), p[0][1]))
        name = " ".join(engine.join_words(p, GLUE_GAP) for p in ordered) or f"Column {i + 1}"
        columns.append({"name": name, "x0": round(x0, 2), "kind": "text"})
    return columns


def _vote_date(cells_by_col: list) -> tuple:
    best = (0, 0, DATE_PATTERNS[0])
    for col, cells in enumerate(cells_by_col):
        for pattern in DATE_PATTERNS:
            n = sum(1 for c in cells if c and re.fullmatch(pattern, c, re.IGNORECASE))
            if n > best[0]:
                best = (n, col, pattern)
    return best[1], best[2]


def _kinds(columns: list, cells_by_col: list, date_col: int) -> None:
    for i, (col, cells) in enumerate(zip(columns, cells_by_col)):
        present = [c for c in cells if c and c.strip("-–— ")]  # a dash prints "nothing"
        amounts = sum(1 for c in present if engine.looks_like_amount(c))
        if i == date_col:
            col["kind"] = "date"
        elif present and amounts >= 0.6 * len(present):
            col["kind"] = "amount"


def analyze_pages(pages: list) -> Analysis:
    """Guess the engine settings for these pages (words as engine tuples)."""
    candidates = candidate_lines(pages)
    if not candidates:
        return Analysis({}, [], [], _raw_sample(pages), 0, len(pages))
    header = find_header(pages, candidates[0])
    columns = build_columns(find_segments([ln for _, ln in candidates]), header)
    cells = [engine.split_cells(ln, columns, GLUE_GAP) for _, ln in candidates]
    by_col = [[row[i] for row in cells] for i in range(len(columns))]
    date_col, pattern = _vote_date(by_col)
    _kinds(columns, by_col, date_col)
    text_cols = [i for i, c in enumerate(columns) if c["kind"] == "text"]
    bare = sum(1 for row in cells if text_cols and not any(row[i] for i in text_cols))
    settings = {
        "columns": columns,
        "date_column": date_col,
        "date_pattern": pattern,
        "header": sorted({engine.normalize(engine.join_words(ln, GLUE_GAP)) for ln in header}),
        "require_header": bool(header),
        # A header printed on the first page only: later pages continue the table.
        "header_once": bool(header) and not _header_on_every_page(pages, candidates, header),
        "line_tolerance": LINE_TOLERANCE,
        "glue_gap": GLUE_GAP,
        "continuation_gap": round(_pitch(candidates) * 1.6, 2),
        # Anchors with no description of their own: wrapped cells centred on the date line.
        "continuation": "nearest" if bare >= max(2, 0.2 * len(cells)) else "below",
        "skip_patterns": list(SKIP_PATTERNS),
        "parens_negative": True,
        "trailing_minus_negative": True,
        "drcr_signs": {"dr": -1, "cr": 1},
        "anchor_needs_amount": True,
    }
    if _dateless_rows(pages, settings) >= max(2, 0.1 * len(cells)):
        settings["anchor"] = "amount"  # the date is printed once per day
    samples = [dict(zip([c["name"] for c in columns], row)) for row in cells[:5]]
    return Analysis(settings, [c["name"] for c in columns], samples, _raw_sample(pages),
                    len(candidates), len(pages))


def _dateless_rows(pages: list, settings: dict) -> int:
    """Table lines with money in an amount column but an empty date cell."""
    kinds = [c["kind"] for c in settings["columns"]]
    count, started = 0, not settings["require_header"]
    for words in pages:
        for kind, _, cells, _ in engine._classify(words, settings, started):
            if kind == "break" and cells and not cells[settings["date_column"]] and \
                    engine._has_amount(cells, settings, kinds):
                count += 1
        started = started or settings.get("header_once", False)
    return count


def _header_on_every_page(pages: list, candidates: list, header: list) -> bool:
    wanted = engine.normalize(engine.join_words(header[0], GLUE_GAP))
    for index in sorted({i for i, _ in candidates}):
        texts = {engine.normalize(engine.join_words(ln, GLUE_GAP))
                 for ln in engine.group_lines(pages[index], LINE_TOLERANCE)}
        if wanted not in texts:
            return False
    return True


def _pitch(candidates: list) -> float:
    heights = sorted(max(w[4] - w[3] for w in ln) for _, ln in candidates)
    return heights[len(heights) // 2] if heights else 10.0


def _raw_sample(pages: list, limit: int = 40) -> list:
    out = []
    for words in pages[:3]:
        for line in engine.group_lines(words, LINE_TOLERANCE):
            out.append(engine.join_words(line, GLUE_GAP))
            if len(out) >= limit:
                return out
    return out
