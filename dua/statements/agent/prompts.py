"""The LLM writer's prompts: the page's geometry, the output contract and the failure's cause.

Plain string building only; no network, no pandas. What the layout analysis inferred is
always labelled as a guess, never stated as a fact; layout questions come with the words'
x positions and a fixed-pitch rendering of the lines under an x ruler. Long inputs are cut
so that a prompt stays well inside a small model's context window.
"""
from __future__ import annotations

import json
import re

from ...errors import excerpt
from ..notation.dates import DATE_SEARCH
from ..table import wordlines

SYSTEM_CODE = (
    "You write Python parsers for bank statement PDFs. You answer with one complete Python "
    "module in a single ```python code block and nothing else."
)
SYSTEM_PATCH = (
    "You correct the settings of a bank statement parser. You answer with one JSON object "
    "that holds only the settings to change, and nothing else."
)
RULES = """\
Rules for the module:
- define parse(pdf_path, password=None) returning a pandas.DataFrame with exactly the columns
  below, in that order;
- import only pdfplumber, pandas, re and other pure standard-library modules; never import dua;
- read only the PDF at pdf_path (pdfplumber.open(pdf_path), adding password=password only when
  one is given); never open,
  read or write any other file (not even an expected CSV), no network, no subprocesses;
- do not hard-code anything from this sample (no row counts, dates, amounts or descriptions):
  the same parser must work on every future statement of this bank;
- one row per transaction, in printed order; skip header lines repeated on each page, page
  footers ('Page n of m'), opening/closing balance, brought/carried forward and total lines;
- join a description that wraps onto following lines with one space."""
# The keys a patch may hold, each with what it means to the engine (see engine.py).
PATCH_KEYS = """\
Keys you may set (leave out every key you do not change):
- "date_pattern": regex that a row's whole date cell matches, e.g. "\\\\d{2}\\\\.\\\\d{2}\\\\.\\\\d{4}"
  for 31.01.2025 or "\\\\d{2} [A-Za-z]{3} \\\\d{4}" for 31 Jan 2025;
- "decimal": "." or "," — the decimal mark of the amounts (1.234,56 and -311,19 need ",");
- "columns": [{"name": str, "x0": number, "kind": "date"|"text"|"amount"}, ...] left to right;
  x0 is where the column starts, in the x units of the ruler (a word belongs to the
  column whose range holds its centre);
- "date_column": index of the date column in "columns";
- "require_header": true when rows only start below the column header line;
- "header_once": true when the header is printed on the first page only;
- "skip_patterns_add": [regex, ...] lines to ignore (totals, balances carried forward);
- "parens_negative": (12.00) is negative; "trailing_minus_negative": 12.00- is negative;
- "dr_negative": an amount marked Dr is negative; "cr_negative": one marked Cr is negative;
- "negative_columns": [column name, ...] amount columns that print money out unsigned;
- "anchor": "amount" when the date is printed only on a day's first row, else "date";
- "continuation": "above" when a row's wrapped text sits over its date line only, "nearest"
  when above and below, else "below"."""
_RULER_STEP = 10  # characters between the ruler's x labels
_WIDTH = 110  # characters a rendered line may use


def contract(columns: list) -> str:
    """The output columns and their dtypes, one per line."""
    lines = []
    for col in columns:
        what = {"float": "float64: amounts as floats, sign as printed ((12.00) and 12.00- are "
                         "negative), empty cells NaN",
                "str": "string exactly as printed (dates too), empty cells NaN"}.get(
                    col["dtype"], "as read by pandas.read_csv")
        lines.append(f"- {col['name']!r}: {what}")
    return "\n".join(lines)


def columns_for(found, expected) -> list:
    """[{name, dtype}] the parser must return: the expected CSV's, else the statement's own."""
    if expected is not None:
        return [{"name": str(c), "dtype": "float" if str(expected[c].dtype) == "float64" else "str"
                 if str(expected[c].dtype) in ("str", "object", "string") else "auto"}
                for c in expected.columns]
    return [{"name": c["name"], "dtype": "float" if c["kind"] == "amount" else "str"}
            for c in found.settings.get("columns", [])]


# --- geometry -------------------------------------------------------------------------


def _lines(pages: list, settings: dict) -> list:
    tolerance = settings.get("line_tolerance", 3.0)
    return [wordlines.group_lines(words, tolerance) for words in pages]


def page_width(pages: list) -> float:
    """The right edge of the widest line (the page's printed width)."""
    return max((w[2] for words in pages for w in words), default=600.0)


def render(pages: list, settings: dict, limit: int = 28) -> str:
    """The first table lines drawn in fixed pitch under an x ruler (x in PDF points).

    Starts a few lines above the first line that prints a date, so the header shows.
    """
    scale = max(1.0, page_width(pages) / _WIDTH)
    lines = [ln for page in _lines(pages, settings)[:2] for ln in page]
    first = next((i for i, ln in enumerate(lines)
                  if DATE_SEARCH.search(" ".join(w[0] for w in ln))), 0)
    out = [_ruler(scale)]
    for line in lines[max(0, first - 4):max(0, first - 4) + limit]:
        row = ""
        for word in line:
            col = int(word[1] / scale)
            row += " " * max(1 if row else 0, col - len(row)) + word[0]
        out.append(row)
    return "\n".join(out)


