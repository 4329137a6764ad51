"""Running a batch: the caller's loop that submits tasks to an executor and gathers results.

``run()`` never lets one bad file stop the batch, and never ships an exception between
processes: workers answer with plain dicts (``worker.convert``). A worker that dies fails
its file with ParserCrashedError; Ctrl-C drops what has not started.
"""
from __future__ import annotations

import contextlib
import os
import time
from typing import Callable, Iterable, Mapping

from .. import errors
from .plan import check_parser, default_workers, plan
from .results import BatchResult, FileResult, Progress, Task
from .stamps import completed
from .worker import convert, convert_in_pool, failure, pool_worker


def run(parser_path: str, pdf_paths: Iterable[str], executor=None, out_dir: str | None = None,
        on_progress: Callable[[Progress], None] | None = None, *, timeout: float = 60.0,
        password: str | None = None, workers: int | None = None, resume: bool = True,
        outputs: Mapping[str, str] | None = None, allow_empty: bool = False,
        read_timeout: float | None = None, check_rows: bool = True, row_format: str = "csv",
        normalize: bool = False) -> BatchResult:
    """Run a generated parser over many PDFs; never raises for a bad file.

    Without ``out_dir`` (or ``outputs``) each result carries its DataFrame as ``frame``.
    A parser that finds no transaction in a PDF fails that file (VerificationError): it is
    most often a statement of another bank or layout. ``allow_empty`` accepts it instead.
    ``read_timeout`` bounds reading each PDF (None: ``dua.pdf``'s default budget), and
    ``timeout`` the parser's own run. ``check_rows`` puts each file's rows to the
    statement's own checks (``FileResult.check``; see ``checks``). ``row_format`` (csv,
    jsonl, ofx, qif) and ``normalize`` say how rows are written (``dua.statements.output.formats``);
    without an output, a result then carries the rows' text as ``frame``.

    Raises:
        UsageError, PolicyViolationError: only for a parser that cannot run at all, or an
        output folder that cannot be written.
    """
    check_parser(parser_path)
    tasks = plan(parser_path, pdf_paths, out_dir, outputs, timeout, password, allow_empty,
                 read_timeout, check_rows, row_format, normalize)
    _check_outputs(tasks, parser_path)
    return _execute(tasks, executor, on_progress, workers or default_workers(), resume)


def _check_outputs(tasks: list, parser_path: str) -> None:
    """Every destination usable and none of them an input, before any file runs; only then
    are the folders made (a refused batch writes nothing anywhere)."""
    from .. import outputs as out  # lazy: only a batch with outputs needs it

    targets = [t.output_path for t in tasks if t.output_path]
    if out.STDOUT in targets:  # workers run in other processes: stdout is the caller's to write
        raise errors.UsageError("A batch writes files, not -",
                                hint="Run without an output and write result.frame yourself.")
    files = [p for p in targets if out.kind(p) != out.STREAM]
    for path in files:
        if out.kind(path) != out.FILE:
            out.check_file(path, "the output")  # raises, naming what the path is
    folders = sorted({os.path.dirname(os.path.realpath(p)) for p in files})
    for folder in folders:  # once per folder, not per file
        out.check_folder(folder, "the output folder")
    out.check_none_is_an_input(files, "the output", [t.pdf_path for t in tasks] + [parser_path])
    for folder in folders:
        os.makedirs(folder, exist_ok=True)


def _skipped(task: Task) -> FileResult | None:
    """A file this parser already converted from this PDF, with the verdict its rows had
    then (a skipped file that did not pass still exits 1); None: it is to be converted."""
    found = completed(task)
    if found is None:
        return None
    path, stamp = found
    rows, check = stamp.get("rows"), stamp.get("check")
    return FileResult(task.pdf_path, "skipped", rows if isinstance(rows, int) else 0, 0.0,
                      path, check=check if isinstance(check, dict) else None)


def _execute(tasks: list, executor, on_progress, workers: int, resume: bool) -> BatchResult:
    start = time.monotonic()
    done = [_skipped(t) if resume else None for t in tasks]
    todo = [t for t, r in zip(tasks, done) if r is None]
    # running totals, so that progress costs the same for the 10,000th file as for the first
    state = {"done": len(tasks) - len(todo), "processed": 0, "errors": 0,
             "rows": sum(r.rows for r in done if r is not None)}

    def finish(task: Task, doc: dict) -> None:
        result = done[task.index] = FileResult.from_worker(task, doc)
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
                                          mp_context=_fork_context(),
                                          initializer=pool_worker, initargs=(os.getpid(),))
    futures = {}
    try:
        work = convert_in_pool if owned else convert
        with _ctrl_c_held(owned):  # the workers it starts take it once they can, quietly
            futures = {executor.submit(work, t): t for t in todo}
        for future in _as_completed(futures):
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


@contextlib.contextmanager
def _ctrl_c_held(hold: bool):
    """Ctrl-C held back from this thread for the block: a process forked in it starts
    with Ctrl-C held too (``worker.pool_worker`` takes it), and this one takes it after."""
    import signal  # lazy: keeps import dua fast

    if not hold or not hasattr(signal, "pthread_sigmask"):
        yield
        return
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _as_completed(futures, wake: float = 0.25):
    """Each future as it completes, as ``concurrent.futures.as_completed`` yields them, but
    waking every ``wake`` seconds: the kernel may hand Ctrl-C to one of the pool's threads,
    and its handler runs only when the main thread next runs Python code."""
    import queue  # lazy: keeps import dua fast

    finished = queue.SimpleQueue()
    for future in futures:
        future.add_done_callback(finished.put)
    for _ in range(len(futures)):
        future = None
        while future is None:
            try:
                future = finished.get(timeout=wake)
            except queue.Empty:
                pass
        yield future
