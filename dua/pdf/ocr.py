"""Tesseract, the optional OCR engine: finding it, running it on one page image, reading its answer.

Tesseract is a system tool, never a Python dependency: it is found on PATH, fed a greyscale
page through stdin (so no image is ever written to disk) and read back as hOCR, which gives
each line's baseline and letter height beside each word's box and confidence. Every run is a
child that dies with its caller and is killed past its seconds.
"""
from __future__ import annotations

import dataclasses
import os
import re
import shutil

from ..errors import OCRFailedError, UsageError

INSTALL = ("Debian/Ubuntu: sudo apt-get install tesseract-ocr; Fedora: sudo dnf install "
           "tesseract; macOS: brew install tesseract; Windows: winget install "
           "UB-Mannheim.TesseractOCR (then add it to PATH)")


SURE = 85.0  # confidence (%) from which tesseract's word is taken as sure


@dataclasses.dataclass(frozen=True)
class OcrWord:
    """One word as tesseract saw it, in pixels of the page image (y down)."""

    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    confidence: float  # 0-100


@dataclasses.dataclass
class OcrLine:
    """A line of words sharing a baseline: ``baseline(x)`` in pixels, ``x_size`` the height of
    its capitals, ``descent`` how far its descenders reach below the baseline."""

    x0: float
    bottom: float
    slope: float
    offset: float
    x_size: float
    descent: float
    words: list

    def baseline(self, x: float) -> float:
        return self.bottom + self.offset + self.slope * (x - self.x0)


def find() -> str | None:
    """The tesseract program on PATH, or None."""
    return shutil.which("tesseract")


def languages(program: str) -> list:
    """The language codes this tesseract has data for (``osd`` is no language).

    Raises:
        OCRFailedError: tesseract could not be run
    """
    out = _run([program, "--list-langs"], b"", 30.0)
    lines = out.decode("utf-8", "replace").splitlines()
    return [line.strip() for line in lines[1:] if line.strip() and line.strip() != "osd"]


def version(program: str) -> str:
    out = _run([program, "--version"], b"", 30.0)
    first = out.decode("utf-8", "replace").splitlines()[:1]
    return first[0].strip() if first else "tesseract"


def choose_language(program: str, asked: str | None) -> str:
    """``asked`` (``eng+deu`` style) once every part is installed; by default English where
    installed, else the first language installed.

    Raises:
        UsageError: a language tesseract has no data for, or none at all
    """
    have = languages(program)
    if asked:
        missing = [code for code in asked.split("+") if code not in have]
        if missing:
            raise UsageError(f"--ocr-lang {asked}: tesseract has no data for {'+'.join(missing)}"
                             f" (installed: {', '.join(have) or 'none'})",
                             hint="Install the language (Debian: apt-get install "
                             f"tesseract-ocr-{missing[0]}) or pass one of those installed.")
        return asked
    if not have:
        raise UsageError("tesseract has no language data installed",
                         hint="Install one, e.g. apt-get install tesseract-ocr-eng.")
    return "eng" if "eng" in have else have[0]


def read_image(program: str, pgm: bytes, dpi: float, lang: str, seconds: float) -> list:
    """The lines tesseract reads on a greyscale page image (a binary PGM), each with its words.

    Raises:
        OCRFailedError: tesseract failed, or took more than ``seconds``
    """
    # --psm 4, "one column of text of variable sizes": a statement's row is read as one line
    # across its columns, where tesseract's default cut the table into column blocks and
    # misread a heading alone ("DriCr" for "Dr/Cr"); also faster (9.5 s against 12.9 s on a
    # 50-row page here)
    out = _run([program, "stdin", "stdout", "--dpi", str(int(round(dpi))), "--psm", "4",
                "-l", lang, "hocr"], pgm, seconds)
    return parse_hocr(out.decode("utf-8", "replace"))


def run_tsv(program: str, pgm: bytes, dpi: float, lang: str, seconds: float) -> list:
    """The words tesseract reads on an image of lines of one size (``--psm 6``), as
    ``[OcrWord]`` from its TSV answer (a word a row: level 5, its box, its confidence).

    Raises:
        OCRFailedError: tesseract failed, or took more than ``seconds``
    """
    out = _run([program, "stdin", "stdout", "--dpi", str(int(round(dpi))), "--psm", "6",
                "-l", lang, "tsv"], pgm, seconds)
    words = []
    for row in out.decode("utf-8", "replace").splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) >= 12 and cells[0] == "5" and cells[11].strip():
            x0, top, w, h = (float(v) for v in cells[6:10])
            words.append(OcrWord(cells[11].strip(), x0, top, x0 + w, top + h, float(cells[10])))
    return words


def pgm(width: int, height: int, pixels: bytes, stride: int) -> bytes:
    """A binary PGM of 8-bit grey rows that start ``stride`` bytes apart."""
    if stride == width:
        body = pixels[:width * height]
    else:
        body = b"".join(pixels[y * stride:y * stride + width] for y in range(height))
    return b"P5 %d %d 255\n" % (width, height) + body