def _ruler(scale: float) -> str:
    row = ""
    for col in range(0, _WIDTH + 1, _RULER_STEP):
        label = f"|{col * scale:.0f}"
        row += " " * max(0, col - len(row)) + label
    return row


def header_words(pages: list, settings: dict) -> str:
    """The header line's words with their x ranges, else the first dated line's."""
    wanted = set(settings.get("header") or ())
    fallback = None
    for page in _lines(pages, settings):
        for line in page:
            text = wordlines.join_words(line, settings.get("glue_gap", 1.0))
            if wanted and wordlines.normalize(text) in wanted:
                return "header line: " + _words(line)
            if fallback is None and DATE_SEARCH.search(text):
                fallback = "first line that prints a date: " + _words(line)
    return fallback or "no header line found"


def _words(line: list) -> str:
    return ", ".join(f"{w[0]!r} x={w[1]:.0f}-{w[2]:.0f}" for w in line)


def guesses(settings: dict) -> str:
    """The analysis' settings, labelled as unverified guesses."""
    cols = ", ".join(f"{c['name']!r} from x={c['x0']:.0f} ({c['kind']})"
                     for c in settings.get("columns", []))
    signs = settings.get("drcr_signs", {})
    return ("The layout analysis GUESSED these settings (unverified; they may be wrong):\n"
            f"- columns: {cols}\n- date_column: {settings.get('date_column')}, date_pattern: "
            f"{settings.get('date_pattern')!r}\n- decimal: {settings.get('decimal', '.')!r}\n"
            f"- require_header: {settings.get('require_header')}, header_once: "
            f"{settings.get('header_once', False)}, anchor: {settings.get('anchor', 'date')!r}, "
            f"continuation: {settings.get('continuation', 'below')!r}\n"
            f"- parens_negative: {settings.get('parens_negative', True)}, "
            f"trailing_minus_negative: {settings.get('trailing_minus_negative', True)}, "
            f"dr_negative: {signs.get('dr', 1) < 0}, cr_negative: {signs.get('cr', 1) < 0}")


# --- failures, by cause -----------------------------------------------------------------


def diagnose(pages: list, settings: dict, result: dict | None) -> str:
    """Why ``settings`` fail, cause first, with the offending lines of the page."""
    result = result or {}
    diag = result.get("diagnostics") or {}
    rows = (diag.get("row_count") or {}).get("got")
    if rows == 0 and settings.get("columns"):
        return _no_rows(pages, settings)
    out = []
    scaled = _scaled_amounts(diag)
    if scaled:
        out.append(f"Amounts come out {scaled:g} times too large: the decimal mark is probably "
                   "',' (set \"decimal\": \",\").")
    summary = result.get("summary") or ""
    if summary:
        out.append(f"The result is wrong:\n{excerpt(summary, 1500)}")
    return "\n".join(out) or "The result could not be verified."


def date_cells(pages: list, settings: dict, limit: int = 5) -> list:
    """What the date column holds on lines whose date cell itself prints a date shape."""
    col, cells = settings.get("date_column", 0), []
    for page in _lines(pages, settings):
        for line in page:
            try:
                cell = wordlines.split_cells(line, settings["columns"],
                                          settings.get("glue_gap", 1.0))[col]
            except (IndexError, KeyError):
                continue
            if DATE_SEARCH.search(cell) and cell not in cells:
                cells.append(cell)
            if len(cells) >= limit:
                return cells
    return cells


def date_pattern_prompt(cells: list) -> list:
    """The narrower question asked when a patch only repeated the guesses on a 0-row result:
    one regex for the date cells the page prints (the wrong one is not shown: a small model
    builds on what it is shown)."""
    shown = "\n".join(f"  {c!r}" for c in cells)
    user = (f"These are the date cells of a bank statement's transaction rows:\n{shown}\n"
            "Write one Python regex that matches each of them entirely (and no other text). "
            'Answer with JSON only: {"date_pattern": "<regex>"}.')
    return [{"role": "system", "content": SYSTEM_PATCH}, {"role": "user", "content": user}]


def _no_rows(pages: list, settings: dict) -> str:
    col, pattern = settings.get("date_column", 0), settings.get("date_pattern", "")
    shown = []
    for page in _lines(pages, settings):
        for line in page:
            text = wordlines.join_words(line, settings.get("glue_gap", 1.0))
            if not DATE_SEARCH.search(text) or len(shown) >= 5:
                continue
            try:
                cell = wordlines.split_cells(line, settings["columns"], settings.get("glue_gap", 1.0))[col]
            except (IndexError, KeyError):
                cell = ""
            shown.append(f"  {excerpt(text, 100)!r} -> date cell {cell!r}")
    where = ("Lines that print a date, and what the date column holds on them:\n"
             + "\n".join(shown)) if shown else "No line prints a date shape dua knows."
    return (f"0 rows: no line's date cell matched the date pattern {pattern!r} (or the rows "
            f"were skipped before the header).\n{where}")


