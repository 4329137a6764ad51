"""The reading child of ``dua.pdf.bounded``: how it starts, what it runs, and the pipe between.

The child sends JSON lines: ``{"count": N}`` once pdfium has counted the pages (the default
budget grows with them), then one answer, ``{"pages": …}`` or ``{"error": …}``; a document's
(words, lines, tables) goes as ``{"marshal": N}`` and N bytes of marshal data, as JSON cost
more than reading a short file. A forked child that read well, with memory to spare, waits
for the next request on a pipe of its own (``serve``), which the process's next reading
takes rather than fork again (that cost more than a short file too: copied pages, a fresh
heap); a reading that fails, times out or is cancelled ends its child. Asked with SIGUSR1,
the child writes its Python stack to the answer pipe (faulthandler): what it was doing.
"""
from __future__ import annotations

import json
import marshal
import os
import re
import select
import signal
import sys
import time

from .. import lifetime
from .answer import (_LIBRARIES, _failed, _levels, _page_count, _read,  # noqa: F401
                     _set_levels, _translate, _typed)

_BOOT = ("import importlib, json, sys; request = json.loads(sys.stdin.readline()); "
         "sys.path[:] = request['sys_path']; "
         "sys.exit(importlib.import_module(request['module']).main_spawned(request))")
_FRAME = re.compile(rb'File "([^"]+)", line (\d+) in (\S+)')
_STACK_GRACE = 0.5  # seconds a stopped child gets to write its stack
_keep: list = []  # the stack's file object: faulthandler needs it alive
_idle: list = []  # (owner pid, forked child) waiting for its next request: one at most
# the collector's thresholds in a child: a pass once objects made outnumber those freed by
# 50000 (the default 700), the older generations every 20 passes of the one below (10)
_COLLECT_AT = (50000, 20, 20)
_PIPE_BYTES = 1 << 20  # the answer pipe's size where it can be set: Linux's default limit


def start(request: dict) -> Child:
    """A child reading ``request``: forked where no other thread runs, else a fresh interpreter.

    A fork copies only the calling thread; another one could hold a lock (the import lock,
    a logging handler's) that the copy would then wait for until its budget ran out.
    """
    import threading  # lazy: keeps import dua fast

    if hasattr(os, "fork") and threading.active_count() == 1:
        while _idle:
            child = _waiting()
            if child is not None and child.ask(request):
                return child
        return _forked(request)
    return _spawned(request)


def end_idle() -> None:
    """Stop the forked child waiting for a request, if any: the next reading forks anew."""
    while _idle:
        child = _waiting()
        if child is not None:
            child.stop()


def _waiting() -> Child | None:
    """The waiting child, taken; None where this process is a fork of its owner (a batch
    worker), which must not touch it: only its pipe ends are closed here."""
    owner, child = _idle.pop()
    if owner == os.getpid():
        return child
    for fd in (child.fd, child.requests):
        os.close(fd)
    return None


def _forked(request: dict) -> Child:
    _preload()
    read_end, write_end = os.pipe()
    _widen(read_end)
    inbox, outbox = os.pipe()  # the requests after the first
    pid = os.fork()
    if pid == 0:  # the copy: read, answer, and leave without running the parent's exit code
        status = 1
        try:
            os.close(read_end)
            os.close(outbox)
            status = serve(write_end, inbox, request)
        finally:
            os._exit(status)
    os.close(write_end)
    os.close(inbox)
    return Child(pid, read_end, requests=outbox)


def _widen(fd: int) -> None:
    """A 1 MB answer pipe where Linux allows it (64 KB by default): a batch's child writes a
    file's whole answer and goes on to the next while the parent types the last."""
    if sys.platform.startswith("linux"):
        import fcntl  # lazy: Linux only

        try:
            fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), _PIPE_BYTES)  # 3.10+ names it
        except OSError:  # past this user's pipe limit: the default pipe works, more slowly
            pass


def _preload() -> None:
    """Load here, once, what every forked child would otherwise load on its own (about
    100 ms a child where this process had no pdfplumber, 20 ms where it had)."""
    try:
        import pdfplumber  # noqa: F401  lazy: only a process that reads PDFs loads them
        import pypdfium2  # noqa: F401  (the page count)
    except ImportError:  # the child says what is missing
        return
    from . import content

    for paths in (True, False):  # compiled once here, not again in every child
        content._content_patterns(re, paths)


def _spawned(request: dict) -> Child:
    import subprocess  # lazy: only a process with other threads running spawns

    proc = subprocess.Popen([sys.executable, "-c", _BOOT], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, close_fds=True)
    # the request (its password too) goes through a pipe, never the command line; the
    # libraries' log levels go along (--quiet silences their warnings in the child too)
    line = dict(request, sys_path=[p for p in sys.path if p] or [""], module=__name__,
                log_levels=_levels())
    try:
        proc.stdin.write(json.dumps(line).encode() + b"\n")
        proc.stdin.close()
    except BrokenPipeError:  # it died at start; its end of the pipe tells
        pass
    return Child(proc.pid, proc.stdout.fileno(), proc)


