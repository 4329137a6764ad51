"""Batch runs: one generated parser over many PDFs, through the sandbox, on any Executor.

``run()`` never lets one bad file stop the batch: each file ends converted, skipped
(its output is already complete) or failed with its typed error and the Error Handler's
feedback. Outputs are written atomically, so an interrupted batch can simply be re-run.
Scaling out is the caller's ``concurrent.futures.Executor`` (a process pool by default,
Dask's ``Client.get_executor()`` or Ray's on a cluster); there is no cluster code here.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import time
from typing import Callable, Iterable, Mapping

from . import errors
from .batch_worker import (AGENT_ID, convert, failure, no_agent, read_stamp, source_stamp,
                           write_csv_atomically)

__all__ = ("AGENT_ID", "BatchResult", "FileResult", "Progress", "Task", "check_parser", "convert",
           "default_workers", "is_complete", "no_agent", "output_paths", "plan", "run",
           "write_csv_atomically")


@dataclasses.dataclass(frozen=True)
class Task:
    """One file's work, small and picklable so that any executor can ship it."""

    index: int
    parser_path: str
    pdf_path: str
    output_path: str | None
    timeout: float
    password: str | None = None
    allow_empty: bool = False  # a frame with no rows counts as converted


@dataclasses.dataclass
class FileResult:
    """What happened to one PDF. ``error`` is the typed dua error; ``frame`` only without out_dir."""

    pdf_path: str
    status: str  # converted | skipped | failed
    rows: int = 0
    seconds: float = 0.0
    output_path: str | None = None
    error: errors.DuaError | None = None
    feedback: dict | None = None
    frame: object = dataclasses.field(default=None, repr=False)

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    def to_dict(self) -> dict:
        doc = {"pdf_path": self.pdf_path, "status": self.status, "rows": self.rows,
               "seconds": round(self.seconds, 3), "output_path": self.output_path}
        if self.error is not None:
            doc["error"] = {"error_type": self.error.error_type, "error_code": self.error.error_code,
                            "exception": type(self.error).__name__, "message": self.error.message}
            doc["feedback"] = self.feedback
        return doc


@dataclasses.dataclass
class Progress:
    """A snapshot after each finished file, for progress lines and callbacks."""

    done: int
    total: int
    rows: int
    errors: int
    elapsed: float
    processed: int  # files actually run (not skipped), the basis of the rate
    last: FileResult | None = None  # the file that just finished

    @property
    def rate(self) -> float:
        return self.processed / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def eta(self) -> float | None:
        return (self.total - self.done) / self.rate if self.rate > 0 else None

    def line(self) -> str:
        eta = "?" if self.eta is None else f"{self.eta:.0f}s"
        errs = f"{self.errors} error" + ("" if self.errors == 1 else "s")
        return (f"{self.done}/{self.total} files, {self.rows:,} rows, {errs}, "
                f"{self.rate:.2f} files/s, ETA {eta}")


@dataclasses.dataclass
class BatchResult:
    """Per-file results in input order, plus the totals a job needs to retry only failures."""

    results: list
    seconds: float

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.results)

    @property
    def failed(self) -> list:
        return [r for r in self.results if not r.ok]

    def total(self) -> dict:
        count = {s: sum(r.status == s for r in self.results) for s in ("converted", "skipped", "failed")}
        ran = count["converted"] + count["failed"]
        return {"files": len(self.results), **count, "rows": sum(r.rows for r in self.results),
                "seconds": round(self.seconds, 3),
                "files_per_second": round(ran / self.seconds, 3) if self.seconds > 0 else 0.0}

    def exit_code(self) -> int:
        """0 when every file succeeded, else the most severe failure's code (3 bad PDF, 4 parser)."""
        codes = [r.error.exit_code for r in self.failed if r.error is not None]
        return max(codes, default=errors.EXIT_OK)

    def to_dict(self) -> dict:
        return {"status": "passed" if self.ok else "failed",
                "files": [r.to_dict() for r in self.results], "total": self.total()}


