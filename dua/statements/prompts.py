"""The LLM writer's prompts: built from the analysis, the output contract and the failure.

Plain string building only; no network, no pandas. Long inputs are cut with a marker
so that a prompt stays well inside a small model's context window.
"""
from __future__ import annotations

import json

from ..errors import excerpt

SYSTEM_CODE = (
    "You write Python parsers for bank statement PDFs. You answer with one complete Python "
    "module in a single ```python code block and nothing else."
)
SYSTEM_SETTINGS = (
    "You configure a bank statement parser. You answer with one JSON object that matches the "
    "schema you are given, and nothing else."
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


def layout_facts(found) -> str:
    """What the analysis saw: header, column x-ranges, date format, sample rows and raw text."""
    s = found.settings
    cols = s.get("columns", [])
    spans = ", ".join(f"{c['name']!r} from x={c['x0']} ({c['kind']})" for c in cols)
    rows = json.dumps(found.sample_rows[:5], ensure_ascii=False, indent=1)
    raw = "\n".join(found.raw_sample_text[:40])
    return (f"Pages: {found.page_count}. Header line(s): {s.get('header')}.\n"
            f"Columns by the x position of their left edge (pdfplumber words): {spans}.\n"
            f"Transactions start with a date matching the regex {s.get('date_pattern')!r}.\n"
            f"Sample rows:\n{rows}\nRaw text of the first lines:\n{excerpt(raw, 3000)}")


def first_code_prompt(found, expected) -> list:
    cols = columns_for(found, expected)
    user = (f"Write a parser for this bank's statements.\n\n{RULES}\n\nOutput columns:\n"
            f"{contract(cols)}\n\nWhat the statement looks like:\n{layout_facts(found)}")
    return [{"role": "system", "content": SYSTEM_CODE}, {"role": "user", "content": user}]


def failure_text(state) -> str:
    """The last failure in words: traceback, policy violations or comparison diagnostics."""
    result = state.comparison_result or {}
    if not state.execution_success and state.errors:
        return f"Running your parser failed:\n{excerpt(state.errors[-1], 2500)}"
    summary = result.get("summary", "")
    return f"Your parser ran, but its result is wrong:\n{excerpt(summary, 2500)}"


def refine_code_prompt(history: list, state) -> list:
    """The conversation so far (trimmed) plus the failure and a request for the whole module."""
    keep = history[:2] + history[2:][-2:]
    ask = (f"{failure_text(state)}\n\nFix the parser. Keep to the rules. Answer with the whole "
           "corrected module in one ```python block.")
    return keep + [{"role": "user", "content": ask}]


def settings_prompt(found, expected, current: dict, state=None) -> list:
    """Ask for the engine's settings; the analysis' guess is the starting point."""
    cols = columns_for(found, expected)
    guess = {k: current[k] for k in ("columns", "date_column", "date_pattern", "require_header",
                                     "skip_patterns", "parens_negative", "trailing_minus_negative")
             if k in current}
    guess["dr_negative"] = current.get("drcr_signs", {}).get("dr", -1) < 0
    user = (f"A statement parser splits each line into columns at the given x positions. Correct "
            f"these settings so that it returns exactly these columns:\n{contract(cols)}\n\n"
            f"What the statement looks like:\n{layout_facts(found)}\n\n"
            f"Current settings:\n{json.dumps(guess, indent=1)}")
    if state is not None:
        user += f"\n\n{failure_text(state)}"
    return [{"role": "system", "content": SYSTEM_SETTINGS}, {"role": "user", "content": user}]
