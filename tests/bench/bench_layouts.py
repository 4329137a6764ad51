"""The statement writer on layouts drawn fresh from a space of layouts (issue 33, item 4).

``python -m tests.bench layouts``: draws ``DUA_LAYOUTS_N`` layouts (default 30) with
``fixtures.space`` from a new seed each run (``DUA_LAYOUTS_SEED`` fixes it; the seed is
printed so a failure can be drawn again), prints each through the producers installed here
(the missing ones are named), and scores them the way ``bench_corpus_keys`` does: in-process,
built-in writer, no LLM. Supervised on a.pdf with its key, its settings reused on b.pdf, and
each statement without a key. Per failing layout one line with its drawn axes; then, per axis
value, the layouts and how each mode fared on them.
"""
from __future__ import annotations

import collections
import concurrent.futures
import glob
import json
import os
import secrets
import shutil
import sys
import tempfile

from .figures import Figure

# the axes a breakdown groups by: (name, path into layout.json)
AXES = (("producer", ("producer",)), ("amounts", ("columns", "amounts")),
        ("order", ("columns", "order")), ("value_date", ("columns", "value_date")),
        ("ref", ("columns", "ref")), ("empty_column", ("columns", "empty")),
        ("balance", ("effective", "balance")), ("month", ("date", "month")),
        ("cjk", ("date", "cjk")), ("date_order", ("date", "order")),
        ("date_sep", ("date", "sep")), ("year", ("date", "year")),
        ("ordinal", ("date", "ordinal")),
        ("month_names", ("effective", "month_names")), ("grouping", ("grouping",)),
        ("sign", ("effective", "sign")), ("lone_mark", ("effective", "lone_mark")),
        ("date_once_per_day", ("date_once_per_day",)),
        ("balance_last_of_day", ("effective", "balance_last_of_day")),
        ("description", ("description",)), ("narrow_cells", ("effective", "narrow_cells")),
        ("heading_repeat", ("heading_repeat",)),
        ("summary_before", ("effective", "summary_before")),
        ("summary_after", ("effective", "summary_after")),
        ("totals_row", ("effective", "totals_row")),
        ("opening_closing_rows", ("effective", "opening_closing_rows")),
        ("break_inside_row", ("effective", "break_inside_row")),
        ("labels", ("effective", "labels")), ("accounts", ("accounts",)),
        ("forward_lines", ("effective", "forward_lines")), ("rules", ("page", "rules")))


def _same_values(frame, key) -> bool:
    return frame is not None and frame.shape == key.shape and \
        frame.set_axis(key.columns, axis=1).equals(key)


def convention_only(frame, key) -> str:
    """How ``frame`` differs from ``key`` when its values are right but it keeps the label
    printed before a value (``Ref: ``, which the key leaves out), leaves out a column the
    page heads but never fills (the key keeps it, NaN), adds one it never fills, or leaves a
    date printed once a day blank where the page prints none (the key carries it down); ''
    when the values differ."""
    from fixtures.space.statement import LABEL

    if frame is None or len(frame) != len(key):
        return ""
    found = []
    blank = [c for c in key.columns if key[c].isna().all() and c not in frame.columns]
    if blank:
        key, found = key.drop(columns=blank), ["a column empty on every row left out"]
    added = [c for c in frame.columns if frame[c].isna().all() and c not in key.columns]
    if added:  # a title under the heading read as a column's name, over nothing
        frame, found = frame.drop(columns=added), found + ["a column empty on every row added"]
    if frame.shape != key.shape:
        return ""
    carried = [c for c in frame.columns if frame[c].isna().any() and str(frame[c].dtype) not in
               ("float64", "int64") and c in key.columns and key[c].notna().all()]
    if carried and not _same_values(frame, key):  # blank where the page prints no date
        frame = frame.assign(**{c: frame[c].ffill() for c in carried})
        if _same_values(frame, key):
            found.append("a date printed once a day left blank on the day's other rows")
    if not _same_values(frame, key):
        bare = frame.apply(lambda col: col.map(
            lambda v: v[len(LABEL):] if isinstance(v, str) and v.startswith(LABEL) else v))
        if not _same_values(bare, key):
            return ""
        found.append("the label before a value kept")
    return "; ".join(found)