def _run(argv: list, stdin: bytes, seconds: float) -> bytes:
    import subprocess  # lazy: keeps import dua fast

    from .. import lifetime

    parent = os.getpid()
    env = dict(os.environ)
    # One thread a page: tesseract's OpenMP threads fight each other on a small machine
    # (measured on 2 cores: 4.3 s a page with its default, 1.3 s with one thread).
    env.setdefault("OMP_THREAD_LIMIT", "1")
    try:
        proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, env=env,
                                preexec_fn=lambda: lifetime.die_with_parent(parent, watch=False))
    except OSError as exc:
        raise OCRFailedError(f"tesseract could not be started: {exc}") from exc
    try:
        out, err = proc.communicate(stdin, timeout=seconds)
    except subprocess.TimeoutExpired as exc:
        raise OCRFailedError(f"tesseract did not finish a page in {seconds:g} s",
                             seconds=seconds) from exc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    if proc.returncode != 0:
        said = err.decode("utf-8", "replace").strip().splitlines()[-1:] or [""]
        raise OCRFailedError(f"tesseract failed (exit {proc.returncode}): {said[0]}",
                             status=proc.returncode)
    return out


# --- hOCR -------------------------------------------------------------------------------------

_LINE_CLASSES = ("ocr_line", "ocr_header", "ocr_textfloat", "ocr_caption")
_NUMBER = r"(-?[\d.]+)"
_BBOX = re.compile(r"bbox (\d+) (\d+) (\d+) (\d+)")
_BASELINE = re.compile(rf"baseline {_NUMBER} {_NUMBER}")
_X_SIZE = re.compile(rf"x_size {_NUMBER}")
_X_DESCENDERS = re.compile(rf"x_descenders {_NUMBER}")
_CONFIDENCE = re.compile(rf"x_wconf {_NUMBER}")


