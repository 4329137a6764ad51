"""Reading a PDF in a child process that a budget stops: seconds, memory, and dua's own end.

pdfminer and pdfium can loop or allocate without end on a hostile file, and neither can be
stopped from inside: pdfium runs in C, out of reach of any Python signal handler or thread.
Checking the structure with pdfium first would not do either: forms that draw each other
2^40 times hang pdfium's text page as they hang pdfminer's layout (measured). The one bound
that always holds is a process that can be killed, so every command reads through here: a
child reads (``document.read_words``; with ``graphics``, as ``dua extract`` needs, the lines,
images, tables and metadata too), answers on a pipe (JSON, a document in marshal), and is
killed past its budget. A reading may be queued on another's child (``start_reading``'s
``after``): a batch's child reads file after file while the parent types the last one.

The child is a fork of this process wherever that is safe (no other thread runs), else a fresh
interpreter (tens of ms more). It dies with its parent (``dua.lifetime``), stays in the
parent's process group (so Ctrl-C and ``timeout`` reach it too), and its address space is capped.
"""
from __future__ import annotations

import dataclasses
import os
import time

from .. import errors
from .document import Document, Page, Table, Word, check_file

BASE_SECONDS = 30.0  # a budget left to the default: this, plus PAGE_SECONDS a page,
PAGE_SECONDS = 1.0   # up to MAX_SECONDS (measured: a 566-page manual reads in about 100 s
MAX_SECONDS = 600.0  # on a loaded 2-core machine; a 4-page statement in under a second)
DEFAULT_MEMORY = 2 << 30  # bytes of address space the reader may add to what it maps at start
# OCR's budget a page: tesseract took 1.3-8 s a page here (one thread; 300 dpi), a slower
# machine or a denser page several times that
OCR_PAGE_SECONDS, OCR_MAX_SECONDS = 60.0, 3600.0


@dataclasses.dataclass(frozen=True)
class ReadBudget:
    """What reading one PDF may take: ``seconds`` of wall clock (None: BASE_SECONDS plus
    ``page_seconds`` for each page pdfium counts, at most ``max_seconds``) and ``memory`` bytes."""

    seconds: float | None = None
    memory: int = DEFAULT_MEMORY
    page_seconds: float = PAGE_SECONDS
    max_seconds: float = MAX_SECONDS

    def limit(self, pages: int | None) -> float:
        """The seconds allowed for a file of ``pages`` pages (None: not counted yet)."""
        if self.seconds is not None:
            return self.seconds
        return min(BASE_SECONDS + self.page_seconds * (pages or 0), self.max_seconds)


def read_bounded(path: str, password: str | None = None, pages=None, *,
                 graphics: bool = False, budget: ReadBudget | None = None,
                 on_page=None, word_rule: str = "parser",
                 reading: Reading | None = None) -> Document:
    """The Document ``document.read_document`` reads, read in a child within ``budget``.

    Without ``graphics`` the pages hold words only (no lines, images, tables, metadata).
    ``word_rule``: "parser" (pdfplumber's words) or "reading" (``document.WORD_RULES``).
    ``reading``: the same request's ``start_reading``, started earlier (None: start it).

    Raises:
        DocumentError (any subclass), PDFReadTimeoutError, PDFMemoryLimitError,
        UnexpectedError (a bug in the reader, with where it failed)
    """
    reading = reading or start_reading(path, password, pages, graphics=graphics,
                                       budget=budget, word_rule=word_rule)
    try:
        doc = reading.document()
    finally:
        reading.cancel()
    if on_page:
        for page in doc.pages:
            on_page(page.number, doc.page_count)
    return doc


def make_searchable(path: str, out: str, *, mode: str = "auto", lang: str | None = None,
                    dpi: float | None = None, password: str | None = None,
                    budget: ReadBudget | None = None, on_page=None) -> dict:
    """Write ``out``, ``path`` with the pages that need it read by tesseract (``scans.make``),
    in a child within ``budget`` (by default OCR_PAGE_SECONDS a page); ``on_page(n, of)`` before
    each page's OCR. The answer's ``pages`` lists the pages read by OCR (none: nothing written).

    Raises:
        NoTextLayerError (no tesseract), OCRFailedError, UsageError, DocumentError (any
        subclass), PDFReadTimeoutError, PDFMemoryLimitError, UnexpectedError
    """
    budget = budget or ReadBudget()
    if budget.seconds is None:
        budget = dataclasses.replace(budget, page_seconds=OCR_PAGE_SECONDS,
                                     max_seconds=OCR_MAX_SECONDS)
    check_file(path)
    request = {"path": path, "password": password, "memory": budget.memory,
               "parent": os.getpid(),
               "ocr": {"path": path, "out": out, "mode": mode, "lang": lang, "dpi": dpi,
                       "password": password,  # tesseract's own stop; the budget's comes first
                       "page_seconds": budget.seconds or budget.max_seconds}}
    reading = Reading(request, budget, on_progress=on_page)
    try:
        answer = reading.collect()
    finally:
        reading.cancel()
    return answer["ocr"]


