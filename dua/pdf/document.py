"""Opening PDFs: documents, pages and words as dataclasses, every failure typed.

It turns every way a file can fail to be a readable PDF into a typed
``DocumentError`` and reads each page once into plain dataclasses (words with
font and size, ruling lines, image boxes) that the rest of dua works on. Words come
from ``dua.pdf.words`` (pdfminer's characters placed by dua, pdfplumber's word rule,
pdfplumber itself on the pages dua cannot read as pdfminer does); lines, images and tables
from the same scan (``dua.pdf.graphics``), or from pdfplumber on those pages.
"""
from __future__ import annotations

import contextlib
import dataclasses
import os
from typing import Iterator, Sequence

from ..errors import (
    CorruptPDFError,
    DocumentNotFoundError,
    EncryptedPDFError,
    MissingDependencyError,
    NoPagesError,
    NotAPDFError,
    NoTextLayerError,
)
from . import graphics, pagetree, reading, words

# The reader's two word rules, each named for whom it serves: generated parsers and the
# statement pipeline read pdfplumber's words (their cells were learned on them); a person
# reading a document sees the words a typesetter spaced (``dua.pdf.reading``).
WORD_RULES = {"parser": None, "reading": reading.reading_words}


@dataclasses.dataclass
class Word:
    text: str
    x0: float
    x1: float
    top: float
    bottom: float
    font: str = ""
    size: float = 0.0
    runs: tuple = ()  # where the word's glyphs stand apart or change size (wordrule._runs)
    stream: str = ""  # its text in the order drawn, where glyphs of no width make x lie


@dataclasses.dataclass
class Page:
    """What dua needs of one page, read once."""

    number: int  # 1-based
    width: float
    height: float
    words: list = dataclasses.field(default_factory=list)
    char_count: int = 0
    h_rules: list = dataclasses.field(default_factory=list)  # (x0, x1, y) horizontal edges
    v_rules: list = dataclasses.field(default_factory=list)  # (x, top, bottom) vertical edges
    images: list = dataclasses.field(default_factory=list)  # (x0, top, x1, bottom)
    tables: list = dataclasses.field(default_factory=list)  # [Table], when asked for
    reader: str = "pdfplumber"  # who read the words: "dua" or "pdfplumber" ("pdfium": a repair)
    why: str = ""  # why pdfplumber read a page dua could not


@dataclasses.dataclass
class Document:
    path: str
    pages: list
    metadata: dict = dataclasses.field(default_factory=dict)
    page_count: int = 0  # the file's pages, read or not (0: not counted)

    @property
    def char_count(self) -> int:
        return sum(p.char_count for p in self.pages)


def import_pdfplumber():
    """pdfplumber, or MissingDependencyError with the install command."""
    try:
        import pdfplumber  # lazy: keeps import dua fast
    except ImportError as exc:
        raise MissingDependencyError("pdfplumber is not installed") from exc
    return pdfplumber


def plain_metadata(metadata: dict) -> dict:
    """The document information as JSON can hold it (pdfminer may hand back bytes or
    PSLiteral objects)."""
    return {str(k): _plain(v) for k, v in metadata.items()}


def _plain(value: object) -> object:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, bytes):
        return value.decode("latin-1", errors="replace")
    return str(value)


def check_file(path: str) -> None:
    """Cheap checks before pdfminer sees the file.

    Raises:
        DocumentNotFoundError, NotAPDFError
    """
    if not os.path.exists(path):
        raise DocumentNotFoundError(f"No such file: {path}", path=path)
    if os.path.isdir(path):
        raise NotAPDFError(f"{path} is a directory, not a PDF", path=path)
    if os.path.getsize(path) == 0:
        raise NotAPDFError(f"{path} is empty (0 bytes)", path=path)
    with open(path, "rb") as fh:
        head = fh.read(1024)
    if b"%PDF-" not in head:
        raise NotAPDFError(f"{path} is not a PDF (no %PDF- header)", path=path)


@contextlib.contextmanager
def open_pdf(path: str, password: str | None = None) -> Iterator[object]:
    """Open ``path`` with pdfplumber; every failure inside becomes a typed DocumentError.

    Raises:
        DocumentNotFoundError, NotAPDFError, EncryptedPDFError, CorruptPDFError
    """
    check_file(path)
    pdfplumber = import_pdfplumber()
    try:
        pdf = pdfplumber.open(path, password=password or "")
    except Exception as exc:
        raise _translate(exc, path, password) from exc
    try:
        with _translated(path, password):
            yield pdf
    finally:
        pdf.close()


