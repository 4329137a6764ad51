"""Writing a scan again as a searchable PDF: each page's image, and over it, invisible, the words
tesseract saw, each where it saw it.

The file is written with the standard library alone. Words are drawn in
render mode 3 (invisible) in a font whose every glyph is half an em wide and which holds no
glyph program (tesseract's own PDFs use the same idea and name): a PDF reader measures each
letter from the font's widths and descriptor, and a horizontal scale stretches the word to
the box tesseract gave it, so pdfplumber finds the word where it stands on the image. The font
name, ``GlyphLessFont``, is how a reader knows the text came from OCR.
"""
from __future__ import annotations

import dataclasses
import math

FONT_NAME = "GlyphLessFont"
_ASCENT, _DESCENT = 800, -200  # a line's capitals end 0.8 em above its baseline
_GLYPH = 500  # every glyph's width, thousandths of an em


@dataclasses.dataclass
class ScanPage:
    """One scanned page to write: its size in points, its grey pixels, and tesseract's lines
    (``ocr.OcrLine``, in pixels) read at ``dpi``; ``angle`` (radians) turns a skewed scan
    straight, the image and its words together."""

    width: float
    height: float
    deflated: bytes  # rows of 8-bit grey, ``pixel_width`` bytes each, zlib-compressed
    pixel_width: int
    pixel_height: int
    dpi: float
    lines: list
    angle: float = 0.0
    room: dict = dataclasses.field(default_factory=dict)  # (line, word) index: spaces after
    # its text operator, where another reading of it, longer, may be written in its place


