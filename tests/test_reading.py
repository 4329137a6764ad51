"""dua.pdf.reading: the document pipeline's words, as a reader sees them, beside the parsers'
rule (pdfplumber's), which stays the reader's default."""
from __future__ import annotations

import os
import unittest

from dua.pdf import document, words
from dua.pdf.reading import _COMBINING, reading_words
from dua.pdf.wordrule import _words as parser_words

from .support import FIXTURES

READER = os.path.join(FIXTURES, "reader")


def glyphs(*specs, top=100.0, size=10.0, upright=True) -> list:
    """Characters as the reader makes them, from ``(text, x0, x1)`` or ``(text, x0, x1,
    top, size)``, in the order given (their order drawn)."""
    out = []
    for place, spec in enumerate(specs):
        text, x0, x1, *rest = spec
        t, s = (rest + [top, size][len(rest):]) if rest else (top, size)
        out.append([text, x0, x1, t, t + s, "F", s, upright, place])
    return out


def texts(found: list) -> list:
    return [w[0] for w in found]


def read(name: str, rule: str) -> list:
    pages, _ = document.read_words(os.path.join(READER, name), word_rule=rule)
    return [w[0] for p in pages for w in p["words"]]


class GapTest(unittest.TestCase):
    def test_a_word_space_under_3_points_parts_words_the_parser_rule_joins(self):
        # TeX shrinks a 10 pt line's spaces to about 2.2 pt: pdfplumber glues the words
        chars = glyphs(("o", 10, 15), ("f", 15, 18), ("t", 20.2, 24), ("h", 24, 29), ("e", 29, 33))
        self.assertEqual(texts(parser_words(chars)), ["ofthe"])
        self.assertEqual(texts(reading_words(chars)), ["of", "the"])

    def test_kerned_letters_stay_one_word(self):
        chars = glyphs(("A", 10, 17), ("V", 16.6, 23), ("o", 23.3, 28))  # a kern each way
        self.assertEqual(texts(reading_words(chars)), ["AVo"])

    def test_a_gap_counts_against_the_glyphs_size(self):
        # 1.5 pt parts two 10 pt words but not two letters of a 24 pt title
        small = glyphs(("a", 10, 15), ("b", 16.5, 21))
        large = glyphs(("a", 10, 22), ("b", 23.5, 35), size=24.0)
        self.assertEqual(texts(reading_words(small)), ["a", "b"])
        self.assertEqual(texts(reading_words(large)), ["ab"])

    def test_spaced_out_capitals_keep_their_words(self):
        # every 12 pt letter 1.4 pt from the next, the words 5 pt apart (lm-info's title)
        letters, x, out = "THETECH", 10.0, []
        for i, ch in enumerate(letters):
            out.append((ch, x, x + 8))
            x += 8 + (5.0 if i == 2 else 1.4)
        self.assertEqual(texts(reading_words(glyphs(*out, size=12.0))), ["THE", "TECH"])


    def test_a_glyph_drawn_apart_from_its_neighbour_and_standing_off_it_is_a_word_of_its_own(self):
        # Word's math: ']' drawn after the limits under an integral, 0.36 pt past 'dy' (12 pt)
        drawn_later = glyphs(("d", 10, 16), ("y", 16, 22), ("−", 100, 105), ("]", 22.36, 26),
                             size=12.0)
        self.assertEqual(texts(reading_words(drawn_later)), ["dy", "]", "−"])
        in_turn = glyphs(("d", 10, 16), ("y", 16, 22), ("]", 22.36, 26), size=12.0)
        self.assertEqual(texts(reading_words(in_turn)), ["dy]"])  # a kern, as typeset


