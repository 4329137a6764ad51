"""Where dua writes its results: what a destination is, checks before any work, one writer.

A run that can only fail at its last step (writing the CSV) wastes the whole run, and a
half-written file is worse than none; so destinations are checked up front, a file appears
whole by a rename or not at all, and a device or a pipe is written where it is, never
renamed over (that would replace ``/dev/null`` itself).
"""
from __future__ import annotations

import errno
import os
import re
import stat
import sys
import time
from typing import Callable, Iterable, Union

from .errors import OutputClosedError, OutputError, UsageError

STDOUT = "-"
Content = Union[str, Callable]  # the text, or fn(fh) that writes it (pandas' to_csv)

# What a destination is (``kind``): written whole by a rename, or written in place.
FILE, STREAM, FOLDER, OTHER = "file", "stream", "folder", "other"
_FD_TABLE = re.compile(r"/proc/(\d+)/fd\Z")
# Errors that say where the output goes is unusable (the user's to fix), not the data.
_UNUSABLE = (errno.EACCES, errno.EPERM, errno.EROFS, errno.EEXIST, errno.ENOTDIR, errno.EISDIR,
             errno.ENOENT, errno.ELOOP, errno.ENAMETOOLONG, errno.ENXIO)


def kind(path: str) -> str:
    """What ``path`` is as an output: FILE (a regular file, new or existing, or a link to one),
    STREAM (``-``, a character device such as ``/dev/null``, a named pipe, or one of this
    process's open files such as ``/dev/stdout``), FOLDER, or OTHER (a socket, a block device).

    Raises:
        UsageError: the path cannot even be looked at (a loop of links, no permission).
    """
    if path == STDOUT:
        return STREAM
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # new (or below a file: check_folder says)
        return FILE
    except OSError as exc:
        raise _unusable(path, exc) from exc
    if stat.S_ISDIR(mode):
        return FOLDER
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode):
        return STREAM
    if stat.S_ISREG(mode):  # /dev/stdout sent to a file by the shell is still that open file
        return STREAM if _own_fd(path) is not None else FILE
    return OTHER


def check_folder(path: str, what: str, shown: str | None = None) -> None:
    """A folder dua may create and write in.

    Raises:
        UsageError: ``path`` (or a folder above it) is a file, or it cannot be written.
    """
    if path == STDOUT:
        raise UsageError(f"{what} takes a folder, not -", hint=f"Pass {what} a folder path.")
    folder = os.path.abspath(path or ".")
    probe = folder
    while not os.path.lexists(probe):  # the nearest part that exists decides
        probe = os.path.dirname(probe)
    shown = shown or path
    if not os.path.isdir(probe):
        raise UsageError(f"{what} {shown}: {probe} is a file, not a folder",
                         hint=f"Pass {what} a path in a folder.")
    if not os.access(probe, os.W_OK | os.X_OK) or not _can_create_in(probe):
        raise UsageError(f"{what} {shown}: {probe} is not writable",
                         hint=f"Pass {what} a path in a folder you can write to.")


def _can_create_in(folder: str) -> bool:
    """Whether a file can really be made in ``folder``: permission bits say yes to root in
    /proc or on a read-only mount, where only the attempt tells (and a run's end is too
    late to learn it)."""
    import tempfile  # lazy: only a check of a destination needs it

    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".dua-probe-")
    except OSError:
        return False
    os.close(fd)
    os.remove(probe)
    return True


def require_folder(path: str | None, what: str, mkdir: bool, folder: bool = False) -> None:
    """The folder an output goes in must exist, unless ``mkdir`` (the user's --mkdir) says
    to create it: a typo in a path must not grow a tree of folders silently. An output that
    is a folder (``folder``: --out-dir) is made when missing, as it is what the user named,
    but never the folders above it.

    Raises:
        UsageError
    """
    if not path or path == STDOUT or mkdir:
        return
    where = os.path.dirname(os.path.abspath(path))
    if not os.path.lexists(where):
        raise UsageError(f"{what} {path}: the folder {where} does not exist",
                         hint="Create it, or pass --mkdir to let dua create it.")


