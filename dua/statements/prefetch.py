"""The statement read once, in a forked copy of this process, while this one imports pandas.

Both are about a third of a second of work and every run needs both: on two cores they
overlap. The copy runs ``dua.pdf.read_pages`` (what ``pdf.read_document`` runs) and sends
its pages back as JSON. Wherever that cannot happen (no fork, threads running, the copy
failed or died), the statement is read here by ``pdf.read_document``, which raises the
typed DocumentError: what is read, and every failure, stay the same.
"""
from __future__ import annotations

import json
import os


class Prefetch:
    """One statement being read by a forked reader; ``document()`` waits for it."""

    def __init__(self, path: str, password: str | None) -> None:
        self.path, self.password = path, password
        self.pages: list | None = None  # the reader's own output, once a fork delivered it
        self._child = _fork_reader(path, password)

    def document(self):
        """The statement as ``pdf.read_document`` reads it.

        Raises:
            DocumentError (any subclass)
        """
        from .. import pdf  # lazy: pdfplumber loads only when a statement is parsed

        child, self._child = self._child, None  # collected (or killed) here, whatever happens
        pages = _collect(*child) if child else None
        if pages is None:  # no forked read: read here, where a failure is explained
            return pdf.read_document(self.path, self.password)
        self.pages = pages
        return pdf.Document(self.path, [_page(pdf, p) for p in pages])

    def cancel(self) -> None:
        """Stop a reader whose pages nobody will collect (the run was interrupted)."""
        if self._child:
            pid, fd = self._child
            self._child = None
            _kill(pid)
            os.close(fd)


def start(path: str, password: str | None = None) -> Prefetch:
    """Start reading ``path`` in a forked copy of this process (when one can be forked).

    Raises:
        DocumentNotFoundError, NotAPDFError: the checks ``pdf.read_document`` makes first,
        made before anything else starts
    """
    from .. import pdf  # lazy: pdfplumber loads only when a statement is parsed

    pdf.check_file(path)
    return Prefetch(path, password)


def _page(pdf, p: dict):
    words = [pdf.Word(*w) for w in p["words"]]
    return pdf.Page(p["number"], p["width"], p["height"], words, p["chars"],
                    reader=p["reader"], why=p["why"])


def _fork_reader(path: str, password: str | None) -> tuple | None:
    """(pid, read end) of a forked reader; None where forking is unsafe or unavailable."""
    import threading  # lazy: keeps import dua fast

    # A fork copies only the calling thread: another one could hold a lock the copy needs.
    if not hasattr(os, "fork") or threading.active_count() > 1:
        return None
    read_end, write_end = os.pipe()
    try:
        pid = os.fork()
    except OSError:
        os.close(read_end)
        os.close(write_end)
        return None
    if pid == 0:  # the copy: read, answer, and leave without running the parent's exit code
        status = 1
        try:
            os.close(read_end)
            status = _answer(write_end, path, password)
        finally:
            os._exit(status)
    os.close(write_end)
    return pid, read_end


def _answer(fd: int, path: str, password: str | None) -> int:
    from .. import pdf  # lazy: pypdfium2 loads only when a statement is read

    data = json.dumps(pdf.read_pages(path, password), separators=(",", ":")).encode()
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]
    return 0


def _collect(pid: int, fd: int) -> list | None:
    """The reader's pages, or None when it failed in any way (the caller reads again)."""
    chunks = []
    try:
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
    except BaseException:
        _kill(pid)
        raise
    finally:
        os.close(fd)
    _, status = os.waitpid(pid, 0)
    if not os.WIFEXITED(status) or os.WEXITSTATUS(status) != 0:
        return None
    try:
        return json.loads(b"".join(chunks))
    except ValueError:
        return None


def _kill(pid: int) -> None:
    import signal  # lazy: keeps import dua fast

    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except (ProcessLookupError, ChildProcessError):
        pass
