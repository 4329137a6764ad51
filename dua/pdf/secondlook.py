"""A second look at the words tesseract was unsure of: each read again alone, the surer reading kept.

Read in its line, a word is read with its neighbours' shapes around it, and a short or narrow
one comes back wrong though its print is clean ("Dr" as "ODr" at 39%, "7,604.27" as "7,604.27."
at 50%, "ACH" as "~=ACH" at 0%); cut out with a margin of paper and read as one line of its
own, tesseract gave "Dr" at 97%, "7,604.27" at 94%, "ACH" at 97%. Every unsure word of a page
is read in one run of tesseract: the words are set one under another on a sheet of paper
and each line read back is the word at its height. A reading replaces tesseract's first only
where it is one word and surer; what the statement's arithmetic then checks is the same
either way.
"""
from __future__ import annotations

import dataclasses

from . import ocr, unread

MARGIN = 10  # pixels of paper kept around a word (a letter's ink reaches past its box)
GAP = 40  # pixels of paper between two words on the sheet: tesseract reads them as lines apart


def reread(program: str, pixels: bytes, width: int, height: int, dpi: float, lang: str,
           lines: list, seconds: float) -> int:
    """Read the unsure words of ``lines`` (``ocr.OcrLine``, boxes in pixels of the ``width`` x
    ``height`` grey image ``pixels``) again, alone, and the ink no word covers
    (``unread.regions``); each surer reading replaces the word in its line, and the words read
    surely in unread ink are added as lines of their own. Returns how many words changed.

    Raises:
        OCRFailedError: tesseract failed, or took more than ``seconds``
    """
    import numpy  # lazy: only OCR needs it (numpy comes with pandas)

    unsure = [(line, k) for line in lines for k, word in enumerate(line.words)
              if word.confidence < ocr.SURE and word.x1 > word.x0 and word.bottom > word.top
              and len(word.text) > 1]
    image = numpy.frombuffer(pixels, dtype=numpy.uint8, count=width * height)
    image = image.reshape(height, width)
    ink = unread.regions(image, lines, dpi)
    if not unsure and not ink:
        return 0
    crops = [_crop(image, line.words, k) for line, k in unsure]
    crops += [image[max(0, t - MARGIN):b + MARGIN, max(0, x0 - MARGIN):x1 + MARGIN]
              for x0, t, x1, b in ink]
    sheet, spans = _sheet(crops)
    out = ocr.run_tsv(program, ocr.pgm(sheet.shape[1], sheet.shape[0], sheet.tobytes(),
                                       sheet.shape[1]), dpi, lang, seconds)
    read = [[w for w in out if span[0] <= (w.top + w.bottom) / 2 <= span[1]] for span in spans]
    changed = 0
    for (line, k), found in zip(unsure, read):
        if len(found) != 1 or found[0].confidence <= line.words[k].confidence:
            continue
        text = ocr.repaired(found[0].text.strip("|").strip(), found[0].confidence)
        if not any(c.isalnum() for c in text) or _other_digits(line.words[k].text, text):
            continue
        line.words[k] = dataclasses.replace(line.words[k], text=text,
                                            confidence=found[0].confidence)
        changed += 1
    for (x0, top, _, _), span, found in zip(ink, spans[len(unsure):], read[len(unsure):]):
        left, up = max(0, x0 - MARGIN) - GAP, max(0, top - MARGIN) - span[0]
        added = _line([w for w in found if w.confidence >= ocr.SURE], left, up, lines)
        if added is not None:
            lines.append(added)
            changed += len(added.words)
    return changed


def _line(words: list, left: float, up: float, lines: list):
    """The words read surely in a block of unread ink, moved back onto the page, as a line
    whose baseline is their boxes' foot (a descender's depth is a quarter of their height).
    A word over a word already read is that word's ink beyond its box, not a word lost."""
    words = [dataclasses.replace(w, text=ocr.repaired(w.text.strip("|").strip(), w.confidence),
                                 x0=w.x0 + left, x1=w.x1 + left, top=w.top + up,
                                 bottom=w.bottom + up) for w in words]
    read = [(r.x0, r.x1) + unread.band(line, r) for line in lines for r in line.words]
    words = sorted((w for w in words if any(c.isalnum() for c in w.text) and not any(
        x0 < w.x1 and w.x0 < x1 and top < w.bottom and w.top < bottom
        for x0, x1, top, bottom in read)), key=lambda w: w.x0)
    if not words:
        return None
    size = max(w.bottom - w.top for w in words)
    deep = any(c in "gjpqy,;()" for w in words for c in w.text)
    bottom = max(w.bottom for w in words) - (size / 4 if deep else 0)
    return ocr.OcrLine(words[0].x0, bottom, 0.0, 0.0, size * (0.75 if deep else 1.0),
                       size / 4, words)


def _other_digits(first: str, again: str) -> bool:
    """Whether the two readings name other digits in the same places: alone, a word lacks
    what its line told tesseract, and neither reading is surer (a speck or a letter read
    for a digit is told apart; a digit for a digit is left to the statement's arithmetic)."""
    a, b = ocr.zeros(first), ocr.zeros(again)
    digits_a, digits_b = [c for c in a if c.isdigit()], [c for c in b if c.isdigit()]
    return len(digits_a) == len(digits_b) and digits_a != digits_b


def _crop(image, words: list, k: int):
    """Word ``k`` of a line with paper around it, but no ink of its neighbours: a digit group
    read with a piece of the next group beside it came back another digit ('1' as '4' beside
    '315.17', at 72%)."""
    word = words[k]
    left = max([word.x0 - MARGIN] + [(w.x1 + word.x0) / 2 for w in words if w.x1 <= word.x0])
    right = min([word.x1 + MARGIN] + [(word.x1 + w.x0) / 2 for w in words if w.x0 >= word.x1])
    top = max(0, int(word.top) - MARGIN)
    return image[top:int(word.bottom) + MARGIN, max(0, int(left)):int(right) + 1]


def _sheet(crops: list) -> tuple:
    """(the sheet, each crop's rows on it): the crops one under another, GAP apart."""
    import numpy  # lazy: only OCR needs it

    width = max(c.shape[1] for c in crops) + 2 * GAP
    height = sum(c.shape[0] for c in crops) + GAP * (len(crops) + 1)
    sheet = numpy.full((height, width), 255, dtype=numpy.uint8)
    spans, y = [], GAP
    for crop in crops:
        sheet[y:y + crop.shape[0], GAP:GAP + crop.shape[1]] = crop
        spans.append((y, y + crop.shape[0]))
        y += crop.shape[0] + GAP
    return sheet, spans
