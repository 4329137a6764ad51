"""The one door to PDF files: the only package that imports pdfplumber and pypdfium2.

``document`` opens a file and reads its pages into dataclasses, turning every failure into
a typed ``DocumentError``. The word reader (``words`` over ``chars``, ``fonts``, ``content``
and ``wordrule``, none importing upward) gives pdfplumber's words from pdfium's characters,
and pdfplumber's own where pdfium cannot match them; it is copied verbatim into generated
parsers. ``render`` draws pages as images for the review page. Callers import this package,
not its modules.
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
    read_document,
    read_layout,
    read_page,
    read_tables,
    require_text_layer,
)
from .render import DEFAULT_DPI, MAX_DPI, MIN_DPI, PageImage, render_pages
from .words import read_pages

__all__ = (
    "DEFAULT_DPI",
    "Document",
    "MAX_DPI",
    "MIN_DPI",
    "Page",
    "PageImage",
    "Table",
    "Word",
    "check_file",
    "import_pdfplumber",
    "open_pdf",
    "read_document",
    "read_layout",
    "read_page",
    "read_pages",
    "read_tables",
    "render_pages",
    "require_text_layer",
)
