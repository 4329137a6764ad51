"""The statement's words from the reader's, on hand-made reader words: cut where glyphs
stand apart, and set apart (watermark, text on its side, unmapped glyphs) with a reason."""
from __future__ import annotations

import unittest

from dua.statements.table import pagewords


def reader_word(text, x0, top, size=8.0, runs=(), x1=None, bottom=None):
    """A reader word ``(text, x0, x1, top, bottom, font, size, runs)``; runs are
    ``(offset in text, x0, x1, top, bottom, size)``."""
    x1 = x0 + 0.5 * size * len(text) if x1 is None else x1
    return (text, x0, x1, top, top + size if bottom is None else bottom, "F", size, tuple(runs))


# The page's usual text: what a watermark is measured against.
BODY = [reader_word("Statement", 40, 20), reader_word("Coffee", 40, 40),
        reader_word("Balance", 40, 60)]


def texts(words):
    return [w[0] for w in words]


class SplitTest(unittest.TestCase):
    def test_glyph_runs_a_tenth_of_an_em_apart_are_two_words(self):
        # A text layer with no space glyphs: 'DATE' and 'AMOUNT' told apart by a 2 pt gap.
        glued = reader_word("DATEAMOUNT", 10, 100, runs=[(0, 10, 26, 100, 108, 8.0),
                                                         (4, 28, 60, 100, 108, 8.0)], x1=60)
        kept, apart = pagewords.page_words(BODY + [glued], {})
        self.assertEqual(texts(kept)[-2:], ["DATE", "AMOUNT"])
        self.assertEqual(([w[1:3] for w in kept[-2:]], apart), ([(10, 26), (28, 60)], []))

    def test_runs_closer_than_a_tenth_of_an_em_stay_one_word(self):
        close = reader_word("DATEAMOUNT", 10, 100, runs=[(0, 10, 26, 100, 108, 8.0),
                                                         (4, 26.5, 60, 100, 108, 8.0)], x1=60)
        kept, _ = pagewords.page_words(BODY + [close], {})
        self.assertEqual(texts(kept)[-1], "DATEAMOUNT")


    def test_a_capital_drawn_over_the_letter_before_it_starts_a_word(self):
        # 'Memo' set too close to 'Money': the 'M' 1.2 pt over the 'o', one reader word
        glued = reader_word("MemoMoney", 10, 100, runs=[(0, 10, 39, 100, 108, 8.0),
                                                        (4, 37.8, 70, 100, 108, 8.0)], x1=70)
        kept, _ = pagewords.page_words(BODY + [glued], {})
        self.assertEqual(texts(kept)[-2:], ["Memo", "Money"])

    def test_a_kerned_pair_stays_one_word(self):
        from dua.pdf.wordrule import _runs

        # 'To' kerned 0.4 pt: the reader records no run, the word stays whole
        self.assertEqual(_runs(["T", "o"], [10.0, 14.6], [15.0, 19.0], [0, 0], [8, 8], [8, 8]),
                         ())
        self.assertEqual(len(_runs(["o", "M"], [10.0, 13.8], [15.0, 21.0], [0, 0], [8, 8],
                                   [8, 8])), 2)


