"""The LLM path of dua.documents.classify against the test server: the rules decide, the
model is asked only about the blocks they are unsure of, and it can only help."""
from __future__ import annotations

import json
import os
import unittest

from dua.documents.blocks import document_blocks
from dua.documents.classify import (LLMClassifier, Services, analyze_structure_and_visuals,
                                    confident, plausible)
from dua.documents.pipeline import check_coverage, extract
from dua.documents.rules import Profile, rule_type
from dua.pdf import read_document, read_layout
from tests.llm_server import Fail, LLMServer, Reply, Turn, free_port
from tests.support import FIXTURES
from tests.test_classify import (SEED_ERRORS, asked_ids, llm_provider, user_text,
                                 user_texts)

DOCS = os.path.join(FIXTURES, "documents")
REPORT = os.path.join(DOCS, "report.pdf")
# A real-producer report whose rules leave short lines (bold labels, chart ticks) unsure.
LONG = os.path.join(FIXTURES, "documents", "real", "supplier_review.pdf")


def layout(path: str) -> tuple:
    """(blocks, profile) of a document, as the pipeline builds them."""
    doc, tables = read_layout(path)
    blocks = document_blocks(doc, tables)
    return blocks, Profile(blocks, {p.number: (p.width, p.height) for p in doc.pages})


def unsure_blocks(path: str) -> list:
    """Ids of the blocks whose rule type rests on no confident signal (what the model is asked)."""
    blocks, profile = layout(path)
    return [b.id for b in blocks if not confident(b, profile, *rule_type(b, profile))]


def types(result: dict) -> dict:
    """block id -> (type, level); a seed-000 unclassified block carries its id as ``id``."""
    return {(e["block_ids"][0] if "block_ids" in e else e["id"]): (e["type"], e.get("level"))
            for e in result["elements"]}


class LLMClassifierTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rules = {p: types(extract(p)) for p in (REPORT, LONG)}
        cls.unsure = {path: unsure_blocks(path) for path in (REPORT, LONG)}

    def setUp(self):
        self.waits = []  # the Error Handler's retry delays, recorded instead of slept

    def run_with(self, handler, path: str = LONG, batch_size: int = 20, down: bool = False,
                 unique: bool = True):
        with LLMServer(handler=handler) as server:
            result = extract(path, provider=llm_provider(server.url), batch_size=batch_size,
                             sleep=self.waits.append)
        self.assertEqual(result["stats"]["llm_down"] is not None, down, result["stats"]["llm_down"])
        check_coverage(read_document(path, word_rule="reading"), result["elements"])
        # dua's count is the requests the server received, re-asks and refusals included
        self.assertEqual(result["stats"]["llm_calls"], server.count)
        bodies = [json.dumps(r.body, sort_keys=True) for r in server.requests]
        if unique:  # a request the server never answered may be retried; an answered one not
            self.assertEqual(len(set(bodies)), len(bodies), "a request was sent twice")
        return result, server

    def answer(self, kind: str = "paragraph", **extra):
        return lambda request: Turn(text=json.dumps({i: dict(type=kind, **extra)
                                                     for i in asked_ids(request)}))

    def test_only_the_blocks_the_rules_are_unsure_of_are_asked_by_id_for_their_type(self):
        result, server = self.run_with(self.answer())
        self.assertEqual(server.count, 1)
        self.assertEqual(asked_ids(server.requests[0]), self.unsure[LONG])
        self.assertLess(len(self.unsure[LONG]), len(self.rules[LONG]) / 2)
        body = server.requests[0].body
        self.assertEqual(body["max_tokens"], 40 + 16 * len(self.unsure[LONG]))
        self.assertEqual(body["response_format"], {"type": "json_object"})
        self.assertIn("Never copy the block's text", body["messages"][0]["content"])
        self.assertIn('"rules_guess"', user_text(server.requests[0]))
        self.assertEqual(result["stats"]["llm_calls"], 1)

    def test_confident_rule_signals_are_never_put_to_the_model(self):
        _, server = self.run_with(self.answer())
        asked = set(asked_ids(server.requests[0]))
        for block_id, (kind, _) in self.rules[LONG].items():
            if kind in ("page_number", "caption", "list", "table", "figure"):
                self.assertNotIn(block_id, asked, kind)

    def test_answers_decide_the_unsure_blocks_and_a_heading_without_level_takes_the_fonts(self):
        result, _ = self.run_with(self.answer("heading"))
        got = types(result)
        blocks, profile = layout(LONG)
        short = {b.id for b in blocks if plausible(b, profile, "heading")}
        for block_id, element in self.rules[LONG].items():
            if block_id in self.unsure[LONG] and block_id in short:
                self.assertEqual(got[block_id][0], "heading")
                self.assertIsInstance(got[block_id][1], int)
            else:
                self.assertEqual(got[block_id], element)  # never asked: the rules' element

    def test_an_implausible_type_keeps_the_rules_element_with_the_refusal_annotated(self):
        result, _ = self.run_with(self.answer("page_number"))
        self.assertEqual(types(result), self.rules[LONG])
        annotated = [e for e in result["elements"] if "llm_refused" in e.get("annotations", {})]
        self.assertEqual(sorted(e["block_ids"][0] for e in annotated), sorted(self.unsure[LONG]))
        self.assertEqual(annotated[0]["annotations"]["llm_refused"]["type"], "page_number")

    def test_a_type_the_rules_found_no_evidence_for_is_refused(self):
        # The unsure blocks here are bold body-size lines: a heading or a paragraph by the
        # rules' own evidence, never a caption (no "Figure n:") nor a footer (not in a margin).
        for kind in ("caption", "footer"):
            with self.subTest(kind=kind):
                result, _ = self.run_with(self.answer(kind))
                self.assertEqual(types(result), self.rules[LONG])
                refused = [e["annotations"]["llm_refused"]["type"] for e in result["elements"]
                           if "llm_refused" in e.get("annotations", {})]
                self.assertEqual(refused, [kind] * len(self.unsure[LONG]))
                self.assertEqual(result["stats"]["llm_changed_blocks"], 0)

    def test_a_heading_level_the_fonts_and_hierarchy_cannot_bear_keeps_the_rules_level(self):
        blocks, profile = layout(LONG)
        decided = {b.id: rule_type(b, profile) for b in blocks}
        deepest = max(lv for i, (k, lv) in decided.items()
                      if k == "heading" and i not in self.unsure[LONG])
        ranked = {decided[i][1] for i in self.unsure[LONG]}
        self.assertEqual(len(ranked), 1)
        ranked = ranked.pop()
        self.assertLessEqual(deepest + 1, 6)  # so that deeper than that is expressible
        cases = {1: ranked, ranked - 1: ranked,  # above a larger font's level: refused
                 max(ranked, deepest + 1): max(ranked, deepest + 1),  # one below the deepest
                 max(ranked, deepest + 1) + 1: ranked}  # a gap in the hierarchy: refused
        for answered, kept in cases.items():
            if not 1 <= answered <= 6:
                continue
            with self.subTest(answered=answered):
                result, _ = self.run_with(self.answer("heading", level=answered))
                got = types(result)
                for block_id in self.unsure[LONG]:
                    self.assertEqual(got[block_id], ("heading", kept))

    def test_a_level_one_below_the_deepest_sure_heading_is_taken(self):
        # No fixture has a sure heading deeper than its unsure ones; a run where one does.
        blocks, profile = layout(LONG)
        block = next(b for b in blocks if b.id == self.unsure[LONG][0])
        decided = rule_type(block, profile)
        run = LLMClassifier(Services(llm_provider(f"http://127.0.0.1:{free_port()}")))
        run.deepest = decided[1] + 1
        for answered, kept in ((decided[1] + 2, decided[1] + 2), (decided[1] + 3, decided[1])):
            with self.subTest(answered=answered):
                answer = {"status": "success", "data": {"type": "heading", "level": answered}}
                self.assertEqual(run._element(block, profile, decided, answer)["level"], kept)

    def test_each_seed_error_type_is_asked_again_once_then_keeps_the_rules_class_with_it(self):
        for error_type, raw in SEED_ERRORS.items():
            with self.subTest(error_type):
                result, server = self.run_with(lambda request: Turn(text=raw))
                self.assertEqual(server.count, 2)  # the answer and one re-ask, never more
                self.assertEqual(types(result), self.rules[LONG])  # the rules' classes stand
                for element in result["elements"]:
                    error = element.get("annotations", {}).get("classification_error")
                    if element["block_ids"][0] in self.unsure[LONG]:
                        self.assertEqual(error["error_type"], error_type)
                        self.assertEqual(error["original_llm_output"], raw)
                    else:
                        self.assertIsNone(error)  # never asked: nothing went wrong there
                stats = result["stats"]
                self.assertEqual(stats["llm_errors"], {error_type: len(self.unsure[LONG])})
                self.assertEqual((stats["unclassified"], stats["llm_reasked"]), (0, 1))

    def test_a_heading_answered_as_heading_level_n_is_that_heading_without_a_re_ask(self):
        level = self.ranked_level()
        well_formed, _ = self.run_with(self.answer("heading", level=level))
        for phrasing in (f"heading level {level}", f"Heading {level}", f"h{level}",
                         f"H{level}", f"heading_level_{level}"):
            with self.subTest(phrasing):
                result, server = self.run_with(self.answer(phrasing))
                self.assertEqual(server.count, 1)
                self.assertEqual(types(result), types(well_formed))
                self.assertIn(("heading", level), set(types(result).values()))
                self.assertEqual(result["stats"]["llm_mapped"], len(self.unsure[LONG]))
                self.assertEqual(result["stats"]["llm_errors"], {})

    def test_an_unusable_answer_is_asked_again_once_with_its_validation_error(self):
        def handler(request):
            first = len(user_texts(request)) == 1
            return self.answer("subtitle" if first else "paragraph")(request)

        result, server = self.run_with(handler)
        self.assertEqual(server.count, 2)
        again = server.requests[1].body["messages"]
        self.assertEqual(again[:2], server.requests[0].body["messages"])  # the same question
        first = json.dumps({i: {"type": "subtitle"} for i in self.unsure[LONG]})
        self.assertEqual(again[2], {"role": "assistant", "content": first})  # its own answer
        self.assertIn("didn't match the expected schema", again[3]["content"])
        self.assertIn(f"{self.unsure[LONG][0]}.type: expected one of", again[3]["content"])
        self.assertIn("got 'subtitle'", again[3]["content"])
        got = types(result)
        for block_id in self.unsure[LONG]:
            self.assertEqual(got[block_id], ("paragraph", None))  # the second answer taken
        self.assertEqual((result["stats"]["llm_reasked"], result["stats"]["llm_errors"]), (1, {}))

    def test_a_block_still_unusable_after_the_re_ask_keeps_the_rules_class_the_rest_the_models(self):
        bad, good = self.unsure[LONG][0], self.unsure[LONG][1:]

        def handler(request):
            return Turn(text=json.dumps({i: {"type": "subtitle" if i == bad else "paragraph"}
                                         for i in asked_ids(request)}))

        result, server = self.run_with(handler)
        self.assertEqual(server.count, 2)
        got = types(result)
        self.assertEqual(got[bad], self.rules[LONG][bad])
        for block_id in good:
            self.assertEqual(got[block_id], ("paragraph", None))
        element = next(e for e in result["elements"] if e["block_ids"][0] == bad)
        error = element["annotations"]["classification_error"]
        self.assertEqual(error["error_type"], "SchemaValidationError")
        self.assertIn(f"{bad}.type: expected one of", error["message"])
        self.assertEqual(result["stats"]["llm_errors"], {"SchemaValidationError": 1})
        self.assertEqual(result["stats"]["unclassified"], 0)

    def test_a_re_ask_lost_in_transit_leaves_its_batch_to_the_rules_and_the_run_goes_on(self):
        first, second = self.unsure[LONG][:2], self.unsure[LONG][2:]
        self.assertTrue(second)
        failed = []

        def handler(request):
            if asked_ids(request) == first and len(user_texts(request)) > 1 and not failed:
                failed.append(1)
                return Fail("server")  # the re-ask is lost; the Error Handler says retry
            return self.answer("subtitle" if asked_ids(request) == first else "paragraph")(request)

        result, server = self.run_with(handler, batch_size=2, unique=False)
        # batch 1, its re-ask (a 500), nothing more for batch 1 (its first question was
        # answered already), then batch 2
        self.assertEqual(server.count, 3)
        self.assertEqual(len(self.waits), 1)
        got = types(result)
        for block_id in first:
            self.assertEqual(got[block_id], self.rules[LONG][block_id])
        for block_id in second:
            self.assertEqual(got[block_id], ("paragraph", None))
        self.assertEqual(result["stats"]["llm_repeats_refused"], 1)

    def test_an_answer_cut_off_by_the_token_limit_is_not_re_asked_and_keeps_the_rules(self):
        cut = '{"' + self.unsure[LONG][0] + '": {"type": "parag'
        result, server = self.run_with(lambda request: Turn(text=cut, finish="length"))
        self.assertEqual(server.count, 1)  # seed 003: a cut-off answer is never fed back
        self.assertEqual(types(result), self.rules[LONG])
        errors = {e["annotations"]["classification_error"]["error_type"]
                  for e in result["elements"] if "classification_error" in e.get("annotations", {})}
        self.assertEqual(errors, {"JSONDecodeError"})
        self.assertEqual(result["stats"]["unclassified"], 0)

    def ranked_level(self) -> int:
        """The level the fonts give every unsure block of LONG (the rules' own)."""
        blocks, profile = layout(LONG)
        ranked = {rule_type(b, profile)[1] for b in blocks if b.id in self.unsure[LONG]}
        self.assertEqual(len(ranked), 1)
        return ranked.pop()

    def test_server_refusing_json_mode_is_asked_again_without_it(self):
        def handler(request):
            if "response_format" in request.body:
                return Fail("bad_request")
            return self.answer()(request)

        result, server = self.run_with(handler)
        self.assertEqual(server.count, 2)
        self.assertEqual((result["stats"]["json_mode"], result["stats"]["llm_calls"]), (False, 2))

    def test_gemini_provider_classifies_the_same_way(self):
        with LLMServer(handler=self.answer()) as server:
            result = extract(LONG, provider=llm_provider(server.url, "gemini"))
        self.assertEqual((server.requests[0].wire, result["stats"]["llm_calls"]), ("gemini", 1))
        self.assertIn("maxOutputTokens", json.dumps(server.requests[0].body))

    def test_an_html_page_instead_of_an_answer_goes_to_the_error_handler(self):
        page = "<html><body><h1>Sign in to the hotel Wi-Fi</h1></body></html>"
        result, server = self.run_with(lambda request: Reply(200, page, content_type="text/html"),
                                       down=True, unique=False)
        stats = result["stats"]
        self.assertEqual(stats["llm_down"]["error_code"], "LLM_INVALID_STRUCTURE")
        self.assertEqual([r["step"] for r in stats["recovery"]], ["retry"] * 3 + ["fallback"])
        self.assertEqual(types(result), self.rules[LONG])

    def test_llm_down_keeps_the_rules_and_counts_every_request(self):
        provider = llm_provider(f"http://127.0.0.1:{free_port()}")
        result = extract(LONG, provider=provider, sleep=self.waits.append)
        stats = result["stats"]
        self.assertEqual(types(result), self.rules[LONG])
        self.assertEqual(stats["llm_down"]["error_code"], "LLM_CONNECTION_FAILED")
        self.assertEqual((len(self.waits), stats["llm_calls"]), (3, 4))

    def test_server_errors_mid_run_fall_back_to_rules_for_the_rest(self):
        calls = []

        def handler(request):
            calls.append(1)
            return self.answer("paragraph")(request) if len(calls) == 1 else Fail("server")

        result, server = self.run_with(handler, batch_size=2, down=True, unique=False)
        self.assertEqual(result["stats"]["llm_down"]["error_code"], "LLM_SERVER_ERROR")
        self.assertEqual(server.count, 1 + 4)  # batch 1; batch 2, retried 3 times, gives up
        got = types(result)
        for block_id in self.unsure[LONG][:2]:
            self.assertEqual(got[block_id][0], "paragraph")
        for block_id in self.unsure[LONG][2:]:
            self.assertEqual(got[block_id], self.rules[LONG][block_id])