def _unsupervised(pdf: str, key: str) -> tuple:
    """(status, values right, what went wrong) of one statement read without its key; a
    difference only by a printed label is said in what went wrong."""
    import pandas as pd

    from dua.statements.table import dataframe
    from dua.statements.learning import analysis
    from dua.statements.agent import writer

    from .bench_corpus_keys import _read

    try:
        pages, apart, _ = _read(pdf)
        draft = writer.BuiltinWriter(pages, analysis.analyze_pages(pages), apart=apart).write()
        frame, expected = dataframe.build_frame(pages, draft.settings), pd.read_csv(key)
        right = _same_values(frame, expected)
        only = "" if right else convention_only(frame, expected)
        why = f"CONVENTION ONLY ({only}): " if only else ""
        return draft.in_process["status"], right, why + draft.in_process.get("summary", "")
    except LookupError as exc:
        return "no table", False, str(exc)
    except Exception as exc:  # a crash is a miss to report, not the end of the bench
        return "crashed", False, f"{type(exc).__name__}: {exc}"


def score_layout(folder: str) -> dict:
    """Supervised on a, its settings on b, and a and b without a key, with the reasons."""
    import pandas as pd

    from dua.statements.table import dataframe
    from dua.statements.learning import analysis
    from dua.statements.verification import verify
    from dua.statements.agent import writer

    from .bench_corpus_keys import _read

    out = {"supervised": False, "reused": False, "why": "", "crashed": False}
    settings = None
    try:
        pages, apart, _ = _read(os.path.join(folder, "a.pdf"))
        expected = verify.load_expected(os.path.join(folder, "a.csv"))
        draft = writer.BuiltinWriter(pages, analysis.analyze_pages(pages, expected), expected,
                                     apart=apart).write()
        out["supervised"] = draft.in_process["status"] == "passed"
        settings = draft.settings
        out["why"] = "" if out["supervised"] else draft.in_process.get("summary", "")
        pages, _, _ = _read(os.path.join(folder, "b.pdf"))
        frame = dataframe.build_frame(pages, settings) if settings else None
        out["reused"] = bool(frame is not None and frame.equals(
            pd.read_csv(os.path.join(folder, "b.csv"))))
    except Exception as exc:  # LookupError (no table) and crashes alike: a miss, with its reason
        out["why"] = f"{type(exc).__name__}: {exc}"
        out["crashed"] = not isinstance(exc, LookupError)
    out["unsupervised"] = [(w,) + _unsupervised(os.path.join(folder, f"{w}.pdf"),
                                                os.path.join(folder, f"{w}.csv")) for w in "ab"]
    return out


def _axis(layout: dict, path: tuple):
    value = layout
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    return value


def axes_line(layout: dict) -> str:
    """The drawn axes of a layout in one line (the values that are set)."""
    return " ".join(f"{name}={_axis(layout, path)}" for name, path in AXES
                    if _axis(layout, path) not in (None, False, ""))


def available() -> tuple:
    """(producers that print here, {missing producer: why})."""
    from fixtures.space import axes, generate

    why = {p: generate.missing(p) for p in axes.PRODUCERS}
    return tuple(p for p in axes.PRODUCERS if not why[p]), {p: w for p, w in why.items() if w}


def _make(args: tuple) -> str:
    from fixtures.space import generate

    seed, index, root, producers = args
    return generate.make(seed, index, root, producers)


def draw(seed: int, count: int, root: str, producers: tuple) -> list:
    """The layouts' folders; printed in parallel (the producers are separate programs)."""
    jobs = [(seed, i, root, producers) for i in range(count)]
    workers = max(1, min(4, os.cpu_count() or 1))
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_make, jobs))


def _score_one(folder: str) -> tuple:
    with open(os.path.join(folder, "layout.json"), encoding="utf-8") as fh:
        return json.load(fh), score_layout(folder)


def score_all(folders: list) -> list:
    workers = max(1, min(4, os.cpu_count() or 1))
    with concurrent.futures.ProcessPoolExecutor(workers) as pool:
        return list(pool.map(_score_one, folders))


