"""How long dua's child processes live: never longer than the process that started them.

Every child dua starts (the bounded PDF reader, the sandbox server and each run it forks, the
batch workers) calls ``die_with_parent`` first, so that even a SIGKILL of dua, which no handler
of ours ever sees, ends them. Standard library only and no dua imports: the sandbox server,
run as a script, loads this file by path.
"""
from __future__ import annotations

import os
import signal
import sys

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
_WATCH_EVERY = 0.25  # seconds between looks at the parent, where the kernel cannot watch


def die_with_parent(parent: int, watch: bool = True) -> None:
    """End this process when ``parent`` (the pid that started it) ends, however it ends.

    On Linux the kernel sends SIGKILL when the parent thread that started this process
    exits (PR_SET_PDEATHSIG); dua's callers start a child from a thread that waits for it,
    so that thread outlives the child. Elsewhere a daemon thread watches ``getppid()``
    (unless ``watch`` is False: a process that forks keeps to one thread, and watches its
    parent its own way). Either way, a parent already gone before this call ends this
    process at once.
    """
    if not _kernel_watches() and watch:
        _watch_parent(parent)
    if os.getppid() != parent:  # the parent died before the kernel was told to watch it
        os._exit(1)


def _kernel_watches() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes  # lazy: only a child pays for it (about 3 ms)

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):  # no libc symbol to call: watch from a thread instead
        return False


def _watch_parent(parent: int) -> None:
    import threading  # lazy: Linux never needs it
    import time

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_WATCH_EVERY)
        os._exit(1)

    threading.Thread(target=watch, name="dua-parent-watch", daemon=True).start()


def limit_memory(extra: int) -> None:
    """Cap this process's address space at what it maps now plus ``extra`` bytes.

    Address space rather than data: it is the limit every Unix enforces, and pdfium and
    pdfminer reserve no large unused regions (measured: 58 MB mapped in all once they and
    pdfplumber have read a page with tables).
    A refused allocation is then a MemoryError in Python, or a failed call in pdfium.
    """
    try:
        import resource  # lazy: Unix only
    except ImportError:
        return
    limit = _mapped_bytes() + extra
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    except (ValueError, OSError):  # a platform that does not enforce it: the clock still does
        pass


def used_half_of(extra: int) -> bool:
    """Whether this process, capped by ``limit_memory(extra)``, grew by half of ``extra`` or
    more at its peak: a library that fails so near its cap may say anything (pdfminer,
    drawing without end, ends in a SystemError), but the want was memory."""
    try:
        import resource  # lazy: Unix only
        with open("/proc/self/status") as fh:
            peak = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmPeak:"))
    except (ImportError, OSError, ValueError, IndexError, StopIteration):
        return False
    cap = resource.getrlimit(resource.RLIMIT_AS)[0]
    return cap != resource.RLIM_INFINITY and peak - (cap - extra) >= extra // 2


def peak_within(extra: int) -> bool:
    """Whether this process's peak address space stands less than ``extra`` bytes above what
    it maps now (False where /proc cannot say)."""
    try:
        with open("/proc/self/status") as fh:
            found = {line.split(":")[0]: int(line.split()[1]) * 1024 for line in fh
                     if line.startswith(("VmPeak:", "VmSize:"))}
        return found["VmPeak"] - found["VmSize"] < extra
    except (OSError, ValueError, IndexError, KeyError):
        return False


def _mapped_bytes() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def kill(pid: int) -> None:
    """SIGKILL ``pid`` and reap it; a child already gone is fine."""
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass
