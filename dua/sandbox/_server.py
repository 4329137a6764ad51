"""The fork server process as the parent sees it: start, one request at a time, stop.

The protocol is JSON lines: the parent writes a request line; the server answers with a
header line followed by ``report_bytes`` bytes of the child's report (a JSON line, then
the result frame's JSON). Nothing is ever unpickled.
"""
from __future__ import annotations

import json
import os
import select
import subprocess
import tempfile
import time

from ..errors import GeneratedCodeError, MissingDependencyError

_START_TIMEOUT = 120.0  # importing pandas on a loaded 2-core machine can take a while


class Server:
    """One running ``_child.py`` server in isolated mode with a minimal environment."""

    def __init__(self, python: str, child: str, sys_path: list) -> None:
        import threading  # lazy: keeps import dua fast

        self._stderr = tempfile.TemporaryFile()
        # Linux ends the server when the thread that starts it ends: only the main thread
        # outlives every use of it. The server also ends at the end of its input (our death).
        config = json.dumps({"sys_path": sys_path, "parent": os.getpid(),
                             "die_with_parent": threading.current_thread() is
                             threading.main_thread()})
        try:
            self._proc = subprocess.Popen(
                [python, "-I", "-B", child, config], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=self._stderr, env=_minimal_env(), cwd=os.sep,
                close_fds=True)
        except OSError as exc:
            self._stderr.close()
            raise GeneratedCodeError(f"could not start the sandbox with {python}: {exc}",
                                     hint="Check the Python interpreter path.") from exc
        self._fd = self._proc.stdout.fileno()
        self._buffer, self._started, self.pid = b"", time.monotonic(), None

    def ready(self) -> None:
        """Wait for the server's greeting (it imports pandas first), once.

        Starting does not wait, so that a caller can start the server and go on with its
        own work while the server imports."""
        if self.pid is None:
            try:
                hello = self._read_line(self._started + _START_TIMEOUT, "starting")
            except BaseException:
                self.close()
                raise
            self.pid = json.loads(hello)["pid"]

    def alive(self) -> bool:
        return self._proc.poll() is None

    def request(self, request: dict, wait: float) -> tuple:
        """Send ``request``; (header, report meta, frame JSON text). GeneratedCodeError if the
        server dies or stalls (the caller then drops this server)."""
        self.ready()
        deadline = time.monotonic() + wait
        try:
            self._proc.stdin.write(json.dumps(request).encode() + b"\n")
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise self._died("accepting a run") from exc
        header = json.loads(self._read_line(deadline, "running the parser"))
        report = self._read_exact(int(header.pop("report_bytes")), deadline)
        meta_line, _, frame = report.partition(b"\n")
        meta = json.loads(meta_line) if meta_line else {}
        return header, meta, frame.decode("utf-8")

    def close(self) -> None:
        if self._proc.poll() is None:
            self._proc.stdin.close()  # the server exits at end of input
            try:
                self._proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        else:
            self._proc.stdin.close()
        self._proc.stdout.close()
        self._stderr.close()

    def abandon(self) -> None:
        """Forget a server inherited through fork: close our copies of its pipes, no more."""
        for pipe in (self._proc.stdin, self._proc.stdout, self._stderr):
            pipe.close()
        self._proc.returncode = 0  # not our child: Popen must never wait for it

    # --- reading with a deadline ---------------------------------------------------------

    def _read_line(self, deadline: float, doing: str) -> bytes:
        while b"\n" not in self._buffer:
            self._fill(deadline, doing)
        line, _, self._buffer = self._buffer.partition(b"\n")
        return line

    def _read_exact(self, n: int, deadline: float) -> bytes:
        while len(self._buffer) < n:
            self._fill(deadline, "returning the result")
        data, self._buffer = self._buffer[:n], self._buffer[n:]
        return data

    def _fill(self, deadline: float, doing: str) -> None:
        left = deadline - time.monotonic()
        ready = select.select([self._fd], [], [], max(left, 0))[0] if left > 0 else []
        if not ready:
            self._proc.kill()
            raise GeneratedCodeError(f"the sandbox server stalled while {doing}",
                                     hint="Retry; if it persists, re-run with --debug.")
        chunk = os.read(self._fd, 1 << 20)
        if not chunk:
            raise self._died(doing)
        self._buffer += chunk

    def _died(self, doing: str) -> Exception:
        try:
            self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
        self._stderr.seek(0)
        tail = self._stderr.read()[-2000:].decode("utf-8", "replace").strip()
        last = tail.splitlines()[-1] if tail else ""
        if last.startswith(("ModuleNotFoundError", "ImportError")):
            return MissingDependencyError(f"the sandbox cannot import its libraries: {last}",
                                          stderr=tail)
        return GeneratedCodeError(
            f"the sandbox server stopped while {doing} (exit {self._proc.returncode})"
            + (f": {tail.splitlines()[-1]}" if tail else ""),
            stderr=tail, hint="Check that pandas and pdfplumber import in this Python.")


def _minimal_env() -> dict:
    """No inherited secrets (DUA_LLM_API_KEY…), one BLAS thread (forking after threads
    start is unsafe), a UTF-8 locale."""
    return {"PATH": os.defpath, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
            "NUMEXPR_MAX_THREADS": "1", "HOME": os.sep}
