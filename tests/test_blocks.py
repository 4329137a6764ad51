"""dua.documents.blocks: words -> lines -> blocks, tables, figures, column-aware reading order."""
from __future__ import annotations

import os
import tempfile
import unittest

from dua.documents.blocks import document_blocks
from dua.pdf import read_layout
from fixtures.pdfwriter import PDF, gradient
from tests.support import FIXTURES

DOCS = os.path.join(FIXTURES, "documents")


def blocks_of(name: str) -> list:
    doc, tables = read_layout(os.path.join(DOCS, f"{name}.pdf"))
    return document_blocks(doc, tables)


def text_of(block) -> str:
    return " ".join(block.text.split())


class BlocksTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report = blocks_of("report")
        cls.tables = blocks_of("tables")
        cls.columns = blocks_of("two_column")
        cls.figure = blocks_of("figure")

    def test_ids_name_page_and_index_in_reading_order(self):
        page2 = [b.id for b in self.report if b.page_number == 2]
        self.assertEqual(page2, [f"p2-b{i}" for i in range(1, len(page2) + 1)])
        self.assertEqual(self.report[0].id, "p1-b1")

    def test_block_carries_bbox_lines_fonts_and_source_type(self):
        title = next(b for b in self.report if b.text == "Annual Report")
        self.assertEqual(title.metadata, {"source_block_type": "text", "column": "full"})
        self.assertEqual(title.lines[0].font, "Helvetica-Bold")
        self.assertEqual(title.lines[0].size, 20.0)
        x0, top, x1, bottom = title.bbox
        self.assertTrue(x0 < x1 and top < bottom)
        self.assertEqual(title.to_dict()["lines"][0]["text"], "Annual Report")

    def test_font_change_splits_heading_from_paragraph(self):
        texts = [text_of(b) for b in self.report]
        i = texts.index("Highlights")
        self.assertTrue(texts[i + 1].startswith("Three things went well"))

    def test_vertical_gap_splits_paragraphs_and_lines_join_within_one(self):
        para = next(b for b in self.report if b.text.startswith("This report summarises"))
        self.assertGreater(len(para.lines), 1)
        self.assertNotIn("Highlights", para.text)

    def test_footer_and_page_number_on_one_row_are_two_blocks(self):
        last_two = [b.text for b in self.report if b.page_number == 1][-2:]
        self.assertEqual(last_two, ["Confidential", "Page 1 of 2"])

    def test_two_column_page_is_read_left_column_then_right(self):
        texts = [text_of(b)[:25] for b in self.columns]
        order = [texts.index(t) for t in ("Reading in Columns", "This page starts with a f",
                                          "Left Column", "A wide gap means another ",
                                          "Right Column", "After the columns, the pa")]
        self.assertEqual(order, sorted(order))
        left = next(b for b in self.columns if b.text.startswith("The left column"))
        self.assertNotIn("right column", left.text.lower())

    def test_ruled_table_comes_from_the_finder_with_cells(self):
        table = next(b for b in self.tables if b.metadata.get("ruled"))
        self.assertEqual(table.metadata["source_block_type"], "table")
        self.assertEqual(table.metadata["rows"][0], ["Quarter", "Revenue", "Costs", "Margin"])
        self.assertEqual(table.metadata["rows"][4], ["Q4", "1,720", "1,010", "710"])

    def test_unruled_table_is_found_from_aligned_columns(self):
        table = next(b for b in self.tables if b.metadata.get("ruled") is False)
        self.assertEqual(table.metadata["rows"][0], ["Region", "Stores", "Staff", "Sales"])
        self.assertEqual(table.metadata["rows"][1], ["North", "12", "140", "2,310"])
        self.assertEqual(len(table.metadata["rows"]), 5)

    def test_image_becomes_an_empty_image_block_before_its_caption(self):
        kinds = [b.metadata["source_block_type"] for b in self.figure]
        i = kinds.index("image")
        self.assertEqual(self.figure[i].text, "")
        self.assertTrue(self.figure[i + 1].text.startswith("Figure 1:"))

    def test_every_word_lands_in_exactly_one_block(self):
        for name in ("report", "tables", "two_column", "figure", "mixed", "long_document"):
            with self.subTest(name):
                doc, tables = read_layout(os.path.join(DOCS, f"{name}.pdf"))
                words = sorted(w.text for p in doc.pages for w in p.words)
                got = sorted(w for b in document_blocks(doc, tables) for w in b.text.split())
                self.assertEqual(words, got)