def _translate(exc: Exception, path: str, password: str | None):
    cause = getattr(exc, "args", [None])[0] if exc.args else None
    names = {type(exc).__name__, type(cause).__name__ if isinstance(cause, Exception) else ""}
    text = str(exc)
    if names & {"PDFPasswordIncorrect", "PDFEncryptionError", "PDFEncryptionWarning"} or (
        "password" in text.lower()
    ):
        what = "the password is wrong" if password else "it needs a password"
        return EncryptedPDFError(f"{path} is encrypted and {what}", path=path)
    if "Root object" in text or "Is this really a PDF" in text:
        return CorruptPDFError(f"{path} is damaged: no document catalog ({text})", path=path)
    if _raised_in(exc, "_normalize_box"):  # pdfplumber setting up a page without a box
        return CorruptPDFError(f"{path} is damaged: a page has no usable media box, so its page "
                               f"tree is broken ({text or type(exc).__name__})", path=path)
    return CorruptPDFError(f"{path} is damaged or truncated: {text or type(exc).__name__}", path=path)


def _raised_in(exc: BaseException, function: str) -> bool:
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_name == function:
            return True
        tb = tb.tb_next
    return False


def read_words(path: str, password: str | None = None,
               pages: Sequence[int] | None = None, word_rule: str = "parser") -> tuple:
    """``(pages, count)``: the word reader's pages (``words.read_pages``) and the file's page count.

    A page tree pdfminer cannot walk (it finds no page) is checked with pdfium, which
    walks it on its own: pages with no character are read as blank; pages with text are a
    damaged file, since words are measured with pdfminer's fonts. ``word_rule`` names the
    rule words are cut by (``WORD_RULES``).

    Raises:
        DocumentError (any subclass), NoPagesError
    """
    read, count, _ = _read_words(path, password, pages, None, word_rule)
    return read, count


def _read_words(path: str, password: str | None, pages, drawing, word_rule: str) -> tuple:
    """``(pages, count, what the document draws)``: ``read_words``, the reader's scan
    collecting each page's paths and images too where ``drawing`` is given
    (``words._read_pages``)."""
    check_file(path)
    with _translated(path, password):
        try:
            read, drawn = words._read_pages(path, password, pages, drawing,
                                            WORD_RULES[word_rule])
        except ImportError as exc:
            # A missing pdfminer never gets here (the reader falls back to pdfplumber): the
            # fallback's own import failed, and the message names the module that is missing.
            missing = (exc.name or "").partition(".")[0]
            if missing in ("", "pdfplumber"):
                raise MissingDependencyError("pdfplumber is not installed") from exc
            raise MissingDependencyError(f"{missing} is not installed (pdfplumber needs it)",
                                         module=missing) from exc
        if read:
            return read, read[0]["of"], drawn
        return pagetree.pages_pdfminer_misses(path, password, pages) + (None,)


def read_document(path: str, password: str | None = None, pages: Sequence[int] | None = None,
                  on_page=None, with_tables: bool = False, word_rule: str = "parser") -> Document:
    """Read every page (or the 1-based ``pages``) once into a Document.

    Ruling lines, images, ruled tables (with ``with_tables``) and the metadata come from
    the word reader's own scan (``dua.pdf.graphics``); for a page pdfplumber reads the
    words of, pdfplumber reads them too, when first used (at once with ``with_tables``)
    and only if the page draws lines, shapes or images. Unbounded: a hostile file can make
    it run or allocate without end; the commands read through ``dua.pdf.bounded``, which
    runs it in a child that a budget stops. ``word_rule`` as in ``read_words``.

    Raises:
        DocumentError (any subclass)
    """
    read, count, drawn = _read_words(path, password, pages, graphics._Document, word_rule)
    later = _Graphics(path, password)  # the pages pdfplumber reads the graphics of
    doc = _LazyDocument(path, [_page_of(p, later, with_tables, on_page) for p in read],
                        page_count=count)
    if drawn is not None:
        doc.metadata = drawn.metadata
    else:
        del doc.__dict__["metadata"]  # read on first use
        doc.graphics, later.doc = later, doc
    if with_tables:
        later.load(tables=True)
    return doc


def _page_of(p: dict, later, with_tables: bool, on_page) -> Page:
    """A page the reader read: its rules, images and tables from the reader's scan, or
    from pdfplumber (``later``) on a page pdfplumber read."""
    page = _LazyPage(p["number"], p["width"], p["height"], [Word(*w) for w in p["words"]],
                     p["chars"], reader=p["reader"], why=p["why"])
    if "paths" in p:
        page.h_rules, page.v_rules, page.images = p["paths"].rules()
        page.tables = _tables(p["paths"].tables(p["width"])) if with_tables else []
    else:
        later.add(page, p["graphics"])
    if on_page:
        on_page(p["number"], p["of"])
    return page


class _LazyPage(Page):
    """A Page whose ruling lines and images pdfplumber reads on first use."""

    def __getattr__(self, name: str):
        if name in ("h_rules", "v_rules", "images", "tables") and "_graphics" in self.__dict__:
            self.__dict__.pop("_graphics").load()
            return getattr(self, name)
        raise AttributeError(name)


class _LazyDocument(Document):
    """A Document whose metadata pdfplumber reads on first use."""

    def __getattr__(self, name: str):
        if name == "metadata" and "graphics" in self.__dict__:
            self.__dict__.pop("graphics").load()
            return self.metadata
        raise AttributeError(name)


