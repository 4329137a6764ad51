"""The second look at a scan's words (``dua.pdf.secondlook``): what tesseract was unsure of,
what it merged and what it left unread is read again, and where it was printed. The image is
the printed statement drawn at 300 dpi, so each word's truth and box are known."""
from __future__ import annotations

import os
import unittest

from dua.pdf import ocr

from .support import SHARED_DATA
from .test_ocr import ORIGINAL, needs_tesseract, plumber_words


def _lines_of(words: list) -> list:
    by_line: dict = {}
    for w in words:
        by_line.setdefault(round(w["bottom"]), []).append(w)
    return list(by_line.values())


class SecondLookTest(unittest.TestCase):
    """A word tesseract was unsure of is read again alone, and the surer reading replaces it
    (``secondlook``); a sure word is never read again. The image is the printed statement
    drawn at 300 dpi, so each word's truth and box are known."""

    @classmethod
    def setUpClass(cls):
        needs_tesseract()
        import pypdfium2

        doc = pypdfium2.PdfDocument(ORIGINAL)
        try:
            bitmap = doc[0].render(scale=300 / 72, grayscale=True)
            cls.w, cls.h = bitmap.width, bitmap.height
            cls.pixels = ocr.pgm(cls.w, cls.h, bytes(bitmap.buffer), bitmap.stride)[-cls.w * cls.h:]
        finally:
            doc.close()
        cls.printed = {w["text"]: w for w in plumber_words(ORIGINAL)[0]}

    def word(self, printed: str, read: str, confidence: float) -> ocr.OcrWord:
        box = self.printed[printed]
        return ocr.OcrWord(read, *(v * 300 / 72 for v in (box["x0"], box["top"], box["x1"],
                                                           box["bottom"])), confidence)

    def test_an_unsure_misreading_is_replaced_by_the_word_read_alone(self):
        from dua.pdf import secondlook

        line = ocr.OcrLine(0, 0, 0, 0, 30, 8, [self.word("Shell", "She11", 40),
                                                self.word("Balance", "Ba1ance", 96)])
        secondlook.reread(ocr.find(), self.pixels, self.w, self.h, 300, "eng", [line], 60)
        self.assertEqual(line.words[0].text, "Shell")
        self.assertGreater(line.words[0].confidence, 40)
        self.assertEqual(line.words[1].text, "Ba1ance")  # sure: never read again

    def test_a_row_the_page_reading_lost_is_read_from_the_ink_no_word_covers(self):
        # every printed line given as read but the row of 'Shell' (tesseract merged such a
        # row with a panel beside it): its ink is read again and its words come back, each
        # where it was printed
        from dua.pdf import secondlook

        scale, by_line = 300 / 72, {}
        for w in plumber_words(ORIGINAL)[0]:
            by_line.setdefault(round(w["bottom"]), []).append(w)
        lost = next(k for k, ws in by_line.items() if any(w["text"] == "Shell" for w in ws))
        # and the box of the next line's first word runs up over the lost row ('PAYMENT' 64 px
        # tall in a line of 31): it covers no ink of that row
        below = min(k for k in by_line if k > lost)
        by_line[below][0] = dict(by_line[below][0], top=by_line[lost][0]["top"])
        lines = [ocr.OcrLine(ws[0]["x0"] * scale, ws[-1]["bottom"] * scale, 0, 0,
                             (ws[-1]["bottom"] - ws[-1]["top"]) * scale, 0,
                             [ocr.OcrWord(w["text"], *(v * scale for v in (
                                 w["x0"], w["top"], w["x1"], w["bottom"])), 96) for w in ws])
                 for k, ws in by_line.items() if k != lost]
        secondlook.reread(ocr.find(), self.pixels, self.w, self.h, 300, "eng", lines, 60)
        added = [w for line in lines[len(by_line) - 1:] for w in line.words]
        printed = by_line[lost]
        self.assertEqual([w.text for w in added], [w["text"] for w in printed])
        for got, want in zip(added, printed):
            self.assertLess(abs(got.x0 / scale - want["x0"]), 2, got)
            self.assertLess(abs(got.bottom / scale - want["bottom"]), 2, got)

    def test_ink_beyond_a_words_box_is_no_word_lost(self):
        # tesseract's box for a word may stop short of its first letter's ink: read again,
        # that ink is the word's own, and no second word is added over it
        from dua.pdf import secondlook

        scale, lines = 300 / 72, []
        for page_line in _lines_of(plumber_words(ORIGINAL)[0]):
            words = [ocr.OcrWord(w["text"], *(v * scale for v in (
                w["x0"], w["top"], w["x1"], w["bottom"])), 96) for w in page_line]
            lines.append(ocr.OcrLine(words[0].x0, words[-1].bottom, 0, 0,
                                     words[-1].bottom - words[-1].top, 0, words))
        short = next(line for line in lines if line.words[0].text == "Opening")
        first = short.words[0]
        short.words[0] = ocr.OcrWord(first.text, first.x0 + 0.3 * (first.x1 - first.x0),
                                     first.top, first.x1, first.bottom, 96)
        count = len(lines)
        secondlook.reread(ocr.find(), self.pixels, self.w, self.h, 300, "eng", lines, 60)
        self.assertEqual([[w.text for w in line.words] for line in lines[count:]], [])

    def test_a_digit_is_never_traded_for_another_digit(self):
        # alone, a word lacks its line's context: where the readings name other digits in the
        # same places, the first stands and the statement's arithmetic judges it
        from dua.pdf import secondlook

        line = ocr.OcrLine(0, 0, 0, 0, 30, 8, [self.word("24,792.72", "24,792.12", 40),
                                                self.word("Shell", "She11", 40)])
        secondlook.reread(ocr.find(), self.pixels, self.w, self.h, 300, "eng", [line], 60)
        self.assertEqual([w.text for w in line.words], ["24,792.12", "Shell"])

    def test_a_figure_read_again_smaller_as_other_digits_is_given_with_that_reading(self):
        # sure either way (tesseract trades 5 and 9 with a glyph's size at 96%): the other
        # reading is kept beside the first, for the statement's arithmetic to choose
        from dua.pdf import secondlook

        line = ocr.OcrLine(0, 0, 0, 0, 30, 8, [self.word("24,792.72", "24,792.12", 96),
                                                self.word("Shell", "Shell", 96)])
        twice = secondlook.read_twice(ocr.find(), self.pixels, self.w, self.h, 300, "eng",
                                      [line], 60)
        self.assertEqual([(k, other) for _, k, other in twice], [(0, "24,792.72")])
        self.assertEqual(line.words[0].text, "24,792.12")  # the copy's first reading stands

    def test_a_figure_read_the_same_again_or_as_other_signs_is_no_dispute(self):
        from dua.pdf import secondlook

        line = ocr.OcrLine(0, 0, 0, 0, 30, 8, [self.word("24,792.72", "24,792.72", 96),
                                                self.word("Shell", "Shell", 96)])
        self.assertEqual(secondlook.read_twice(ocr.find(), self.pixels, self.w, self.h, 300,
                                               "eng", [line], 60), [])
        self.assertFalse(secondlook._digit_for_digit("24,792.72", "24.792,72"))
        self.assertFalse(secondlook._digit_for_digit("24,792.72", "24,792.7"))
        self.assertTrue(secondlook._digit_for_digit("2,935.61", "2,535.61"))

    def test_two_lines_tesseract_merged_are_read_again_as_the_lines_they_were_printed_on(self):
        # a description wrapped onto a second line, read into its row's line as a few tall
        # unsure words (as tesseract read a two-line heading cell 'De BE anne a'): the run is
        # read again as a block and each word comes back on its own line, where it was printed
        from dua.pdf import secondlook

        scale = 300 / 72
        page_lines = _lines_of(plumber_words(ORIGINAL)[0])
        row = next(k for k, ln in enumerate(page_lines) if ln[0]["text"] == "10-08-2024")
        first, second = page_lines[row], page_lines[row + 1]

        def box(words, text, confidence):
            return ocr.OcrWord(text, min(w["x0"] for w in words) * scale,
                               min(w["top"] for w in words) * scale,
                               max(w["x1"] for w in words) * scale,
                               max(w["bottom"] for w in words) * scale, confidence)

        middle = [w for w in first if w["x0"] >= second[0]["x0"] and w["x1"] < first[-2]["x0"]]
        words = [box([first[0]], first[0]["text"], 96),
                 box(middle[:3] + second[:2], "Sa1ry", 30),
                 box(middle[3:] + second[2:], "ernt", 12),
                 box([first[-2]], first[-2]["text"], 96), box([first[-1]], first[-1]["text"], 96)]
        height = (first[0]["bottom"] - first[0]["top"]) * scale
        lines = [ocr.OcrLine(words[0].x0, words[0].bottom, 0, 0, height * 0.7, height * 0.2,
                             words)]
        for page_line in page_lines[:row] + page_lines[row + 2:]:  # the page's other lines
            read = [box([w], w["text"], 96) for w in page_line]
            lines.append(ocr.OcrLine(read[0].x0, read[-1].bottom, 0, 0,
                                     read[-1].bottom - read[-1].top, 0, read))
        secondlook.reread(ocr.find(), self.pixels, self.w, self.h, 300, "eng", lines, 60)
        top, bottom = first[0]["top"] * scale, second[0]["bottom"] * scale
        between = (first[0]["bottom"] + second[0]["bottom"]) / 2 * scale
        got = sorted((w for line in lines for w in line.words
                      if top - 2 * scale <= w.top and w.bottom <= bottom + 2 * scale),
                     key=lambda w: (w.bottom > between, w.x0))
        want = first + second
        self.assertEqual([w.text for w in got], [w["text"] for w in want])
        # the row's own words go back into its line, on its baseline: a line of their own a
        # few points off it was read as a second row (c01's value date and amount)
        self.assertEqual([w.text for w in lines[0].words], [w["text"] for w in first])
        for g, w in zip(got, want):
            self.assertLess(abs(g.x0 / scale - w["x0"]), 2, g)
            self.assertLess(abs(g.bottom / scale - w["bottom"]), 2, g)

    def page_as_read(self, cut) -> list:
        """Every printed line of the page as tesseract would give it, sure, the word
        ``cut`` names given as ``cut`` returns it (text, x0, x1 in points)."""
        scale, lines = 300 / 72, []
        for page_line in _lines_of(plumber_words(ORIGINAL)[0]):
            words = []
            for w in page_line:
                text, x0, x1 = cut(w)
                words.append(ocr.OcrWord(text, x0 * scale, w["top"] * scale, x1 * scale,
                                         w["bottom"] * scale, 96))
            lines.append(ocr.OcrLine(words[0].x0, words[-1].bottom, 0, 0,
                                     0.7 * (words[-1].bottom - words[-1].top), 0, words))
        return lines

    def test_a_glyph_left_out_beside_a_word_is_read_back_into_it(self):
        # tesseract's box stopped short of the last '1' of '$2,918.81' (and of the 'O' of
        # 'Online'): the word is read again with the glyph beside it, and keeps it
        from dua.pdf import secondlook

        def cut(w):
            share = (w["x1"] - w["x0"]) / len(w["text"])
            if w["text"] == "24,792.72":
                return w["text"][:-1], w["x0"], w["x1"] - 1.2 * share
            if w["text"] == "548.48":
                return w["text"][1:], w["x0"] + 1.2 * share, w["x1"]
            if w["text"] == "22,349.69":  # and a digit of it misread: a glyph only adds
                return "22,849.6", w["x0"], w["x1"] - 1.2 * share
            return w["text"], w["x0"], w["x1"]

        lines = self.page_as_read(cut)
        secondlook.reread(ocr.find(), self.pixels, self.w, self.h, 300, "eng", lines, 60)
        texts = [w.text for line in lines for w in line.words]
        self.assertIn("22,849.6", texts)
        self.assertIn("24,792.72", texts)
        self.assertIn("548.48", texts)
        self.assertNotIn("24,792.7", texts)
        self.assertNotIn("48.48", texts)

    def test_a_word_cut_into_unsure_pieces_is_read_again_whole(self):
        # tesseract cut one printed word in two, a hair apart, unsure of both pieces (a dot
        # leader's heading 'DATE..........AMOUNT.' came back 'DATE......0005' and 'AMOUNT.');
        # a figure cut so is read whole too, but never traded for other digits
        from dua.pdf import secondlook

        def cut(w):
            half = w["x0"] + (w["x1"] - w["x0"]) * 0.5
            if w["text"] in ("Logistics", "22,374.70"):
                return w["text"], w["x0"], half
            return w["text"], w["x0"], w["x1"]

        lines = self.page_as_read(cut)
        scale = 300 / 72
        for line in lines:
            for k, word in enumerate(list(line.words)):
                first = {"Logistics": ("Logi", "st1cs"), "22,374.70": ("22,3", "74.10")}.get(
                    word.text)
                if first:
                    half = word.x1
                    right = half + (half - word.x0)
                    line.words[k] = ocr.OcrWord(first[0], word.x0, word.top, half, word.bottom, 20)
                    line.words.insert(k + 1, ocr.OcrWord(first[1], half + 0.5 * scale, word.top,
                                                         right, word.bottom, 10))
        secondlook.reread(ocr.find(), self.pixels, self.w, self.h, 300, "eng", lines, 60)
        texts = [w.text for line in lines for w in line.words]
        self.assertIn("Logistics", texts)
        self.assertNotIn("st1cs", texts)
        self.assertNotIn("22,374.70", texts)  # a digit for a digit ('74.10', '74.70') is
        self.assertIn("74.10", texts)  # the arithmetic's to judge

    def test_a_glyph_between_two_words_is_the_nearer_ones(self):
        # a box that stops short of its own word's first letter ('asket' of 'Big Basket')
        # leaves that letter beside the word before too, a word space away: it is the nearer
        # word's, and the word before is not read again for it
        import numpy
        import pdfplumber

        from dua.pdf import unread

        with pdfplumber.open(ORIGINAL) as pdf:
            chars = pdf.pages[0].chars
        first = next(c for k, c in enumerate(chars) if "".join(
            x["text"] for x in chars[k:k + 6]) == "Basket")

        def cut(w):
            if w["text"] == "Basket":
                return w["text"][1:], first["x1"], w["x1"]
            return w["text"], w["x0"], w["x1"]

        lines = self.page_as_read(cut)
        image = numpy.frombuffer(self.pixels, dtype=numpy.uint8).reshape(self.h, self.w)
        widened = {line.words[k].text: (x0, x1) for line, k, x0, x1 in unread.beside(image, lines)}
        self.assertIn("asket", widened)
        self.assertLess(abs(widened["asket"][0] / (300 / 72) - first["x0"]), 1)
        self.assertNotIn("Big", widened)


