"""What a review is drawn from: the pages (words and pictures), a parser's SETTINGS, a CSV.

A parser is untrusted code, so its ``SETTINGS`` are read from its syntax tree as a literal,
never by importing it. Everything here turns failure into a note for the page: a review
shows what could be shown, and says what could not.
"""
from __future__ import annotations

import ast
import csv
import dataclasses
import re

from ..errors import DocumentError


@dataclasses.dataclass
class Pages:
    """A PDF's pages: the reader's words per page (as a generated parser reads them),
    pictures (dua.pdf.PageImage), and what could not be read or drawn."""

    words: list
    images: list
    notes: list
    chars: list = dataclasses.field(default_factory=list)  # glyphs a page, spaces included


def read_pages(pdf_path: str, password: str | None, dpi: float, numbers=None,
               with_words: bool = True) -> Pages:
    """Words (as a generated parser's reader gives them) and pictures of the pages."""
    from .. import pdf  # lazy: the PDF libraries load only when a review is drawn

    notes, words, sizes, chars = [], [], {}, []
    if with_words:
        try:
            from ..statements.learning.analysis import reader_pages  # lazy: statements only

            doc = pdf.read_document(pdf_path, password, numbers)
            words, chars = reader_pages(doc), [p.char_count for p in doc.pages]
            sizes = {p.number: (p.width, p.height) for p in doc.pages}
        except DocumentError as exc:
            notes.append(f"The words could not be read: {exc.message}")
    try:
        images = pdf.render_pages(pdf_path, password, dpi, numbers)
    except DocumentError as exc:
        notes.append(f"The pages could not be drawn: {exc.message}")
        images = [pdf.PageImage(n, w, h, why="pdfium cannot open the file")
                  for n, (w, h) in sorted(sizes.items())]
    for image in images:  # the overlay is in the word reader's frame: the picture follows it
        image.width, image.height = sizes.get(image.number, (image.width, image.height))
    notes += [f"Page {i.number} is not drawn: {i.why}" for i in images if i.why]
    return Pages(words, images, notes, chars)


def parser_settings(parser_path: str) -> tuple:
    """``(settings, why)``: the parser file's ``SETTINGS = {...}`` literal, or None and why not."""
    try:
        with open(parser_path, encoding="utf-8") as fh:
            tree = ast.parse(fh.read(), parser_path)
    except (OSError, SyntaxError, ValueError) as exc:
        return None, f"the parser {parser_path} cannot be read ({type(exc).__name__})"
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "SETTINGS" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
                return None, "the parser's SETTINGS are not a plain literal"
            if isinstance(value, dict):
                return value, ""
    return None, "the parser has no SETTINGS of dua's engine (it was not written by dua's engine)"


def csv_table(path: str | None) -> tuple:
    """``(columns, rows)`` of a CSV (dua's, or an answer key), as text; empty when there is
    none. A key exported with ';' or tabs is read as load_expected reads it."""
    if not path:
        return [], []
    rows: list = []
    for sep in (",", ";", "\t"):
        try:
            with open(path, encoding="utf-8-sig", newline="") as fh:
                rows = list(csv.reader(fh, delimiter=sep))
        except (OSError, UnicodeDecodeError, csv.Error):
            return [], []
        if not rows or len(rows[0]) > 1 or (";" not in rows[0][0] and "\t" not in rows[0][0]):
            break
    return (rows[0], rows[1:]) if rows else ([], [])


def engine_reading(words: list, settings: dict | None, chars: list | None = None) -> tuple:
    """``(result, why)``: what dua's checks find in the rows its engine reads from the
    reader's ``words`` with ``settings`` (``verify.intrinsic``: status, checks, and the
    statement's ledger as "accounting"), or None and why not."""
    if settings is None or not words:
        return None, ""
    from ..statements.verification import verify  # lazy: the engine and pandas load here

    try:
        return verify.on_words(words, settings, chars=chars), ""
    except (KeyError, IndexError, TypeError, ValueError, AttributeError, re.error) as exc:
        return None, f"the parser's SETTINGS do not fit dua's engine ({type(exc).__name__}: {exc})"
