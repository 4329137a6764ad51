"""dua.documents.flow: elements cut by a column or page break become one element again."""
from __future__ import annotations

import unittest

from dua.documents.flow import join_continued
from dua.schemas import Block, Line


def block(ident: str, page: int, bbox: tuple, lines: list) -> Block:
    """A text block of ``lines`` given as (x0, x1) on rows 12 points apart from bbox's top."""
    out = [Line("w " * 5, (x0, bbox[1] + 12 * i, x1, bbox[1] + 12 * i + 10), "Times-Roman", 10.0)
           for i, (x0, x1) in enumerate(lines)]
    return Block(ident, page, bbox, out, "\n".join(ln.text for ln in out), {"source_block_type": "text"})


def paragraph(b: Block) -> dict:
    return {"type": "paragraph", "text": " ".join(b.text.split()), "bbox": list(b.bbox),
            "page_number": b.page_number, "block_ids": [b.id]}


def table(ident: str, page: int, bbox: tuple, rows: list, header=None) -> tuple:
    b = Block(ident, page, bbox, [Line("x", bbox, "Times-Roman", 10.0)], "x", {"source_block_type": "table"})
    el = {"type": "table", "rows": rows, "bbox": list(bbox), "page_number": page, "block_ids": [ident]}
    if header:
        el["header"] = header
    return b, el


class FlowTest(unittest.TestCase):
    def test_full_last_line_runs_on_into_the_next_page(self):
        a = block("p1-b1", 1, (72, 700, 523, 734), [(72, 523), (72, 523), (72, 523)])
        b = block("p2-b1", 2, (72, 76, 523, 98), [(72, 523), (72, 300)])
        (el,) = join_continued([paragraph(a), paragraph(b)], [a, b])
        self.assertEqual(el["continued"][0]["page_number"], 2)

    def test_indented_first_line_at_the_next_page_starts_a_new_paragraph(self):
        a = block("p1-b1", 1, (72, 700, 523, 734), [(72, 523), (72, 523), (72, 523)])
        b = block("p2-b1", 2, (72, 76, 523, 98), [(97, 523), (72, 300)])
        self.assertEqual(len(join_continued([paragraph(a), paragraph(b)], [a, b])), 2)

    def test_table_cut_by_a_page_break_is_one_table_with_a_continued_part(self):
        a, ea = table("p1-b1", 1, (60, 700, 278, 780), [["North", "1.0"]], header=["Region", "FY1"])
        b, eb = table("p2-b1", 2, (60, 46, 278, 120), [["South", "2.0"], ["East", "3.0"]])
        (el,) = join_continued([ea, eb], [a, b])
        self.assertEqual(el["rows"], [["North", "1.0"], ["South", "2.0"], ["East", "3.0"]])
        self.assertEqual(el["continued"], [{"page_number": 2, "bbox": [60, 46, 278, 120], "words": 4}])

    def test_table_at_the_next_page_with_other_edges_or_its_own_header_is_another_table(self):
        a, ea = table("p1-b1", 1, (60, 700, 278, 780), [["North", "1.0"]], header=["Region", "FY1"])
        b, eb = table("p2-b1", 2, (60, 46, 400, 120), [["South", "2.0"]])
        c, ec = table("p2-b1", 2, (60, 46, 278, 120), [["South", "2.0"]], header=["Site", "FY2"])
        self.assertEqual(len(join_continued([ea, eb], [a, b])), 2)
        self.assertEqual(len(join_continued([dict(ea), ec], [a, c])), 2)


def numbered(b: Block, *markers: str) -> dict:
    return {"type": "list", "items": [{"marker": m, "text": "w w"} for m in markers],
            "bbox": list(b.bbox), "page_number": b.page_number, "block_ids": [b.id]}


class ListFlowTest(unittest.TestCase):
    """btxdoc's numbered list: items holding paragraphs and displays set in past the markers."""

    def test_a_numbered_list_around_its_items_paragraphs_is_one_list(self):
        a = block("p2-b1", 2, (147, 250, 478, 339), [(147, 478)] * 3)
        p1 = block("p2-b2", 2, (160, 354, 478, 380), [(160, 478), (160, 300)])
        p2 = block("p3-b1", 3, (181, 138, 458, 150), [(181, 458)])
        b = block("p3-b2", 3, (147, 622, 478, 646), [(147, 478), (160, 478)])
        els = [numbered(a, "1.", "2."), paragraph(p1), paragraph(p2), numbered(b, "3.")]
        (el,) = join_continued(els, [a, p1, p2, b])
        self.assertEqual([i["marker"] for i in el["items"]], ["1.", "2.", "3."])
        self.assertEqual(len(el["items"][1]["text"].split()), 2 + 10 + 5)  # both paragraphs
        self.assertEqual([p["page_number"] for p in el["continued"]], [3])  # one part grown

    def test_a_paragraph_at_the_lists_edge_ends_it_and_the_next_list_starts_anew(self):
        a = block("p1-b1", 1, (147, 250, 478, 339), [(147, 478)] * 3)
        p = block("p1-b2", 1, (135, 354, 478, 380), [(135, 478), (135, 300)])
        b = block("p1-b3", 1, (147, 400, 478, 420), [(147, 478)])
        els = [numbered(a, "1.", "2."), paragraph(p), numbered(b, "3.")]
        self.assertEqual([e["type"] for e in join_continued(els, [a, p, b])],
                         ["list", "paragraph", "list"])

    def test_the_next_columns_paragraph_is_no_paragraph_of_the_last_item(self):
        a = block("p1-b1", 1, (67, 580, 286, 661), [(67, 286)] * 3)
        p = block("p1-b2", 1, (320, 72, 543, 98), [(320, 543), (320, 400)])
        els = [numbered(a, "\u2022", "\u2022"), paragraph(p)]
        self.assertEqual(len(join_continued(els, [a, p])), 2)

    def test_a_list_after_an_items_paragraph_that_does_not_count_on_is_another_list(self):
        a = block("p1-b1", 1, (147, 250, 478, 339), [(147, 478)] * 3)
        p = block("p1-b2", 1, (160, 354, 478, 380), [(160, 478), (160, 300)])
        b = block("p1-b3", 1, (147, 400, 478, 420), [(147, 478)])
        els = [numbered(a, "1.", "2."), paragraph(p), numbered(b, "1.")]
        self.assertEqual(len(join_continued(els, [a, p, b])), 2)


if __name__ == "__main__":
    unittest.main()
