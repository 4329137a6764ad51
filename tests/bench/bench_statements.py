"""Statement agent speed, each beside the floor of pdfplumber reading the same pages' characters.

- icici end to end (analyze → … → finalize, --expected, built-in writer) against reading
  its 2 pages' characters;
- the generated parser's pages per second on a 50-page statement rendered here from the
  plain_western layout, in-process and through the sandbox, against reading those pages.
"""
from __future__ import annotations

import dataclasses
import importlib.util
import os
import shutil
import tempfile
import time

from .figures import Figure, best_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("DUA_SHARED_DATA") or os.path.join(os.path.dirname(REPO), "shared", "data")


def _read_chars(path: str) -> int:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return sum(len(page.chars) for page in pdf.pages)


def _long_statement(folder: str, pages: int = 50) -> tuple:
    from fixtures.make_statements import expected_csv, render
    from fixtures.statement_data import make_statement
    from fixtures.statement_layouts import by_name

    rows = 40 * pages
    while True:
        layout = dataclasses.replace(by_name("plain_western"), rows=(rows, rows))
        st = make_statement(layout, "a")
        pdf = render(layout, st)
        if len(pdf.pages) >= pages:
            break
        rows += 5 * (pages - len(pdf.pages)) + 5
    path = os.path.join(folder, "long.pdf")
    with open(path, "wb") as fh:
        fh.write(pdf.to_bytes())
    with open(os.path.join(folder, "long.csv"), "wb") as fh:
        fh.write(expected_csv(layout, st))
    return path, len(pdf.pages)


def _load(path: str):
    spec = importlib.util.spec_from_file_location("bench_parser", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run() -> list:
    from dua.sandbox import run_parser
    from dua.statements.agent.agent import run_agent

    figures = []
    tmp = tempfile.mkdtemp(prefix="dua-bench-statements-")
    try:
        icici = os.path.join(SHARED, "icici", "icici_sample.pdf")
        if os.path.exists(icici):
            floor = best_of(lambda: _read_chars(icici), repeat=3)
            expected = os.path.join(SHARED, "icici", "result.csv")
            e2e = best_of(lambda: run_agent(icici, "icici", expected=expected,
                                            parsers_dir=os.path.join(tmp, "p")), repeat=3)
            figures.append(Figure("icici dua parse end to end (in-process)", e2e, floor,
                                  floor_name="pdfplumber reading its chars"))
        long_pdf, n = _long_statement(tmp)
        state = run_agent(long_pdf, "longbank", expected=os.path.join(tmp, "long.csv"),
                          parsers_dir=os.path.join(tmp, "p"))
        if state.final_status != "passed":
            raise RuntimeError(f"the 50-page statement did not pass: {state.comparison_result}")
        parser = _load(state.parser_file_path)
        floor = best_of(lambda: _read_chars(long_pdf), repeat=2)
        inproc = best_of(lambda: parser.parse(long_pdf), repeat=2)
        sandboxed = best_of(lambda: run_parser(state.parser_file_path, long_pdf), repeat=2)
        figures += [
            Figure(f"generated parser on {n} pages (in-process)", n / inproc, n / floor,
                   unit="pages/s", floor_name="pdfplumber reading chars", higher_is_better=True),
            Figure(f"generated parser on {n} pages (sandbox)", n / sandboxed, n / floor,
                   unit="pages/s", floor_name="pdfplumber reading chars", higher_is_better=True),
        ]
        t = time.perf_counter()
        run_agent(long_pdf, "longbank", parsers_dir=os.path.join(tmp, "p"))
        figures.append(Figure(f"dua parse unsupervised, {n} pages", time.perf_counter() - t,
                              floor, floor_name="pdfplumber reading chars"))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return figures
