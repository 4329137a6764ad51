"""The parent side of sandboxed runs: the pre-loaded fork server, requests, typed outcomes.

``Sandbox`` owns one server process (``_child.py``) that imports pandas and pdfplumber once;
each run is a fresh forked child with its own limits. Results come back as JSON and are
rebuilt here; every outcome that is not a DataFrame becomes a ``dua.errors`` exception.
"""
from __future__ import annotations

import dataclasses
import math
import os
import sys
import threading
from typing import TYPE_CHECKING

from ..errors import DocumentNotFoundError, PolicyViolationError
from . import outcome
from .policy import check_source

if TYPE_CHECKING:
    import pandas

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_child.py")
MiB = 1 << 20
# The server's own folder lookups: where pandas, pdfplumber and their dependencies live.
_DEPENDENCIES = ("pandas", "numpy", "pdfplumber", "pdfminer", "dateutil", "PIL", "pypdfium2",
                 "charset_normalizer", "cryptography", "cffi", "tzdata", "six", "pytz")
_SERVER_GRACE = 15.0  # seconds past the parser's timeout before the server itself is suspect
# A day for one statement: anything longer is a hang, and huge values overflow time_t.
MAX_TIMEOUT = 86400.0


def valid_timeout(timeout: object) -> bool:
    """A parser timeout dua can honour: seconds in (0, MAX_TIMEOUT]."""
    return (not isinstance(timeout, bool) and isinstance(timeout, (int, float))
            and 0 < timeout <= MAX_TIMEOUT)


@dataclasses.dataclass(frozen=True)
class Limits:
    """What one run may use; every field is enforced in the child or by the server."""

    memory: int = 1024 * MiB        # address space on top of the pre-loaded libraries
    open_files: int = 64
    output_keep: int = 64 * 1024    # printed output kept for messages
    output_kill: int = 4 * MiB      # printed output that stops the run
    result: int = 64 * MiB          # characters of result JSON


@dataclasses.dataclass
class RunInfo:
    """What the last successful run printed and how long it took."""

    seconds: float
    output: str
    output_bytes: int


class Sandbox:
    """A fork server for running generated parsers; use as a context manager.

    ``run`` has the same contract as ``run_parser``. One run at a time per Sandbox (a lock
    serialises callers); use several Sandboxes to run in parallel.
    """

    def __init__(self, limits: Limits | None = None, python: str | None = None) -> None:
        self.limits = limits or Limits()
        self.python = python or sys.executable
        self.last_run: RunInfo | None = None
        self._server = None
        self._owner = os.getpid()
        self._lock = threading.Lock()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self, wait: bool = True) -> Sandbox:
        """Start the server now (otherwise the first run does); returns self.

        ``wait=False`` returns while the server is still importing: a caller with work of
        its own to do first (reading the statement, say) overlaps the two.
        """
        with self._lock:
            self._ensure_server()
            if wait:
                self._server.ready()
        return self

    def _ensure_server(self) -> None:
        from ._server import Server  # lazy: keeps import dua fast

        if self._owner != os.getpid():  # a forked copy: the server belongs to the parent
            if self._server is not None:
                self._server.abandon()
            self._server, self._owner = None, os.getpid()
        if self._server is not None and not self._server.alive():
            self._server.close()
            self._server = None
        if self._server is None:
            self._server = Server(self.python, CHILD, _dependency_paths())

    def close(self) -> None:
        """Stop the server; a later run starts a new one."""
        with self._lock:
            if self._server is not None and self._owner == os.getpid():
                self._server.close()
            self._server = None

    def run(self, parser_path: str, pdf_path: str, *, timeout: float = 60.0,
            password: str | None = None, static_check: bool = True,
            words: list | None = None) -> pandas.DataFrame:
        """Run ``parse(pdf_path)`` from ``parser_path`` in a fresh child; its DataFrame.

        ``static_check=False`` skips the syntax-tree check (the run-time fence still holds);
        it exists to test that second fence on its own. ``words`` is what
        ``dua.pdf.read_pages(pdf_path, password)`` returned to a caller that read the PDF
        already: a parser holding the word reader is handed it instead of a second reading.

        Raises:
            PolicyViolationError, ParserCrashedError, ParserTimeoutError, ResourceLimitError,
            BadReturnValueError, DocumentError (not found, not a PDF, encrypted, corrupt,
            no text layer)
        """
        if not valid_timeout(timeout):
            raise ValueError(f"timeout must be a number of seconds in (0, {MAX_TIMEOUT:g}], "
                             f"not {timeout!r}")
        parser_path, pdf_path = os.path.abspath(parser_path), os.path.abspath(pdf_path)
        source = read_parser(parser_path)
        if static_check:
            violations = check_source(source, os.path.basename(parser_path))
            if violations:
                raise outcome.policy_error(parser_path, violations, stage="static")
        from ..pdf import check_file  # lazy: keeps import dua fast

        check_file(pdf_path)
        with self._lock:
            self._ensure_server()
            header, meta, frame = self._request(parser_path, pdf_path, timeout, password,
                                                words)
        df = outcome.result(parser_path, pdf_path, timeout, self.limits, header, meta, frame)
        self.last_run = RunInfo(header.get("seconds", 0.0), header.get("output", ""),
                                header.get("output_bytes", 0))
        return df

    def _request(self, parser_path: str, pdf_path: str, timeout: float,
                 password: str | None, words: list | None) -> tuple:
        import shutil  # lazy: keeps import dua fast
        import tempfile

        workdir = tempfile.mkdtemp(prefix="dua-sandbox-")
        request = {"parser": parser_path, "pdf": pdf_path, "password": password,
                   "timeout": timeout, "workdir": workdir, "limits": self._limits(timeout)}
        if words is not None:
            request["words"] = words
        try:
            return self._server.request(request, timeout + _SERVER_GRACE)
        except BaseException:  # Ctrl-C or a dead server: the protocol is out of step; drop it
            self._server.close()
            self._server = None
            raise
        finally:
            shutil.rmtree(workdir, ignore_errors=True)

    def _limits(self, timeout: float) -> dict:
        lim = self.limits
        # CPU time a little past the wall clock, so that a busy loop ends as a timeout
        return {"memory": lim.memory, "cpu": int(math.ceil(timeout)) + 2, "files": lim.open_files,
                "output_keep": lim.output_keep, "output_kill": lim.output_kill,
                "result": lim.result}


