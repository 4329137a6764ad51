"""Pages pdfminer cannot see: a broken page tree or cross-reference table, checked with pdfium.

pdfium rebuilds a broken cross-reference table or page tree as it opens a file; pdfminer
does not, and may find no page at all (a byte dropped near the start of a file is enough).
``document.read_words`` asks here when pdfminer found none of the pages asked for.
"""
from __future__ import annotations

from ..errors import CorruptPDFError, NoPagesError
from . import words


def pages_pdfminer_misses(path: str, password: str | None, wanted) -> tuple:
    """``(pages, count)`` where pdfminer found no page of those asked for.

    pdfium rebuilds a broken cross-reference table or page tree as it opens a file; pages
    it finds with text are read from its repaired copy (measured on files damaged by one
    dropped byte: the very words of the undamaged file), those without any as blank.
    """
    sizes = pdfium_census(path, password)
    if not sizes:  # pdfium opens no document without a page: None says as much
        raise NoPagesError(f"{path} has no pages: its page tree is empty or broken (neither "
                           "pdfminer nor pdfium finds one)", path=path)
    asked = [n for n in (wanted or range(1, len(sizes) + 1)) if 1 <= n <= len(sizes)]
    if not asked:
        return [], len(sizes)
    broken = "pdfminer finds no page: the file's page tree or cross-reference table is broken"
    if not any(sizes[n - 1][2] for n in asked):
        return [{"number": n, "of": len(sizes), "width": sizes[n - 1][0],
                 "height": sizes[n - 1][1], "words": [], "chars": 0, "reader": "pdfium",
                 "why": f"{broken} (pdfium finds no character here)", "graphics": False}
                for n in asked], len(sizes)
    read = _read_repaired(path, password, asked)
    if len(read) != len(asked):
        raise CorruptPDFError(f"{path} is damaged: its page tree is broken (pdfminer finds no "
                              f"page where pdfium finds {len(sizes)}, even in pdfium's repair "
                              "of the file)", path=path)
    for page in read:  # lines and images are read from the file itself: none here
        page["why"] = f"{broken}; read from pdfium's repair of the file"
        page["graphics"] = False
    return read, len(sizes)


def _read_repaired(path: str, password: str | None, wanted: list) -> list:
    """The word reader's pages of pdfium's repaired copy of ``path``."""
    import tempfile  # lazy: only a damaged file needs it

    import pypdfium2  # lazy: keeps import dua fast

    doc = pypdfium2.PdfDocument(path, password=password)
    with tempfile.NamedTemporaryFile(suffix=".pdf") as copy:
        try:
            doc.save(copy)
        finally:
            doc.close()
        copy.flush()
        try:
            return words.read_pages(copy.name, password, wanted)
        except Exception:  # the repair did not help: the caller says the file is damaged
            return []


def pdfium_census(path: str, password: str | None = None) -> list | None:
    """``[(width, height, characters)]`` per page as pdfium sees them; None where it cannot
    open the file (or is not installed)."""
    try:
        import pypdfium2  # lazy: keeps import dua fast
    except ImportError:
        return None
    try:
        doc = pypdfium2.PdfDocument(path, password=password)
    except pypdfium2.PdfiumError:  # a document with no page among others
        return None
    try:
        out = []
        for page in doc:
            text = page.get_textpage()
            width, height = page.get_size()
            out.append((float(width), float(height), text.count_chars()))
            text.close()
            page.close()
        return out
    finally:
        doc.close()
