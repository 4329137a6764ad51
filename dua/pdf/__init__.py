"""The one door to PDF files: the only package that imports pdfplumber and pypdfium2.

``document`` opens a file and reads its pages into dataclasses, turning every failure into
a typed ``DocumentError`` (``pagetree`` checks with pdfium the files where pdfminer finds no
page); ``bounded`` (over ``child`` and its ``answer``) reads the same in a child process
that a budget of seconds and memory stops: the commands read through it. The word reader (``words`` over
``chars``, ``content``, ``fonts`` and ``wordrule``, none importing upward) gives
pdfplumber's words, box for box, by reading each page's content as pdfminer does, faster; a
page it cannot read so falls back to pdfplumber with its reason. It is copied verbatim into
generated parsers. Those are the parsers' words; ``reading`` cuts the same characters into
the words a reader sees (a gap against the glyphs' size, accents composed), which ``dua
extract`` reads with (``word_rule="reading"``). ``render`` draws pages as images for the
review page. ``scans`` (over
``ocr``, tesseract, and ``searchable``, the writer) makes a scan a searchable PDF, in the
bounded child too (``make_searchable``). Callers import this package, not its modules.
"""
from __future__ import annotations

from .document import (
    Document,
    Page,
    Table,
    Word,
    check_file,
    import_pdfplumber,
    open_pdf,
    plain_metadata,
    read_document,
    read_layout,
    read_page,
    read_tables,
    read_words,
    require_text_layer,
)
from .bounded import ReadBudget, make_searchable, read_bounded, start_reading
from .render import DEFAULT_DPI, MAX_DPI, MIN_DPI, PageImage, render_pages
from .words import read_pages

__all__ = (
    "DEFAULT_DPI",
    "Document",
    "MAX_DPI",
    "MIN_DPI",
    "Page",
    "PageImage",
    "ReadBudget",
    "Table",
    "Word",
    "check_file",
    "import_pdfplumber",
    "make_searchable",
    "open_pdf",
    "plain_metadata",
    "read_bounded",
    "read_document",
    "read_layout",
    "read_page",
    "read_pages",
    "read_tables",
    "read_words",
    "render_pages",
    "require_text_layer",
    "start_reading",
)
