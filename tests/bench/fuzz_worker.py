"""One process of the fuzz benchmark: runs dua commands in-process, one job a line, and says how
each ended (``python -m tests.bench.fuzz_worker``; spoken to by ``bench_fuzz`` only).

In-process, so that an exception's traceback can be seen where it happened; the benchmark
kills the whole process (its own session) when a job runs past its budget, and starts another.
A job is ``{"id", "argv", "cwd"}``; its answer ``{"id", "code", "seconds", "outcome", ...}``
where outcome is ok (exit 0 or 1), typed (a dua error that is not a bug) or untyped.
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback


def main() -> int:
    answers = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # what the commands print is not the benchmark's business
    os.dup2(devnull, 2)
    from dua import batch, cli, errors

    seen: list = []
    original, batch_run = cli.report_error, batch.run

    def report_error(exc, args):
        seen.append(exc)
        return original(exc, args)

    def run_batch(*args, **kwargs):  # dua run reports a file's failure without raising it
        result = batch_run(*args, **kwargs)
        seen.extend(f.error for f in result.failed if f.error is not None)
        return result

    cli.report_error, batch.run = report_error, run_batch
    for line in sys.stdin:
        job = json.loads(line)
        seen.clear()
        os.chdir(job["cwd"])
        started = time.monotonic()
        try:
            code = cli.main(job["argv"])
        except BaseException as exc:  # noqa: BLE001 a crash past cli.main is untyped too
            seen.append(exc)
            code = -1
        answer = {"id": job["id"], "code": code, "seconds": round(time.monotonic() - started, 3)}
        answer.update(_outcome(code, seen[-1] if seen else None, errors))
        answers.write(json.dumps(answer) + "\n")
    return 0


def _outcome(code: int, exc, errors) -> dict:
    if exc is None:
        return {"outcome": "ok" if code in (0, 1) else "typed"}
    bug = not isinstance(exc, errors.DuaError) or isinstance(
        exc, (errors.UnexpectedError, errors.CoverageError))
    out = {"outcome": "untyped" if bug else "typed", "error": type(exc).__name__,
           "message": str(exc)[:300]}
    if bug:
        out["where"] = where(exc)
    return out


def where(exc: BaseException) -> str:
    """The innermost frame of dua's own code that the exception (or its cause) went through,
    then the innermost frame of all: ``dua/x.py:12 in f`` (a child's, from its details)."""
    told = getattr(exc, "details", {}).get("where") if hasattr(exc, "details") else None
    if told:
        return str(told)
    for _ in range(5):  # a wrapped exception: where the first one was raised
        inner = exc.__cause__ or exc.__context__
        if inner is None or inner.__traceback__ is None:
            break
        exc = inner
    frames = traceback.extract_tb(exc.__traceback__)
    ours = [f for f in frames if f"{os.sep}dua{os.sep}" in f.filename]
    parts = []
    for frame in ([ours[-1]] if ours else []) + ([frames[-1]] if frames else []):
        text = f"{_short(frame.filename)}:{frame.lineno} in {frame.name}"
        if text not in parts:
            parts.append(text)
    return " <- ".join(reversed(parts))


def _short(filename: str) -> str:
    for marker in (f"{os.sep}site-packages{os.sep}", f"{os.sep}lib{os.sep}python"):
        if marker in filename:
            return filename.split(marker, 1)[1]
    if f"{os.sep}dua{os.sep}" in filename:
        return "dua/" + filename.rsplit(f"{os.sep}dua{os.sep}", 1)[1]
    return filename


if __name__ == "__main__":
    sys.exit(main())