def skew(lines: list) -> float:
    """The page's skew in radians: the median of its lines' baseline slopes, each line of two
    words or more counted (a lone word's baseline says little), 0 when no line says."""
    slopes = sorted(line.slope for line in lines if len(line.words) >= 2)
    if not slopes:
        return 0.0
    return math.atan(slopes[len(slopes) // 2])


def write(path: str, pages: list) -> None:
    """Write ``pages`` (``ScanPage``) as a PDF at ``path``."""
    objects: list = [b"", b""]  # 1: catalog, 2: page tree; filled in last
    font = _add(objects, _font_objects(objects))
    kids = []
    for page in pages:
        image = _add(objects, _image(page))
        content = _stream(_content(page).encode("latin-1"))
        stream = _add(objects, content)
        kids.append(_add(objects, (
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {_n(page.width)} {_n(page.height)}] "
            f"/Resources << /XObject << /Im0 {image} 0 R >> /Font << /F1 {font} 0 R >> >> "
            f"/Contents {stream} 0 R >>").encode()))
    objects[0] = b"<< /Type /Catalog /Pages 2 0 R >>"
    objects[1] = (f"<< /Type /Pages /Count {len(kids)} /Kids ["
                  + " ".join(f"{k} 0 R" for k in kids) + "] >>").encode()
    with open(path, "wb") as fh:
        fh.write(pdf_file(objects))


def _add(objects: list, body: bytes) -> int:
    objects.append(body)
    return len(objects)


def _font_objects(objects: list) -> bytes:
    descriptor = _add(objects, (
        f"<< /Type /FontDescriptor /FontName /{FONT_NAME} /Flags 32 "
        f"/FontBBox [0 {_DESCENT} {_GLYPH} {_ASCENT}] /ItalicAngle 0 /Ascent {_ASCENT} "
        f"/Descent {_DESCENT} /CapHeight {_ASCENT} /StemV 80 >>").encode())
    widths = " ".join([str(_GLYPH)] * 224)
    return (f"<< /Type /Font /Subtype /Type1 /BaseFont /{FONT_NAME} /FirstChar 32 "
            f"/LastChar 255 /Widths [{widths}] /Encoding /WinAnsiEncoding "
            f"/FontDescriptor {descriptor} 0 R >>").encode()


def _image(page: ScanPage) -> bytes:
    data = page.deflated
    head = (f"<< /Type /XObject /Subtype /Image /Width {page.pixel_width} "
            f"/Height {page.pixel_height} /ColorSpace /DeviceGray /BitsPerComponent 8 "
            f"/Filter /FlateDecode /Length {len(data)} >>\nstream\n").encode()
    return head + data + b"\nendstream"


def _stream(data: bytes) -> bytes:
    return f"<< /Length {len(data)} >>\nstream\n".encode() + data + b"\nendstream"


def _content(page: ScanPage) -> str:
    """The image, turned straight about the page's centre, then the words, invisible."""
    cos, sin = math.cos(page.angle), math.sin(page.angle)
    cx, cy = page.width / 2, page.height / 2
    turn = (f"{_n(cos)} {_n(sin)} {_n(-sin)} {_n(cos)} "
            f"{_n(cx - cos * cx + sin * cy)} {_n(cy - sin * cx - cos * cy)} cm")
    parts = [f"q {turn} {_n(page.width)} 0 0 {_n(page.height)} 0 0 cm /Im0 Do Q", "BT 3 Tr"]
    scale = 72.0 / page.dpi
    for n, line in enumerate(page.lines):
        parts.extend(_line(n, page, scale, cos, sin))
    parts.append("ET")
    return "\n".join(parts)


def _line(n: int, page: ScanPage, scale: float, cos: float, sin: float) -> list:
    """The words of one line: each at its box's left edge on the line's baseline, in a size
    whose capitals are the line's, stretched to the box's width; a space after each but the
    last, so that no reader glues two words whose gap is narrow."""
    line = page.lines[n]
    return [_shown(line, k, page, scale, cos, sin) + " " * page.room.get((n, k), 0)
            for k in range(len(line.words))]


def shown_either_way(page: ScanPage, line, k: int, other: str) -> tuple:
    """(how word ``k`` of ``line`` is shown on ``page`` in the copy, how ``other``, another
    reading of it, is shown in its place), as long as each other (for ``reword``): the
    shorter padded with spaces after it, and the copy written so."""
    scale, cos, sin = 72.0 / page.dpi, math.cos(page.angle), math.sin(page.angle)
    first = _shown(line, k, page, scale, cos, sin)
    again = _shown(line, k, page, scale, cos, sin, other)
    longest = max(len(first), len(again))
    if longest > len(first):
        page.room[(next(n for n, ln in enumerate(page.lines) if ln is line), k)] = \
            longest - len(first)
    return first.ljust(longest), again.ljust(longest)


def _shown(line, k: int, page: ScanPage, scale: float, cos: float, sin: float,
           text: str | None = None) -> str:
    size = max(line.x_size * scale * 1000 / _ASCENT, 1.0)
    cx, cy = page.pixel_width / 2, page.pixel_height / 2
    word = line.words[k]
    text = word.text if text is None else text
    # the word's baseline start in pixels (y down), turned with the image, then in points
    px, py = word.x0 - cx, line.baseline(word.x0) - cy
    x = (cx + px * cos + py * sin) * scale
    y = page.height - (cy - px * sin + py * cos) * scale
    width = (word.x1 - word.x0) * scale
    stretch = 100.0 * width / (len(text) * size * _GLYPH / 1000)
    space = " " if k < len(line.words) - 1 else ""
    return (f"/F1 {_n(size)} Tf {_n(stretch)} Tz 1 0 0 1 {_n(x)} {_n(y)} Tm "
            f"({_escaped(text + space)}) Tj")


def reword(path: str, out: str, changes: list) -> bool:
    """Write ``out``: the copy at ``path`` with each word shown as ``old`` shown as ``new``
    (``[(old, new)]`` from ``shown``: the same word read otherwise, as long). False, and
    nothing written, where a word is not shown once exactly as said."""
    with open(path, "rb") as fh:
        data = fh.read()
    for old, new in changes:
        old_bytes, new_bytes = old.encode("latin-1"), new.encode("latin-1")
        # as long: every object stays where the cross-reference table says it starts
        if len(old_bytes) != len(new_bytes) or data.count(old_bytes) != 1:
            return False
        data = data.replace(old_bytes, new_bytes)
    with open(out, "wb") as fh:
        fh.write(data)
    return True


def _escaped(text: str) -> str:
    raw = text.encode("cp1252", errors="replace").decode("latin-1")
    return raw.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def _n(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") or "0"


def pdf_file(objects: list) -> bytes:
    """A whole PDF from its objects' bodies, numbered from 1 in order (1 is the catalogue),
    with the cross-reference table and trailer; the scan fixtures are written by it too."""
    out = bytearray(b"%PDF-1.5\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{number} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\n"
            f"startxref\n{xref}\n%%EOF\n").encode()
    return bytes(out)
