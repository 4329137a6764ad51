"""The run-time half of the fence, installed in each forked child: a PEP 578 audit hook and
resource limits, so that code which slips past the static check still cannot act.

Loaded by path inside the child (never through the dua package); standard library only.
"""
from __future__ import annotations

import os
import resource
import sys

# Whole families refused outright: network, processes, native code, pickles, the object graph.
DENIED_PREFIXES = ("socket.", "ctypes.", "subprocess.", "shutil.", "tempfile.", "sqlite3.",
                   "syslog.", "ftplib.", "smtplib.", "poplib.", "imaplib.", "nntplib.",
                   "telnetlib.", "http.client.", "winreg.", "msvcrt.", "_winapi.")
DENIED_EVENTS = frozenset({
    "os.system", "os.exec", "os.posix_spawn", "os.spawn", "os.fork", "os.forkpty",
    "os.kill", "os.killpg", "os.startfile", "signal.pthread_kill", "pty.spawn",
    "urllib.Request", "webbrowser.open", "pickle.find_class", "builtins.input",
    "builtins.breakpoint", "os.remove", "os.rmdir", "os.rename", "os.mkdir", "os.chmod",
    "os.chown", "os.chflags", "os.lchflags", "os.link", "os.symlink", "os.truncate",
    "os.utime", "os.setxattr", "os.removexattr", "os.putenv", "os.unsetenv",
    "resource.setrlimit", "resource.prlimit", "gc.get_objects", "gc.get_referrers",
    "gc.get_referents", "sys._current_frames", "sys.setprofile", "sys.settrace",
    "mmap.__new__", "fcntl.ioctl", "os.chroot", "os.setuid", "os.setgid",
})
UNAUDITED_EVENT = "dua.sandbox.unaudited"  # raised by the stand-ins for unaudited C calls
LISTING_EVENTS = frozenset({"os.listdir", "os.scandir", "glob.glob", "os.walk"})
# Harmless facts libraries read about the machine (pandas reads the cgroup CPU quota).
SYSTEM_READ_ROOTS = ("/sys/fs/cgroup", "/sys/devices/system/cpu")
SYSTEM_READ_FILES = ("/proc/cpuinfo", "/proc/meminfo", "/proc/self/cgroup",
                     "/proc/self/mountinfo", "/proc/self/statm", "/dev/null", "/dev/urandom",
                     "/etc/localtime", "/etc/timezone")
_WRITE_MODE = set("wax+")
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


class Guard:
    """Decides each audit event; records every refusal with the parser line that caused it."""

    def __init__(self, parser_path: str, read_files: list, read_roots: list,
                 refused: list) -> None:
        self.parser_path = parser_path
        # realpath here, in the child, so that /proc/self resolves to this process
        self.read_files = frozenset(os.path.realpath(p)
                                    for p in [*read_files, *SYSTEM_READ_FILES])
        self.read_roots = tuple(sorted({os.path.realpath(r).rstrip(os.sep) + os.sep
                                        for r in [*read_roots, *SYSTEM_READ_ROOTS] if r}))
        self.refused = refused  # shared with the child, which reports it

    def __call__(self, event: str, args: tuple) -> None:
        # Stateless on purpose: no "busy" flag a parser could flip. Our own bookkeeping only
        # raises sys._getframe, which decide() lets through, so there is no recursion.
        reason = self.decide(event, args)
        if reason:
            self.refuse(reason)

    def decide(self, event: str, args: tuple) -> str:
        """Why ``event`` is refused, or '' when it may go ahead."""
        if event == UNAUDITED_EVENT:
            return str(args[0]) if args else "this operation"
        if event == "open":
            return self._decide_open(*args[:3])
        if event in DENIED_EVENTS or event.startswith(DENIED_PREFIXES):
            return f"{_describe(event)} ({event}{_show(args)})"
        if event in LISTING_EVENTS and args and not self.may_read(args[0]):
            return f"listing the directory {_path(args[0])!r} is not allowed"
        return ""

    def _decide_open(self, path: object, mode: object = None, flags: object = 0) -> str:
        writing = (isinstance(mode, str) and bool(_WRITE_MODE & set(mode))) or (
            isinstance(flags, int) and bool(flags & _WRITE_FLAGS))
        if writing:
            return f"opening {_path(path)!r} for writing is not allowed: a parser writes no file"
        if isinstance(path, int) or self.may_read(path):
            return ""
        return (f"reading {_path(path)!r} is not allowed: a parser reads only the PDF it is "
                "given (with pdfplumber.open(pdf_path))")

    def may_read(self, path: object) -> bool:
        if isinstance(path, int):
            return True
        try:
            real = os.path.realpath(os.path.abspath(_path(path)))
        except (TypeError, ValueError):
            return False
        return real in self.read_files or (real + os.sep).startswith(self.read_roots)

    def refuse(self, reason: str) -> None:
        line = self.parser_line()
        self.refused.append({"line": line, "col": 0, "reason": f"refused at run time: {reason}"})
        raise PermissionError(f"dua sandbox: {reason}")

    def parser_line(self) -> int:
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_filename == self.parser_path:
                return frame.f_lineno
            frame = frame.f_back
        return 0


