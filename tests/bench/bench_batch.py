"""Batch throughput: files per second through dua.batch with 1 and 2 workers, and the scaling.

The floor of the rates, measured in the same run, is reading every character of the same
PDFs with pdfplumber in this process: the least any parser must do, with no sandbox and no
CSV. The floor of the scaling is the machine's own: a pure CPU loop in 2 processes against
1, measured just before, so that a machine shared with other work is judged fairly.
"""
from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PARSER = os.path.join(REPO, "fixtures", "parsers_batch", "plain_western_parser.py")
FILES = 40


def make_statements(folder: str, count: int = FILES) -> list:
    """``count`` distinct plain_western statements (different seeds and row counts)."""
    from fixtures.make_statements import render
    from fixtures.statement_data import make_statement
    from fixtures.statement_layouts import by_name

    base = by_name("plain_western")
    paths = []
    for i in range(count):
        layout = dataclasses.replace(base, seed=1000 + i, rows=(12 + i % 9, 12))
        path = os.path.join(folder, f"statement_{i:03d}.pdf")
        render(layout, make_statement(layout, "a")).save(path)
        paths.append(path)
    return paths


def _read_chars(paths: list) -> float:
    import pdfplumber  # lazy: only the floor needs it here

    start = time.perf_counter()
    for path in paths:
        with pdfplumber.open(path) as pdf:
            for page in pdf.pages:
                len(page.chars)
    return time.perf_counter() - start


def _burn(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def _machine_seconds(workers: int, chunks: int = 8, n: int = 1_500_000) -> float:
    import concurrent.futures as cf

    with cf.ProcessPoolExecutor(workers) as pool:
        list(pool.map(_burn, [1000] * workers))  # start the processes outside the timing
        start = time.perf_counter()
        list(pool.map(_burn, [n] * chunks))
        return time.perf_counter() - start


def _batch(paths: list, workers: int, out_dir: str) -> float:
    from dua import batch

    start = time.perf_counter()
    result = batch.run(PARSER, paths, out_dir=out_dir, workers=workers, resume=False)
    seconds = time.perf_counter() - start
    if not result.ok:
        raise RuntimeError(f"bench batch failed: {[r.to_dict() for r in result.failed][:2]}")
    return seconds


def run() -> list:
    tmp = tempfile.mkdtemp(prefix="dua-bench-batch-")
    try:
        paths = make_statements(tmp)
        floor = _read_chars(paths)
        one = _batch(paths, 1, os.path.join(tmp, "out1"))
        two = _batch(paths, 2, os.path.join(tmp, "out2"))
        machine = _machine_seconds(2) / _machine_seconds(1)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    rate = lambda seconds: len(paths) / seconds  # noqa: E731
    floor_name = "pdfplumber reading the chars in-process"
    return [
        Figure(f"dua.batch files/s, 1 worker ({len(paths)} statements)", rate(one), rate(floor),
               unit="files/s", floor_name=floor_name, higher_is_better=True),
        Figure(f"dua.batch files/s, 2 workers ({len(paths)} statements)", rate(two), rate(floor),
               unit="files/s", floor_name=floor_name, higher_is_better=True),
        Figure("dua.batch seconds, 2 workers / 1 worker", two / one, machine, unit="",
               floor_name="a CPU loop's 2 processes / 1 on this machine now",
               target="1.0x: dua scales as well as the machine allows (0.5 / 0.5 on 2 free cores)"),
    ]
