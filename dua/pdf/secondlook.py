"""A second look at the words tesseract was unsure of: each read again alone, the surer reading kept.

Read in its line, a word is read with its neighbours' shapes around it, and a short or narrow
one comes back wrong though its print is clean ("Dr" as "ODr" at 39%, "7,604.27" as "7,604.27."
at 50%, "ACH" as "~=ACH" at 0%); cut out with a margin of paper and read as one line of its
own, tesseract gave "Dr" at 97%, "7,604.27" at 94%, "ACH" at 97%. Every unsure word of a page
is read in one run of tesseract: the words are set one under another on a sheet of paper
and each line read back is the word at its height. A reading replaces tesseract's first only
where it is one word and surer; what the statement's arithmetic then checks is the same
either way. Where tesseract merged two lines of print into one (a heading cell set on two
lines), its unsure words there are read again together, as a block, and come back as lines;
where it cut one printed word into unsure pieces a few pixels apart (a dot leader,
'DATE..........AMOUNT.', came back 'DATE......0005' at 14% and 'AMOUNT.' at 0%), the pieces
are read again as one, and the whole replaces them where it is surer than they were;
where its box stopped short of a glyph beside the word (``unread.beside``), the word is read
again with it, and keeps it only as an addition to what was read.
"""
from __future__ import annotations

import dataclasses
import re

from . import ocr, unread

MARGIN = 10  # pixels of paper kept around a word (a letter's ink reaches past its box)
GAP = 40  # pixels of paper between two words on the sheet: tesseract reads them as lines apart
TALLER = 1.6  # a word box this many times as tall as the page's words spans two lines of print
SMALLER = 0.75  # the size a figure is read again at (``read_twice``)
FIGURE_DIGITS = 3  # a word of this many digits is a figure, read twice


def reread(program: str, pixels: bytes, width: int, height: int, dpi: float, lang: str,
           lines: list, seconds: float) -> int:
    """Read the unsure words of ``lines`` (``ocr.OcrLine``, boxes in pixels of the ``width`` x
    ``height`` grey image ``pixels``) again, alone, the runs of them that hold two lines' print
    (``_merged``) or one word's pieces (``_pieces``) as a block, and the ink no word covers
    (``unread.regions``); each surer reading replaces what it read again, and the words read
    surely in unread ink are added as lines of their own. Returns how many words changed.

    Raises:
        OCRFailedError: tesseract failed, or took more than ``seconds``
    """
    import numpy  # lazy: only OCR needs it (numpy comes with pandas)

    image = numpy.frombuffer(pixels, dtype=numpy.uint8, count=width * height)
    image = image.reshape(height, width)
    usual = _usual_height(lines)
    runs = _merged(lines, usual) if usual else []
    in_runs = {(id(line), k) for line, start, end in runs for k in range(start, end)}
    merged, runs = len(runs), runs + _pieces(lines, in_runs)
    unsure = [(line, k) for line in lines for k, word in enumerate(line.words)
              if word.confidence < ocr.SURE and word.x1 > word.x0 and word.bottom > word.top
              and len(word.text) > 1 and (id(line), k) not in in_runs]
    taken = {(id(line), k) for line, start, end in runs for k in range(start, end)} | \
        {(id(line), k) for line, k in unsure}
    short = [(line, k, x0, x1) for line, k, x0, x1 in unread.beside(image, lines)
             if (id(line), k) not in taken]
    ink = unread.regions(image, lines, dpi)
    if not unsure and not ink and not runs and not short:
        return 0
    crops = [_span(image, line.words, start, end) for line, start, end in runs]
    crops += [_crop(image, line.words, k) for line, k in unsure]
    crops += [_crop(image, line.words, k, x0, x1) for line, k, x0, x1 in short]
    crops += [_box(image, x0 - MARGIN, top - MARGIN, x1 + MARGIN, bottom + MARGIN)
              for x0, top, x1, bottom in ink]
    # a block of lines tesseract merged is read on a sheet of its own: among other crops,
    # how it cuts the block's lines depends on what else the sheet holds
    read = [_read(program, [crop], dpi, lang, seconds)[0] for crop in crops[:merged]]
    read += _read(program, crops[merged:], dpi, lang, seconds) if crops[merged:] else []
    changed = 0
    accepted = [(line, start, end) + found for n, ((line, start, end), found)
                in enumerate(zip(runs, read))
                if _takes(line.words[start:end], found[0], usual, whole=n >= merged)]
    whole = {(id(line), k) for line, start, end, *_ in accepted for k in range(start, end)}
    # words first, then runs from the right of a line leftwards: each keeps its indices
    for (line, k), (found, _, _) in zip(unsure, read[len(runs):]):
        if (id(line), k) not in whole:  # a piece of a word read whole is that word's
            changed += _replace_word(line, k, found)
    for (line, k, x0, x1), (found, _, _) in zip(short, read[len(runs) + len(unsure):]):
        changed += _widen(line, k, x0, x1, found)
    for line, start, end, found, left, up in sorted(accepted, key=lambda t: -t[1]):
        changed += _replace_run(line, start, end, found, left, up, lines)
    for found, left, up in read[len(runs) + len(unsure) + len(short):]:
        added = _line([w for w in found if w.confidence >= ocr.SURE], left, up, lines)
        if added is not None:
            lines.append(added)
            changed += len(added.words)
    lines[:] = [line for line in lines if line.words]  # a run may have been all its line
    return changed


