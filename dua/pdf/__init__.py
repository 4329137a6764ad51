"""The one door to PDF files: the only package that imports pdfplumber and pypdfium2.

``document`` opens a file and reads its pages into dataclasses, turning every failure into
a typed ``DocumentError``. The word reader (``words`` over ``chars``, ``content``, ``fonts``
and ``wordrule``, none importing upward) gives pdfplumber's words, box for box, by reading
each page's content as pdfminer does, faster; a page it cannot read so falls back to
pdfplumber with its reason. It is copied verbatim into generated parsers. Callers import
this package, not its modules.
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
from .words import read_pages

__all__ = (
    "Document",
    "Page",
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
    "require_text_layer",
)
