"""dua.documents.classify and dua.documents.rules: the rule classifier, and the LLM classifier against a real server."""
from __future__ import annotations

import json
import os
import unittest

from dua.documents.classify import build_graph
from dua.config import Settings
from dua.documents.pipeline import check_coverage, element_words, extract
from dua.pdf import read_document
from dua.documents.rules import (CAPTION, MARKER, PAGE_NUMBER, Profile, build_element, list_items,
                       rule_type)
from dua.schemas import Block, Line
from tests.support import FIXTURES

DOCS = os.path.join(FIXTURES, "documents")
REPORT = os.path.join(DOCS, "report.pdf")
SEED_ERRORS = {
    "EmptyLLMResponse": "```json\n```",
    "InvalidLLMResponseFormat": "I am unable to process this request.",
    "JSONDecodeError": "{'type': 'paragraph', 'text': 'Hello'}",
    "SchemaValidationError": '{"type": "heading", "content": "My Title"}',
    "UnexpectedParsingError": "[" * 5000,  # nesting deep enough to exhaust the parser's stack
}


def llm_provider(url: str, wire: str = "openai"):
    """A real provider pointed at the test server, with no retries so faults show at once."""
    from dua.llm.gemini import GeminiProvider
    from dua.llm.openai_compat import OpenAICompatProvider
    from dua.llm.transport import RetryPolicy

    cls, path = (OpenAICompatProvider, "/v1") if wire == "openai" else (GeminiProvider, "/v1beta")
    settings = Settings(provider=wire, model="test-model", base_url=url + path, api_key="k",
                        timeout=5)
    return cls(settings, retry=RetryPolicy(max_retries=0, budget=5))


def user_texts(request) -> list:
    """Every user message, in order, in either wire format."""
    if "messages" in request.body:
        return [m["content"] for m in request.body["messages"] if m["role"] == "user"]
    return ["".join(p.get("text", "") for p in c["parts"]) for c in request.body["contents"]
            if c.get("role", "user") == "user"]


def user_text(request) -> str:
    """The last user message, in either wire format."""
    return user_texts(request)[-1]


def asked_ids(request) -> list:
    """The block ids a classification request carries (batch or single); a re-ask carries
    them in its first user message, the validation error in its last."""
    text = next((t for t in user_texts(request) if t.startswith("Blocks:")), user_text(request))
    head, _, payload = text.partition("\n")
    data = json.loads(payload)
    return [b["id"] for b in (data if isinstance(data, list) else [data])]


def is_batch(request) -> bool:
    return user_text(request).startswith("Blocks:")


def rules_answer(block_id: str, rules: dict) -> dict:
    """What a well-behaved model would answer: the rule classifier's element, as JSON."""
    element = rules[block_id]
    answer = {k: v for k, v in element.items() if k not in ("bbox", "page_number", "block_ids")}
    return answer


def rules_by_block(path: str) -> dict:
    return {e["block_ids"][0]: e for e in extract(path)["elements"]}


class RulePatternTest(unittest.TestCase):
    def test_page_number_patterns(self):
        for text in ("1", "Page 3", "page 2 of 10", "- 4 -", "12/30", "(7)"):
            self.assertTrue(PAGE_NUMBER.match(text), text)
        for text in ("Page one", "2025 annual", "Chapter 3"):
            self.assertFalse(PAGE_NUMBER.match(text), text)

    def test_caption_needs_a_number_and_its_punctuation(self):
        self.assertTrue(CAPTION.match("Figure 3: growth"))
        self.assertTrue(CAPTION.match("Table 2. Costs"))
        self.assertTrue(CAPTION.match("Fig. 4 - map"))
        self.assertFalse(CAPTION.match("Tables in practice"))
        self.assertFalse(CAPTION.match("Table 2 shows the costs"))

    def test_list_markers(self):
        for marker in ("\u2022", "-", "1.", "2)", "(3)", "a.", "iv)"):
            self.assertTrue(MARKER.match(marker), marker)
        for marker in ("Note:", "1,200", "word"):
            self.assertFalse(MARKER.match(marker), marker)

    def test_classification_graph_routes_to_rules_without_a_provider(self):
        graph = build_graph()
        self.assertEqual(set(graph.graph.nodes), {"profile", "classify_rules", "classify_llm"})
        result = extract(REPORT)
        self.assertEqual(result["stats"]["classifier"], "rules")
        self.assertEqual(result["stats"]["llm_calls"], 0)