def read_twice(program: str, pixels: bytes, width: int, height: int, dpi: float, lang: str,
               lines: list, seconds: float) -> list:
    """``[(line, k, text)]``: each figure (word ``k`` of a line, FIGURE_DIGITS digits or more)
    that read again at SMALLER its size names other digits in the same places, with that
    other reading. Tesseract's 5 and 9 trade places with the size a glyph is drawn at, surely
    either way: '2,535.61' (Writer) and '2,581.97' (Chromium) read with a 9 at 300 dpi in
    their lines and right at 225 and 150; at 450 dpi '3,506.97' came back '3,906.97' at 96%.
    And two digits a full stop stands before (``unread.full_stops``) are also read as cents.
    Neither reading is surer, so neither is chosen here: the statement's arithmetic chooses.

    Raises:
        OCRFailedError: tesseract failed, or took more than ``seconds``
    """
    import numpy  # lazy: only OCR needs it (numpy comes with pandas)
    from PIL import Image  # lazy: Pillow comes with pdfplumber

    image = numpy.frombuffer(pixels, dtype=numpy.uint8, count=width * height)
    image = image.reshape(height, width)
    figures = [(line, k) for line in lines for k, word in enumerate(line.words)
               if sum(c.isdigit() for c in word.text) >= FIGURE_DIGITS
               and word.x1 > word.x0 and word.bottom > word.top]
    crops = []
    for line, k in figures:
        crop, x, y = _crop(image, line.words, k)
        size = (max(1, round(crop.shape[1] * SMALLER)), max(1, round(crop.shape[0] * SMALLER)))
        crops.append((numpy.asarray(Image.fromarray(crop).resize(size, Image.LANCZOS)), x, y))
    out = []
    read = _read(program, crops, dpi * SMALLER, lang, seconds) if crops else []
    for (line, k), (found, _, _) in zip(figures, read):
        if len(found) == 1:
            again = ocr.repaired(found[0].text.strip("|").strip(), found[0].confidence)
            if _digit_for_digit(line.words[k].text, again):
                out.append((line, k, again))
    cents = [(line, k) for line in lines for k, word in enumerate(line.words)
             if re.fullmatch(r"\d\d", word.text)]
    out += [(line, k, "." + line.words[k].text) for line, k in unread.full_stops(image, cents)]
    return out


def _digit_for_digit(first: str, again: str) -> bool:
    """The two readings differ, and only where each names a digit."""
    return first != again and len(first) == len(again) and all(
        a == b or (a.isdigit() and b.isdigit()) for a, b in zip(first, again))


def _read(program: str, crops: list, dpi: float, lang: str, seconds: float) -> list:
    """Each crop's words as tesseract reads them set one under another on a sheet:
    ``[(words, left, up)]``, where ``left`` and ``up`` move a word back onto the page."""
    sheet, spans = _sheet([c[0] for c in crops])
    out = ocr.run_tsv(program, ocr.pgm(sheet.shape[1], sheet.shape[0], sheet.tobytes(),
                                       sheet.shape[1]), dpi, lang, seconds)
    return [([w for w in out if span[0] <= (w.top + w.bottom) / 2 <= span[1]],
             crop[1] - GAP, crop[2] - span[0]) for span, crop in zip(spans, crops)]