class RulesCannotSayTest(unittest.TestCase):
    """A block with no visible text gives the rules nothing to read (the pipeline drops blank
    words, a caller of the classifier may not): only there may a block end unclassified."""

    def classify(self, handler):
        from dua.schemas import Block, Line

        blocks, _ = layout(LONG)
        first = blocks[0]
        box = (first.bbox[0], 400.0, first.bbox[0] + 20, 410.0)
        blank = Block("p1-blank", 1, box, [Line(" ", box, first.lines[0].font, 10.0)], " ",
                      {"source_block_type": "text"})
        blocks.append(blank)
        with LLMServer(handler=handler) as server:
            elements, stats = analyze_structure_and_visuals(blocks, {1: (612, 792), 2: (612, 792)},
                                                            Services(llm_provider(server.url)))
        self.assertEqual(stats["llm_calls"], server.count)
        by_id = {(e["block_ids"][0] if "block_ids" in e else e["id"]): e for e in elements}
        return by_id.pop("p1-blank"), by_id, server

    def answer(self, kind: str):
        return lambda request: Turn(text=json.dumps({i: {"type": kind} for i in asked_ids(request)}))

    def test_a_block_neither_the_rules_nor_the_model_can_type_is_unclassified(self):
        blank, others, server = self.classify(self.answer("subtitle"))
        self.assertEqual(server.count, 2)
        self.assertEqual(blank["type"], "unclassified_text_block")
        error = blank["annotations"]["classification_error"]
        self.assertEqual(error["error_type"], "SchemaValidationError")  # the model's, typed
        self.assertIn("p1-blank.type: expected one of", error["message"])
        # every block the rules can type keeps their class, the model's error beside it
        self.assertNotIn("unclassified_text_block", {e["type"] for e in others.values()})

    def test_the_model_types_a_block_the_rules_cannot(self):
        blank, _, server = self.classify(self.answer("paragraph"))
        self.assertEqual(server.count, 1)
        self.assertIn("p1-blank", asked_ids(server.requests[0]))
        self.assertEqual((blank["type"], blank["text"]), ("paragraph", ""))

    def test_without_a_model_the_block_the_rules_cannot_type_is_unclassified_with_the_reason(self):
        from dua.documents.rules import classify_with_rules
        from dua.schemas import Block, Line

        box = (72.0, 400.0, 92.0, 410.0)
        blank = Block("b", 1, box, [Line(" ", box, "Helvetica", 10.0)], " ",
                      {"source_block_type": "text"})
        element, = classify_with_rules([blank], Profile([blank], {1: (612, 792)}))
        self.assertEqual(element["type"], "unclassified_text_block")
        self.assertEqual(element["annotations"]["classification_error"]["error_type"],
                         "NoRuleApplies")


class BudgetTest(unittest.TestCase):
    def test_a_spent_run_budget_sends_nothing_and_the_rules_keep_every_block(self):
        blocks, profile = layout(LONG)
        with LLMServer(handler=lambda request: Turn(text="{}")) as server:
            run = LLMClassifier(Services(llm_provider(server.url), llm_budget=0))
            elements = run.classify(blocks, profile)
        self.assertEqual(server.count, 0)
        self.assertEqual(run.stats["llm_calls"], 0)
        self.assertEqual(run.stats["llm_down"]["error_code"], "LLM_BUDGET_SPENT")
        self.assertEqual([e["type"] for e in elements],
                         [rule_type(b, profile)[0] for b in blocks])


if __name__ == "__main__":
    unittest.main()
