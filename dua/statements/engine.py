"""The statement parsing engine: pure functions over words, driven by one SETTINGS dict.

Its source is copied verbatim into every generated parser, so it imports only the
standard library and pandas, never dua. Words are ``(text, x0, x1, top, bottom)``
tuples, one list per page, exactly as pdfplumber's ``extract_words`` measures them.
"""
from __future__ import annotations

import re

# A printed amount: sign markers, currency (a symbol, Rs., S$, or a code the settings
# name) before or after, and the number; which of '.' and ',' is the decimal mark is a
# setting (``decimal``), learned from the document.
_CURRENCY = r"(?:[A-Z]{0,3}\$|[€£¥₹]|Rs\.?|%s)"
_AMOUNT = (r"^(?P<open>\()?(?P<lead>[-+])?(?:%(cur)s)?(?P<lead2>[-+])?(?P<num>\d[\d.,'’]*|[.,]\d+)"
           r"(?:%(cur)s)?(?P<close>\))?(?P<trail>[-+])?(?P<drcr>(?i:dr|cr)\.?)?$")
_NUMBER = {".": re.compile(r"\d{1,3}(?:[,'’]\d{2,3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"),
           ",": re.compile(r"\d{1,3}(?:[.'’]\d{3})+(?:,\d+)?|\d+(?:,\d+)?|,\d+")}
CURRENCY_CODES = ("INR", "USD", "EUR", "GBP", "SGD")
# A space (or thin / no-break space) between digits groups thousands only before 3 digits.
_GROUP_SPACE = re.compile(r"(?<=\d)[ \u2009\u202f\xa0](?=\d{3}(?!\d))")
_SPACES = re.compile(r"[\s\u2009\u202f\xa0]+")
_AMOUNT_CACHE: dict = {}
SPACE_RE = re.compile(r"\s+")


def normalize(text: str) -> str:
    """Lower-case letters and digits only: how header lines are recognised on every page."""
    return re.sub(r"[^a-z0-9]+", " ", text.lower()).strip()


def group_lines(words: list, tolerance: float) -> list:
    """Words of one page grouped into lines by ``top``; each line is a list sorted by x0."""
    lines, current, anchor = [], [], None
    for word in sorted(words, key=lambda w: (w[3], w[1])):
        if current and word[3] - anchor > tolerance:
            lines.append(sorted(current, key=lambda w: w[1]))
            current = []
        if not current:
            anchor = word[3]
        current.append(word)
    if current:
        lines.append(sorted(current, key=lambda w: w[1]))
    return lines


def join_words(words: list, glue_gap: float) -> str:
    """Join words left to right; fragments closer than ``glue_gap`` are one word (OCR splits)."""
    if len(words) < 2:  # most cells: nothing to order or glue
        return SPACE_RE.sub(" ", words[0][0]).strip() if words else ""
    out, last_x1 = "", None
    for word in sorted(words, key=lambda w: w[1]):
        if last_x1 is not None:
            out += "" if word[1] - last_x1 < glue_gap else " "
        out += word[0]
        last_x1 = word[2]
    return SPACE_RE.sub(" ", out).strip()


def column_of(word: tuple, columns: list) -> int:
    """Index of the column whose x-range holds the word's centre (first/last are open-ended)."""
    centre = (word[1] + word[2]) / 2.0
    for i, col in enumerate(columns[:-1]):
        if centre < columns[i + 1]["x0"]:
            return i
    return len(columns) - 1


def split_cells(line: list, columns: list, glue_gap: float) -> list:
    """The line's text per column ('' where the column is empty)."""
    buckets = [[] for _ in columns]
    for word in line:
        buckets[column_of(word, columns)].append(word)
    return [join_words(b, glue_gap) for b in buckets]


def _amount_re(codes: tuple):
    if codes not in _AMOUNT_CACHE:
        cur = _CURRENCY % "|".join(re.escape(c) for c in codes)
        _AMOUNT_CACHE[codes] = re.compile(_AMOUNT % {"cur": cur})
    return _AMOUNT_CACHE[codes]


def _number(num: str, decimal: str) -> float | None:
    if not _NUMBER[decimal].fullmatch(num):
        return None
    group = "," if decimal == "." else "."
    digits = re.sub(r"['’]", "", num).replace(group, "")
    return float(digits.replace(",", ".")) if decimal == "," else float(digits)


def _match_amount(text: str, settings: dict):
    if len(text) >= 40:
        return None
    t = _GROUP_SPACE.sub("", text.strip().replace("\u2212", "-"))
    if re.search(r"\d\s+\d", t):
        return None  # two numbers, not one amount
    codes = tuple(settings.get("currency_codes", CURRENCY_CODES))
    m = _amount_re(codes).match(_SPACES.sub("", t))
    if not m or (bool(m.group("open")) != bool(m.group("close"))):
        return None
    return m