class SyntheticPageTest(unittest.TestCase):
    """Small pages drawn here, for layouts the fixtures do not isolate."""

    def layout(self, draw) -> list:
        pdf = PDF()
        draw(pdf.add_page())
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "page.pdf")
            pdf.save(path)
            doc, tables = read_layout(path)
        return document_blocks(doc, tables)

    def test_page_sized_image_under_text_is_background_not_figure(self):
        blocks = self.layout(lambda p: (p.image(0, 0, 612, 792, gradient()),
                                        p.text(72, 100, "Scanned words")))
        self.assertEqual([b.metadata["source_block_type"] for b in blocks], ["text"])

    def test_empty_page_has_no_blocks(self):
        self.assertEqual(self.layout(lambda p: None), [])

    def test_table_whose_cells_are_all_spanned_keeps_its_words_in_one_cell(self):
        from dua.documents.blocks import page_blocks
        from dua.pdf import Page, Table, Word

        words = [Word("a", 10, 20, 10, 20), Word("b", 30, 40, 10, 20), Word("c", 10, 20, 30, 40)]
        page = Page(1, 100, 100, words, 3)
        (block,) = page_blocks(page, [Table((0, 0, 50, 50), [[None, None], [None, None]])])
        self.assertEqual(block.metadata["rows"], [["a b c"]])

    def test_two_rows_of_three_cells_are_a_table_but_one_row_is_not(self):
        def draw(p):
            for i, y in enumerate((100, 114)):
                for x, word in ((72, "Name"), (200, f"{i}1"), (320, f"{i}2")):
                    p.text(x, y, word)
            for x, word in ((72, "Alone"), (200, "row"), (320, "here")):
                p.text(x, 300, word)
        kinds = [b.metadata["source_block_type"] for b in self.layout(draw)]
        self.assertEqual(kinds.count("table"), 1)
        self.assertEqual(kinds.count("text"), 3)


def words_of(x: float, top: float, text: str, size: float = 10.0, font: str = "Times-Roman",
             space: float = 2.5) -> list:
    """``dua.pdf.Word`` objects for one printed line: half an em a character, ``space`` apart."""
    from dua.pdf import Word

    out = []
    for token in text.split():
        width = 0.5 * size * len(token)
        out.append(Word(token, x, x + width, top, top + size, font, size))
        x += width + space
    return out


def justified(x: float, top: float, width: float, n: int = 12, size: float = 10.0) -> list:
    """A full line of ``n`` words stretched to ``width`` points, as justified text is."""
    from dua.pdf import Word

    step = width / n
    return [Word(f"w{i}", x + i * step, x + (i + 1) * step - 3, top, top + size, "Times-Roman", size)
            for i in range(n)]