class MarkTest(unittest.TestCase):
    def test_symbols_stepping_off_each_others_baseline_are_pieces_apart(self):
        # a formula's radicals, each drawn 0.72 pt lower than the one before it
        roots = glyphs(("√", 10, 22), ("√", 22, 34, 100.72), ("√", 34, 46, 101.44), size=12.0)
        self.assertEqual(texts(reading_words(roots)), ["√", "√", "√"])
        # TeX's logo lowers its E by half an ex: letters, one word
        logo = glyphs(("T", 10, 17), ("E", 16, 22, 102.2), ("X", 21.5, 28))
        self.assertEqual(texts(reading_words(logo)), ["TEX"])

    def test_a_footnote_mark_raised_at_a_smaller_size_is_a_word_of_its_own(self):
        chars = glyphs(("1", 10, 13, 97.0, 7.0), ("T", 13, 19), ("h", 19, 24), ("e", 24, 28))
        self.assertEqual(texts(reading_words(chars)), ["1", "The"])

    def test_small_capitals_on_the_baseline_stay_in_their_word(self):
        chars = glyphs(("K", 10, 17), ("O", 17, 22, 101.6, 8.0), ("M", 22, 28, 101.6, 8.0))
        self.assertEqual(texts(reading_words(chars)), ["KOM"])

    def test_an_accent_drawn_over_its_letter_is_composed_with_it(self):
        # pdfTeX's \'e: the letter, then the accent drawn over it
        chars = glyphs(("c", 10, 14.4), ("a", 14.4, 19.4), ("f", 19.4, 22.4), ("e", 22.4, 26.8),
                       ("\u00b4", 23.3, 26.3))
        self.assertEqual(texts(reading_words(chars)), ["café"])

    def test_a_dotless_i_under_an_accent_reads_as_the_accented_i(self):
        chars = glyphs(("n", 10, 15.5), ("a", 15.5, 20.5), ("\u00a8", 20.4, 23.4),
                       ("\u0131", 20.5, 23.3), ("v", 23.3, 28.5), ("e", 28.5, 33))
        self.assertEqual(texts(reading_words(chars)), ["naïve"])

    def test_an_accent_standing_alone_stays_a_word(self):
        chars = glyphs(("\u00b4", 10, 13), ("x", 20, 25))
        self.assertEqual(texts(reading_words(chars)), ["\u00b4", "x"])


class StackTest(unittest.TestCase):
    """Marks set over or under a group of glyphs (MS Word's equations, LuaTeX's and
    ConTeXt's, in lm-math's test sheets), read apart from the glyphs they span."""

    def test_a_wide_hat_over_three_letters_is_read_apart_from_them(self):
        chars = glyphs(("\U0001d44f", 248.64, 253.78), ("\U0001d450", 253.8, 258.99),
                       ("\U0001d451", 258.96, 265.2), ("\u0302", 249.0, 264.83, 97.0))
        self.assertEqual(texts(reading_words(chars)), ["\U0001d44f\U0001d450\U0001d451", "\u0302"])

    def test_a_brace_under_letters_and_a_bracket_over_them_are_rows_of_their_own(self):
        letters = [("a", 258.48 + 6.36 * i, 264.82 + 6.36 * i) for i in range(7)]
        chars = glyphs(*letters, ("\u23df", 259.68, 301.68, 101.7), ("\u23b4", 258.48, 276.39),
                       ("\u23b4", 274.68, 286.61), ("\u23b4", 285.0, 302.89))
        self.assertEqual(sorted(texts(reading_words(chars))), ["aaaaaaa", "\u23b4" * 3, "\u23df"])

    def test_an_arrow_built_of_pieces_over_two_letters_is_one_word_apart(self):
        pieces = [("\u20d7", 342.24 + 1.44 * i, 343.88 + 1.44 * i, 97.0) for i in range(7)]
        chars = glyphs(("d", 342.36, 348.6), ("r", 348.6, 354.01), *pieces)
        self.assertEqual(texts(reading_words(chars)), ["dr", "\u20d7" * 7])

    def test_a_combining_mark_over_one_glyph_follows_it_whatever_its_height(self):
        # Word's line: the arrow over A set over the bracket after it, 3.2 pt higher than
        # both (pdfplumber's 3 pt across parts it from them), on a line an arrow of pieces
        # over 'dr' joins to it
        pieces = [("\u20d7", 442.24 + 1.44 * i, 443.88 + 1.44 * i, 97.0) for i in range(7)]
        chars = glyphs(("A", 418.8, 427.79), (")", 427.8, 433.29),
                       ("\u20d7", 428.52, 428.52, 96.76), ("d", 442.36, 448.6),
                       ("r", 448.6, 454.01), *pieces)
        self.assertEqual(texts(reading_words(chars)), ["A)\u20d7", "dr", "\u20d7" * 7])

    def test_a_sign_over_one_large_glyph_behind_the_line_stays_among_its_letters(self):
        # a watermark's letter behind a line of text: no group under the sign
        chars = glyphs(("x", 78.28, 83.46), ("\u2212", 83.46, 88.64), ("1", 88.64, 93.82),
                       ("C", 73.5, 97.51, 98.7, 24.0))
        self.assertTrue(any("x\u22121" in w for w in texts(reading_words(chars))))


    def test_a_line_of_marks_stacked_over_one_another_costs_linear_work(self):
        # a hostile line: every mark over every other and over all the letters
        from unittest import mock

        from dua.pdf import reading

        def calls(n: int) -> int:
            chars = glyphs(*[("a", 10 + 5 * i, 15 + 5 * i) for i in range(n)],
                           *[("\u23df", 10, 10 + 5 * n)] * n)
            with mock.patch.object(reading, "_stacked", side_effect=reading._stacked) as spy:
                found = reading_words(chars)
            self.assertEqual(len(found), n + 1)  # the letters, each brace a row of its own
            return spy.call_count

        self.assertLess(calls(800), 2.5 * calls(400))