# C functions that act without raising any audit event: replaced in the child by a refusal.
UNAUDITED = (
    ("posix", "mkfifo", "creating a file"), ("posix", "mknod", "creating a file"),
    ("posix", "pidfd_open", "sending a signal"), ("posix", "chroot", "this operation"),
    ("signal", "pidfd_send_signal", "sending a signal"),
    ("_posixsubprocess", "fork_exec", "starting a process"),
)


def install(guard: Guard) -> None:
    """Arm the hook; it cannot be removed for the rest of the process's life (PEP 578).
    Also disarm the few dangerous calls that raise no audit event."""
    sys.addaudithook(guard)
    for module_name, name, what in UNAUDITED:
        module = sys.modules.get(module_name)
        if module is None:
            try:
                module = __import__(module_name)
            except ImportError:
                continue
        if hasattr(module, name):
            refusal = _refusal(f"{what} ({module_name}.{name})")
            setattr(module, name, refusal)
            if module_name == "posix" and hasattr(os, name):
                setattr(os, name, refusal)  # os re-exports posix's functions by reference


def _refusal(reason: str):
    # Raises an audit event of our own rather than holding the guard in a closure, where
    # __closure__ would lead a parser straight to it.
    def refused(*args, **kwargs):
        sys.audit(UNAUDITED_EVENT, reason)

    return refused


def set_limits(memory: int, cpu_seconds: int, open_files: int) -> None:
    """Cap address space (on top of what the pre-loaded libraries already map), CPU time,
    file size and open files; hard limits too, and the hook refuses raising them again."""
    _limit(resource.RLIMIT_AS, _mapped_bytes() + memory)
    _limit(resource.RLIMIT_CPU, cpu_seconds)
    _limit(resource.RLIMIT_FSIZE, 0)  # nothing may grow a file; pipes are not files
    _limit(resource.RLIMIT_NOFILE, open_files)
    if hasattr(resource, "RLIMIT_CORE"):
        _limit(resource.RLIMIT_CORE, 0)


def python_roots(extra: list) -> list:
    """The Python installation a parser (and pdfplumber, pandas) may read: prefixes, stdlib,
    site-packages, the dependencies' own folders and the time-zone database."""
    import site
    import sysconfig

    roots = [sys.prefix, sys.base_prefix, sys.exec_prefix, *extra, "/usr/share/zoneinfo"]
    roots += [sysconfig.get_paths().get(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")]
    roots += site.getsitepackages() if hasattr(site, "getsitepackages") else []
    try:
        import zoneinfo

        roots += list(zoneinfo.TZPATH)
    except ImportError:
        pass
    # "/" as a prefix would allow everything; a prefix that deep is not an installation
    return sorted({os.path.realpath(r) for r in roots
                   if r and os.path.isdir(r) and os.path.realpath(r) != os.sep})


def _limit(which: int, value: int) -> None:
    soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def _mapped_bytes() -> int:
    """Current virtual size: the forked child starts with the server's pandas mappings."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 1 << 30


def _path(path: object) -> str:
    if isinstance(path, int):
        return f"<fd {path}>"
    return os.fsdecode(os.fspath(path))


def _show(args: tuple) -> str:
    text = ", ".join(repr(a)[:80] for a in args[:2])
    return f": {text}" if text else ""


def _describe(event: str) -> str:
    family = event.split(".")[0]
    return {
        "socket": "network access", "urllib": "network access", "http": "network access",
        "subprocess": "starting a process", "pty": "starting a process",
        "ctypes": "loading native code", "pickle": "unpickling",
        "shutil": "changing files", "tempfile": "creating files",
    }.get(family, _OS_EVENTS.get(event, "this operation"))


_OS_EVENTS = {
    "os.system": "starting a process", "os.exec": "starting a process",
    "os.posix_spawn": "starting a process", "os.spawn": "starting a process",
    "os.fork": "forking", "os.forkpty": "forking", "os.kill": "sending a signal",
    "os.killpg": "sending a signal", "signal.pthread_kill": "sending a signal",
    "os.remove": "deleting a file", "os.rmdir": "deleting a directory",
    "os.rename": "moving a file", "os.mkdir": "creating a directory",
    "resource.setrlimit": "changing resource limits", "resource.prlimit": "changing resource limits",
    "builtins.input": "reading input", "gc.get_objects": "walking the object graph",
    "gc.get_referrers": "walking the object graph", "gc.get_referents": "walking the object graph",
}