def tally(results: list) -> dict:
    """The counts the figures and the test report: per layout and per statement."""
    from fixtures.space.axes import prints_a_check

    runs = [u for _, r in results for u in r["unsupervised"]]
    checked = [u for lay, r in results if prints_a_check(lay) for u in r["unsupervised"]]
    return {"layouts": len(results), "statements": len(runs), "checkable": len(checked),
            "right_passed_checkable": sum(1 for _, s, ok, _ in checked if s == "passed" and ok),
            "supervised": sum(r["supervised"] for _, r in results),
            "reused": sum(r["reused"] for _, r in results),
            "right_passed": sum(1 for _, s, ok, _ in runs if s == "passed" and ok),
            "wrong_passed": sum(1 for _, s, ok, _ in runs if s == "passed" and not ok),
            "right_unverified": sum(1 for _, s, ok, _ in runs if s != "passed" and ok),
            "honest_miss": sum(1 for _, s, ok, _ in runs if s != "passed" and not ok),
            "wrong_passed_convention": sum(1 for _, s, ok, m in runs if s == "passed"
                                           and not ok and m.startswith("CONVENTION ONLY")),
            "crashed": sum(1 for _, s, _, _ in runs if s == "crashed"),
            "supervised_crashed": sum(r["crashed"] for _, r in results)}


def failure_lines(results: list) -> list:
    lines = []
    for layout, r in results:
        unsup = [f"{w}:{s}{'' if ok else '/wrong'}" for w, s, ok, _ in r["unsupervised"]]
        if r["supervised"] and r["reused"] and all(s == "passed" and ok
                                                   for _, s, ok, _ in r["unsupervised"]):
            continue
        why = r["why"] or next((m for _, s, ok, m in r["unsupervised"] if not ok), "")
        lines.append(f"{layout['id']}: supervised {'ok' if r['supervised'] else 'FAILED'}, "
                     f"reused {'ok' if r['reused'] else 'FAILED'}, unsupervised "
                     f"{' '.join(unsup)} | {' / '.join(why.split(chr(10)))[:240]}\n"
                     f"      {axes_line(layout)}")
    return lines


def breakdown(results: list) -> list:
    """Per axis value: layouts, supervised ok, reused ok, unsupervised right-and-passed."""
    groups = collections.defaultdict(list)
    for layout, r in results:
        for name, path in AXES:
            groups[(name, str(_axis(layout, path)))].append(r)
    lines = []
    for (name, value), rs in sorted(groups.items()):
        good = sum(1 for r in rs for _, s, ok, _ in r["unsupervised"] if s == "passed" and ok)
        lines.append(f"{name}={value}: {len(rs)} layouts, supervised "
                     f"{sum(r['supervised'] for r in rs)}, reused {sum(r['reused'] for r in rs)}, "
                     f"unsupervised right+passed {good}/{2 * len(rs)}")
    return lines


def _failed(r: dict, mode: str) -> bool:
    if mode == "supervised":
        return not r["supervised"]
    if mode == "reused":  # reuse is only asked of a layout its key was learned on
        return r["supervised"] and not r["reused"]
    return not all(s == "passed" and ok for _, s, ok, _ in r["unsupervised"])


def causes(results: list, mode: str, top: int = 8) -> list:
    """Axis values that tell the failures of ``mode`` apart, greedily: the value (on at
    least three layouts) whose layouts fail most often against those without it, then the
    same among the layouts without it, and so on; each with one layout to draw again. A
    pattern to look at, not a proof of cause: values drawn together share it."""
    rows = [({f"{n}={_axis(lay, p)}" for n, p in AXES}, lay["id"], _failed(r, mode))
            for lay, r in results]
    lines = []
    while len(lines) < top and any(bad for _, _, bad in rows):
        total, failed = collections.Counter(), collections.Counter()
        for values, _, bad in rows:
            total.update(values)
            failed.update(values if bad else ())
        all_bad, n = sum(bad for _, _, bad in rows), len(rows)

        def lift(v):
            rest = n - total[v]
            return failed[v] / total[v] - ((all_bad - failed[v]) / rest if rest else 0)
        # a value on every layout left tells nothing apart
        pick = [v for v in total if 3 <= total[v] < n and failed[v]] or \
            [v for v in total if total[v] < n and failed[v]]
        if not pick:
            break
        value = max(pick, key=lambda v: (lift(v), failed[v]))
        if lift(value) <= 0:
            break
        example = next(i for values, i, bad in rows if bad and value in values)
        lines.append(f"{mode}: {value} fails {failed[value]}/{total[value]}, the rest "
                     f"{all_bad - failed[value]}/{n - total[value]} (e.g. {example})")
        rows = [row for row in rows if value not in row[0]]
    left = [i for _, i, bad in rows if bad]
    if left:
        lines.append(f"{mode}: {len(left)} failures not told apart by one value, e.g. "
                     f"{', '.join(left[:4])}")
    return lines