def check_file(path: str, what: str, streams: bool = True) -> None:
    """A destination dua may write: a file in a folder it can write, or (with ``streams``)
    ``-``, a character device or a named pipe, which need no folder at all.

    Raises:
        UsageError: ``path`` is a folder, a socket or a block device, lies below a file, or
        its folder cannot be made or written; or it is a stream where a file must be read
        back later (``streams`` False: a checkpoint, a parser, a store).
    """
    found = kind(path)
    if found == FOLDER:
        raise UsageError(f"{what} {path} is a folder, not a file",
                         hint=f"Pass {what} a file path.")
    if found == OTHER:
        raise UsageError(f"{what} {path} is neither a file, a character device nor a named pipe",
                         hint=f"Pass {what} a file path.")
    if found == STREAM:
        if not streams:
            raise UsageError(f"{what} {path} is not a file: dua reads it back later",
                             hint=f"Pass {what} a file path.")
        return
    check_folder(os.path.dirname(os.path.realpath(path)), what, shown=path)  # where the temp goes


def check_not_an_input(path: str | None, what: str, inputs: Iterable) -> None:
    """An output must not overwrite what the run reads (the PDF, the answer key, the parser).

    Raises:
        UsageError
    """
    if path is not None:
        check_none_is_an_input((path,), what, inputs)


def check_none_is_an_input(paths: Iterable, what: str, inputs: Iterable) -> None:
    """``check_not_an_input`` for many outputs at once (a batch's), in one pass over each list.

    Inputs and outputs are compared as files (device and inode: links, ``./`` and hard links
    are caught); a stream is never an input, so two spellings of ``/dev/null`` are harmless.

    Raises:
        UsageError
    """
    sources = {_file_id(p) for p in inputs if p and p != STDOUT} - {None}
    for path in paths:
        if sources and kind(path) == FILE and _file_id(path) in sources:
            raise UsageError(f"{what} {path} is an input of this run; writing it would destroy it",
                             hint=f"Pass {what} a path of its own.")


def _file_id(path: str) -> tuple | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def check_apart(outputs: Iterable) -> None:
    """Two outputs of one run (``(path, what)`` pairs) must not be one file.

    Raises:
        UsageError
    """
    files = [(path, what) for path, what in outputs if path and kind(path) == FILE]
    for i, (path, what) in enumerate(files):
        for other, other_what in files[i + 1:]:
            if same_file(path, other):
                raise UsageError(f"{what} {path} is also {other_what}: one would overwrite the other",
                                 hint=f"Pass {what} a path of its own.")


def same_file(a: str, b: str) -> bool:
    """One file under two spellings (links, ``./``, hard links); paths not made yet compare
    by where they would be made."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.realpath(a) == os.path.realpath(b)


def write_output(path: str, content: Content) -> None:
    """Write one of dua's outputs to ``path``, whatever kind of file the user named.

    A regular file (new or existing) appears whole by a rename (``write_atomically``); a
    symbolic link stays a link, and the file it points to is replaced that way; ``-`` is
    standard output; a character device (``/dev/null``, a terminal), a named pipe or one of
    this process's open files (``/dev/stdout``, ``/dev/fd/3``) is written in place.

    Raises:
        UsageError: the destination cannot be written. OutputClosedError: the reader of a
        pipe went away before the output was whole. OutputError: the system failed the write.
        BrokenPipeError: for ``-`` (the CLI ends quietly, as ``| head`` expects).
    """
    if path == STDOUT:
        _write(sys.stdout, content)
        return
    found = kind(path)
    if found in (FOLDER, OTHER):
        raise UsageError(f"Cannot write {path}: it is not a file, a character device or a pipe",
                         hint="Pass a file path such as out.csv.")
    if found == STREAM and _write_in_place(path, content):
        return
    write_atomically(os.path.realpath(path), content)


def end_stream(path: str | None) -> None:
    """Close a stream destination that gets no output (a failed run), so that a program
    reading a named pipe sees its end instead of waiting forever; files are left alone."""
    if path and path != STDOUT and kind(path) == STREAM:
        _write_in_place(path, "")


def _own_fd(path: str) -> int | None:
    """The descriptor number when ``path`` names one of this process's open files
    (``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``): writing it must share that
    file's offset, not reopen (truncate, or overwrite) what the shell redirected."""
    here = os.path.abspath(path)
    for _ in range(40):  # the kernel's own limit on a chain of links
        table = _FD_TABLE.match(os.path.realpath(os.path.dirname(here)))
        name = os.path.basename(here)
        if table and int(table.group(1)) == os.getpid() and name.isdigit():
            return int(name)
        if not os.path.islink(here):
            return None
        here = os.path.join(os.path.dirname(here), os.readlink(here))
    return None