def start_reading(path: str, password: str | None = None, pages=None, *,
                  graphics: bool = False, budget: ReadBudget | None = None,
                  word_rule: str = "parser", after: Reading | None = None) -> Reading:
    """Start reading ``path`` in a child; ``Reading.document()`` waits for it.

    ``after``: a reading still under way (or queued itself) whose child reads this file
    next, as soon as it has answered that one, with no word from here in between (a batch:
    the child never waits on the pages being typed). Collect ``after`` first; this
    reading's budget counts from then. Where that child cannot take it, or ends after an
    answer, this file gets a child of its own.

    Raises:
        DocumentNotFoundError, NotAPDFError: the cheap checks, made here before anything starts
    """
    check_file(path)
    request = {"path": path, "password": password, "pages": list(pages) if pages else None,
               "graphics": graphics, "word_rule": word_rule,
               "memory": (budget or ReadBudget()).memory,
               "parent": os.getpid()}
    return Reading(request, budget or ReadBudget(), after=after)


_DROPPED = object()  # a queued reading collected or cancelled ahead of its turn


def _unqueue(reading) -> None:
    """``reading`` and those queued after it, taken off the child they were queued on."""
    while isinstance(reading, Reading):
        later, reading._after, reading._host, reading._next = reading._next, None, None, None
        reading = later


class Reading:
    """One PDF being read by a child process; ``document()`` collects it, ``cancel()`` stops it."""

    def __init__(self, request: dict, budget: ReadBudget, on_progress=None,
                 after: Reading | None = None) -> None:
        self.path, self.budget, self.started = request["path"], budget, time.monotonic()
        self.on_progress = on_progress
        self.pages: list | None = None  # the word reader's own pages, once delivered
        self.page_count: int | None = None
        self._request, self._child, self._done = request, None, False
        self._host = None  # the child asked to read this one after those before it
        self._after: Reading | None = None  # the reading just before it on that child
        self._next = None  # the Reading queued right after this one, or _DROPPED
        if after is None or not after._queue(self):
            self._start()

    def _start(self) -> None:
        from . import child  # lazy: only a reading needs the child's side

        self._child, self.started = child.start(self._request), time.monotonic()

    def _queue(self, reading: Reading) -> bool:
        """Ask the child that reads this reading to read ``reading`` right after it; False
        where it cannot."""
        host = self._child or self._host
        if host is None or self._done or self._next is not None:
            return False
        if not host.ask(reading._request, queued=True):
            return False
        self._next, reading._after, reading._host = reading, self, host
        return True

    def _leave_queue(self) -> None:
        """Out of its child's queue, and those queued after it out too: the child stops
        after the reading before (it must never read a request nobody will collect), and
        each of them starts a child of its own when collected."""
        if self._after is not None:
            self._after._next = _DROPPED
        later, self._after, self._host = self._next, None, None
        self._next = None
        _unqueue(later)

    def document(self) -> Document:
        """The Document, once the child delivers it within the budget.

        Raises:
            DocumentError (any subclass), PDFReadTimeoutError, PDFMemoryLimitError,
            UnexpectedError
        """
        answer = self.collect()
        self.pages = answer["pages"]
        return _document(self.path, answer)

    def collect(self) -> dict:
        """The child's answer as it sent it (see ``document``)."""
        if self._done:
            raise ValueError("this reading was collected or cancelled already")
        self._done = True
        if self._after is not None:  # collected before the reading it was queued after
            self._leave_queue()
        if self._child is None:
            self._start()
        child, self._child = self._child, None
        answer = None
        try:
            answer = self._collect(child)
        finally:
            self._pass_on(child, answer)
        if "error" in answer:
            raise _rebuilt(answer["error"])
        return answer

    def _pass_on(self, child, answer: dict | None) -> None:
        """The child after this reading's ``answer`` (None: none came): on to the reading
        queued after it where it said it reads again, else kept for the next reading or
        stopped (it must never wait with a request nobody will collect)."""
        queued, self._next = self._next, None
        if isinstance(queued, Reading):
            queued._after, queued._host, queued.started = None, None, time.monotonic()
            if answer is not None and answer.pop("again", False):
                queued._child = child
                return
            _unqueue(queued)  # each starts a child of its own when collected
        if answer is None or queued is not None:
            child.stop()
        else:
            child.release(answer)  # a child that read well may read the next file

    def cancel(self) -> None:
        """Stop a child whose answer nobody will collect (twice is fine)."""
        self._done = True
        self._leave_queue()
        child, self._child = self._child, None
        if child is not None:
            child.stop()

    def _collect(self, child) -> dict:
        while True:
            message = child.next_message(self.started + self.budget.limit(self.page_count))
            if message is None:  # past the budget: the child is still reading
                raise self._timed_out(child.where())
            if "error" in message or "pages" in message or "ocr" in message:
                return message
            if "progress" in message and self.on_progress:
                self.on_progress(*message["progress"])
            if "count" in message:
                self.page_count = message["count"]
            if "died" in message:
                raise _died(self.path, message["died"], self.budget, child.peak)

    def _timed_out(self, stack: list) -> errors.PDFReadTimeoutError:
        limit = self.budget.limit(self.page_count)
        pages = self.page_count
        if self.budget.seconds is not None:
            within = "--read-timeout"
        elif pages is not None:
            within = f"the budget for its {pages} page{'s' if pages != 1 else ''}"
        else:
            within = "the default budget: pdfium could not count its pages"
        doing = _doing(stack)
        return errors.PDFReadTimeoutError(
            f"{self.path} could not be read in {limit:g} s ({within})"
            + (f": the reader was still {doing}" if doing else ""),
            path=self.path, seconds=limit, pages=pages, stuck_in=stack[:3])


