"""One file of a batch, as it runs in a worker (a pool process, a thread, a Dask worker).

The parser runs in a Sandbox borrowed for the file; the CSV is written atomically; any
failure comes back as plain data with its feedback, so that no executor ever has to ship
an exception and no file can stop the batch.
"""
from __future__ import annotations

import contextlib
import os
import threading
import time

from .. import errors
from ..lifetime import die_with_parent
from .checks import rows_check
from .stamps import retire_others, rows_as, source_stamp, write_stamp

AGENT_ID = "dua_batch"
_INTERRUPTED: list = []  # Ctrl-C reached this pool worker: it starts no other file
_RUNNING: list = []  # the file this pool worker is converting, while it does


def pool_worker(parent: int) -> None:
    """Start of each worker of a batch's own process pool: it dies with the batch, however
    that ends, and after a Ctrl-C starts no file (see ``convert_in_pool``). The pool starts
    it with Ctrl-C held (``runner``), taken here once it can be taken quietly."""
    import signal  # lazy: only a pool worker needs it

    die_with_parent(parent)
    signal.signal(signal.SIGINT, _interrupted)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _interrupted(signum, frame) -> None:
    _INTERRUPTED.append(signum)
    if _RUNNING:  # the running file unwinds its cleanup, as under Python's own handler;
        raise KeyboardInterrupt  # an idle worker waits for the batch to end it, quietly


def convert_in_pool(task) -> dict:
    """``convert`` in a pool worker, unless Ctrl-C came first.

    Ctrl-C reaches the whole terminal group at once: the parent cancels the files not yet
    started, but a worker may already hold one it took off the queue. Started, that file
    would keep the interrupted batch waiting up to its reading budget.
    """
    if _INTERRUPTED:
        raise KeyboardInterrupt(f"the batch was interrupted before {task.pdf_path} started")
    _RUNNING.append(task)
    try:
        return convert(task)
    finally:
        _RUNNING.clear()


def convert(task) -> dict:
    """Run the parser on one PDF in the sandbox and write its CSV atomically.

    Returns a plain dict that any executor can ship back; a failure is data, never raised.
    """
    start = time.monotonic()
    try:
        if not os.path.exists(task.pdf_path):  # as every command says it (exit 3)
            raise errors.DocumentNotFoundError(f"No such file: {task.pdf_path}",
                                               path=task.pdf_path)
        # taken before the run: a parser edited meanwhile must not vouch for this output;
        # a device or a pipe keeps nothing to resume from, so it gets no stamp (none in /dev)
        sources = source_stamp(task.parser_path, task.pdf_path) if task.output_path else None
        words = read_ahead(task)
        try:
            with _borrowed_sandbox() as box:
                frame = box.run(task.parser_path, task.pdf_path, timeout=task.timeout,
                                password=task.password, words=words)
        except (errors.ParserTimeoutError, errors.ResourceLimitError,
                errors.ParserCrashedError) as exc:
            if words is None:  # the parser read the PDF itself: was the PDF to blame?
                _read_words(task, exc)
            raise
        if len(frame) == 0 and not task.allow_empty:
            raise errors.VerificationError(
                f"{os.path.basename(task.parser_path)} found no transaction in {task.pdf_path}",
                path=task.pdf_path, hint="A parser reads one bank's layout: check that this "
                "statement is of that layout, or write one for it with dua parse "
                "(--allow-empty accepts statements with no transaction).")
        check = rows_check(task.parser_path, frame, words) if task.check_rows else None
        rows = len(frame)
        if task.normalize or task.row_format != "csv":  # the rows' text, read where the
            frame = _rows_text(task, frame, words)     # words are at hand
        output = _write(task, frame, check, sources, rows) if task.output_path else None
        return {"index": task.index, "status": "converted", "rows": rows,
                "seconds": time.monotonic() - start, "check": check, "output_path": output,
                "frame": None if task.output_path else frame}
    except Exception as exc:  # one file's failure is its result, whatever it was
        return failure(task, exc, time.monotonic() - start)


def _write(task, frame, check: dict | None, sources: dict | None, rows: int) -> str:
    """Write the rows where their verdict sends them (``plan.verdict_path``: rows that did
    not pass go apart from the verified ones), stamp a file, and retire this PDF's earlier
    output under another verdict's name. Returns where the rows went."""
    from ..outputs import FILE, kind  # lazy: only a file with an output needs it
    from .plan import verdict_path

    status = check.get("status", "not checked") if task.check_rows else None
    output = task.output_path
    if status is not None and verdict_path(output, status) != output:
        output = verdict_path(task.apart_from or output, status)
    stamped = sources is not None and kind(output) == FILE  # a device or a pipe keeps nothing
    with _interrupt_deferred():  # an output and its stamp land together or not at all
        write_csv_atomically(frame, output)
        if stamped:
            write_stamp(output, dict(sources, rows=rows, check=check, rows_as=rows_as(task)))
    if stamped and kind(task.output_path) == FILE:
        retire_others(task, output)
    return output