def _replace_word(line, k: int, found: list) -> int:
    """1 when the one word read alone is surer than the first reading and took its place."""
    if len(found) != 1 or found[0].confidence <= line.words[k].confidence:
        return 0
    text = ocr.repaired(found[0].text.strip("|").strip(), found[0].confidence)
    if not any(c.isalnum() for c in text) or _other_digits(line.words[k].text, text):
        return 0
    line.words[k] = dataclasses.replace(line.words[k], text=text,
                                        confidence=found[0].confidence)
    return 1


def _widen(line, k: int, x0: float, x1: float, found: list) -> int:
    """1 when the word read with the glyph beside it is the first reading and that glyph,
    and so took its place: a glyph can add to a word, never change what was read."""
    word = line.words[k]
    if len(found) != 1:
        return 0
    text = ocr.repaired(found[0].text.strip("|").strip(), found[0].confidence)
    before, after = x0 < word.x0, x1 > word.x1
    if len(text) <= len(word.text) or not (before and text.endswith(word.text) or
                                           after and text.startswith(word.text)):
        return 0
    line.words[k] = dataclasses.replace(word, text=text, x0=x0, x1=x1,
                                        confidence=min(word.confidence, found[0].confidence))
    return 1


def _takes(run: list, found: list, usual: float, whole: bool) -> bool:
    """Whether a run's words read again as a block are to replace it: tesseract is surer of
    them than of the run and merged no lines again (an unsure word as tall as the run's).
    Lines it merged must come back sure of some word; a word it cut in pieces, naming no
    other digits in their places (a digit for a digit is the arithmetic's to judge)."""
    found = [w for w in found if any(c.isalnum() for c in w.text)]
    if not found or _mean(found) <= _mean(run) or \
            any(w.confidence < ocr.SURE and w.bottom - w.top > TALLER * usual for w in found):
        return False
    if whole:
        return not _other_digits(" ".join(w.text for w in run), " ".join(w.text for w in found))
    return max(w.confidence for w in found) >= ocr.SURE


def _replace_run(line, start: int, end: int, found: list, left: float, up: float,
                 lines: list) -> int:
    """The words of a run read again as a block (``_takes``) replace it, as the lines they
    were printed on."""
    run = line.words[start:end]
    found = [w for w in found if any(c.isalnum() for c in w.text)]
    del line.words[start:end]
    changed = 0
    for row in _rows(found):
        middle = (row[0].top + row[0].bottom) / 2 + up
        top, bottom = unread.band(line, dataclasses.replace(run[0], top=0.0, bottom=1e9))
        if line.x_size and top <= middle <= bottom:  # the line's own words: its baseline
            own = _placed(row, left, up, lines)
            line.words[:] = sorted(line.words + own, key=lambda w: w.x0)
            changed += len(own)
            continue
        added = _line(row, left, up, lines)
        if added is not None:
            lines.append(added)
            changed += len(added.words)
    return changed


def _mean(words: list) -> float:
    return sum(w.confidence for w in words) / len(words)


def _rows(words: list) -> list:
    """Words grouped into the lines they sit on: a word whose middle is below the foot of the
    line before starts a line of its own."""
    out = []
    for w in sorted(words, key=lambda w: (w.top + w.bottom) / 2):
        if out and (w.top + w.bottom) / 2 < max(o.bottom for o in out[-1]):
            out[-1].append(w)
        else:
            out.append([w])
    return out