class LayoutRulesTest(unittest.TestCase):
    """Rules that cut and join blocks, on pages built from words (no producer in between)."""

    def blocks(self, words: list, h_rules=(), v_rules=(), tables=(), width=612.0) -> list:
        from dua.documents.blocks import page_blocks
        from dua.pdf import Page

        return page_blocks(Page(1, width, 792.0, words, 1, list(h_rules), list(v_rules)), list(tables))

    def test_extra_leading_smaller_than_half_a_line_still_ends_a_paragraph(self):
        words = justified(72, 100, 450) + justified(72, 112, 450) + words_of(72, 124, "end of one.")
        words += justified(72, 139.6, 450) + words_of(72, 151.6, "end of two.")  # 15.6 pitch, not 12
        self.assertEqual([len(b.lines) for b in self.blocks(words)], [3, 2])

    def test_indented_full_line_after_a_short_line_starts_a_paragraph(self):
        words = justified(72, 100, 450) + words_of(72, 112, "short last line.")
        words += justified(90, 124, 432) + justified(72, 136, 450)
        self.assertEqual([len(b.lines) for b in self.blocks(words)], [2, 2])

    def test_line_starting_left_of_the_list_marker_ends_the_list(self):
        words = words_of(61, 100, "1. First item") + words_of(61, 114, "2. Second item")
        words += justified(57, 128, 450)
        blocks = self.blocks(words)
        self.assertEqual([len(b.lines) for b in blocks], [2, 1])

    def test_a_lowered_letter_does_not_cut_a_paragraph_after_its_line(self):
        # TeX's logo lowers its E: the line's box reaches below the next line's top
        from dua.pdf import Word

        first = justified(72, 100, 450)
        first[5] = Word("E", first[5].x0, first[5].x1, 102.2, 112.2, "Times-Roman", 10.0)
        words = first + justified(72, 111, 450) + words_of(72, 122, "end of it.")
        self.assertEqual([len(b.lines) for b in self.blocks(words)], [3])

    def test_a_sentence_running_on_into_a_line_set_mostly_in_code_stays_one_paragraph(self):
        words = justified(72, 100, 450) + words_of(72, 112, "users of dvipdfmx --help", size=9.2,
                                                     font="Courier")
        self.assertEqual([len(b.lines) for b in self.blocks(words)], [2])

    def test_a_short_heading_over_lower_case_text_is_still_its_own_block(self):
        words = words_of(72, 100, "1.1 xdvipdfmx", size=11.0, font="Times-Bold")
        words += words_of(72, 113, "xdvipdfmx is an extended version of dvipdfmx and more")
        self.assertEqual([len(b.lines) for b in self.blocks(words)], [1, 1])

    def test_flush_right_roman_markers_stay_one_list(self):
        words = words_of(69, 100, "i) one item") + words_of(66.5, 114, "ii) two item")
        words += words_of(64, 128, "iii) three item")
        self.assertEqual([len(b.lines) for b in self.blocks(words)], [3])

    def test_table_in_one_column_leaves_the_prose_beside_it_alone(self):
        words = []
        for i in range(8):
            top = 100 + 12 * i
            words += justified(72, top, 210, n=8)
            if i < 4:
                words += justified(320, top, 210, n=8)
            else:  # a table in the right column, rows level with the left column's lines
                for x, cell in ((320, "Name"), (420, f"{i}1"), (480, f"{i}2")):
                    words += words_of(x, top, cell)
        blocks = self.blocks(words)
        table = next(b for b in blocks if b.metadata["source_block_type"] == "table")
        self.assertEqual(table.metadata["rows"][0], ["Name", "41", "42"])
        self.assertTrue(all(b.bbox[0] >= 320 for b in [table]))
        left = next(b for b in blocks if b.metadata.get("column") == "left")
        self.assertEqual(len(left.lines), 8)

    def test_key_value_row_set_closer_than_a_cell_gap_joins_its_table(self):
        words = []
        for i, (key, value) in enumerate((("Owner", "Team A"), ("Budget", "EUR 4"),
                                          ("Comparable capacity", "3 May"))):
            # the last key ends 9.5 points before its value: no wider than a wide word space
            words += words_of(60, 100 + 30 * i, key) + words_of(162, 100 + 30 * i, value)
        blocks = self.blocks(words)
        self.assertEqual([b.metadata["source_block_type"] for b in blocks], ["table"])
        self.assertEqual(blocks[0].metadata["rows"][2], ["Comparable capacity", "3 May"])

    def test_ruled_table_grows_over_the_column_its_row_rules_reach(self):
        from dua.pdf import Table

        rows = [[(100, 100, 200, 120), (200, 100, 300, 120)], [(100, 120, 200, 140), (200, 120, 300, 140)]]
        words = words_of(105, 105, "Region") + words_of(205, 105, "FY1") + words_of(305, 105, "FY2")
        words += words_of(105, 125, "North") + words_of(205, 125, "1.0") + words_of(305, 125, "2.0")
        h_rules = [(100, 360, y) for y in (100, 120, 140)]  # the last vertical rule is missing
        (block,) = self.blocks(words, h_rules=h_rules, tables=[Table((100, 100, 300, 140), rows)])
        self.assertEqual(block.metadata["rows"], [["Region", "FY1", "FY2"], ["North", "1.0", "2.0"]])

    def test_table_standing_right_under_a_table_with_as_many_columns_is_one_table(self):
        from dua.pdf import Table

        rows = [[(58, 100, 150, 118), (150, 100, 220, 118), (220, 100, 290, 118)]] * 2
        rows = [rows[0], [(c[0], 118, c[2], 136) for c in rows[1]]]
        words = []
        for i, top in enumerate((104, 122, 140, 158)):
            words += words_of(60, top, f"Row{i}") + words_of(160, top, f"{i}.1") + words_of(230, top, f"{i}.2")
        blocks = self.blocks(words, tables=[Table((58, 100, 290, 136), rows)])
        self.assertEqual([b.metadata["source_block_type"] for b in blocks], ["table"])
        self.assertEqual(len(blocks[0].metadata["rows"]), 4)

    def test_chart_on_a_panel_is_a_figure_with_its_small_labels_but_not_its_caption(self):
        panel = [(50, 320, y) for y in (100, 300)]
        v = [(50, 100, 300), (320, 100, 300), (90, 130, 270), (140, 200, 270), (200, 160, 270)]
        h = panel + [(90, 300, 270)]
        words = words_of(95, 275, "North South East West Centre", size=7)  # inside: labels
        words += words_of(95, 305, "Q1 Q2 Q3 Q4 Q5 Q6", size=7)  # just under the panel
        words += words_of(50, 312, "Figure 1: Sales by region", size=9)
        words += justified(50, 340, 450) + justified(50, 352, 450)
        blocks = self.blocks(words, h_rules=h, v_rules=v)
        kinds = [b.metadata["source_block_type"] for b in blocks]
        self.assertEqual(kinds, ["image", "text", "text"])
        self.assertIn("Q6", blocks[0].text)
        self.assertTrue(blocks[1].text.startswith("Figure 1:"))

    def test_a_page_flooded_with_paths_is_one_figure_and_keeps_every_word(self):
        # 20,000 one-point squares a point apart: comparing every pair of their 80,000
        # edges would take hours, so past a budget they are grouped by grid cells
        h, v = [], []
        for i in range(20000):
            x, y = 50 + i % 200, 100 + i // 200
            h += [(x, x + 1, y), (x, x + 1, y + 1)]
            v += [(x, y, y + 1), (x + 1, y, y + 1)]
        words = justified(60, 400, 450) + justified(60, 412, 450)
        blocks = self.blocks(words, h_rules=h, v_rules=v)
        self.assertEqual([b.metadata["source_block_type"] for b in blocks], ["image", "text"])
        self.assertEqual(blocks[0].bbox, (50, 100, 250, 200))
        self.assertEqual(" ".join(b.text for b in blocks).split(), [w.text for w in words])

    def test_grid_cells_group_a_drawing_as_comparing_its_edges_does(self):
        from unittest import mock

        from dua.documents import figures

        h = [(50, 320, 100), (50, 320, 300), (90, 300, 270), (400, 450, 100)]
        v = [(50, 100, 300), (320, 100, 300), (90, 130, 270), (140, 200, 270), (400, 90, 150)]
        edges = [(x0, y, x1, y, "h") for x0, x1, y in h] + [(x, t, x, b, "v") for x, t, b in v]
        pairwise = figures._clusters(edges)
        with mock.patch.object(figures, "_PAIR_BUDGET", 0):
            by_cells = figures._clusters(edges)
        self.assertEqual(sorted(map(sorted, by_cells)), sorted(map(sorted, pairwise)))
        self.assertEqual(len(pairwise), 3)  # the panel, the chart on it, the mark beside

    def test_a_text_panel_with_two_underlines_is_no_figure(self):
        h = [(50, 320, 100), (50, 320, 300), (51, 319, 101), (51, 319, 299), (60, 120, 160),
             (60, 120, 172)]
        v = [(50, 100, 300), (320, 100, 300), (51, 101, 299), (319, 101, 299)]
        words = justified(60, 150, 250) + justified(60, 162, 250)
        kinds = [b.metadata["source_block_type"] for b in self.blocks(words, h_rules=h, v_rules=v)]
        self.assertEqual(kinds, ["text"])

    def test_prose_running_into_a_spilled_panel_keeps_its_words(self):
        h = [(50, 330, 100), (50, 330, 300), (90, 300, 270)]
        v = [(50, 100, 300), (330, 100, 300), (90, 130, 270), (140, 200, 270)]
        words = []
        for i in range(10):
            words += justified(60, 100 + 20 * i, 220, n=5) if i == 0 else []
            words += justified(310, 100 + 12 * i, 250, n=8)  # the right column, from x 310
        blocks = self.blocks(words, h_rules=h, v_rules=v)
        figure = next(b for b in blocks if b.metadata["source_block_type"] == "image")
        self.assertNotIn("w0", figure.text.split("\n")[-1:])
        right = [b for b in blocks if b.bbox[0] >= 300]
        self.assertEqual(sum(len(b.lines) for b in right), 10)

    def test_heading_under_balanced_columns_is_read_after_both_columns(self):
        words = []
        for i in range(6):
            words += justified(72, 100 + 12 * i, 210, n=8) + justified(320, 100 + 12 * i, 210, n=8)
        words += words_of(72, 190, "3 Results", font="Times-Bold", size=12)
        words += justified(72, 210, 460)
        texts = [b.text for b in self.blocks(words)]
        self.assertEqual(texts[2], "3 Results")
        self.assertEqual([b.metadata.get("column") for b in self.blocks(words)][2], "full")


if __name__ == "__main__":
    unittest.main()
