"""Pages drawn as pictures by pdfium, for the review pages (dua.review) to embed.

Each page becomes a greyscale PNG encoded with the standard library (zlib), so nothing but
pypdfium2 (which pdfplumber installs) is needed; a page pdfium cannot draw is reported with
its reason, never raised, because a picture is never what a command's result depends on.
"""
from __future__ import annotations

import dataclasses
import struct
import zlib

from ..errors import CorruptPDFError, EncryptedPDFError, MissingDependencyError
from .document import check_file

DEFAULT_DPI = 108  # 1.5 pixels per point: 7 pt print stays legible; a page is ~50-150 KB
MIN_DPI, MAX_DPI = 36, 300


@dataclasses.dataclass
class PageImage:
    """One page: its size in PDF points, and its picture (``png`` None when ``why`` says why)."""

    number: int
    width: float
    height: float
    png: bytes | None = None
    pixel_width: int = 0
    pixel_height: int = 0
    why: str = ""


def render_pages(path: str, password: str | None = None, dpi: float = DEFAULT_DPI,
                 pages=None) -> list:
    """Every page (or the 1-based ``pages``) as a ``PageImage`` drawn at ``dpi``.

    Raises:
        MissingDependencyError: pypdfium2 is not installed.
        DocumentNotFoundError, NotAPDFError: no such file, or not a PDF.
        EncryptedPDFError, CorruptPDFError: pdfium cannot open the file.
        ValueError: ``dpi`` outside [MIN_DPI, MAX_DPI] (programmer misuse).
    """
    if not MIN_DPI <= dpi <= MAX_DPI:
        raise ValueError(f"dpi must be in [{MIN_DPI}, {MAX_DPI}], got {dpi}")
    check_file(path)
    try:
        import pypdfium2  # lazy: keeps import dua fast
    except ImportError as exc:
        raise MissingDependencyError("pypdfium2 is not installed (pdfplumber needs it)",
                                     module="pypdfium2") from exc
    try:
        doc = pypdfium2.PdfDocument(path, password=password)
    except pypdfium2.PdfiumError as exc:
        if "password" in str(exc).lower():
            raise EncryptedPDFError(f"{path} is encrypted and pdfium cannot open it",
                                    path=path) from exc
        raise CorruptPDFError(f"pdfium cannot open {path}: {exc}", path=path) from exc
    try:
        numbers = [n for n in (pages or range(1, len(doc) + 1)) if 1 <= n <= len(doc)]
        return [_render(doc, n, dpi / 72.0) for n in numbers]
    finally:
        doc.close()


def _render(doc, number: int, scale: float) -> PageImage:
    page = doc[number - 1]
    try:
        width, height = page.get_size()
        image = PageImage(number, width, height)
        try:
            bitmap = page.render(scale=scale, grayscale=True)  # grey: a third of the bytes
            if bitmap.n_channels != 1:
                raise ValueError(f"a grey page came back with {bitmap.n_channels} channels")
            image.png = encode_png(bitmap.width, bitmap.height, bytes(bitmap.buffer),
                                   bitmap.stride)
            image.pixel_width, image.pixel_height = bitmap.width, bitmap.height
        except Exception as exc:  # pdfium's failures on one page; the others still draw
            image.why = f"pdfium could not draw the page ({type(exc).__name__}: {exc})"
        return image
    finally:
        page.close()


def encode_png(width: int, height: int, pixels: bytes, stride: int) -> bytes:
    """A PNG of 8-bit grey pixels whose rows start ``stride`` bytes apart.

    Rows go unfiltered: on printed pages, long runs of white compress as well in deflate
    alone as with PNG's per-row filters (measured), which pure Python would make slow.
    """
    raw = b"".join(b"\x00" + pixels[y * stride:y * stride + width] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(raw, 6)) + _chunk(b"IEND", b""))


def _chunk(kind: bytes, data: bytes) -> bytes:
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