def default_workers() -> int:
    """Usable CPUs. Each task waits on its own sandboxed child, which does the real work,
    so one worker per CPU keeps every core busy without oversubscribing."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def output_paths(pdf_paths: Iterable[str], out_dir: str) -> dict:
    """``out_dir/<stem>.csv`` per PDF; stems that collide get a short hash of their path."""
    import collections  # lazy: keeps import dua fast

    pdfs = list(pdf_paths)
    stems = [os.path.splitext(os.path.basename(p))[0] for p in pdfs]
    counts = collections.Counter(stems)  # not stems.count: 10,000 files would cost 10^8 steps
    paths = {}
    for pdf, stem in zip(pdfs, stems):
        if counts[stem] > 1:
            stem += "-" + hashlib.sha1(os.path.abspath(pdf).encode()).hexdigest()[:8]
        paths[pdf] = os.path.join(out_dir, stem + ".csv")
    return paths


def is_complete(output_path: str, pdf_path: str, parser_path: str) -> bool:
    """An output counts as done when its stamp says this very parser made it from this
    very PDF (same bytes, same file): a changed parser or a replaced PDF is run again.

    Outputs only ever appear by an atomic rename, and stamps after them, so stamped means whole.
    """
    stamp = read_stamp(output_path)
    if stamp is None:
        return False
    try:
        sources = source_stamp(parser_path, pdf_path)
    except OSError:
        return False
    return all(stamp.get(key) == value for key, value in sources.items())


def check_parser(parser_path: str) -> None:
    """Fail once, before the batch, when the parser is missing or rejected by the policy.

    Raises:
        UsageError, PolicyViolationError
    """
    if not os.path.isfile(parser_path):
        raise errors.UsageError(f"No parser file at {parser_path}",
                                hint="Pass a parser written by dua parse: custom_parsers/<bank>_parser.py.")
    from .sandbox.policy import check_source  # lazy: only a batch needs the checker
    from .sandbox.runner import read_parser

    violations = check_source(read_parser(parser_path), parser_path)
    if violations:
        raise errors.PolicyViolationError(
            f"{parser_path} was rejected by the safety policy: {violations[0]}",
            violations=[str(v) for v in violations])


def plan(parser_path: str, pdf_paths: Iterable[str], out_dir: str | None = None,
         outputs: Mapping[str, str] | None = None, timeout: float = 60.0,
         password: str | None = None, allow_empty: bool = False) -> list:
    """The tasks of a batch, in input order (``outputs`` maps a PDF to an explicit CSV path)."""
    from .sandbox import MAX_TIMEOUT, valid_timeout  # lazy: only a batch needs the sandbox

    if not valid_timeout(timeout):
        raise ValueError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], "
                         f"not {timeout!r}")
    if isinstance(pdf_paths, (str, bytes)):  # a lone path would be iterated letter by letter
        raise TypeError("pdf_paths must be a list of paths, not a single path")
    pdfs = [os.fspath(p) for p in pdf_paths]
    targets = dict(outputs or (output_paths(pdfs, out_dir) if out_dir is not None else {}))
    return [Task(i, os.fspath(parser_path), pdf, targets.get(pdf), timeout, password, allow_empty)
            for i, pdf in enumerate(pdfs)]


def run(parser_path: str, pdf_paths: Iterable[str], executor=None, out_dir: str | None = None,
        on_progress: Callable[[Progress], None] | None = None, *, timeout: float = 60.0,
        password: str | None = None, workers: int | None = None, resume: bool = True,
        outputs: Mapping[str, str] | None = None, allow_empty: bool = False) -> BatchResult:
    """Run a generated parser over many PDFs; never raises for a bad file.

    Without ``out_dir`` (or ``outputs``) each result carries its DataFrame as ``frame``.
    A parser that finds no transaction in a PDF fails that file (VerificationError): it is
    most often a statement of another bank or layout. ``allow_empty`` accepts it instead.

    Raises:
        UsageError, PolicyViolationError: only for a parser that cannot run at all, or an
        output folder that cannot be written.
    """
    check_parser(parser_path)
    tasks = plan(parser_path, pdf_paths, out_dir, outputs, timeout, password, allow_empty)
    from .outputs import check_folder  # lazy: only a batch with outputs needs it

    for folder in sorted({os.path.dirname(os.path.abspath(t.output_path)) for t in tasks
                          if t.output_path}):  # once per folder, not per file
        check_folder(folder, "the output folder")
        os.makedirs(folder, exist_ok=True)
    return _execute(tasks, executor, on_progress, workers or default_workers(), resume)


def _rebuild_error(info: dict) -> errors.DuaError:
    """The typed error back from its name (results cross process boundaries as plain data)."""
    cls = getattr(errors, info.get("exception", ""), None)
    if not (isinstance(cls, type) and issubclass(cls, errors.DuaError)):
        cls = errors.UnexpectedError
    return cls(info.get("message", ""))


# ---- the batch loop (runs in the caller) ----------------------------------------------------

def _result(task: Task, doc: dict) -> FileResult:
    error = _rebuild_error(doc["error"]) if doc.get("error") else None
    return FileResult(task.pdf_path, doc["status"], doc.get("rows", 0), doc.get("seconds", 0.0),
                      task.output_path if doc["status"] != "failed" else None, error,
                      doc.get("feedback"), doc.get("frame"))


def _skipped(task: Task) -> FileResult:
    rows = (read_stamp(task.output_path) or {}).get("rows")
    return FileResult(task.pdf_path, "skipped", rows if isinstance(rows, int) else 0, 0.0,
                      task.output_path)


def _execute(tasks: list, executor, on_progress, workers: int, resume: bool) -> BatchResult:
    start = time.monotonic()
    done = [_skipped(t) if resume and t.output_path and is_complete(t.output_path, t.pdf_path,
                                                                     t.parser_path) else None
            for t in tasks]
    todo = [t for t, r in zip(tasks, done) if r is None]
    # running totals, so that progress costs the same for the 10,000th file as for the first
    state = {"done": len(tasks) - len(todo), "processed": 0, "errors": 0,
             "rows": sum(r.rows for r in done if r is not None)}

    def finish(task: Task, doc: dict) -> None:
        result = done[task.index] = _result(task, doc)
        state["done"] += 1
        state["processed"] += 1
        state["rows"] += result.rows
        state["errors"] += not result.ok
        if on_progress is not None:
            on_progress(Progress(state["done"], len(tasks), state["rows"], state["errors"],
                                 time.monotonic() - start, state["processed"], result))

    if todo:
        _submit_all(todo, executor, finish, workers)
    return BatchResult(done, time.monotonic() - start)


def _fork_context():
    """Fork on Linux, with pandas imported first so that workers share it (~0.5 s each saved).

    Fork also spares the workers re-running ``python -m dua``'s __main__, which the spawn and
    forkserver methods would do. Elsewhere the platform default stays (fork is unsafe on macOS).
    """
    import multiprocessing  # lazy: keeps import dua fast
    import sys

    if not sys.platform.startswith("linux"):
        return None
    try:
        import pandas  # noqa: F401  lazy: only a process-pool batch preloads it
    except ImportError:  # the sandbox reports the missing dependency per file
        pass
    return multiprocessing.get_context("fork")


def _submit_all(todo: list, executor, finish, workers: int) -> None:
    import concurrent.futures as cf  # lazy: keeps import dua fast

    owned = executor is None
    if owned:
        executor = cf.ProcessPoolExecutor(max_workers=max(1, min(workers, len(todo))),
                                          mp_context=_fork_context())
    futures = {}
    try:
        futures = {executor.submit(convert, t): t for t in todo}
        for future in cf.as_completed(futures):
            task = futures[future]
            try:
                doc = future.result()
            except Exception as exc:  # the worker itself died (BrokenProcessPool, a lost Dask worker)
                doc = failure(task, errors.ParserCrashedError(
                    f"the worker running {task.pdf_path} died: {type(exc).__name__}: {exc}"), 0.0)
            finish(task, doc)
    except BaseException:  # Ctrl-C: drop what has not started; finished outputs stay complete
        for future in futures:
            future.cancel()
        if owned:
            executor.shutdown(wait=False, cancel_futures=True)
            owned = False
        raise
    finally:
        if owned:
            executor.shutdown(wait=True)
