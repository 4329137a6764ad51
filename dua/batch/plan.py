"""Planning a batch before any file runs: the parser checked once, one task per PDF, and
where each CSV goes.
"""
from __future__ import annotations

import hashlib
import os
import uuid
from typing import Iterable, Mapping

from .. import errors
from .results import Task


def default_workers() -> int:
    """Usable CPUs. Each task waits on its own sandboxed child, which does the real work,
    so one worker per CPU keeps every core busy without oversubscribing."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def output_paths(pdf_paths: Iterable[str], out_dir: str, suffix: str = ".csv") -> dict:
    """``out_dir/<stem><suffix>`` per PDF; stems that collide get a short hash of their path."""
    import collections  # lazy: keeps import dua fast

    pdfs = list(pdf_paths)
    stems = [os.path.splitext(os.path.basename(p))[0] for p in pdfs]
    counts = collections.Counter(stems)  # not stems.count: 10,000 files would cost 10^8 steps
    paths = {}
    for pdf, stem in zip(pdfs, stems):
        if counts[stem] > 1:
            stem += "-" + hashlib.sha1(os.path.abspath(pdf).encode()).hexdigest()[:8]
        paths[pdf] = os.path.join(out_dir, stem + suffix)
    return paths


# Rows that did not pass their checks are written apart from the verified ones, under a name
# that says why (as dua parse keeps a failed run's rows in NAME.partial.csv): a folder's
# <name>.csv files are only ever rows that passed, or rows the user chose not to check.
APART = {"failed": "failed", "unverified": "unverified", "not checked": "unchecked"}


def verdict_path(output_path: str, check_status: str | None) -> str:
    """Where a file's rows go: ``output_path`` for rows that passed (or were not asked to be
    checked: ``check_status`` None), else ``<name>.<failed|unverified|unchecked>.csv``."""
    if check_status is None or check_status not in APART:
        return output_path
    return "%s.%s%s" % (os.path.splitext(output_path)[0], APART[check_status],
                        os.path.splitext(output_path)[1])


def check_parser(parser_path: str) -> None:
    """Fail once, before the batch, when the parser is missing or rejected by the policy.

    Raises:
        UsageError, PolicyViolationError
    """
    if not os.path.isfile(parser_path):
        raise errors.UsageError(f"No parser file at {parser_path}",
                                hint="Pass a parser written by dua parse: custom_parsers/<bank>_parser.py.")
    from ..sandbox.policy import check_source  # lazy: only a batch needs the checker
    from ..sandbox.runner import read_parser

    violations = check_source(read_parser(parser_path), parser_path)
    if violations:
        raise errors.PolicyViolationError(
            f"{parser_path} was rejected by the safety policy: {violations[0]}",
            violations=[str(v) for v in violations])


def plan(parser_path: str, pdf_paths: Iterable[str], out_dir: str | None = None,
         outputs: Mapping[str, str] | None = None, timeout: float = 60.0,
         password: str | None = None, allow_empty: bool = False,
         read_timeout: float | None = None, check_rows: bool = True, row_format: str = "csv",
         normalize: bool = False) -> list:
    """The tasks of a batch, in input order (``outputs`` maps a PDF to an explicit CSV path;
    ``row_format`` and ``normalize``: how the rows are written, see ``Task``).

    Raises:
        TypeError: ``pdf_paths`` is a single path. ValueError: a timeout out of range.
    """
    from ..sandbox import MAX_TIMEOUT, valid_timeout  # lazy: only a batch needs the sandbox

    for name, value in (("timeout", timeout), ("read_timeout", read_timeout)):
        if not valid_timeout(value) and not (name == "read_timeout" and value is None):
            raise ValueError(f"{name} must be a number of seconds in (0, {MAX_TIMEOUT:g}], "
                             f"not {value!r}")
    if isinstance(pdf_paths, (str, bytes)):  # a lone path would be iterated letter by letter
        raise TypeError("pdf_paths must be a list of paths, not a single path")
    pdfs = [os.fspath(p) for p in pdf_paths]
    suffix = "." + row_format
    targets = dict(outputs or (output_paths(pdfs, out_dir, suffix) if out_dir is not None
                               else {}))
    run_id = uuid.uuid4().hex
    return [Task(i, os.fspath(parser_path), pdf, targets.get(pdf), timeout, password, allow_empty,
                 read_timeout, check_rows, run_id, _apart_from(pdf, targets.get(pdf), suffix),
                 row_format, normalize)
            for i, pdf in enumerate(pdfs)]


def _apart_from(pdf: str, output: str | None, suffix: str = ".csv") -> str | None:
    """For a device or a pipe, which never grows a file beside it, the name in the current
    folder that rows which did not pass are written apart under (None: beside the output)."""
    from ..outputs import STREAM, kind  # lazy: only a batch with outputs needs it

    if not output or kind(output) != STREAM:
        return None
    return os.path.join(os.getcwd(), os.path.splitext(os.path.basename(pdf))[0] + suffix)