CORPUS = os.path.join(os.path.dirname(SHARED_DATA), "corpus")


def _page_read_again(path: str, index: int) -> list:
    """The lines tesseract reads on page ``index`` of ``path`` scanned back (300 dpi, grey:
    ``fixtures.make_scans``), after the second look."""
    import tempfile

    import pypdfium2

    from dua.pdf import scans, secondlook
    from fixtures.make_scans import scan

    with tempfile.TemporaryDirectory() as tmp:
        scan(path, os.path.join(tmp, "scan.pdf"), "clean")
        doc = pypdfium2.PdfDocument(os.path.join(tmp, "scan.pdf"))
        try:
            bitmap = doc[index].render(scale=300 / 72, grayscale=True)
            w, h = bitmap.width, bitmap.height
            image = ocr.pgm(w, h, bytes(bitmap.buffer), bitmap.stride)
        finally:
            doc.close()
    seen = scans._without_rules(image, w, h, 300)
    lines = ocr.read_image(ocr.find(), ocr.pgm(w, h, seen, w), 300, "eng", 120)
    secondlook.reread(ocr.find(), seen, w, h, 300, "eng", lines, 120)
    return lines


@unittest.skipUnless(os.path.isdir(CORPUS), "the shared corpus is not here")
class MergedBlockTest(unittest.TestCase):
    """c08's heading (Calc, xlsx): 'Deposit Amount' over '(INR)' beside cells of one line,
    which tesseract read as 'OS BE anne a', boxes two lines tall."""

    def test_a_merged_block_reads_the_same_whatever_else_the_page_holds(self):
        # among the page's other crops (pieces of words read whole, words read alone),
        # tesseract cut '(INR)' into two tall unsure words and the block was not taken
        needs_tesseract()
        lines = _page_read_again(os.path.join(
            CORPUS, "statements", "c08_sno_credit_first_xlsx_calc", "statement_b.pdf"), 0)
        texts = [[w.text for w in line.words] for line in lines]
        heading = next(t for t in texts if "Remarks" in t)
        self.assertEqual(heading[heading.index("Remarks") + 1:],
                         ["Deposit", "Amount", "Withdrawal", "Amount", "Balance", "(INR)"])
        self.assertIn(["(INR)", "(INR)"], texts)


