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


if __name__ == "__main__":
    unittest.main()
