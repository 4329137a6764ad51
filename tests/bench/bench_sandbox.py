"""Time per sandboxed parser run after the first, against the same parser run in-process.

Target (issue 6): at most 1.5x the in-process time plus 50 ms. The fork server is what makes
this possible: pandas and pdfplumber are imported once, each run is a fork of a warm process.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time

from dua.sandbox import Sandbox

from .figures import Figure, best_of, median_of

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARSER = os.path.join(REPO, "fixtures", "parsers", "icici_parser.py")
SHARED = os.environ.get("DUA_SHARED_DATA") or os.path.join(os.path.dirname(REPO), "shared", "data")
# What a sandbox without a fork server pays per run: a new interpreter importing everything.
FRESH = ("ns = {{'__name__': 'p'}}; exec(compile(open({parser!r}).read(), {parser!r}, 'exec'), ns); "
         "ns['parse']({pdf!r})")
TRIVIAL = "import pandas as pd\n\n\ndef parse(pdf_path):\n    return pd.DataFrame({'a': [1]})\n"


def _in_process(path: str):
    # compile + exec rather than an import: no __pycache__ left in fixtures/
    with open(path, encoding="utf-8") as fh:
        namespace = {"__name__": "bench_parser", "__file__": path}
        exec(compile(fh.read(), path, "exec"), namespace)
    return namespace["parse"]


def run() -> list:
    pdf = os.path.join(SHARED, "icici", "icici_sample.pdf")
    if not os.path.exists(pdf):
        print(f"   skipped: public sample {pdf} not found (set DUA_SHARED_DATA)")
        return []
    parse = _in_process(PARSER)
    parse(pdf)  # warm pdfplumber's lazy imports, as the server's warm-up does
    in_process = median_of(lambda: parse(pdf), repeat=9)
    with tempfile.TemporaryDirectory() as tmp, Sandbox() as sandbox:
        trivial = os.path.join(tmp, "trivial.py")
        with open(trivial, "w") as fh:
            fh.write(TRIVIAL)
        started = time.perf_counter()
        sandbox.run(PARSER, pdf)
        first = time.perf_counter() - started
        sandboxed = median_of(lambda: sandbox.run(PARSER, pdf), repeat=9)
        trivial_run = median_of(lambda: sandbox.run(trivial, pdf), repeat=9)
    fresh = median_of(lambda: subprocess.run(
        [sys.executable, "-I", "-c", FRESH.format(parser=PARSER, pdf=pdf)], check=True), repeat=3)
    bare_python = best_of(lambda: subprocess.run([sys.executable, "-I", "-c", "pass"],
                                                 check=True), repeat=5)
    budget = 1.5 * in_process + 0.050
    verdict = "met" if sandboxed <= budget else "MISSED"
    return [
        Figure("icici parser, sandboxed run after the first", sandboxed, in_process,
               floor_name="same parser in-process",
               target=f"<= 1.5x + 50 ms = {budget * 1000:.0f} ms: {verdict}"),
        Figure("first sandboxed run (starts the fork server)", first, in_process,
               floor_name="same parser in-process"),
        Figure("icici parser, fresh interpreter per run (no fork server)", fresh, in_process,
               floor_name="same parser in-process"),
        Figure("trivial parser, sandboxed run (fork + limits + JSON)", trivial_run, bare_python,
               floor_name="bare `python -I -c pass`"),
    ]