# --- the answer ---------------------------------------------------------------------------


def _document(path: str, answer: dict) -> Document:
    drawn = answer.get("drawn") or {}
    pages = []
    for p in answer["pages"]:
        page = Page(p["number"], p["width"], p["height"], [Word(*w) for w in p["words"]],
                    p["chars"], reader=p["reader"], why=p["why"])
        g = drawn.get(str(p["number"]))
        if g:
            page.h_rules, page.v_rules, page.images = (
                [tuple(x) for x in g[key]] for key in ("h_rules", "v_rules", "images"))
            page.tables = [Table(tuple(bbox), [[tuple(c) if c else None for c in row]
                                               for row in rows]) for bbox, rows in g["tables"]]
        pages.append(page)
    return Document(path, pages, metadata=answer.get("metadata") or {},
                    page_count=answer["count"])


def _rebuilt(error: dict) -> errors.DuaError:
    """The child's typed error, as the same class here."""
    cls = getattr(errors, error.get("class", ""), None)
    details = error.get("details") or {}
    if isinstance(cls, type) and issubclass(cls, errors.DuaError):
        try:
            exc = cls(error["message"], **details)
        except TypeError:  # a class whose constructor takes other arguments
            exc = None
        if exc is not None:
            if error.get("hint") is not None:
                exc.hint = error["hint"]
            return exc
    return errors.UnexpectedError(error["message"], **details)


def _died(path: str, status: str, budget: ReadBudget, peak: int) -> errors.DuaError:
    """A child that ended without an answer: killed by a signal, or exited early."""
    memory = f"{budget.memory / (1 << 20):,.0f} MB"
    if peak >= budget.memory // 2:  # pdfium aborts when an allocation fails past the cap
        return errors.PDFMemoryLimitError(
            f"{path} could not be read within the reader's {memory} of memory: the PDF "
            f"libraries stopped on it ({status})", path=path, status=status)
    return errors.CorruptPDFError(
        f"{path} could not be read: the PDF libraries stopped on it ({status})",
        path=path, status=status)


# What the reader was doing, by the innermost frame of its stack that says (file part, words).
_STUCK = (
    ("pdfminer/pdfpage.py", "walking the page tree (it may loop, or be far too large)"),
    ("pdfminer/pdfinterp.py", "drawing a page with pdfminer (forms that draw each other, or "
                              "far too many objects)"),
    ("pdfminer/layout.py", "laying out a page's objects with pdfminer (far too many of them)"),
    ("pdfplumber/table.py", "looking for ruled tables (far too many lines)"),
    ("pdfminer/", "parsing the file's objects with pdfminer"),
    ("pdfplumber/", "reading pages with pdfplumber"),
    ("dua/pdf/ocr.py", "waiting for tesseract to read a scanned page"),
    ("dua/pdf/scans.py", "drawing a scanned page for OCR with pdfium"),
    ("dua/pdf/chars.py", "reading a page's content (forms that draw each other, or far too "
                         "many objects)"),
    ("dua/pdf/content.py", "reading a page's content (forms that draw each other, or far too "
                           "many objects)"),
    ("pypdfium2/", "reading a page with pdfium (forms that draw each other, or far too many "
                   "objects)"),
)


def _doing(stack: list) -> str:
    """``stack``: the child's frames as ``path:line in function``, innermost first."""
    for frame in stack:
        where = frame.replace(os.sep, "/")
        for part, doing in _STUCK:
            if part in where:
                return doing
    return ""