class FullStopTest(unittest.TestCase):
    """``unread.full_stops`` on a drawn line: a point, then two digits' strokes, on a baseline
    at y 100 in letters 30 px tall (tesseract left RBC's '.15' out of '15', its box over the
    point)."""

    def line(self, x0: float, blot: tuple) -> tuple:
        import numpy

        image = numpy.full((160, 200), 255, dtype=numpy.uint8)
        top, bottom, left, right = blot
        image[top:bottom, left:right] = 0  # the blot before the digits
        image[70:101, 60:66] = 0  # '1'
        image[70:101, 75:95] = 0  # '5'
        word = ocr.OcrWord("15", x0, 70, 95, 101, 94.0)
        return image, ocr.OcrLine(x0, 100, 0.0, 0.0, 30, 8, [word])

    def stops(self, x0: float, blot: tuple) -> list:
        from dua.pdf import unread

        image, line = self.line(x0, blot)
        return [k for _, k in unread.full_stops(image, [(line, 0)])]

    def test_a_point_in_the_words_box_or_just_before_it_is_a_full_stop(self):
        self.assertEqual(self.stops(48, (95, 101, 50, 55)), [0])  # the box over the point
        self.assertEqual(self.stops(60, (95, 101, 50, 55)), [0])  # the box after it

    def test_a_comma_a_raised_dot_or_a_far_blot_is_none(self):
        self.assertEqual(self.stops(48, (95, 110, 50, 55)), [])  # a comma: below the line
        self.assertEqual(self.stops(48, (70, 76, 50, 55)), [])  # a raised dot
        self.assertEqual(self.stops(60, (95, 101, 20, 25)), [])  # farther than a space
        self.assertEqual(self.stops(60, (95, 101, 150, 151)), [])  # nothing before
