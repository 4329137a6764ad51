"""Where dua writes its results: destination checks before any work, and atomic writes.

A run that can only fail at its last step (writing the CSV) wastes the whole run, and a
half-written file is worse than none; so destinations are checked up front and every
file appears whole by a rename, or not at all.
"""
from __future__ import annotations

import os
import stat
import sys
import time
from typing import Callable, Union

from .errors import OutputClosedError, UsageError


def check_folder(path: str, what: str, shown: str | None = None) -> None:
    """A folder dua may create and write in.

    Raises:
        UsageError: ``path`` (or a folder above it) is a file, or it cannot be written.
    """
    folder = os.path.abspath(path or ".")
    probe = folder
    while not os.path.exists(probe):  # the nearest part that exists decides
        probe = os.path.dirname(probe)
    shown = shown or path
    if not os.path.isdir(probe):
        raise UsageError(f"{what} {shown}: {probe} is a file, not a folder",
                         hint=f"Pass {what} a path in a folder.")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise UsageError(f"{what} {shown}: {probe} is not writable",
                         hint=f"Pass {what} a path in a folder you can write to.")


def check_file(path: str, what: str) -> None:
    """A file path dua may (over)write.

    Raises:
        UsageError: ``path`` is a folder, or its folder cannot be made or written.
    """
    if os.path.isdir(path):
        raise UsageError(f"{what} {path} is a folder, not a file",
                         hint=f"Pass {what} a file path such as out.csv.")
    check_folder(os.path.dirname(path) or ".", what, shown=path)


def check_not_an_input(path: str, what: str, inputs) -> None:
    """An output must not overwrite what the run reads (the PDF, the answer key, the parser).

    Raises:
        UsageError
    """
    for source in inputs:
        if source and os.path.exists(path) and os.path.exists(source) \
                and os.path.samefile(path, source):  # samefile: links and other spellings too
            raise UsageError(f"{what} {path} is an input of this run; writing it would destroy it",
                             hint=f"Pass {what} a path of its own.")


def write_output(path: str, content: Union[str, Callable]) -> None:
    """Write one of dua's outputs to ``path``, whatever kind of file the user named.

    A regular file (new or existing) appears whole by a rename (``write_atomically``); a
    symbolic link keeps being a link, and the file it points to is replaced that way; ``-``
    is standard output; a character device (``/dev/null``, ``/dev/stdout``, a terminal) or a
    named pipe is opened and written in place, since renaming over it would replace the
    device node itself.

    Raises:
        UsageError: the destination cannot be written. OutputClosedError: the reader of a
        pipe (or of standard output) went away before the output was whole.
    """
    if path == "-":  # a reader that stops early (| head) ends dua quietly, as json.tool does
        _write(sys.stdout, content)
        return
    target = os.path.realpath(path)  # a link's file is replaced, the link stays
    try:
        mode = os.stat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}",
                         hint="Pass an output path in a folder you can write to.") from exc
    if mode is not None and not stat.S_ISREG(mode):
        if stat.S_ISDIR(mode):
            raise UsageError(f"Cannot write {path}: it is a folder, not a file",
                             hint="Pass a file path such as out.csv.")
        _write_in_place(path, content)
        return
    write_atomically(target, content)


def is_special(path: str) -> bool:
    """True for ``-`` and for anything that exists and is neither a regular file nor a folder
    (a device, a pipe): such an output is written in place and never compared with inputs."""
    if path == "-":
        return True
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    return not stat.S_ISREG(mode) and not stat.S_ISDIR(mode)


def _write_in_place(path: str, content: Union[str, Callable]) -> None:
    try:
        fh = open(path, "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise UsageError(f"Cannot write {path}: {exc.strerror or exc}",
                         hint="Pass an output path you can write to.") from exc
    try:
        _write_stream(fh, content, path)
    finally:
        try:
            fh.close()
        except BrokenPipeError:
            pass  # reported by _write_stream already, or the reader left at the very end


def _write(fh, content: Union[str, Callable]) -> None:
    if isinstance(content, str):
        fh.write(content)
    else:
        content(fh)
    fh.flush()


def _write_stream(fh, content: Union[str, Callable], shown: str) -> None:
    try:
        _write(fh, content)
    except BrokenPipeError as exc:
        raise OutputClosedError(f"The reader of {shown} went away before the output was whole",
                                path=shown) from exc


def write_atomically(path: str, content: Union[str, Callable]) -> None:
    """Write ``content`` (text, or ``fn(fh)`` that writes it) to a temporary file beside
    ``path``, then rename: readers never see half a file.

    Raises:
        UsageError: the folder cannot be made or the file cannot be written.
    """
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{os.getpid()}.{time.monotonic_ns()}.tmp")
    try:
        os.makedirs(folder, exist_ok=True)
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            _write(fh, content)
            os.fsync(fh.fileno())  # the rename must not overtake the data after a crash
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.remove(tmp)
        if isinstance(exc, (FileExistsError, NotADirectoryError, IsADirectoryError,
                            PermissionError)):  # the destination, not the data: the user's to fix
            raise UsageError(f"Cannot write {path}: {exc.strerror or exc}",
                             hint="Pass an output path in a folder you can write to.") from exc
        raise
