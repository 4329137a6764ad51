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


def user_text(request) -> str:
    """The last user message, in either wire format."""
    if "messages" in request.body:
        return request.body["messages"][-1]["content"]
    return "".join(p.get("text", "") for p in request.body["contents"][-1]["parts"])


def asked_ids(request) -> list:
    """The block ids a classification request carries (batch or single)."""
    head, _, payload = user_text(request).partition("\n")
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

    def test_list_items_split_at_markers_on_the_left_edge(self):
        lines = [Line("\u2022 First item", (72, 100, 200, 110)),
                 Line("continues here", (86, 113, 200, 123)),
                 Line("\u2022 Second", (72, 126, 200, 136))]
        b = Block("x", 1, (72, 100, 200, 136), lines, "\n".join(ln.text for ln in lines),
                  {"source_block_type": "text"})
        self.assertEqual(list_items(b), [{"marker": "\u2022", "text": "First item continues here"},
                                         {"marker": "\u2022", "text": "Second"}])

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


class LLMClassifierTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        from tests.llm_server import LLMServer, Turn, free_port

        cls.LLMServer, cls.Turn, cls.free_port = LLMServer, Turn, staticmethod(free_port)
        cls.rules = rules_by_block(REPORT)
        cls.text_ids = [i for i, e in cls.rules.items() if e["type"] not in ("table", "figure")]

    def setUp(self):
        self.waits = []  # the Error Handler's retry delays, recorded instead of slept

    def run_with(self, handler, path: str = REPORT, batch_size: int = 20, down: bool = False):
        with self.LLMServer(handler=handler) as server:
            result = extract(path, provider=llm_provider(server.url), batch_size=batch_size,
                             sleep=self.waits.append)
        # A handler that crashes makes the server answer 500: never let that pass as a result.
        self.assertEqual(result["stats"]["llm_down"] is not None, down, result["stats"]["llm_down"])
        check_coverage(read_document(path), result["elements"])  # extract checked it too
        return result, server

    def test_batched_answers_classify_every_block_in_one_call_per_batch(self):
        def handler(request):
            answers = {i: {"type": "paragraph", "text": "..."} for i in asked_ids(request)}
            return self.Turn(text=json.dumps(answers))

        result, server = self.run_with(handler, batch_size=8)
        batches = -(-len(self.text_ids) // 8)
        self.assertEqual(server.count, batches)
        self.assertTrue(all(is_batch(r) for r in server.requests))
        self.assertEqual(result["stats"]["llm_calls"], batches)
        self.assertEqual(result["stats"]["classifier"], "llm")
        self.assertEqual(result["stats"]["counts"], {"paragraph": len(self.text_ids)})
        self.assertEqual(server.requests[0].body["response_format"], {"type": "json_object"})

    def test_server_refusing_json_mode_is_asked_again_without_it(self):
        from tests.llm_server import Fail

        def handler(request):
            if "response_format" in request.body:
                return Fail("bad_request")
            return self.Turn(text=json.dumps({i: {"type": "paragraph", "text": "t"}
                                              for i in asked_ids(request)}))

        result, server = self.run_with(handler)
        self.assertEqual(server.count, 2)
        self.assertEqual((result["stats"]["json_mode"], result["stats"]["unclassified"]), (False, 0))

    def test_gemini_provider_classifies_the_same_way(self):
        def handler(request):
            return self.Turn(text=json.dumps({i: rules_answer(i, self.rules) for i in asked_ids(request)}))

        with self.LLMServer(handler=handler) as server:
            result = extract(REPORT, provider=llm_provider(server.url, "gemini"))
        self.assertEqual(server.requests[0].wire, "gemini")
        self.assertEqual((result["stats"]["llm_calls"], result["stats"]["unclassified"]), (1, 0))
        self.assertIsNone(result["stats"]["llm_down"])
        self.assertEqual([e["type"] for e in result["elements"]],
                         [e["type"] for e in self.rules.values()])

    def test_cut_off_batch_answer_is_retried_block_by_block(self):
        def handler(request):
            if is_batch(request):
                return self.Turn(text='{"p1-b1": {"type": "hea', finish="length")
            return self.Turn(text=json.dumps(rules_answer(asked_ids(request)[0], self.rules)))

        result, server = self.run_with(handler)
        self.assertEqual(server.count, 1 + len(self.text_ids))
        self.assertEqual(result["stats"]["unclassified"], 0)

    def test_model_answers_decide_types_and_levels_but_text_comes_from_the_page(self):
        def handler(request):
            answers = {i: rules_answer(i, self.rules) for i in asked_ids(request)}
            for answer in answers.values():
                if "text" in answer:
                    answer["text"] = "the model rewrote this"
            return self.Turn(text="```json\n" + json.dumps(answers) + "\n```")

        result, _ = self.run_with(handler)
        self.assertEqual([e["type"] for e in result["elements"]],
                         [e["type"] for e in self.rules.values()])
        self.assertNotIn("the model rewrote this", json.dumps(result))
        headings = [e["level"] for e in result["elements"] if e["type"] == "heading"]
        self.assertEqual(headings, [1, 2, 3, 2, 3])

    def test_each_seed_error_type_becomes_an_unclassified_text_block(self):
        for error_type, raw in SEED_ERRORS.items():
            with self.subTest(error_type):
                result, server = self.run_with(lambda request: self.Turn(text=raw))
                elements = {e.get("id"): e for e in result["elements"]
                            if e["type"] == "unclassified_text_block"}
                self.assertEqual(sorted(elements), sorted(self.text_ids))
                # one batch call, then one retry per block
                self.assertEqual(server.count, 1 + len(self.text_ids))
                for block_id, element in elements.items():
                    error = element["annotations"]["classification_error"]
                    self.assertEqual(error["error_type"], error_type)
                    self.assertEqual(error["original_llm_output"], raw)
                    # the block's own text, line by line, as the seed's shape keeps it
                    self.assertEqual(element["text"], "\n".join(ln["text"] for ln in element["lines"]))
                    self.assertEqual(element["bbox"], self.rules[block_id]["bbox"])
                    self.assertEqual(element["text"].split(), element_words(self.rules[block_id]))
                    self.assertEqual(set(element), {"id", "type", "text", "bbox", "page_number",
                                                    "lines", "metadata", "annotations"})
                    self.assertEqual(element["metadata"], {"source_block_type": "text"})
                    self.assertEqual(set(error), {"error_type", "message", "original_llm_output",
                                                  "cleaned_llm_output"})
                self.assertEqual(result["stats"]["unclassified"], len(self.text_ids))
                self.assertEqual(result["stats"]["llm_errors"], {error_type: len(self.text_ids)})

    def test_batch_valid_for_some_blocks_retries_only_the_broken_ones(self):
        broken = set(self.text_ids[::3])  # every third block: a bad answer in the batch

        def handler(request):
            ids = asked_ids(request)
            if is_batch(request):
                answers = {i: ({"type": "list", "items": "a, b"} if i in broken
                               else rules_answer(i, self.rules)) for i in ids}
                return self.Turn(text=json.dumps(answers))
            # On retry, half of the broken blocks get a good answer, the rest stay broken.
            (block_id,) = ids
            if sorted(broken).index(block_id) % 2 == 0:
                return self.Turn(text=json.dumps(rules_answer(block_id, self.rules)))
            return self.Turn(text="not json at all")

        result, server = self.run_with(handler)
        self.assertEqual(server.count, 1 + len(broken))
        retried = [asked_ids(r)[0] for r in server.requests[1:]]
        self.assertEqual(sorted(retried), sorted(broken))
        still_broken = {i for i in broken if sorted(broken).index(i) % 2 == 1}
        unclassified = {e["id"] for e in result["elements"] if e["type"] == "unclassified_text_block"}
        self.assertEqual(unclassified, still_broken)
        self.assertEqual(result["stats"]["llm_errors"], {"InvalidLLMResponseFormat": len(still_broken)})
        self.assertEqual(result["stats"]["llm_retried_blocks"], len(broken))

    def test_answer_keyed_as_a_list_of_elements_with_ids_is_accepted(self):
        def handler(request):
            return self.Turn(text=json.dumps([dict(rules_answer(i, self.rules), id=i)
                                              for i in asked_ids(request)]))

        result, server = self.run_with(handler)
        self.assertEqual(server.count, 1)
        self.assertEqual(result["stats"]["unclassified"], 0)

    def test_figure_answer_for_a_text_block_is_kept_as_unclassified(self):
        def handler(request):
            return self.Turn(text=json.dumps({i: {"type": "figure"} for i in asked_ids(request)}
                                             if is_batch(request) else {"type": "figure"}))

        result, _ = self.run_with(handler)
        errors = {e["annotations"]["classification_error"]["error_type"]
                  for e in result["elements"] if e["type"] == "unclassified_text_block"}
        self.assertEqual(errors, {"SchemaValidationError"})

    def test_an_html_page_instead_of_an_answer_goes_to_the_error_handler_not_into_elements(self):
        from tests.llm_server import Reply

        page = "<html><body><h1>Sign in to the hotel Wi-Fi</h1></body></html>"
        result, server = self.run_with(lambda request: Reply(200, page, content_type="text/html"),
                                       down=True)
        stats = result["stats"]
        self.assertEqual(stats["llm_down"]["error_code"], "LLM_INVALID_STRUCTURE")
        self.assertEqual([r["step"] for r in stats["recovery"]], ["retry"] * 3 + ["fallback"])
        self.assertEqual(stats["unclassified"], 0)
        self.assertEqual([e["type"] for e in result["elements"]],
                         [e["type"] for e in self.rules.values()])

    def test_llm_down_classifies_every_block_with_rules_and_records_the_failure(self):
        provider = llm_provider(f"http://127.0.0.1:{self.free_port()}")
        result = extract(REPORT, provider=provider, sleep=self.waits.append)
        self.assertEqual([e["type"] for e in result["elements"]],
                         [e["type"] for e in self.rules.values()])
        stats = result["stats"]
        self.assertEqual(stats["llm_down"]["error_code"], "LLM_CONNECTION_FAILED")
        self.assertEqual(stats["llm_down"]["fallback"], "rules")
        self.assertEqual(stats["unclassified"], 0)
        # The Error Handler retried three times, then fell back; the run did as it said.
        self.assertEqual([r["step"] for r in stats["recovery"]], ["retry"] * 3 + ["fallback"])
        self.assertEqual((len(self.waits), stats["llm_calls"]), (3, 4))
        self.assertEqual(stats["llm_down"]["user_message"], stats["recovery"][-1]["user_message"])

    def test_llm_lost_during_retries_keeps_the_batch_answers_already_valid(self):
        from tests.llm_server import Fail

        first = set(self.text_ids[:5])

        def handler(request):
            if is_batch(request):
                return self.Turn(text=json.dumps({i: {"type": "caption", "text": "x"}
                                                  for i in asked_ids(request) if i in first}))
            return Fail("server")

        result, server = self.run_with(handler, down=True)
        # The batch and its first failed single retry; then, three times as the Error Handler
        # says, the batch of the blocks left and its first failed single; then the fallback.
        self.assertEqual(server.count, 2 + 3 * 2)
        self.assertEqual([is_batch(r) for r in server.requests], [True, False] * 4)
        self.assertEqual(len(self.waits), 3)
        for element in result["elements"]:
            block_id = element["block_ids"][0]
            if block_id in first:
                self.assertEqual(element["type"], "caption")
            else:
                self.assertEqual(element["type"], self.rules[block_id]["type"])

    def test_server_errors_mid_run_fall_back_to_rules_for_the_rest(self):
        from tests.llm_server import Fail

        calls = []

        def handler(request):
            calls.append(1)
            if len(calls) == 1:
                return self.Turn(text=json.dumps({i: {"type": "paragraph", "text": "x"}
                                                  for i in asked_ids(request)}))
            return Fail("server")

        result, server = self.run_with(handler, batch_size=4, down=True)
        self.assertEqual(result["stats"]["llm_down"]["error_code"], "LLM_SERVER_ERROR")
        self.assertEqual(server.count, 1 + 4)  # batch 1; batch 2, retried 3 times, gives up
        self.assertEqual({r["batch"] for r in result["stats"]["recovery"]},
                         {f"2/{-(-len(self.text_ids) // 4)}"})
        first = self.text_ids[:4]
        for element in result["elements"]:
            if element["block_ids"][0] in first:
                self.assertEqual(element["type"], "paragraph")
        self.assertEqual(len(result["elements"]), len(self.rules))


if __name__ == "__main__":
    unittest.main()