def block(block_id: str, text: str, top: float, x0: float = 72, size: float = 10,
          font: str = "Helvetica", page: int = 1) -> Block:
    box = (x0, top, x0 + 6 * len(text), top + size)
    return Block(block_id, page, box, [Line(text, box, font, size)], text,
                 {"source_block_type": "text"})


def rule_types(blocks: list) -> list:
    profile = Profile(blocks, {1: (612, 792), 2: (612, 792)})
    return [rule_type(b, profile) for b in blocks]


class RuleClassifierTest(unittest.TestCase):
    BODY = "Body text that is long enough to set the body size of the page. " * 3

    def test_heading_levels_follow_sizes_then_bold_body_text(self):
        blocks = [block("a", "Title", 100, size=20, font="Helvetica-Bold"),
                  block("b", self.BODY, 130), block("c", "Section", 200, size=14),
                  block("d", "Bold run-in heading", 240, font="Helvetica-Bold"),
                  block("e", self.BODY, 260)]
        self.assertEqual(rule_types(blocks), [("heading", 1), ("paragraph", None), ("heading", 2),
                                              ("heading", 3), ("paragraph", None)])

    def test_bold_labels_sharing_a_row_are_not_headings(self):
        blocks = [block("a", "DATE", 100, font="Helvetica-Bold"),
                  block("b", "DESCRIPTION", 100, x0=200, font="Helvetica-Bold"),
                  block("c", "AMOUNT", 100, x0=400, font="Helvetica-Bold"),
                  block("d", "TOTAL", 300, font="Helvetica-Bold"),
                  block("e", "702.10", 300, x0=400, font="Helvetica-Bold"),
                  block("f", self.BODY, 400)]
        self.assertEqual([k for k, _ in rule_types(blocks)], ["paragraph"] * 6)

    def test_two_headings_side_by_side_stay_headings(self):
        blocks = [block("a", "Left", 100, size=14, font="Helvetica-Bold"),
                  block("b", "Right", 100, x0=320, size=14, font="Helvetica-Bold"),
                  block("c", self.BODY, 130)]
        self.assertEqual([k for k, _ in rule_types(blocks)], ["heading", "heading", "paragraph"])

    def test_running_lines_repeated_across_pages_despite_drift(self):
        blocks = [block("a", "ACME statement 2024", 30, size=10),
                  block("b", "ACME statement 2024", 33, size=10, page=2),
                  block("c", "Ref 123 - page 1 of 2", 760, page=1),
                  block("d", "Ref 123 - page 2 of 2", 763, page=2),
                  block("e", self.BODY, 300), block("f", self.BODY, 300, page=2)]
        self.assertEqual([k for k, _ in rule_types(blocks)],
                         ["header", "header", "page_number", "page_number", "paragraph", "paragraph"])

    def test_bare_numbers_that_count_with_the_pages_are_page_numbers_wherever_they_stand(self):
        # set at 88% of the page's height, above the margin band a footer lives in
        blocks = [block("a", self.BODY, 300), block("b", "7", 700, x0=300),
                  block("c", self.BODY, 300, page=2), block("d", "8", 700, x0=300, page=2)]
        self.assertEqual([k for k, _ in rule_types(blocks)],
                         ["paragraph", "page_number", "paragraph", "page_number"])

    def test_a_bare_number_that_does_not_count_with_the_pages_is_no_page_number(self):
        blocks = [block("a", self.BODY, 300), block("b", "7", 700, x0=300),
                  block("c", self.BODY, 300, page=2), block("d", "3", 700, x0=300, page=2)]
        self.assertEqual([k for k, _ in rule_types(blocks)], ["paragraph"] * 4)

    def test_roman_front_matter_numbers_count_apart_from_arabic_ones(self):
        from dua.documents.rules import folio_value

        self.assertEqual([folio_value(t) for t in ("xiv", "IV", "- 12 -", "Iv", "vim")],
                         [("roman", 14), ("roman", 4), ("arabic", 12), None, None])

    def test_list_items_split_at_markers_on_the_left_edge(self):
        lines = [Line("\u2022 First item", (72, 100, 200, 110)),
                 Line("continues here", (86, 113, 200, 123)),
                 Line("\u2022 Second", (72, 126, 200, 136))]
        b = Block("x", 1, (72, 100, 200, 136), lines, "\n".join(ln.text for ln in lines),
                  {"source_block_type": "text"})
        self.assertEqual(list_items(b), [{"marker": "\u2022", "text": "First item continues here"},
                                         {"marker": "\u2022", "text": "Second"}])

    def test_markers_set_in_start_items_nested_under_the_one_before(self):
        lines = [Line("1. First item", (72, 100, 300, 110)),
                 Line("a) one way", (90, 113, 300, 123)),
                 Line("b) another way that runs on", (90, 126, 300, 136)),
                 Line("onto a second line", (104, 139, 300, 149)),
                 Line("2. Second item", (72, 152, 300, 162))]
        b = Block("x", 1, (72, 100, 300, 162), lines, "\n".join(ln.text for ln in lines),
                  {"source_block_type": "text"})
        self.assertEqual(list_items(b), [
            {"marker": "1.", "text": "First item"},
            {"marker": "a)", "text": "one way", "level": 2},
            {"marker": "b)", "text": "another way that runs on onto a second line", "level": 2},
            {"marker": "2.", "text": "Second item"}])

    def test_a_line_of_an_item_opening_with_a_number_is_no_nested_item(self):
        lines = [Line("1. The budget grew by", (72, 100, 300, 110)),
                 Line("3. per cent this year", (86, 113, 300, 123))]
        b = Block("x", 1, (72, 100, 300, 123), lines, "\n".join(ln.text for ln in lines),
                  {"source_block_type": "text"})
        self.assertEqual(list_items(b), [{"marker": "1.", "text": "The budget grew by 3. per cent this year"}])

    def test_list_markers_read_as_numbers_letters_or_roman_numerals(self):
        from dua.documents.rules import follows, marker_readings

        self.assertEqual(marker_readings("(3)"), [("1", 3)])
        self.assertEqual(marker_readings("i)"), [("a", 9), ("i", 1)])
        self.assertTrue(follows("h)", "i)") and follows("i)", "ii)") and follows("\u2022", "\u2022"))
        self.assertFalse(follows("2.", "4.") or follows("\u2022", "1."))

    def test_a_table_row_of_labels_over_figures_is_its_header_even_in_body_font(self):
        def table(rows):
            lines = [Line(" ".join(r), (72, 100 + 12 * i, 400, 110 + 12 * i), "Helvetica", 9)
                     for i, r in enumerate(rows)]
            return Block("t", 1, (72, 100, 400, 160), lines, "\n".join(ln.text for ln in lines),
                         {"source_block_type": "table", "rows": rows})

        labelled = build_element(table([["Date", "Description", "Balance"],
                                        ["01-08-2024", "Salary", "6864.58"]]), "table")
        self.assertEqual(labelled["header"], ["Date", "Description", "Balance"])
        self.assertEqual(labelled["rows"], [["01-08-2024", "Salary", "6864.58"]])
        for rows in ([["02/07", "PAYMENT", "412.16"], ["03/07", "BREAKFAST", "4.20"]],
                     [["North", "South"], ["East", "West"]]):  # data first, or no figures at all
            self.assertNotIn("header", build_element(table(rows), "table"), rows)


# The LLM path's tests live in tests/test_llm_classify.py (issue 16: the rules decide).


if __name__ == "__main__":
    unittest.main()
