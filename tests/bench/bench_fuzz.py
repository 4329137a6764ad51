"""No PDF makes dua say "This is a bug", and none runs past its budget.

Two sweeps, each command in a pool of in-process workers (``fuzz_worker``) that is killed
and replaced when a command runs past its file's budget:

1. ``dua parse`` on every PDF there is: the fixtures (bad ones included), everything under
   ``../shared`` (``DUA_SHARED``), and the real-PDF corpus of issue 24: the PDFs Debian's
   TeX Live packages install, up to 40 pages each (``DUA_FUZZ_REAL``: folders instead;
   ``DUA_FUZZ_REAL_MAX_PAGES``: another limit).
2. ``dua parse``, ``dua extract`` and ``dua run`` on ``DUA_FUZZ_MUTANTS`` (1,000) mutants of
   the fixtures' and ``../shared``'s PDFs (0: the sweep alone), made from ``DUA_FUZZ_SEED`` (0) by
   ``fixtures/mutate.py``: truncations, flipped bytes, shifted or garbled xref, damaged
   streams, page-tree floods and cycles, deep nesting, deflate bombs, huge images, forms that
   draw each other, floods of drawn objects.

Each command ends ok (exit 0 or 1), typed (a dua error that names the input's fault),
untyped (any other exception, or a dua error that says it is a bug), or over budget (still
running ``SLACK`` seconds past its file's read budget: killed). Goal: 0 untyped, 0 over
budget, and no process of dua's left once a worker is killed. The figure is the seconds per
command on mutants against the floor of the same commands on their unmutated sources.
"""
from __future__ import annotations

import collections
import glob
import json
import os
import select
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SHARED = os.environ.get("DUA_SHARED") or os.path.join(os.path.dirname(REPO), "shared")
COUNT = int(os.environ.get("DUA_FUZZ_MUTANTS", "1000"))
SEED = int(os.environ.get("DUA_FUZZ_SEED", "0"))
WORKERS = int(os.environ.get("DUA_FUZZ_WORKERS", "2"))
REAL_PACKAGES = ("texlive-latex-base", "texlive-latex-recommended", "fonts-lmodern",
                 "texlive-latex-extra")
REAL_FOLDERS = ("/usr/share/doc/texlive-doc", "/usr/share/texmf/doc")
REAL_MAX_PAGES = int(os.environ.get("DUA_FUZZ_REAL_MAX_PAGES", "40"))
SLACK = 60.0  # seconds past a file's read budget that its analysis, parser and output may take
RECYCLE = 150  # jobs a worker runs before a fresh one replaces it


def _pdfs(folder: str) -> list:
    return sorted(glob.glob(os.path.join(folder, "**", "*.pdf"), recursive=True))


def _real_corpus() -> list:
    """The real PDFs, up to REAL_MAX_PAGES pages each, and how many were left out."""
    folders = [f for f in os.environ.get("DUA_FUZZ_REAL", "").split(os.pathsep) if f]
    files = [p for f in folders or REAL_FOLDERS for p in _pdfs(f)]
    if not folders and shutil.which("dpkg"):
        for package in REAL_PACKAGES:
            listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True)
            files += [line for line in listed.stdout.splitlines() if line.endswith(".pdf")]
    kept = [p for p in sorted(set(files)) if _pages(p) <= REAL_MAX_PAGES]
    return kept, len(set(files)) - len(kept)


def _pages(path: str) -> int:
    try:
        import pypdfium2

        doc = pypdfium2.PdfDocument(path)
        try:
            return len(doc)
        finally:
            doc.close()
    except Exception:  # any file pdfium cannot open: the default budget's base
        return 0


def _budget(path: str) -> float:
    from dua.pdf import ReadBudget

    return ReadBudget().limit(_pages(path))


# --- the pool ------------------------------------------------------------------------------


