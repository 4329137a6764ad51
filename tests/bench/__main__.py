"""Benchmark runner: ``python -m tests.bench [NAME…] [PATH…]`` runs tests/bench/bench_*.py.

Each bench module defines ``run() -> list[Figure]``; one that takes inputs (files or
folders named on the command line) defines ``run(paths)``. A figure is printed beside a
floor measured in the same run on the same machine, so the ratio means something
on any machine; absolute numbers alone would not.
"""
from __future__ import annotations

import importlib
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def discover(names):
    found = sorted(f[:-3] for f in os.listdir(HERE) if f.startswith("bench_") and f.endswith(".py"))
    return [n for n in found if not names or any(x in n for x in names)]


def main(argv=None) -> int:
    args = sys.argv[1:] if argv is None else argv
    # arguments that name files or folders are the bench's inputs, the rest its name
    paths = [a for a in args if os.path.exists(a)]
    names = discover([a for a in args if a not in paths])
    if not names:
        print("no benchmarks matched", file=sys.stderr)
        return 2
    for name in names:
        module = importlib.import_module(f"tests.bench.{name}")
        started = time.perf_counter()
        print(f"== {name}")
        for fig in module.run(paths) if paths else module.run():
            print("   " + fig.line())
        print(f"   ({time.perf_counter() - started:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