class Child:
    """The parent's side: the child's messages, its stack on request, and its end."""

    def __init__(self, pid: int, fd: int, proc=None, requests: int | None = None) -> None:
        self.pid, self.fd, self.proc, self.requests = pid, fd, proc, requests
        self.buffer, self.scanned, self.eof, self.status = bytearray(), 0, False, None
        self.size: int | None = None  # the bytes of the marshal data announced
        self.peak = 0  # the child's peak resident bytes, once reaped

    def next_message(self, deadline: float) -> dict | None:
        """The next message, ``{"died": how}`` if the child ended without one, or None once
        ``deadline`` (time.monotonic) has passed and the pipe holds nothing more: what the
        child sent in time counts, though collected late (a file read ahead of its turn)."""
        while True:
            message = self._parsed()
            if message is not None:
                return message
            if self.eof:
                return {"died": self._ended()}
            left = max(deadline - time.monotonic(), 0.0)
            if not select.select([self.fd], [], [], left)[0]:
                return None
            chunk = os.read(self.fd, 1 << 20)
            if chunk:
                self.buffer += chunk
            else:
                self.eof = True

    def _parsed(self) -> dict | None:
        """The first whole message in the buffer, taken out of it; None while none is whole."""
        if self.size is not None:  # marshal data after its header
            if len(self.buffer) < self.size:
                return None
            data = bytes(self.buffer[:self.size])
            del self.buffer[:self.size]
            self.size = None
            try:
                message = marshal.loads(data)
            except (EOFError, ValueError, TypeError):  # answered as below
                message = None
            return message if isinstance(message, dict) else {
                "died": "it answered something that is not marshal data"}
        end = self.buffer.find(b"\n", self.scanned)
        if end < 0:
            self.scanned = len(self.buffer)
            return None
        line = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        self.scanned = 0
        try:
            message = json.loads(line)
        except ValueError:
            return {"died": "it answered something that is not JSON"}
        if isinstance(message, dict) and isinstance(message.get("marshal"), int):
            self.size = message["marshal"]
            return self._parsed()
        return message

    def ask(self, request: dict, queued: bool = False) -> bool:
        """Hand a waiting child its next request, or (``queued``) a busy one the request it
        reads after its answer; False where it cannot (a waiting child is stopped then)."""
        if self.requests is None:  # a fresh interpreter reads one request only
            return False
        line = memoryview(json.dumps(dict(request, log_levels=_levels())).encode() + b"\n")
        try:
            while line:
                line = line[os.write(self.requests, line):]
        except OSError:  # the child is gone: a busy one's answer may still be in the pipe
            if not queued:
                self.stop()
            return False
        return True

    def release(self, answer: dict) -> None:
        """Keep the child for the next reading where ``answer`` says it can, else stop it."""
        if (answer.pop("again", False) and not self.buffer and self.size is None
                and not self.eof and self.status is None and not _idle):
            _idle.append((os.getpid(), self))
        else:
            self.stop()

    def where(self) -> list:
        """The running child's Python stack, innermost first (``path:line in function``)."""
        try:
            os.kill(self.pid, signal.SIGUSR1)
        except ProcessLookupError:
            return []
        text, deadline = bytearray(), time.monotonic() + _STACK_GRACE
        while not self.eof:
            left = deadline - time.monotonic()
            wait = min(left, 0.1) if text else left  # the stack comes in one burst
            if wait <= 0 or not select.select([self.fd], [], [], wait)[0]:
                break
            chunk = os.read(self.fd, 1 << 16)
            text += chunk
            self.eof = not chunk
        return [f"{m[1].decode(errors='replace')}:{int(m[2])} in {m[3].decode(errors='replace')}"
                for m in _FRAME.finditer(bytes(text))]

    def stop(self) -> None:
        """Kill the child if it still runs, reap it, close the pipe (twice is fine)."""
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._reap()
        if self.fd is not None:
            if self.proc is not None:
                self.proc.stdout.close()
            else:
                os.close(self.fd)
            self.fd = None
        if self.requests is not None:
            os.close(self.requests)
            self.requests = None

    def _ended(self) -> str:
        """How the child ended: ``exit N``, or ``killed by SIGNAME`` and its peak memory."""
        code, peak = self._reap()
        if code >= 0:
            return f"exit {code}"
        return f"killed by {signal.Signals(-code).name} at {peak / (1 << 20):,.0f} MB"

    def _reap(self) -> tuple:
        """(exit code, or minus the signal; peak resident bytes)."""
        try:
            _, raw, usage = os.wait4(self.pid, 0)
        except ChildProcessError:  # reaped already
            raw, usage = 0, None
        code = -os.WTERMSIG(raw) if os.WIFSIGNALED(raw) else os.WEXITSTATUS(raw)
        self.status = code
        if self.proc is not None:
            self.proc.returncode = code  # reaped here: Popen must not wait for it again
        peak = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024) if usage else 0
        self.peak = peak
        return code, peak