class FixtureTest(unittest.TestCase):
    def test_typeset_pages_read_as_their_words(self):
        self.assertIn("Sufficientairflowthroughthenewfluesalsofixed",
                      read("luatex_ligatures.pdf", "parser"))
        got = read("luatex_ligatures.pdf", "reading")
        self.assertIn("Sufficient", got)
        self.assertIn("airflow", got)
        self.assertFalse([w for w in got if len(w) > 20])

    def test_pdftex_accents_are_composed_with_their_letters(self):
        got = read("pdftex_accents_ot1.pdf", "reading")
        for word in ("Málaga,", "maître", "naïve", "Dvořák’s", "Székesfehérvár"):
            self.assertIn(word, got)

    def test_text_turned_up_the_page_reads_in_the_order_drawn(self):
        self.assertIn("gnidloffacS", read("writer_rotated.pdf", "parser"))
        self.assertIn("Scaffolding", read("writer_rotated.pdf", "reading"))

    def test_a_font_whose_matrix_flips_its_glyphs_reads_across_the_page(self):
        # dvips' bitmap fonts through Ghostscript: glyphs pdfminer counts as turned
        got = read("ghostscript_dvips_bitmap.pdf", "reading")
        self.assertIn("official", got)
        self.assertIn("retrofit", got)

    def test_every_glyph_of_the_parsers_words_is_in_the_reading_words(self):
        # an accent composed with its letter is the same two code points, decomposed; the
        # dotless i TeX sets under an accent is the accented letter's i
        import collections
        import glob
        import unicodedata

        paths = sorted(glob.glob(os.path.join(READER, "*.pdf")))
        paths += sorted(glob.glob(os.path.join(FIXTURES, "documents", "real", "*.pdf")))
        self.assertGreater(len(paths), 20)
        for path in paths:
            with self.subTest(os.path.basename(path)):
                seen = []
                for rule in ("parser", "reading"):
                    pages, _ = document.read_words(path, word_rule=rule)
                    text = unicodedata.normalize("NFKD", "".join(
                        w[0] for p in pages for w in p["words"]))
                    text = "".join(_COMBINING.get(ch, ch) for ch in text.replace("\u0131", "i"))
                    seen.append(collections.Counter(text.replace(" ", "")))
                self.assertEqual(seen[0], seen[1])

    def test_the_parsers_rule_is_the_default_and_is_pdfplumbers(self):
        path = os.path.join(READER, "luatex_ligatures.pdf")
        self.assertEqual(document.read_words(path)[0], words.read_pages(path))
        self.assertIn("Sufficientairflowthroughthenewfluesalsofixed",
                      [w.text for w in document.read_document(path).pages[0].words])
        self.assertEqual(document.WORD_RULES["parser"], None)


if __name__ == "__main__":
    unittest.main()
