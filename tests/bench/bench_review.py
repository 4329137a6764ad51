"""`--review` on a ten-page statement: the file's size against its pictures' own bytes, and the
time to write it against the parse it reviews (``python -m tests.bench review``).

Targets (issue 26): at most 3 MB, and at most 1 s per page to write. The review is measured
at the default resolution and at 72 dpi (what a long document's reader would pick).
"""
from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LONG = os.path.join(REPO, "fixtures", "review", "long", "a.pdf")
ANSWER = os.path.join(REPO, "fixtures", "review", "long", "a.csv")
ROUNDS = 3


def _parse(tmp: str) -> tuple:
    """(seconds, --json report) of ``dua parse`` with the answer key, in this process."""
    from dua.commands.parse import summary
    from dua.statements.agent.agent import run_agent

    started = time.perf_counter()
    state = run_agent(LONG, "long", expected=ANSWER, parsers_dir=tmp,
                      out=os.path.join(tmp, "long.csv"))
    seconds = time.perf_counter() - started
    return seconds, summary(state, seconds)


def _review(report: dict, path: str, dpi: float) -> float:
    from dua.review import parse_review

    started = time.perf_counter()
    parse_review(path, report, LONG, None, dpi)
    return time.perf_counter() - started


def run() -> list:
    from dua import pdf

    tmp = tempfile.mkdtemp(prefix="dua-bench-review-")
    try:
        parses = [_parse(tmp) for _ in range(ROUNDS)]
        report = parses[-1][1]
        if report["status"] != "passed":
            raise AssertionError(f"the ten-page statement does not parse: {report['checks']}")
        pages = len(pdf.render_pages(LONG, dpi=36))
        parse_s = statistics.median(s for s, _ in parses) / pages
        out = []
        for dpi in (pdf.DEFAULT_DPI, 72):
            path = os.path.join(tmp, f"review-{dpi}.html")
            write_s = statistics.median(_review(report, path, dpi) for _ in range(ROUNDS)) / pages
            pictures = sum(len(p.png) for p in pdf.render_pages(LONG, dpi=dpi))
            size = os.path.getsize(path)
            out.append(Figure(f"review of {pages} pages at {dpi} dpi: write time per page",
                              write_s, parse_s, "s", "dua parse per page", target="<= 1 s per page"))
            out.append(Figure(f"review of {pages} pages at {dpi} dpi: file size", size / 1e6,
                              pictures / 1e6, "MB", "its page pictures (PNG bytes)",
                              target="<= 3 MB"))
        return out
    finally:
        shutil.rmtree(tmp, True)