def _usual_height(lines: list) -> float:
    """The height of the page's sure words (a line's own may hold a panel's words), 0 when
    tesseract was sure of none."""
    heights = sorted(w.bottom - w.top for line in lines for w in line.words
                     if w.confidence >= ocr.SURE)
    return heights[len(heights) // 2] if heights else 0.0


def _merged(lines: list, usual: float) -> list:
    """``[(line, start, end)]``: runs of unsure words of a line, one of them more than TALLER
    times as tall as the page's words (``usual``): tesseract merged two lines of print there,
    and read what neither line printed. A heading cell set on two lines ('Deposit Amount'
    over '(INR)') beside cells of one came back 'De BE anne a', boxes 77 px tall in a line
    of 31."""
    runs = []
    for line in lines:
        k = 0
        while k < len(line.words):
            end = k
            while end < len(line.words) and line.words[end].confidence < ocr.SURE:
                end += 1
            if any(w.bottom - w.top > TALLER * usual for w in line.words[k:end]):
                runs.append((line, k, end))
            k = max(end, k + 1)
    return runs


def _pieces(lines: list, taken: set) -> list:
    """``[(line, start, end)]``: runs of two or more unsure words of a line, not in ``taken``,
    each less than half the line's x-height from the one before: closer than a word space,
    the pieces of one printed word tesseract cut apart."""
    runs = []
    for line in lines:
        k = 0
        while k < len(line.words):
            end = k + 1
            while end < len(line.words) and all(
                    line.words[j].confidence < ocr.SURE and (id(line), j) not in taken
                    for j in (end - 1, end)) and \
                    line.words[end].x0 - line.words[end - 1].x1 < line.x_size / 2:
                end += 1
            if end - k > 1:
                runs.append((line, k, end))
            k = end
    return runs


def _line(words: list, left: float, up: float, lines: list):
    """The words read surely in a block of unread ink, moved back onto the page, as a line
    whose baseline is their boxes' foot (a descender's depth is a quarter of their height)."""
    words = _placed(words, left, up, lines)
    if not words:
        return None
    size = max(w.bottom - w.top for w in words)
    deep = any(c in "gjpqy,;()" for w in words for c in w.text)
    bottom = max(w.bottom for w in words) - (size / 4 if deep else 0)
    return ocr.OcrLine(words[0].x0, bottom, 0.0, 0.0, size * (0.75 if deep else 1.0),
                       size / 4, words)


def _placed(words: list, left: float, up: float, lines: list) -> list:
    """Words read on the sheet, moved back onto the page, left to right. A word over a word
    already read is that word's ink beyond its box, not a word lost."""
    words = [dataclasses.replace(w, text=ocr.repaired(w.text.strip("|").strip(), w.confidence),
                                 x0=w.x0 + left, x1=w.x1 + left, top=w.top + up,
                                 bottom=w.bottom + up) for w in words]
    read = [(r.x0, r.x1) + unread.band(line, r) for line in lines for r in line.words]
    return sorted((w for w in words if any(c.isalnum() for c in w.text) and not any(
        x0 < w.x1 and w.x0 < x1 and top < w.bottom and w.top < bottom
        for x0, x1, top, bottom in read)), key=lambda w: w.x0)


def _other_digits(first: str, again: str) -> bool:
    """Whether the two readings name other digits in the same places: alone, a word lacks
    what its line told tesseract, and neither reading is surer (a speck or a letter read
    for a digit is told apart; a digit for a digit is left to the statement's arithmetic)."""
    a, b = ocr.zeros(first), ocr.zeros(again)
    digits_a, digits_b = [c for c in a if c.isdigit()], [c for c in b if c.isdigit()]
    return len(digits_a) == len(digits_b) and digits_a != digits_b


def _crop(image, words: list, k: int, x0: float | None = None, x1: float | None = None) -> tuple:
    """Word ``k`` of a line (from ``x0`` to ``x1`` where its ink runs past its box) with paper
    around it, but no ink of its neighbours: a digit group read with a piece of the next group
    beside it came back another digit ('1' as '4' beside '315.17', at 72%). ``(pixels, x, y)``:
    the crop and where it starts on the page."""
    word = words[k]
    x0, x1 = word.x0 if x0 is None else x0, word.x1 if x1 is None else x1
    left = max([x0 - MARGIN] + [(w.x1 + x0) / 2 for w in words if w.x1 <= word.x0])
    right = min([x1 + MARGIN] + [(x1 + w.x0) / 2 for w in words if w.x0 >= word.x1])
    return _box(image, left, word.top - MARGIN, right + 1, word.bottom + MARGIN)


def _span(image, words: list, start: int, end: int) -> tuple:
    """Words ``start:end`` of a line, as far as the words beside them: a run tesseract misread
    leaves ink unread at its ends (of 'Withdrawal Amount', 'Amount' was in no word's box)."""
    run = words[start:end]
    left = max([w.x1 + MARGIN / 2 for w in words[:start]] + [run[0].x0 - MARGIN])
    right = min([w.x0 - MARGIN / 2 for w in words[end:]] or [run[-1].x1 + MARGIN])
    top, bottom = min(w.top for w in run), max(w.bottom for w in run)
    return _box(image, left, top - MARGIN, right, bottom + MARGIN)


def _box(image, x0: float, top: float, x1: float, bottom: float) -> tuple:
    """``(pixels, x, y)``: the image within the box, cut at the page's edges."""
    x, y = max(0, int(x0)), max(0, int(top))
    return image[y:max(y, int(bottom)), x:max(x, int(x1))], x, y


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
