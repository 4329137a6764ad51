"""The verifier tried by wrong rows: no wrong version of a keyed statement's rows passes.

The whole set is ``python -m tests.bench fooling``; CI checks a fixed sample: the real
banks' statements and one statement of each other corpus layout, and every fourth of the
project's fixture layouts. Each wrong version (``tests.fooling``) must come out failed or
unverified, and the right rows passed, or the exit their case names.
"""
from __future__ import annotations

import os
import unittest

from tests import keyed
from tests.bench import bench_fooling


def sample() -> list:
    cases = keyed.keyed_statements(keyed.FIXTURE_ROOTS[:2] + keyed.SHARED_ROOTS)
    fixtures = sorted({c[0].split("/")[0] for c in cases if c[1].startswith(keyed.REPO)})
    chosen = set(fixtures[::4])
    out = []
    for case in cases:
        layout, tag = case[0].split("/")
        if case[1].startswith(keyed.REPO):
            if layout in chosen and tag == "a":
                out.append(case)
        elif layout.startswith("r") or tag == "a":
            out.append(case)
    return out


class FoolingTest(unittest.TestCase):
    def test_no_wrong_version_of_the_rows_passes_and_the_right_rows_do(self):
        cases = sample()
        shared = [c for c in cases if not c[1].startswith(keyed.REPO)]
        if not shared:
            print(f"\n  (../shared/corpus not found under {keyed.SHARED}: fixtures only)")
        results = _scores(cases)
        fooled = [f"{r['name']}: {k}" for r in results for k, s in r["wrong"].items()
                  if s == "passed"]
        self.assertEqual(fooled, [])
        wrong_right = [(r["name"], r["right"], r["why"]) for r in results if not r["right_ok"]]
        self.assertEqual(wrong_right, [])
        kinds = {k for r in results for k in r["wrong"]}
        self.assertGreaterEqual(len(kinds), 12, kinds)  # the sample offers most kinds a place


def _scores(cases: list) -> list:
    workers = min(2, os.cpu_count() or 1)
    if workers < 2:
        return [bench_fooling.score(c) for c in cases]
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(workers) as pool:
        return pool.map(bench_fooling.score, cases, chunksize=1)


if __name__ == "__main__":
    unittest.main()