def _scaled_amounts(diag: dict) -> float:
    """100 or 1000 when every differing amount is the expected one times that, else 0."""
    ratios = set()
    for d in diag.get("first_differences", []):
        try:
            want, got = float(d["expected"]), float(d["got"])
        except (TypeError, ValueError):
            return 0
        if want == 0 or got == want:
            continue
        ratios.add(round(got / want, 3))
    return ratios.pop() if len(ratios) == 1 and ratios <= {100.0, 1000.0} else 0


def failure_text(state, pages: list | None = None, settings: dict | None = None) -> str:
    """The last real run's failure in words: its cause, traceback, policy findings or diff."""
    result = state.comparison_result or {}
    if not state.execution_success and state.errors:
        return f"Running your parser failed:\n{excerpt(state.errors[-1], 2500)}"
    if pages and settings and settings.get("columns"):
        return diagnose(pages, settings, result)
    return f"Your parser ran, but its result is wrong:\n{excerpt(result.get('summary', ''), 2500)}"


# --- code mode ---------------------------------------------------------------------------


def first_code_prompt(found, expected, pages: list) -> list:
    cols = columns_for(found, expected)
    s = found.settings
    user = (f"Write a parser for this bank's statements.\n\n{RULES}\n\nOutput columns:\n"
            f"{contract(cols)}\n\nThe page as printed (fixed pitch; the ruler gives x in PDF "
            f"points, as pdfplumber's word x0 measures it):\n{render(pages, s)}\n\n"
            f"Words with their x ranges, {header_words(pages, s)}\n\n{guesses(s)}\n\n"
            f"Rows as the guessed columns split them (unverified):\n"
            f"{json.dumps(found.sample_rows[:3], ensure_ascii=False)}")
    return [{"role": "system", "content": SYSTEM_CODE}, {"role": "user", "content": user}]


def refine_code_prompt(history: list, failure: str) -> list:
    """System, first request, the last answer, then the feedback on that answer."""
    answer = next((m for m in reversed(history) if m["role"] == "assistant"), None)
    ask = (f"{failure}\n\nFix the parser. Keep to the rules. Answer with the whole corrected "
           "module in one ```python block.")
    return history[:2] + ([answer] if answer else []) + [{"role": "user", "content": ask}]


# --- settings mode ---------------------------------------------------------------------


def patch_prompt(found, expected, pages: list, start: dict, cause: str, tried: list) -> list:
    """Ask for a patch of ``start``: the page's geometry, the guesses, and why they fail."""
    cols = columns_for(found, expected)
    earlier = ""
    if tried:
        earlier = ("\n\nPatches already tried (each failed; do not send them again):\n"
                   + "\n".join(f"- {json.dumps(p, ensure_ascii=False)}" for p in tried[-3:]))
    user = (f"A statement parser splits each line into columns at x positions and reads a row "
            f"from each line whose date cell matches a regex. It must return exactly these "
            f"columns:\n{contract(cols)}\n\nThe page as printed (fixed pitch; the ruler gives x "
            f"in PDF points; the page is {page_width(pages):.0f} points wide):\n"
            f"{render(pages, start)}\n\nWords with their x ranges, "
            f"{header_words(pages, start)}\n\n{guesses(start)}\n\nWhat these settings produce:\n"
            f"{cause}{earlier}\n\n{PATCH_KEYS}\n\nAnswer with the JSON patch only, for example "
            '{"decimal": ",", "date_pattern": "\\\\d{2}\\\\.\\\\d{2}\\\\.\\\\d{4}"}.')
    return [{"role": "system", "content": SYSTEM_PATCH}, {"role": "user", "content": user}]


def compact(patch: dict) -> dict:
    """A patch without empty values, for the prompt's list of patches tried."""
    return {k: v for k, v in patch.items() if v not in (None, [], {}, "")}


def valid_regex(pattern: object) -> str | None:
    """None when ``pattern`` compiles, else the reason."""
    try:
        re.compile(str(pattern))
    except re.error as exc:
        return str(exc)
    return None


def failure_detail(exc) -> str:
    """The error with its parser traceback frames and policy findings, for the refine prompt."""
    lines = [f"{type(exc).__name__}: {exc.message}"]
    for frame in getattr(exc, "frames", None) or []:
        if isinstance(frame, dict):
            lines.append(f"  line {frame.get('line')} in {frame.get('function')}(): "
                         f"{frame.get('code', '')}")
    for violation in getattr(exc, "violations", None) or []:
        if str(violation) not in exc.message:
            lines.append(f"  {violation}")
    return "\n".join(lines)