def _given(paths: list) -> list:
    """Layout folders (with layout.json) at or one level under ``paths``."""
    found = []
    for path in paths:
        here = os.path.join(path, "layout.json")
        found += [path] if os.path.exists(here) else sorted(
            os.path.dirname(p) for p in glob.glob(os.path.join(path, "*", "layout.json")))
    return found


def report(results: list) -> list:
    """Prints the failures, the breakdown and the causes; returns the figures."""
    for line in failure_lines(results):
        print("   " + line)
    if os.environ.get("DUA_LAYOUTS_BREAKDOWN", "1") != "0":
        for line in breakdown(results):
            print("   | " + line)
    for mode in ("supervised", "reused", "unsupervised"):
        for line in causes(results, mode):
            print("   > " + line)
    sys.stdout.flush()
    return figures(tally(results))


def run(paths: list | None = None) -> list:
    if paths:  # layouts drawn before (python -m fixtures.space ...): scored, not drawn
        return report(score_all(_given(paths)))
    env_seed = os.environ.get("DUA_LAYOUTS_SEED")
    seed = int(env_seed) if env_seed else secrets.randbelow(10 ** 6)
    count = int(os.environ.get("DUA_LAYOUTS_N", "30"))
    producers, gone = available()
    print(f"   seed {seed} ({'DUA_LAYOUTS_SEED' if env_seed else 'new'}), {count} layouts, "
          f"producers {', '.join(producers) or 'none'}")
    for p, why in gone.items():
        print(f"   missing producer {p}: {why}")
    if not producers:
        return []
    root = tempfile.mkdtemp(prefix="dua-layouts-")
    try:
        results = score_all(draw(seed, count, root, producers))
        with open(os.path.join(root, "results.json"), "w", encoding="utf-8") as fh:
            json.dump([[lay["id"], r] for lay, r in results], fh, indent=1)
    finally:
        if not os.environ.get("DUA_LAYOUTS_KEEP"):
            shutil.rmtree(root, ignore_errors=True)
        else:
            print(f"   layouts kept in {root}")
    return report(results)


def figures(t: dict) -> list:
    n, s = t["layouts"], t["statements"]
    return [
        Figure("supervised exact", t["supervised"], n, unit="layouts", floor_name="of",
               higher_is_better=True, target=">= 99%"),
        Figure("reused on the second statement exact", t["reused"], n, unit="layouts",
               floor_name="of", higher_is_better=True, target=">= 99%"),
        Figure("unsupervised right and passed", t["right_passed"], s, unit="statements",
               floor_name="of", higher_is_better=True, target=">= 90%"),
        Figure("of those printing a balance, a total or a summary, right and passed",
               t["right_passed_checkable"], t["checkable"], unit="statements", floor_name="of",
               higher_is_better=True),
        Figure("wrong but passed", t["wrong_passed"], s, unit="statements", floor_name="of",
               target="0"),
        Figure("of which only a printed label kept or an empty column left out or added",
               t["wrong_passed_convention"], s, unit="statements", floor_name="of"),
        Figure("honest miss (not passed, not right)", t["honest_miss"], s, unit="statements",
               floor_name="of"),
        Figure("right but not passed", t["right_unverified"], s, unit="statements",
               floor_name="of"),
        Figure("unsupervised crashed (an exception out of dua)", t["crashed"], s,
               unit="statements", floor_name="of", target="0"),
        Figure("supervised crashed (an exception out of dua)", t["supervised_crashed"], n,
               unit="layouts", floor_name="of", target="0"),
    ]