class SetApartTest(unittest.TestCase):
    def test_glyphs_three_times_the_usual_size_are_a_watermark(self):
        kept, apart = pagewords.page_words(BODY + [reader_word("Muster", 100, 100, size=60)], {})
        self.assertNotIn("Muster", texts(kept))
        (word, reason), = apart
        self.assertEqual(word[0], "Muster")
        self.assertTrue(reason.startswith("watermark: text 8 times the size"), reason)

    def test_a_watermark_glyph_glued_into_a_word_is_cut_off_and_set_apart(self):
        glued = reader_word("Referenzu", 10, 100, runs=[(0, 10, 50, 132, 140, 8.0),
                                                        (8, 50, 100, 100, 140, 40.0)],
                            x1=100, bottom=140)
        kept, apart = pagewords.page_words(BODY + [glued], {})
        self.assertEqual(texts(kept)[-1], "Referenz")
        self.assertEqual([(w[0], r.split(":")[0]) for w, r in apart], [("u", "watermark")])

    def test_a_word_taller_than_wide_and_than_its_glyphs_is_text_on_its_side(self):
        side = reader_word("Statement", 580, 100, x1=588, bottom=180)
        kept, apart = pagewords.page_words(BODY + [side], {})
        self.assertEqual((texts(kept), [(w[0], r) for w, r in apart]),
                         (texts(BODY), [("Statement", "text turned on its side")]))

    def test_a_short_word_of_a_line_on_its_side_goes_with_the_line(self):
        # 'appelez le 09 69' down the margin: '09' reads as tall as it is wide, but stands
        # across the very edges of the words on their side right above it
        down = [reader_word("appelez", 564.6, 100, size=3.7, x1=571.2, bottom=124.2),
                reader_word("le", 564.6, 126, size=1.8, x1=571.2, bottom=131.5),
                reader_word("09", 564.6, 133.3, size=3.7, x1=571.2, bottom=140.6),
                reader_word("69", 564.6, 142.5, size=3.7, x1=571.2, bottom=149.8)]
        upright = reader_word("12.00", 551.2, 152, size=8, x1=571.2)  # an amount under it
        kept, apart = pagewords.page_words(BODY + down + [upright], {})
        self.assertEqual(texts(kept), texts(BODY) + ["12.00"])
        self.assertEqual(sorted(w[0] for w, _ in apart), ["09", "69", "appelez", "le"])

    def test_a_word_of_unmapped_glyphs_is_set_apart(self):
        kept, apart = pagewords.page_words(BODY + [reader_word("(cid:12)(cid:7)", 80, 100)], {})
        self.assertEqual(texts(kept), texts(BODY))
        self.assertIn("no Unicode map", apart[0][1])


class DotLeaderTest(unittest.TestCase):
    def test_a_heading_joined_by_dot_leaders_becomes_its_names_placed_by_character(self):
        heading = reader_word("DATE..........AMOUNT.TRANSACTION", 0, 100, x1=320)  # 10 pt each
        kept, _ = pagewords.page_words(BODY + [heading], {})
        self.assertEqual([(w[0], w[1], w[2]) for w in kept[len(BODY):]],
                         [("DATE", 0.0, 40.0), ("AMOUNT", 140.0, 200.0),
                          ("TRANSACTION", 210.0, 320.0)])

    def test_a_speck_read_in_a_scans_dot_leader_is_part_of_the_leader(self):
        # OCR read a speck among the leader's dots as a dash: the dots still join two names
        heading = reader_word("DATE.........-AMOUNT.", 0, 100, x1=210)
        kept, _ = pagewords.page_words(BODY + [heading], {})
        self.assertEqual(texts(kept)[len(BODY):], ["DATE", "AMOUNT"])

    def test_a_word_with_single_dots_between_letters_stays_whole(self):
        kept, _ = pagewords.page_words(BODY + [reader_word("AMZN.COM/BILLWA", 0, 100)], {})
        self.assertEqual(texts(kept)[-1], "AMZN.COM/BILLWA")