def _write_in_place(path: str, content: Content) -> bool:
    """Write a device, a pipe or an open file where it is; False when the path turned out to
    be a plain file after all (replaced since it was looked at): the caller renames instead."""
    own = _own_fd(path)
    for std in (sys.stdout, sys.stderr):  # what dua printed before comes first on a shared fd
        if std is not None:
            std.flush()
    try:  # no O_CREAT, no O_TRUNC: a device that vanished must not come back as a file
        fd = os.dup(own) if own is not None else os.open(path, os.O_WRONLY | os.O_NOCTTY)
    except OSError as exc:
        raise _unusable(path, exc) from exc
    if own is None and stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return False
    fh = os.fdopen(fd, "w", encoding="utf-8", newline="")
    try:
        _write(fh, content)
    except BrokenPipeError as exc:
        raise OutputClosedError(f"The reader of {path} went away before the output was whole",
                                path=path) from exc
    except OSError as exc:
        raise _failed(path, exc) from exc
    finally:
        try:
            fh.close()
        except OSError:
            pass  # reported above, or the reader left just after the last byte
    return True


def _write(fh, content: Content) -> None:
    if isinstance(content, str):
        fh.write(content)
    else:
        content(fh)
    fh.flush()


def write_atomically(path: str, content: Content) -> None:
    """Write ``content`` (text, or ``fn(fh)`` that writes it) to a file with no name yet (or a
    hidden temporary one) beside ``path``, then rename it over ``path``: readers see the old
    file or the new one, never half of one, and a crash leaves the old file as it was.

    Raises:
        UsageError: the folder cannot be made or the file cannot be written there.
        OutputError: the system failed the write (a full disk). Anything ``content`` raises.
    """
    folder = os.path.dirname(os.path.abspath(path))
    try:
        os.makedirs(folder, exist_ok=True)
        mode = stat.S_IMODE(os.stat(path).st_mode) if os.path.isfile(path) else None
        fd, tmp = _temp_file(folder, path)
    except OSError as exc:
        raise _unusable(path, exc) from exc
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            if mode is not None:
                os.fchmod(fh.fileno(), mode)  # a replaced file keeps its permissions
            _write(fh, content)
            os.fsync(fh.fileno())  # the rename must not overtake the data after a crash
            if tmp is None:  # named only now, whole: a kill before this leaves nothing
                tmp = _name_unnamed(fh.fileno(), folder, path)
        os.replace(tmp, path)
    except BaseException as exc:
        if tmp is not None and os.path.lexists(tmp):
            os.remove(tmp)
        if isinstance(exc, OSError) and not isinstance(exc, OutputError):
            raise _failed(path, exc) from exc
        raise


def _temp_file(folder: str, path: str) -> tuple:
    """(fd, None) for an unnamed file in ``folder`` (Linux O_TMPFILE), else (fd, its name)."""
    if hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd"):
        try:
            return os.open(folder, os.O_TMPFILE | os.O_WRONLY, 0o666), None
        except OSError as exc:
            if exc.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                raise  # the folder's fault: a named file would fail the same way
    tmp = _temp_name(folder, path)
    return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666), tmp


def _name_unnamed(fd: int, folder: str, path: str) -> str:
    tmp = _temp_name(folder, path)
    folder_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:  # linkat(AT_SYMLINK_FOLLOW): os.link passes the flag only when given a folder fd
        os.link(f"/proc/self/fd/{fd}", os.path.basename(tmp), dst_dir_fd=folder_fd)
    finally:
        os.close(folder_fd)
    return tmp


def _temp_name(folder: str, path: str) -> str:
    return os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{time.monotonic_ns()}.tmp")


def _unusable(path: str, exc: OSError) -> UsageError:
    return UsageError(f"Cannot write {path}: {exc.strerror or exc}",
                      hint="Pass an output path in a folder you can write to.")


def _failed(path: str, exc: OSError) -> Exception:
    """A write that failed: the destination's fault (usage) or the system's (a full disk)."""
    if exc.errno in _UNUSABLE or isinstance(exc, (PermissionError, IsADirectoryError)):
        return _unusable(path, exc)
    return OutputError(f"Cannot finish writing {path}: {exc.strerror or exc}", path=path)