def parse_amount(text: str, settings: dict) -> float | None:
    """A printed amount as a signed float, or None when the text is not an amount.

    Handles 1,234.56, 1.234,56 (``decimal`` ","), 12 345.67, Indian grouping 1,00,102.03,
    (12.00), 12.00-, -12.00, +12.00, 12.00 Dr / Cr, glued 12.00Cr, currency symbols and
    codes before or after; the sign rules come from ``settings``.
    """
    m = _match_amount(text, settings)
    value = _number(m.group("num"), settings.get("decimal", ".")) if m else None
    if value is None:
        return None
    negative = bool(m.group("lead") == "-" or m.group("lead2") == "-")
    if m.group("open") and settings.get("parens_negative", True):
        negative = not negative
    if m.group("trail") == "-" and settings.get("trailing_minus_negative", True):
        negative = not negative
    drcr = (m.group("drcr") or "").lower().rstrip(".")
    if drcr and settings.get("drcr_signs", {}).get(drcr, 1) < 0:
        negative = not negative
    return -value if negative else value


def looks_like_amount(text: str, settings: dict | None = None) -> bool:
    """A token that a statement prints as money: decimals or digit grouping, not a bare integer."""
    m = _match_amount(text, settings or {})
    if not m or not re.search(r"[.,]", m.group("num")):
        return False
    marks = (settings or {}).get("decimal")
    return any(_number(m.group("num"), d) is not None for d in ((marks,) if marks else ".,"))


def amount_marker(text: str, settings: dict) -> str:
    """The sign marker an amount carries: '-', '+', '()', 'dr', 'cr' or '' (none)."""
    m = _match_amount(text, settings)
    if not m:
        return ""
    if m.group("open"):
        return "()"
    if m.group("drcr"):
        return m.group("drcr").lower().rstrip(".")
    return m.group("lead") or m.group("lead2") or m.group("trail") or ""


def _is_header(line_text: str, settings: dict) -> bool:
    norm = normalize(line_text)
    return bool(norm) and norm in settings["header"]


def is_skipped(line_text: str, patterns: list) -> bool:
    return any(re.search(p, line_text, re.IGNORECASE) for p in patterns)


def _has_amount(cells: list, settings: dict, kinds: list) -> bool:
    return any(cells[i] and parse_amount(cells[i], settings) is not None
               for i, k in enumerate(kinds) if k == "amount")


def is_anchor(cells: list, settings: dict, kinds: list) -> bool:
    """A line that starts a transaction: its date cell matches (or, with ``anchor`` set to
    ``amount``, is empty under a layout that prints each day's date once) and it has money."""
    date = cells[settings["date_column"]]
    if not date:
        return settings.get("anchor") == "amount" and _has_amount(cells, settings, kinds)
    if not re.fullmatch(settings["date_pattern"], date, re.IGNORECASE):
        return False
    return not settings.get("anchor_needs_amount", True) or _has_amount(cells, settings, kinds)


def _classify(words: list, settings: dict, in_table: bool, carry: dict | None = None) -> list:
    """Table lines of one page as ``[kind, top, cells, text, words]``; kind is anchor, text or break.

    ``in_table`` says whether the page starts inside the table (no header needed yet).
    With ``date_groups`` a line printing only a date is the heading of that day's rows:
    ``carry`` holds it across lines and pages, and an undated row takes it.
    """
    columns, kinds = settings["columns"], [c["kind"] for c in settings["columns"]]
    glue, items = settings["glue_gap"], []
    carry = {} if carry is None else carry
    groups, col = settings.get("date_groups"), settings["date_column"]
    for line in group_lines(words, settings["line_tolerance"]):
        text = join_words(line, glue)
        if _is_header(text, settings):
            in_table = True
            items.append(["break", line[0][3], None, text, line])
            continue
        if not in_table or is_skipped(text, settings["skip_patterns"]):
            items.append(["break", line[0][3], None, text, line])
            continue
        if groups and re.fullmatch(settings["date_pattern"], text, re.IGNORECASE):
            carry["date"] = text
            items.append(["break", line[0][3], None, text, line])
            continue
        cells = split_cells(line, columns, glue)
        dated = cells
        if groups and not cells[col] and carry.get("date"):
            dated = cells[:col] + [carry["date"]] + cells[col + 1:]
        if is_anchor(dated, settings, kinds):
            kind, cells = "anchor", dated
        elif any(cells[i] for i, k in enumerate(kinds) if k != "text"):
            kind = "break"
        else:
            kind = "text"
        items.append([kind, line[0][3], cells, text, line])
    return items


def _owner(items: list, i: int, step: int, gap: float) -> tuple:
    """The anchor reached from text line ``i`` going ``step`` (±1) through close text lines."""
    j = i
    while 0 <= j + step < len(items) and abs(items[j + step][1] - items[j][1]) <= gap:
        j += step
        if items[j][0] == "anchor":
            return j, abs(items[j][1] - items[i][1])
        if items[j][0] != "text":
            break
    return None, float("inf")