class SpaceTraitTest(unittest.TestCase):
    """The gap rule cuts words only where the page gives no other sign of a word's end."""

    # 'ABCDEF' whose glyphs stand 0.15 em apart after 'AB' (8 pt type, a gap of 1.2 pt)
    WORD = ("ABCDEF", 10.0, 50.0, 100.0, 108.0, "F", 8.0,
            ((0, 10.0, 20.0, 100.0, 108.0, 8.0), (2, 21.2, 50.0, 100.0, 108.0, 8.0)))

    def test_a_page_without_space_glyphs_is_cut_at_the_gap(self):
        pages, _ = pagewords.statement_pages([[self.WORD]], {}, [6])
        self.assertEqual([w[0] for w in pages[0]], ["AB", "CDEF"])

    def test_a_page_that_prints_spaces_keeps_a_word_whose_letters_stand_apart(self):
        pages, _ = pagewords.statement_pages([[self.WORD]], {}, [6 + 40])
        self.assertEqual([w[0] for w in pages[0]], ["ABCDEF"])

    def test_on_it_a_gap_as_wide_as_a_space_still_parts_two_cells(self):
        wide = self.WORD[:7] + (((0, 10.0, 20.0, 100.0, 108.0, 8.0),
                                 (2, 22.4, 50.0, 100.0, 108.0, 8.0)),)
        pages, _ = pagewords.statement_pages([[wide]], {}, [6 + 40])
        self.assertEqual([w[0] for w in pages[0]], ["AB", "CDEF"])

    def test_without_a_glyph_count_the_page_is_taken_to_print_none(self):
        pages, _ = pagewords.statement_pages([[self.WORD]], {})
        self.assertEqual([w[0] for w in pages[0]], ["AB", "CDEF"])


class WrappedNumberTest(unittest.TestCase):
    """Engine words ``(text, x0, x1, top, bottom, size)`` as ``page_words`` returns them."""

    @staticmethod
    def engine_word(text, x0, x1, top):
        return (text, x0, x1, top, top + 8.0, 8.0)

    def test_a_number_cut_at_its_thousands_group_is_one_word_on_its_first_line(self):
        words = [self.engine_word("Rent", 100, 120, 50), self.engine_word("181", 300, 315, 50),
                 self.engine_word("081,39", 290, 315, 60)]
        joined = pagewords._wrapped_numbers(words)
        self.assertEqual([(w[0], w[3]) for w in joined], [("Rent", 50), ("181 081,39", 50)])
        self.assertEqual(joined[1][7], 60)  # where its last part stands

    def test_a_head_of_several_groups_is_joined_whole(self):
        # '1 023' over '742,77': the millions' group a narrow space before the thousands'
        words = [self.engine_word("1", 293, 297, 50), self.engine_word("023", 300, 315, 50),
                 self.engine_word("742,77", 290, 315, 60)]
        self.assertEqual([(w[0], w[1]) for w in pagewords._wrapped_numbers(words)],
                         [("1 023 742,77", 290)])
        # a word space before it, the figure's head is the group alone
        apart = [self.engine_word("Rent", 270, 290, 50)] + words[1:]
        self.assertEqual([w[0] for w in pagewords._wrapped_numbers(apart)],
                         ["Rent", "023 742,77"])

    def test_numbers_in_other_columns_or_lines_apart_stay_as_printed(self):
        for tail in (self.engine_word("081,39", 200, 225, 60),  # another column's edge
                     self.engine_word("081,39", 290, 315, 80),  # two lines down
                     self.engine_word("81,39", 290, 315, 60)):  # no group of three
            with self.subTest(tail=tail):
                words = [self.engine_word("181", 300, 315, 50), tail]
                self.assertEqual(pagewords._wrapped_numbers(words), words)

    def test_a_number_whose_sign_code_follows_it_ends_its_cell_after_the_code(self):
        # '13' over '289,68' 'H': the head ends where the code does, at the cell's edge
        words = [self.engine_word("13", 303, 313, 50), self.engine_word("289,68", 275, 304, 60),
                 self.engine_word("H", 306, 313, 60)]
        joined = pagewords._wrapped_numbers(words)
        self.assertEqual([w[0] for w in joined], ["13 289,68", "H"])
        glued = [self.engine_word("10", 303, 313, 50), self.engine_word("436,35DR", 279, 313, 60)]
        self.assertEqual([w[0] for w in pagewords._wrapped_numbers(glued)], ["10 436,35DR"])

    def test_a_word_printed_between_the_two_parts_keeps_them_apart(self):
        words = [self.engine_word("181", 300, 315, 50), self.engine_word("x", 300, 305, 58),
                 self.engine_word("081,39", 290, 315, 66)]
        self.assertEqual(pagewords._wrapped_numbers(words), words)


if __name__ == "__main__":
    unittest.main()