def read_parser(path: str) -> str:
    """A parser's source, as Python itself would read it (a BOM from an editor is fine).

    Raises:
        DocumentNotFoundError, PolicyViolationError (not UTF-8 text)
    """
    if not os.path.isfile(path):
        raise DocumentNotFoundError(f"No such parser file: {path}", path=path)
    try:
        with open(path, encoding="utf-8-sig") as fh:
            return fh.read()
    except UnicodeDecodeError as exc:
        raise PolicyViolationError(f"{os.path.basename(path)} is not UTF-8 text: {exc}",
                                   path=path, violations=[], stage="static") from exc


def _dependency_paths() -> list:
    """Folders holding pandas, pdfplumber and their dependencies, found without importing."""
    import importlib.util  # lazy: keeps import dua fast

    found = []
    for name in _DEPENDENCIES:
        try:
            spec = importlib.util.find_spec(name)
        except (ImportError, ValueError):
            continue
        if spec is None:
            continue
        where = list(spec.submodule_search_locations or []) or [spec.origin or ""]
        folder = os.path.dirname(where[0].rstrip(os.sep))
        if folder and folder not in found:
            found.append(folder)
    return found


# --- the module-level default -----------------------------------------------------------

_default: Sandbox | None = None
_default_lock = threading.Lock()


def default_sandbox() -> Sandbox:
    """The shared Sandbox behind ``run_parser``, created on first use, closed at exit."""
    global _default
    with _default_lock:
        if _default is None:
            import atexit  # lazy: keeps import dua fast

            _default = Sandbox()
            atexit.register(_default.close)
        return _default


def run_parser(parser_path: str, pdf_path: str, *, timeout: float = 60.0,
               password: str | None = None, words: list | None = None) -> pandas.DataFrame:
    """Run a generated parser safely and return its DataFrame (see ``Sandbox.run``).

    Raises:
        PolicyViolationError, ParserCrashedError, ParserTimeoutError, ResourceLimitError,
        BadReturnValueError, DocumentError
    """
    return default_sandbox().run(parser_path, pdf_path, timeout=timeout, password=password,
                                 words=words)