# --- the child's side ----------------------------------------------------------------------

def main_spawned(request: dict) -> int:
    """A fresh interpreter's entry: answers go to a copy of stdout, and stdout itself to
    stderr, so that nothing a library prints can break the answer."""
    fd = os.dup(1)
    os.dup2(2, 1)
    _set_levels(request)
    return main(fd, request)


def main(fd: int, request: dict) -> int:
    """Read as ``request`` says and write the answer to ``fd``; 0 once it is written."""
    _begin(fd, request)
    _answer(fd, request, reusable=False)
    return 0


def serve(fd: int, inbox: int, request: dict) -> int:
    """A forked child's life: answer ``request``, then each request that comes on ``inbox``
    for as long as its answers say it serves again; 0 once it ends so."""
    _begin(fd, request)
    pending = bytearray()  # what came on inbox after the last request read
    while _answer(fd, request, reusable=True):
        request = _next_request(inbox, pending)
        if request is None:  # the parent closed the pipe, or is gone
            break
        _set_levels(request)
    return 0


def _begin(fd: int, request: dict) -> None:
    lifetime.die_with_parent(request["parent"])
    # Ctrl-C ends the child quietly, as it ends dua; but where dua ignores it (a job a shell
    # started in the background), so does its reader, or a Ctrl-C to the group would kill
    # the reader alone and dua would blame the file
    if signal.getsignal(signal.SIGINT) is not signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _answer_stack_requests(fd)
    _collect_seldom()


def _collect_seldom() -> None:
    """Fewer passes of the cycle collector while reading: pdfminer and the scan make and drop
    objects by the million, and at the default thresholds the collector took a fifteenth of
    a reading (Debian's TeX PDFs: 0.37 s of 5.5). What the child holds from its start (a
    fork's copy of the parent) stays out of the passes: it is never garbage here."""
    import gc  # lazy: only a child tunes it

    gc.freeze()
    gc.set_threshold(*_COLLECT_AT)


def _answer(fd: int, request: dict, reusable: bool) -> bool:
    """Read as ``request`` says and answer on ``fd``; whether the child serves again: pages
    read, with a peak low enough not to count against the next reading (``used_half_of``)."""
    memory = int(request["memory"])
    lifetime.limit_memory(memory)  # this reading's budget, over what the child maps now
    try:
        count = _page_count(request["path"], request.get("password"))
        if count is not None:
            _send(fd, {"count": count})
        answer = _read(request) if "ocr" not in request else _ocr(fd, request["ocr"])
    except BaseException as exc:  # the answer is the only way out: every failure is typed
        answer = _failed(exc, request)
    if answer is None:  # the failure's objects are freed now: a short answer fits
        answer = {"error": _typed(MemoryError(), request)}
    again = reusable and "pages" in answer and lifetime.peak_within(memory // 4)
    if again:
        answer["again"] = True
    try:
        _send(fd, answer, binary="pages" in answer and bool(request.get("graphics")))
    except MemoryError:  # the answer itself was too large to write down
        _send(fd, {"error": _typed(MemoryError(), request)})
        return False
    return again


def _next_request(inbox: int, pending: bytearray) -> dict | None:
    """The next request line on ``inbox`` (several may wait there: a batch's files queued
    on this child), ``pending`` keeping what came after it; None at the pipe's end."""
    while b"\n" not in pending:
        chunk = os.read(inbox, 1 << 16)
        if not chunk:
            return None
        pending += chunk
    line, _, rest = bytes(pending).partition(b"\n")
    pending[:] = rest
    return json.loads(line)


def _answer_stack_requests(fd: int) -> None:
    import faulthandler  # lazy: only a child needs it

    out = os.fdopen(os.dup(fd), "w")
    _keep.append(out)
    faulthandler.register(signal.SIGUSR1, file=out, all_threads=False)


def _ocr(fd: int, request: dict) -> dict:
    from . import scans

    return {"ocr": scans.make(request, lambda n, of: _send(fd, {"progress": [n, of]}))}


def _send(fd: int, message: dict, binary: bool = False) -> None:
    """``message`` as a JSON line, or (``binary``) as a header line and marshal data: a
    tenth of JSON's cost for a page's floats, and the same values. Marshal data from a
    child is no more to fear than the child: it is this program, forked."""
    data = None
    if binary:
        try:
            data = marshal.dumps(message)
        except ValueError:  # a value marshal cannot write: JSON says it as before
            data = None
    if data is not None:
        head = json.dumps({"marshal": len(data)}).encode() + b"\n"
        view = memoryview(head + data)
    else:
        view = memoryview(json.dumps(message, separators=(",", ":")).encode() + b"\n")
    while view:
        view = view[os.write(fd, view):]