def parse_hocr(text: str) -> list:
    """``[OcrLine]`` from tesseract's hOCR; a word's text is its element's text, unescaped."""
    from html.parser import HTMLParser  # lazy: only OCR reads HTML

    lines: list = []

    class _Parser(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.stack: list = []  # per open element: the word being read, or None
            self.word: list | None = None

        def handle_starttag(self, tag, attrs):
            a = dict(attrs)
            kind, title = a.get("class", ""), a.get("title", "")
            if kind in _LINE_CLASSES:
                lines.append(_line(title))
            elif kind == "ocrx_word" and lines:
                self.word = [title, ""]
            self.stack.append(self.word if kind == "ocrx_word" else None)

        def handle_endtag(self, tag):
            if self.stack and self.stack.pop() is not None:
                word = _word(*self.word)
                if word is not None:
                    lines[-1].words.append(word)
                self.word = None

        def handle_data(self, data):
            if self.word is not None:
                self.word[1] += data

    _Parser().feed(text)
    for line in lines:
        line.words = _tidy(line.words)
    return [line for line in lines if line.words]


_QUOTES = "\"'`\u2018\u2019\u201c\u201d"
_FIGURE = re.compile(r"[-+(]?[\d][\d,./ -]*[\d)]")
# what a speck, a rule's end or a shadow beside a figure comes back as ("~\u2014_28," on a clean
# grid, "\u201c08/02/2024" on a skewed one): statements print none of these glued to a figure
_SPECKS = _QUOTES + "~_=|\u2014\u2013"
# a figure whose zeros tesseract read as letters ("O1DEC25", "@1-01-2026"): every character a
# digit, a zero's look-alike or a figure's punctuation, with a Dr/Cr/CR/DB mark at most
_ZEROS = re.compile(r"[-+(]?[\dOo@Q][\dOo@Q,./ -]*[\dOo@Q)][-]?(?:[DC][rRB])?")
_MONTH_DATE = re.compile(r"([\dOo@Q]{1,2})([A-Za-z]{3})([\dOo@Q]{2,4})")
# a full stop after a date or after an amount's cents ("2025/10/13.", "7,604.27."): a speck
# (an amount's whole part has three digits or a group: "03.10." is a German date, not cents)
_DATE_DOT = re.compile(r"\d{1,4}[/-]\d{1,2}[/-]\d{1,4}\."
                       r"|[-+]?(?:\d{3,}|\d{1,3}(?:,\d{2,3})+)\.\d\d\.")
# a figure tesseract cut at its separator ("6,94," "489.27Dr" in monospace print, "975" ".00-")
_CUT_BEFORE = re.compile(r"[-+(]?[\d,.]*\d[,.]")
_CUT_AFTER = re.compile(r"[.,]\d[\d,.]*[-)]?(?:[DC][rR])?")
_DIGITS = re.compile(r"[-+(]?\d[\d,.]*")
# what the joined pieces must make: an amount with its cents ("41," "04229" is an address)
_AMOUNT = re.compile(r"[-+(]?\d{1,3}(?:[,.]\d{2,3})*[.,]\d\d[-)]?(?:[DC][rR])?")
ZERO_SURE = 35.0  # confidence (%) from which a letter among digits is taken for a zero (a
# monospace zero without its slash came back "O" at 42-45%)
JOIN_PITCH = 1.0  # a gap narrower than a letter is no space in print (a monospace comma's
# ink stands 0.7 of a letter from the next digit's)


def repaired(text: str, confidence: float = 100.0) -> str:
    """A number's or a date's text as printed, where tesseract's misreads of it have one reading
    only: specks glued before or after it go, a zero read as a letter is a zero again ("O1DEC25"),
    a full stop after a date goes ("2025/10/13."). Any other text is left as read: a wrong
    figure must come out wrong, for the statement's arithmetic to catch, so a zero tesseract was
    unsure of (below ZERO_SURE: a blot, a stain) stays a letter."""
    bare = text.lstrip(_SPECKS).rstrip(_QUOTES)
    if bare != text and (_FIGURE.fullmatch(bare) or _CUT_BEFORE.fullmatch(bare)):
        # dashes alone before it are its minus sign, printed long; with a speck, a speck
        lead = text[:len(text) - len(text.lstrip(_SPECKS))]
        text = ("-" if lead.strip("\u2014\u2013") == "" else "") + bare
    if _DATE_DOT.fullmatch(text):
        return text[:-1]
    if confidence < ZERO_SURE:
        return text
    month = _MONTH_DATE.fullmatch(text)
    if month and re.search(r"\d", text):
        return zeros(month.group(1)) + month.group(2) + zeros(month.group(3))
    if re.search(r"\d", text) and re.search(r"[Oo@Q]", text) and _ZEROS.fullmatch(text):
        fixed = zeros(text[:-2]) + text[-2:] if text[-2:-1] in "DC" else zeros(text)
        if _FIGURE.fullmatch(fixed.rstrip("-").rstrip("DCrRB") or fixed):
            return fixed
    return text


def zeros(text: str) -> str:
    """Zero's look-alikes (O, o, @, Q) as zeros."""
    return re.sub(r"[Oo@Q]", "0", text)


def _tidy(words: list) -> list:
    """A line's words as a reader can place them. A rule left in the image comes back as ``|``
    (alone, or glued to a word's end): no statement prints one there, so it goes. Figures are
    ``repaired`` and joined where tesseract cut one at its separator. And a word's box may run
    over the words after it (tesseract 5 gave ``PAYMENT`` the whole line's width, its
    neighbours their own): it ends where the next begins."""
    kept = []
    for word in words:
        text = repaired(word.text.strip("|").strip(), word.confidence)
        # a speck, a rule's end or a letter's shadow comes back as unsure punctuation ("=",
        # "+", "_" at 52-67% beside a statement's "Dr"); printed punctuation alone, as the
        # "-" of a heading, came back sure (93%)
        if text and (any(c.isalnum() for c in text) or word.confidence >= SURE):
            kept.append(dataclasses.replace(word, text=text))
    kept.sort(key=lambda w: w.x0)
    kept = _joined(kept)
    for i, word in enumerate(kept[:-1]):
        after = kept[i + 1].x0
        if word.x1 > after > word.x0:
            kept[i] = dataclasses.replace(word, x1=after - 1)
    return kept


def _joined(words: list) -> list:
    """Words sorted by x, a figure's pieces joined again: a piece ending in its separator and a
    piece starting with a digit (or digits, then a piece starting with its separator), nearer
    than JOIN_PITCH of their letters' width, are one figure (a space in print is wider)."""
    out: list = []
    for word in words:
        if out and _cut(out[-1], word):
            last = out[-1]
            out[-1] = OcrWord(last.text + word.text, last.x0, min(last.top, word.top),
                              max(last.x1, word.x1), max(last.bottom, word.bottom),
                              min(last.confidence, word.confidence))
        else:
            out.append(word)
    return out


def _cut(left: OcrWord, right: OcrWord) -> bool:
    shapes = ((_CUT_BEFORE.fullmatch(left.text) and right.text[:1].isdigit()
               and _FIGURE.match(right.text))
              or (_DIGITS.fullmatch(left.text) and _CUT_AFTER.fullmatch(right.text)))
    if not shapes or not _AMOUNT.fullmatch(left.text + right.text):
        return False
    pitch = ((left.x1 - left.x0) + (right.x1 - right.x0)) / (len(left.text) + len(right.text))
    return right.x0 - left.x1 < JOIN_PITCH * pitch


def _line(title: str) -> OcrLine:
    x0, _, _, bottom = (float(v) for v in _BBOX.search(title).groups())
    slope, offset = (float(v) for v in (_BASELINE.search(title) or _zero_baseline).groups())
    x_size = _X_SIZE.search(title)
    descent = _X_DESCENDERS.search(title)
    size = float(x_size.group(1)) if x_size else 0.0
    return OcrLine(x0, bottom, slope, offset, size,
                   float(descent.group(1)) if descent else size / 4, [])


_zero_baseline = re.compile(r"(0) (0)").search("0 0")


def _word(title: str, text: str) -> OcrWord | None:
    text = text.strip()
    box = _BBOX.search(title)
    if not text or box is None:
        return None
    conf = _CONFIDENCE.search(title)
    x0, top, x1, bottom = (float(v) for v in box.groups())
    return OcrWord(text, x0, top, x1, bottom, float(conf.group(1)) if conf else 0.0)