class _Worker:
    def __init__(self, env: dict) -> None:
        self.proc = subprocess.Popen([sys.executable, "-m", "tests.bench.fuzz_worker"],
                                     cwd=REPO, env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, start_new_session=True)
        self.job, self.deadline, self.done, self.buffer = None, 0.0, 0, b""

    def send(self, job: dict) -> None:
        self.job, self.deadline = job, time.monotonic() + job["budget"] + SLACK
        self.proc.stdin.write((json.dumps({k: job[k] for k in ("id", "argv", "cwd")})
                               + "\n").encode())
        self.proc.stdin.flush()

    def kill(self) -> int:
        """Kill the worker's session; the processes of dua's still alive a second later."""
        sid = self.proc.pid
        try:
            os.killpg(sid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.proc.stdin.close()
        self.proc.stdout.close()
        time.sleep(1.0)
        return len(_left_in_session(sid))


def _left_in_session(sid: int) -> list:
    left = []
    for d in os.listdir("/proc") if os.path.isdir("/proc") else []:
        try:
            with open(f"/proc/{d}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if d.isdigit() and fields[0] != "Z" and int(fields[3]) == sid:
            left.append(int(d))
    return left


def run_jobs(jobs: list, env: dict, on_result) -> int:
    """Run every job; ``on_result(job, answer)``. Returns processes left after kills."""
    todo, idle, busy, left = list(reversed(jobs)), [], [], 0
    idle = [_Worker(env) for _ in range(min(WORKERS, len(jobs)))]
    while todo or busy:
        while todo and idle:
            worker = idle.pop()
            worker.send(todo.pop())
            busy.append(worker)
        ready = select.select([w.proc.stdout for w in busy], [], [], 1.0)[0]
        for worker in list(busy):
            if worker.proc.stdout in ready:
                chunk = os.read(worker.proc.stdout.fileno(), 1 << 16)
                worker.buffer += chunk
                if b"\n" not in worker.buffer and chunk:
                    continue
                line, _, worker.buffer = worker.buffer.partition(b"\n")
                answer = json.loads(line) if line else {"outcome": "untyped",
                                                        "error": "the worker died"}
                on_result(worker.job, answer)
                busy.remove(worker)
                worker.done += 1
                if chunk and worker.done < RECYCLE:
                    idle.append(worker)
                else:
                    left += worker.kill()
                    idle.append(_Worker(env))
            elif time.monotonic() > worker.deadline:
                on_result(worker.job, {"outcome": "over budget",
                                       "seconds": worker.job["budget"] + SLACK})
                busy.remove(worker)
                left += worker.kill()
                idle.append(_Worker(env))
    for worker in idle:
        left += worker.kill() if worker.proc.poll() is None else 0
    return left


# --- the benchmark ---------------------------------------------------------------------------


def _job(command: str, pdf: str, work: str, n: int, group: str, parser: str = "") -> dict:
    out = os.path.join(work, "out", f"{n}")
    argv = {"parse": ["parse", pdf, "--bank", f"s{n}", "--parsers-dir",
                      os.path.join(work, "parsers", str(n)), "--out", out + ".csv", "-q"],
            "extract": ["extract", pdf, "-q", "--out", out + ".json"],
            "run": ["run", parser, pdf, "--out", out + ".csv", "--workers", "1", "--force",
                    "-q"]}[command]
    return {"id": n, "argv": argv, "cwd": work, "command": command, "pdf": pdf,
            "group": group, "budget": _budget(pdf)}


def _sources() -> dict:
    fixtures = [p for p in _pdfs(os.path.join(REPO, "fixtures"))]
    shared = _pdfs(SHARED) if os.path.isdir(SHARED) else []
    real, skipped = _real_corpus()
    return {"fixtures": fixtures, "shared": shared, "real": real, "real_skipped": skipped}


def run() -> list:
    work = tempfile.mkdtemp(prefix="dua-fuzz-")
    for sub in ("out", "parsers", "mutants", "home"):
        os.makedirs(os.path.join(work, sub))
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
               DUA_HOME=os.path.join(work, "home"))
    for key in [k for k in env if k.startswith("DUA_LLM_")]:
        del env[key]
    found, results = _sources(), []

    def record(job: dict, answer: dict) -> None:
        results.append(dict(job, **answer))
        if len(results) % 100 == 0:  # progress, for a run of about an hour
            print(f"   ... {len(results)} runs", file=sys.stderr, flush=True)

    # 1. dua parse on every PDF; the parsers written for the mutants' sources are kept
    sweep = [_job("parse", pdf, work, n, group)
             for n, (group, pdf) in enumerate((g, p) for g in ("fixtures", "shared", "real")
                                              for p in found[g])]
    left = run_jobs(sweep, env, record)
    if COUNT:  # 2. extract and run on the sources (the floor), every command on every mutant
        left += run_jobs(_mutant_jobs(found, sweep, work), env, record)
    _report(results, found, left, work)
    return _figures(results)


def _mutant_jobs(found: dict, sweep: list, work: str) -> list:
    """The floor's jobs (extract and run on each source), then each command on each mutant;
    ``run`` uses the parser written for the mutant's source (else any parser written)."""
    from fixtures import mutate

    sources = [p for p in found["fixtures"] + found["shared"]
               if f"{os.sep}bad{os.sep}" not in p and "b01_password" not in p]
    parser_of = {j["pdf"]: _parser(work, j["id"]) for j in sweep if j["pdf"] in sources}
    fallback = next((p for p in parser_of.values() if p), "")
    jobs, n = [], len(sweep)
    for pdf in sources:
        for command in ("extract", "run"):
            jobs.append(_job(command, pdf, work, n, "sources", parser_of[pdf] or fallback))
            n += 1
    for source, kind, i in mutate.plan(sources, COUNT, SEED):
        path = os.path.join(work, "mutants", f"{i}.{kind}.pdf")
        with open(path, "wb") as fh:
            fh.write(mutate.mutant(source, kind, i, SEED))
        for command in ("parse", "extract", "run"):
            job = _job(command, path, work, n, "mutants", parser_of[source] or fallback)
            jobs.append(dict(job, kind=kind, source=source))
            n += 1
    return jobs


def _parser(work: str, n: int) -> str:
    found = glob.glob(os.path.join(work, "parsers", str(n), "*_parser.py"))
    return found[0] if found else ""


def _report(results: list, found: dict, left: int, work: str) -> None:
    print(f"   seed {SEED}, {COUNT} mutants, {WORKERS} workers; work folder {work}")
    print(f"   real corpus: {len(found['real'])} PDFs of at most {REAL_MAX_PAGES} pages "
          f"({found['real_skipped']} longer ones left out)")
    table = collections.defaultdict(collections.Counter)
    for r in results:
        key = (f"sweep {r['group']}: parse" if r["group"] in ("fixtures", "shared", "real")
               else f"{r['group']}: {r['command']}")
        table[key][r["outcome"]] += 1
        if r["group"] == "mutants":
            table[f"  mutants by kind: {r['kind']}"][r["outcome"]] += 1
    for key in sorted(table, key=lambda k: (k.startswith("  "), k)):
        c = table[key]
        print(f"   {key}: {sum(c.values())} runs: ok {c['ok']}, typed {c['typed']}, "
              f"untyped {c['untyped']}, over budget {c['over budget']}")
    for r in [r for r in results if r["outcome"] == "untyped"]:
        what = f"{r.get('kind', r['group'])} of {os.path.basename(r.get('source', r['pdf']))}"
        print(f"   UNTYPED {r['command']} {r['pdf']} ({what}): {r.get('error')}: "
              f"{r.get('message', '')[:160]} at {r.get('where', '?')}")
    for r in [r for r in results if r["outcome"] == "over budget"]:
        print(f"   OVER BUDGET {r['command']} {r['pdf']} (budget {r['budget']:g} s + {SLACK:g})")
    print(f"   processes of dua's left a second after a worker was killed: {left}")
    print("   slowest:")
    for r in sorted(results, key=lambda r: -r.get("seconds", 0))[:12]:
        print(f"     {r.get('seconds', 0):7.2f} s  {r['command']:<7} {r['outcome']:<11} "
              f"{r.get('kind', r['group'])}: {r['pdf']}")
    with open(os.path.join(work, "results.json"), "w") as fh:
        json.dump(results, fh, indent=1)


def _figures(results: list) -> list:
    def seconds(*groups: str) -> list:
        return [r.get("seconds", 0.0) for r in results if r["group"] in groups] or [0.0]

    bad = sum(r["outcome"] in ("untyped", "over budget") for r in results)
    target = f"0 untyped, 0 over budget (now {bad})"
    if any(r["group"] == "mutants" for r in results):
        hostile, floor, names = seconds("mutants"), seconds("sources"), ("mutants", "sources")
    else:  # the sweep alone: the real corpus against the fixtures and ../shared
        hostile, floor = seconds("real"), seconds("fixtures", "shared")
        names = ("the real corpus", "the fixtures and ../shared")
    return [Figure(f"seconds per command on {names[0]} (mean)", statistics.mean(hostile),
                   statistics.mean(floor), floor_name=f"on {names[1]}", target=target),
            Figure(f"slowest command on {names[0]}", max(hostile), max(floor),
                   floor_name=f"slowest on {names[1]}")]