class _Graphics:
    """Lines, images, tables and metadata of a document's pages, read in one pdfplumber pass."""

    def __init__(self, path: str, password: str | None) -> None:
        self.path, self.password, self.pages, self.doc = path, password, [], None

    def add(self, page: Page, drawn: bool) -> None:
        for name in ("h_rules", "v_rules", "images", "tables"):
            del page.__dict__[name]  # read on first use
        page.__dict__["_graphics"] = self
        self.pages.append((page, drawn))

    def load(self, tables: bool = False) -> None:
        todo, self.pages = self.pages, []
        if not todo and self.doc is None:
            return  # nothing to read: no pdfplumber
        for page, _ in todo:
            page.__dict__.pop("_graphics", None)
            page.h_rules, page.v_rules, page.images, page.tables = [], [], [], []
        with open_pdf(self.path, self.password) as pdf:
            for page, drawn in todo:
                if drawn:
                    found = pdf.pages[page.number - 1]
                    page.h_rules, page.v_rules, page.images = _graphics(found)
                    page.tables = read_tables(found) if tables else []
                    found.close()  # frees pdfminer's layout cache
            if self.doc is not None:
                self.doc.metadata = dict(pdf.metadata or {})


@contextlib.contextmanager
def _translated(path: str, password: str | None) -> Iterator[None]:
    """pdfminer's and pdfplumber's failures as typed DocumentErrors."""
    try:
        yield
    except (AssertionError, KeyError, TypeError, ValueError, EOFError, IndexError) as exc:
        if type(exc).__module__.startswith("dua"):
            raise
        raise _translate(exc, path, password) from exc
    except Exception as exc:
        if type(exc).__module__.startswith(("pdfminer", "pdfplumber")):
            raise _translate(exc, path, password) from exc
        raise


def read_page(page) -> Page:
    """One pdfplumber page read by pdfplumber alone (the reference reader)."""
    # Words are split on spacing only, never on a font or size change: OCR layers vary the
    # size glyph by glyph, and splitting there turns "neque" into "ne q ue".
    words = [_word(w) for w in page.extract_words(keep_blank_chars=False, return_chars=True)]
    h_rules, v_rules, images = _graphics(page)
    return Page(page.page_number, float(page.width), float(page.height), words,
                len(page.chars), h_rules, v_rules, images)


def _graphics(page) -> tuple:
    """A pdfplumber page's horizontal and vertical edges and image boxes."""
    h_rules, v_rules = [], []
    for e in page.edges:
        if e["orientation"] == "h":
            h_rules.append((e["x0"], e["x1"], e["top"]))
        else:
            v_rules.append((e["x0"], e["top"], e["bottom"]))
    images = [(i["x0"], i["top"], i["x1"], i["bottom"]) for i in page.images]
    return h_rules, v_rules, images


def _word(w: dict) -> Word:
    chars = w["chars"]
    sizes = [round(float(c.get("size", 0.0)), 2) for c in chars]
    size = max(set(sizes), key=sizes.count)  # the word's usual size, not one odd glyph's
    return Word(w["text"], w["x0"], w["x1"], w["top"], w["bottom"], chars[0].get("fontname", ""), size)


def require_text_layer(doc: Document) -> None:
    """Raises: NoPagesError for a PDF without pages, NoTextLayerError when no page has a
    single character."""
    if not doc.pages:
        raise NoPagesError(f"{doc.path} has no pages: its page tree is empty", path=doc.path)
    if doc.char_count == 0:
        n = len(doc.pages)
        raise NoTextLayerError(
            f"{doc.path} has no text layer: "
            + (f"its {n} pages are images with no characters" if n != 1
               else "its 1 page is an image or blank, with no characters"),
            path=doc.path, pages=n,
        )


# --- tables (pdfplumber's finder), for dua.blocks ------------------------------------


@dataclasses.dataclass
class Table:
    """A ruled table found by pdfplumber: its box and its cell boxes, row by row."""

    bbox: tuple
    rows: list  # each row: a list of (x0, top, x1, bottom) cell boxes, None for a spanned cell


def read_tables(page) -> list:
    """Ruled tables on a pdfplumber page (the finder's default "lines" strategy)."""
    return _tables(page.find_tables())


def _tables(found: list) -> list:
    """pdfplumber's tables as Tables: two rows and two columns at least."""
    out = []
    for table in found:
        rows = [[tuple(c) if c else None for c in row.cells] for row in table.rows]
        if len(rows) >= 2 and max(len(r) for r in rows) >= 2:
            out.append(Table(tuple(table.bbox), rows))
    return out


def read_layout(path: str, password: str | None = None, pages: Sequence[int] | None = None,
                on_page=None) -> tuple:
    """Like ``read_document``, plus the ruled tables of each page: ``(Document, {page: [Table]})``.

    Raises:
        DocumentError (any subclass)
    """
    doc = read_document(path, password, pages, on_page, with_tables=True)
    return doc, {p.number: p.tables for p in doc.pages}
