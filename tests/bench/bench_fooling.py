"""Try to fool the verifier: ``dua check`` on right rows and on wrong versions of them.

``python -m tests.bench fooling [FOLDER…]``: every statement with an answer key under the
given folders (default: the project's statement fixtures and ``../shared/corpus``). For
each, the right rows must come out ``passed`` (or the exit its case.json names under
``check_exit_ok``) and every wrong version (``tests.fooling``) ``failed`` or
``unverified``. Prints the counts by kind; a wrong version that passes is listed by name.
``DUA_FOOLING_WORKERS`` sets the processes (default: the CPUs).
"""
from __future__ import annotations

import os
import sys
import time

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def statements(roots: list | None = None) -> list:
    """(name, pdf, key, ok_exits) of every keyed statement under ``roots``."""
    from tests.keyed import keyed_statements

    return keyed_statements(roots)


def score(case: tuple) -> dict:
    """The verdicts of one statement's right rows and of each wrong version."""
    from dua.statements.learning import analysis
    from dua.statements.verification import verify
    from dua.statements.agent import rowcheck
    from tests import fooling
    from tests.keyed import read_statement

    name, pdf, key_path, ok = case
    pages, apart = read_statement(pdf)
    key = verify.load_expected(key_path)
    started = time.perf_counter()
    layout = analysis.layout_of(pages)  # the same for every set of rows checked here
    right = rowcheck.check(pages, apart, key, layout)
    out = {"name": name, "right": right.status, "right_ok": _exit(right.status) in ok,
           "why": right.summary[:300], "wrong": {}}
    for kind, rows in fooling.wrong_versions(key).items():
        out["wrong"][kind] = rowcheck.check(pages, apart, rows, layout).status
    out["seconds"] = time.perf_counter() - started
    return out


def _progress(result: dict, done: int, total: int) -> dict:
    fooled = [k for k, s in result["wrong"].items() if s == "passed"]
    print(f"   [{done}/{total}] {result['name']}: right {result['right']}, "
          f"{len(result['wrong'])} wrong versions, {len(fooled)} passed "
          f"({result['seconds']:.1f} s)", file=sys.stderr, flush=True)
    return result


def _exit(status: str) -> int:
    return 0 if status == "passed" else 1


def run(paths: list | None = None) -> list:
    cases = statements(paths or None)
    if not cases:
        print("   no keyed statements found", file=sys.stderr)
        return []
    workers = int(os.environ.get("DUA_FOOLING_WORKERS") or os.cpu_count() or 1)
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("fork").Pool(workers) as pool:
            results = []
            for r in pool.imap_unordered(score, cases):
                results.append(_progress(r, len(results) + 1, len(cases)))
    else:
        results = [_progress(score(c), n + 1, len(cases)) for n, c in enumerate(cases)]
    return report(results)


def report(results: list) -> list:
    by_kind: dict = {}
    fooled = []
    for r in results:
        if not r["right_ok"]:
            print(f"   right rows {r['right']}: {r['name']} ({r['why']})")
        for kind, status in r["wrong"].items():
            caught = by_kind.setdefault(kind, [0, 0])
            caught[1] += 1
            if status != "passed":
                caught[0] += 1
            else:
                fooled.append(f"{r['name']}: {kind}")
    for kind, (caught, n) in sorted(by_kind.items()):
        print(f"   {kind:28s} caught {caught}/{n}")
    for line in fooled:
        print(f"   FOOLED {line}")
    wrong = sum(n for _, n in by_kind.values())
    return [
        Figure("right rows with the verdict their case names", sum(r["right_ok"] for r in results),
               len(results), unit="statements", floor_name="of", higher_is_better=True),
        Figure("wrong versions caught (failed or unverified)", wrong - len(fooled), wrong or 1,
               unit="versions", floor_name="of", higher_is_better=True),
        Figure("wrong versions passed", len(fooled), wrong or 1, unit="versions",
               floor_name="of", target="0"),
        Figure("seconds a statement (right rows and every wrong version)",
               sum(r["seconds"] for r in results) / len(results), 1.0, unit="s",
               floor_name="one second"),
    ]
