"""What the fast word reader bought: dua before it against dua now, in the same run.

"Before" is the project as it stood just before the reader landed (git revision
BEFORE, unpacked with ``git archive``; the figures are skipped, with the reason, where the
checkout has no history). Both run as a user runs them, each in a fresh interpreter:

- ``dua parse --expected`` end to end on a 7-page statement a browser printed
  (issue 14: at least 3x faster than before);
- the parser each version generates for a 50-page statement, parsing it with pandas
  already imported, as the sandbox runs it (at least 5x).

The floor beside each is pdfplumber's ``extract_words`` over the same pages, measured in
the same run, as the issue measured it.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BEFORE = "208015f"  # the last commit before dua.words
STATEMENT = os.path.join(REPO, "fixtures", "statements", "longform_us_html")
_PARSE_ONCE = """
import importlib.util, sys, time
import pandas  # as in the sandbox, which imports it once for every parser it runs
spec = importlib.util.spec_from_file_location("p", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
started = time.perf_counter()
frame = module.parse(sys.argv[2])
print(time.perf_counter() - started, len(frame))
"""


def _unpack_before(into: str) -> str:
    """The ``dua`` package at BEFORE under ``into``; '' when git or the history is missing."""
    try:
        os.makedirs(into, exist_ok=True)
        archive = subprocess.run(["git", "-C", REPO, "archive", BEFORE, "dua"],
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", into], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError):
        return ""
    return into


def _dua(root: str, args: list, cwd: str) -> float:
    """Seconds for ``python -m dua ARGS`` with ``root``'s dua first on the path."""
    env = dict(os.environ, PYTHONPATH=root)
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "dua", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"dua {' '.join(args[:1])} ({root}) exited {done.returncode}: "
                           f"{done.stderr[-600:]}")
    return seconds


def _parse_seconds(parser: str, pdf: str) -> float:
    done = subprocess.run([sys.executable, "-c", _PARSE_ONCE, parser, pdf],
                          capture_output=True, text=True, check=True)
    return float(done.stdout.split()[0])


def _words_floor(pdf: str) -> float:
    import pdfplumber

    started = time.perf_counter()
    with pdfplumber.open(pdf) as doc:
        for page in doc.pages:
            page.extract_words()
    return time.perf_counter() - started


def run() -> list:
    from .bench_statements import _long_statement

    tmp = tempfile.mkdtemp(prefix="dua-bench-gain-")
    try:
        before = _unpack_before(os.path.join(tmp, "before"))
        if not before:
            print(f"   skipped: revision {BEFORE} is not in this checkout's history")
            return []
        figures = []
        pdf, csv = os.path.join(STATEMENT, "b.pdf"), os.path.join(STATEMENT, "b.csv")
        parse = ["parse", pdf, "--bank", "gain", "--expected", csv, "--quiet"]
        times = {}
        # alternate, so a busier moment weighs on both; the best of three, since a shared
        # machine's other work only ever adds to a run
        for _ in range(3):
            for label, root in (("before", before), ("now", REPO)):
                folder = os.path.join(tmp, f"{label}-parse")
                shutil.rmtree(folder, ignore_errors=True)
                took = _dua(root, parse + ["--parsers-dir", folder], tmp)
                times[label] = min(times.get(label, took), took)
        floor = min(_words_floor(pdf) for _ in range(2))
        figures.append(Figure("dua parse --expected, 7-page browser statement, before",
                              times["before"], floor, floor_name="pdfplumber extract_words"))
        figures.append(Figure("dua parse --expected, 7-page browser statement, now",
                              times["now"], floor, floor_name="pdfplumber extract_words"))
        figures.append(Figure("dua parse end to end: now against before", times["now"],
                              times["before"], floor_name="before", target="<= 0.33x"))

        long_pdf, n = _long_statement(tmp)
        parsers = {}
        for label, root in (("before", before), ("now", REPO)):
            folder = os.path.join(tmp, f"{label}-long")
            _dua(root, ["parse", long_pdf, "--bank", "long", "--expected",
                        os.path.join(tmp, "long.csv"), "--parsers-dir", folder, "--quiet"], tmp)
            parsers[label] = os.path.join(folder, "long_parser.py")
        took = {label: min(_parse_seconds(path, long_pdf) for _ in range(2))
                for label, path in parsers.items()}
        floor = min(_words_floor(long_pdf) for _ in range(2))
        figures.append(Figure(f"generated parser on {n} pages, before", took["before"], floor,
                              floor_name="pdfplumber extract_words"))
        figures.append(Figure(f"generated parser on {n} pages, now", took["now"], floor,
                              floor_name="pdfplumber extract_words"))
        figures.append(Figure("generated parser: now against before", took["now"],
                              took["before"], floor_name="before", target="<= 0.2x"))
        return figures
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