def _rows_text(task, frame, words: list | None) -> str:
    """The rows as ``task.row_format`` asks, normalised where asked or needed."""
    from ..review.sources import parser_settings  # lazy: only these outputs need them
    from ..statements.output.normalize import rows_text

    if words is None:  # the parser read the PDF itself: read it here for the evidence
        words = _read_words(task)
    settings, _ = parser_settings(task.parser_path)
    stem = os.path.splitext(os.path.basename(task.pdf_path))[0]
    return rows_text(frame, task.row_format, task.normalize, words, settings, account=stem)


def read_ahead(task) -> list | None:
    """The PDF's words for a parser that reads with dua's word reader (None for one that
    does not), read here in a child the read budget stops: a file that makes the reader
    loop fails with a PDFReadTimeoutError of its own instead of the parser's timeout. (A
    parser that reads the PDF itself is bounded by its own timeout; when it fails so, the
    PDF is read here, and a PDF that cannot be read takes the blame.)

    Raises:
        DocumentError (any subclass)
    """
    from ..sandbox.reader_block import holds_reader  # lazy: only a worker reads

    return _read_words(task) if holds_reader(task.parser_path) else None


def _read_words(task, failure: BaseException | None = None) -> list:
    """The PDF's words, read in a bounded child; raises the PDF's DocumentError (from
    ``failure``, the parser's own, when the parser failed on it first)."""
    from .. import pdf  # lazy: only a worker reads

    reading = pdf.start_reading(task.pdf_path, task.password,
                                budget=pdf.ReadBudget(task.read_timeout))
    try:
        reading.document()
    except errors.DocumentError as exc:
        if failure is not None:
            raise exc from failure
        raise
    finally:
        reading.cancel()
    return reading.pages


@contextlib.contextmanager
def _interrupt_deferred():
    """Ctrl-C waits until the block is done, then takes effect as usual.

    A CSV renamed into place whose stamp was never written would be converted again on
    resume; holding the interrupt for the two writes keeps "stamped" meaning "done".
    Only the main thread can hold it (worker processes run tasks there).
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    import signal  # lazy: only a worker writing an output needs it

    caught = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if caught:
            signal.raise_signal(signal.SIGINT)  # whatever the restored handler does with it


# A Sandbox runs one parser at a time, so each concurrent worker (thread or process) needs
# its own; idle ones are kept for the next file (starting one costs a pandas import).
_IDLE: list = []
_IDLE_LOCK = threading.Lock()
_IDLE_OWNER = [os.getpid()]


@contextlib.contextmanager
def _borrowed_sandbox():
    with _IDLE_LOCK:
        if _IDLE_OWNER[0] != os.getpid():  # a forked worker: the parent's servers are not ours
            _IDLE.clear()
            _IDLE_OWNER[0] = os.getpid()
        box = _IDLE.pop() if _IDLE else None
    if box is None:
        import atexit  # lazy: keeps import dua fast

        from ..sandbox import Sandbox  # lazy: only a worker needs it

        box = Sandbox()
        atexit.register(box.close)
    try:
        yield box
    finally:
        with _IDLE_LOCK:
            _IDLE.append(box)


def write_csv_atomically(frame, path: str) -> None:
    """The frame as CSV at ``path``: a file never half-written, a device or a pipe written
    in place (see dua.outputs.write_output)."""
    from ..outputs import write_output  # lazy: only a file with an output needs it

    write_output(path, frame if isinstance(frame, str) else
                 (lambda fh: frame.to_csv(fh, index=False)))


def failure(task, exc: BaseException, seconds: float) -> dict:
    """A failed file's result: the error by class name and message, and its feedback."""
    from ..cli import feedback_for  # lazy: only on the error path

    error = exc if isinstance(exc, errors.DuaError) else errors.UnexpectedError(
        f"{type(exc).__name__}: {errors.excerpt(str(exc), 300)} (at {_where(exc)})",
        exception=type(exc).__name__)
    no_agent(error, task.pdf_path)
    try:
        feedback = feedback_for(error, AGENT_ID)
    except Exception as fb_exc:  # the Error Handler failing must not lose the file's own error
        feedback = {"user_message": error.user_message, "error_code": error.error_code,
                    "handler_error": f"{type(fb_exc).__name__}: {fb_exc}"}
    return {"index": task.index, "status": "failed", "rows": 0, "seconds": seconds,
            "error": {"exception": type(error).__name__, "message": error.message},
            "feedback": feedback}


def _where(exc: BaseException) -> str:
    """The innermost frame of dua's own code the exception went through: what a bug report
    needs, and all that crosses back from a worker process."""
    import traceback  # lazy: only a bug needs it

    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}dua{os.sep}" in f.filename] or frames[-1:]
    if not ours:
        return "?"
    frame, marker = ours[-1], f"{os.sep}dua{os.sep}"
    name = "dua/" + frame.filename.rsplit(marker, 1)[1] if marker in frame.filename \
        else frame.filename
    return f"{name}:{frame.lineno} in {frame.name}"


def no_agent(error: errors.DuaError, pdf_path: str) -> None:
    """Tell the Error Handler that nothing here refines a failing parser (there is no agent
    in a batch), so that its feedback says what the user can do instead."""
    if isinstance(error, (errors.GeneratedCodeError, errors.VerificationError)):
        error.details = {**error.details, "refinements_left": 0, "agent": False}
    if isinstance(error, errors.GeneratedCodeError):
        error.hint = (f"Write a parser for this layout: python -m dua parse {pdf_path} "
                      "--bank NAME, then run that one.")
