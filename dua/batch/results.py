"""What a batch hands around: a file's task, its result, progress snapshots and the whole result.

All of it is plain data: a Task crosses into any executor's workers, and a result comes back
as a dict that ``FileResult`` is rebuilt from (no executor ever ships an exception).
"""
from __future__ import annotations

import dataclasses

from .. import errors


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
    read_timeout: float | None = None  # seconds to read the PDF (None: dua.pdf's default)
    check_rows: bool = True  # put the rows to the statement's own checks (see checks.py)
    # Which run this is: converting writes files, so two runs of one file are two pieces of
    # work, but an executor that caches by arguments (Dask's takes a function as pure unless
    # told otherwise) would hand a rerun the first run's result and write nothing.
    run_id: str = ""
    # where rows that did not pass go when the output is a device or a pipe (those never
    # grow a file beside them): the planned name in the folder the batch was started from
    apart_from: str | None = None
    row_format: str = "csv"  # csv | jsonl | ofx | qif (see dua.statements.output.formats)
    normalize: bool = False  # the rows in the common schema (ofx and qif always are)


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
    check: dict | None = None  # the rows' own checks (checks.rows_check); None: not run

    @property
    def check_status(self) -> str | None:
        """passed | failed | unverified | not checked, for a converted or skipped file (a
        skipped one says what its check said when it was converted); None for a failed one."""
        if self.status == "failed":
            return None
        return (self.check or {}).get("status", "not checked")

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    def to_dict(self) -> dict:
        doc = {"pdf_path": self.pdf_path, "status": self.status, "rows": self.rows,
               "seconds": round(self.seconds, 3), "output_path": self.output_path}
        if self.status != "failed":
            doc["check"] = self.check or {"status": "not checked",
                                          "summary": "the rows' checks were not asked for"}
        if self.error is not None:
            doc["error"] = {"error_type": self.error.error_type, "error_code": self.error.error_code,
                            "exception": type(self.error).__name__, "message": self.error.message}
            doc["feedback"] = self.feedback
        return doc

    @classmethod
    def from_worker(cls, task: Task, doc: dict) -> FileResult:
        """The result of a task from the plain dict a worker sent back."""
        error = _rebuild_error(doc["error"]) if doc.get("error") else None
        output = doc.get("output_path", task.output_path) if doc["status"] != "failed" else None
        return cls(task.pdf_path, doc["status"], doc.get("rows", 0), doc.get("seconds", 0.0),
                   output, error,
                   doc.get("feedback"), doc.get("frame"), doc.get("check"))


def _rebuild_error(info: dict) -> errors.DuaError:
    """The typed error back from its name (results cross process boundaries as plain data)."""
    cls = getattr(errors, info.get("exception", ""), None)
    if not (isinstance(cls, type) and issubclass(cls, errors.DuaError)):
        cls = errors.UnexpectedError
    return cls(info.get("message", ""))


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
        checks = [r.check_status for r in self.results if r.check_status]
        return {"files": len(self.results), **count, "rows": sum(r.rows for r in self.results),
                "checks": {s: checks.count(s) for s in
                           ("passed", "unverified", "failed", "not checked")},
                "seconds": round(self.seconds, 3),
                "files_per_second": round(ran / self.seconds, 3) if self.seconds > 0 else 0.0}

    def exit_code(self) -> int:
        """The most severe failure's code (3 bad PDF, 4 parser); else 1 when some file's rows
        did not pass the statement's own checks (failed, unverified, or not checked, whether
        they could not be or were not asked to be), else 0: only rows that passed exit 0."""
        codes = [r.error.exit_code for r in self.failed if r.error is not None]
        if any(r.check_status not in (None, "passed") for r in self.results):
            codes.append(errors.EXIT_NOT_VERIFIED)
        return max(codes, default=errors.EXIT_OK)

    @property
    def not_passed(self) -> list:
        """The files that converted (now or before) but whose rows did not pass their checks."""
        return [r for r in self.results if r.check_status not in (None, "passed")]

    def to_dict(self) -> dict:
        # "converted" says what it means: the parser ran on every file; what the rows were
        # checked against is each file's "check", counted in total["checks"]
        return {"status": "converted" if self.ok else "failed",
                "files": [r.to_dict() for r in self.results], "total": self.total()}