def page_rows(words: list, settings: dict, in_table: bool | None = None,
              carry: dict | None = None) -> list:
    """Transactions found on one page: a list of ``(cells, lines)``, lines being the source
    lines' words.

    A row is an anchor line (its date cell matches the date pattern) plus the close
    text-only lines that wrap its description: below it, or, with ``continuation`` set to
    ``nearest`` (cells centred vertically), whichever anchor is nearer. Header lines, lines
    above the first header (when the layout repeats it per page) and summary lines are
    never part of a row.
    """
    if in_table is None:
        in_table = not settings.get("require_header", False)
    items, gap = _classify(words, settings, in_table, carry), settings["continuation_gap"]
    nearest = settings.get("continuation") == "nearest"
    parts: dict = {i: [i] for i, item in enumerate(items) if item[0] == "anchor"}
    for i, item in enumerate(items):
        if item[0] != "text":
            continue
        up, d_up = _owner(items, i, -1, gap)
        down, d_down = _owner(items, i, 1, gap) if nearest else (None, float("inf"))
        owner = up if d_up <= d_down else down
        if owner is not None:
            parts[owner].append(i)
    rows = []
    for anchor in sorted(parts):
        order = sorted(parts[anchor], key=lambda k: items[k][1])
        cells = [" ".join(items[k][2][c] for k in order if items[k][2][c])
                 for c in range(len(items[anchor][2]))]
        rows.append((cells, [items[k][4] for k in order]))
    return rows


def extract_rows(pages: list, settings: dict) -> list:
    """Every transaction of the document, in printed order (see ``page_rows``)."""
    rows, started, carry = [], not settings.get("require_header", False), {}
    for words in pages:
        rows.extend(page_rows(words, settings, started, carry))
        # "once": pages after the first header continue the table without repeating it.
        if settings.get("header_once") and not started:
            started = any(_is_header(join_words(ln, settings["glue_gap"]), settings)
                          for ln in group_lines(words, settings["line_tolerance"]))
    _carry_dates(rows, settings)
    return rows


def _carry_dates(rows: list, settings: dict) -> None:
    """A row printed without its date takes the date above it (one date per day layouts)."""
    if settings.get("anchor") != "amount" or settings.get("date_fill", "carry") != "carry":
        return
    col, last = settings["date_column"], ""
    for cells, _ in rows:
        last = cells[col] = cells[col] or last


def _convert(values: list, col: dict, settings: dict) -> list:
    kind = col["kind"]
    if kind == "amount":
        if "drcr_signs" in col:  # this column's own Dr/Cr convention (a card's lone 'Cr')
            settings = dict(settings, drcr_signs=col["drcr_signs"])
        sign = col.get("sign", 1)  # -1: the column prints money out unsigned, as a Debit column
        amounts = [parse_amount(v, settings) if v else None for v in values]
        return [a * sign if a is not None and sign != 1 else a for a in amounts]
    texts = [v if v else None for v in values]
    present = [v for v in texts if v is not None]
    # read_csv semantics: a column of bare integers is numeric, not text.
    if present and all(re.fullmatch(r"-?\d{1,15}", v) for v in present):
        return [int(v) if v is not None else None for v in texts]
    return texts


def build_frame(pages: list, settings: dict):
    """The statement's transactions as a DataFrame (columns and kinds from ``settings``)."""
    import pandas as pd  # lazy: the engine is also imported by dua, which must stay light

    rows = extract_rows(pages, settings)
    data = {}
    for i, col in enumerate(settings["columns"]):
        if not col.get("output", True):
            continue
        values = _convert([cells[i] for cells, _ in rows], col, settings)
        if col.get("dtype") == "float" or all(v is None for v in values):
            values = [float(v) if v is not None else None for v in values]
            data[col["name"]] = pd.Series(values, dtype="float64")
        elif col.get("dtype") == "str":
            data[col["name"]] = pd.Series([None if v is None else str(v) for v in values])
        else:
            data[col["name"]] = _series(values, pd)
    frame = pd.DataFrame(data)
    order = settings.get("output_order")  # the answer key's column order, when it is not the page's
    if order and sorted(order) == sorted(frame.columns):
        frame = frame[order]
    frame.index = pd.RangeIndex(len(rows))
    return frame


def _series(values: list, pd):
    if any(isinstance(v, float) for v in values):
        return pd.Series(values, dtype="float64")
    if all(isinstance(v, int) for v in values) and values:
        return pd.Series(values, dtype="int64")
    if any(isinstance(v, int) for v in values):
        return pd.Series([float(v) if v is not None else None for v in values], dtype="float64")
    return pd.Series(values, dtype=None if values else "object")
