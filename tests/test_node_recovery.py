"""dua.recovery.node: the extract pipeline follows the Error Handler when the LLM fails.

Every scenario runs a real provider against the test server; the handler's retry delays are
recorded instead of slept, and the coverage invariant is checked on every result.
"""
from __future__ import annotations

import json
import os
import unittest

from dua.documents.classify import LLMClassifier, Services
from dua.documents.pipeline import check_coverage, extract
from dua.documents.rules import Profile
from dua.pdf import read_document
from dua.recovery.node import NodeRecovery, new_run_id
from dua.schemas import QUERY_ID
from tests.llm_server import Fail, LLMServer, Turn
from tests.support import FIXTURES
from tests.test_classify import asked_ids, block, llm_provider, rules_by_block

# A document whose rules leave blocks unsure: only those go to the LLM (issue 16).
REPORT = os.path.join(FIXTURES, "documents", "real", "supplier_review.pdf")
FALLBACK_MESSAGE = "The language model keeps failing; continuing with the built-in engine (no LLM)."


def paragraphs(request) -> Turn:
    """A well-behaved model: every block asked for is a paragraph."""
    return Turn(text=json.dumps({i: {"type": "paragraph", "text": "t"} for i in asked_ids(request)}))


def failing(times: int, fail: Fail):
    """A handler that answers ``fail`` to the first ``times`` requests, then behaves."""
    seen = []

    def handler(request):
        seen.append(1)
        return fail if len(seen) <= times else paragraphs(request)
    return handler


class ExtractRecoveryTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.rules = rules_by_block(REPORT)
        cls.document = read_document(REPORT, word_rule="reading")  # the words extract reads

    def setUp(self):
        self.waits, self.progress = [], []

    def run_with(self, handler, wire: str = "openai"):
        with LLMServer(handler=handler) as server:
            result = extract(REPORT, provider=llm_provider(server.url, wire),
                             sleep=self.waits.append, on_progress=self.progress.append)
        check_coverage(self.document, result["elements"])  # extract checked it too
        self.assertEqual(len(result["elements"]), len(self.rules))
        return result, server

    def assert_rules_took_over(self, result: dict) -> None:
        self.assertEqual([e["type"] for e in result["elements"]],
                         [e["type"] for e in self.rules.values()])
        self.assertEqual(result["stats"]["unclassified"], 0)

    def test_transient_failure_is_retried_after_the_handlers_delay_then_succeeds(self):
        for wire in ("openai", "gemini"):
            with self.subTest(wire):
                calm, _ = self.run_with(paragraphs, wire)  # the same answers, no failure
                self.waits.clear()
                result, server = self.run_with(failing(1, Fail("server")), wire)
                stats = result["stats"]
                self.assertEqual(server.count, 2)  # the failed batch, then the same batch again
                (record,) = stats["recovery"]
                self.assertEqual((record["node"], record["batch"], record["error_code"]),
                                 ("classify_llm", "1/1", "LLM_SERVER_ERROR"))
                self.assertEqual((record["step"], record["automated_actions"],
                                  record["next_action"]), ("retry", ["retry:1"], "resume"))
                # The handler's first backoff: half fixed, half jitter, within 0.5 s.
                self.assertEqual(self.waits, [record["delay_s"]])
                self.assertTrue(0.25 <= self.waits[0] <= 0.5, self.waits)
                self.assertIsNone(stats["llm_down"])
                self.assertEqual(stats["counts"], calm["stats"]["counts"])  # nothing lost to it

    def test_rate_limit_is_retried_after_the_servers_retry_after(self):
        result, server = self.run_with(failing(1, Fail("rate_limit", retry_after=0.01)))
        self.assertEqual(server.count, 2)
        self.assertEqual(self.waits, [0.01])
        self.assertEqual(result["stats"]["recovery"][0]["automated_actions"], ["retry:1"])

    def test_persistent_failure_ends_in_the_handlers_fallback_with_its_message(self):
        result, server = self.run_with(lambda request: Fail("server"))
        stats = result["stats"]
        self.assertEqual(server.count, 4)  # the batch, then the handler's three retries
        self.assertEqual([r["automated_actions"] for r in stats["recovery"]],
                         [["retry:1"], ["retry:2"], ["retry:3"], ["fallback:builtin"]])
        self.assertEqual([r["step"] for r in stats["recovery"]], ["retry"] * 3 + ["fallback"])
        # Exponential backoff with jitter: each wait within its doubling ceiling.
        for wait, ceiling in zip(self.waits, (0.5, 1.0, 2.0)):
            self.assertTrue(ceiling / 2 <= wait <= ceiling, self.waits)
        self.assertEqual(len(self.waits), 3)
        down = stats["llm_down"]
        self.assertEqual((down["error_code"], down["fallback"]), ("LLM_SERVER_ERROR", "rules"))
        self.assertEqual(down["user_message"], FALLBACK_MESSAGE)
        self.assertIn("Use --provider builtin (no LLM)", down["recovery_suggestions"])
        self.assert_rules_took_over(result)

    def test_unusable_llm_falls_back_at_once_without_retry(self):
        # A refused JSON mode is asked once more without it before the error counts.
        for kind, requests in (("auth", 1), ("quota", 1), ("not_found", 1), ("bad_request", 2),
                               ("context", 2)):
            with self.subTest(kind):
                self.waits.clear()
                result, server = self.run_with(lambda request, k=kind: Fail(k))
                self.assertEqual(server.count, requests)
                self.assertEqual(self.waits, [])
                (record,) = result["stats"]["recovery"]
                self.assertEqual((record["step"], record["automated_actions"]),
                                 ("fallback", ["fallback:builtin"]))
                self.assertIn("The language model cannot be used", record["user_message"])
                self.assertEqual(result["stats"]["llm_down"]["user_message"],
                                 record["user_message"])
                self.assert_rules_took_over(result)

    def test_auth_error_names_the_key_to_fix(self):
        result, _ = self.run_with(lambda request: Fail("auth"))
        down = result["stats"]["llm_down"]
        self.assertEqual(down["error_code"], "LLM_AUTH_FAILED")
        self.assertIn("DUA_LLM_API_KEY", down["user_message"])

    def test_retry_budget_belongs_to_one_run(self):
        for _ in range(2):  # a second run starts afresh: retry:1 again, not retry:2
            result, _ = self.run_with(failing(1, Fail("server")))
            self.assertEqual(result["stats"]["recovery"][0]["automated_actions"], ["retry:1"])

    def test_progress_lines_show_the_handlers_messages_and_suggestions(self):
        result, _ = self.run_with(lambda request: Fail("server"))
        recovery = [p for p in self.progress if "classify_llm failed" in p or "try:" in p]
        suggestions = result["stats"]["llm_down"]["recovery_suggestions"]
        self.assertEqual(len(recovery), 4 + len(suggestions))
        self.assertTrue(recovery[0].startswith(
            "classify_llm failed (LLM_SERVER_ERROR): The language model did not answer properly"))
        self.assertRegex(recovery[0], r"\(waiting 0\.\d\ds\)$")
        self.assertEqual(recovery[3], f"classify_llm failed (LLM_SERVER_ERROR): {FALLBACK_MESSAGE}")
        self.assertEqual(recovery[4:], [f"  try: {s}" for s in suggestions])
        self.assertEqual(recovery[4:6], ["  try: Retry later", "  try: Use --provider builtin (no LLM)"])

    def test_rules_only_run_has_an_empty_recovery_list(self):
        self.assertEqual(extract(REPORT)["stats"]["recovery"], [])


class _Broken:
    """A provider with a bug: not an LLM failure the pipeline knows how to work around."""

    def __init__(self):
        self.calls = 0

    def complete(self, messages, **options):
        self.calls += 1
        raise KeyError("choices")


class FollowTest(unittest.TestCase):
    """Each step the handler may answer is followed as next_step documents it."""

    def classify_with(self, steps: list, handler):
        from unittest import mock

        blocks = [block("a", "Some words", 100), block("b", "More words", 140)]
        answers = iter(steps)
        with LLMServer(handler=handler) as server, \
                mock.patch("dua.recovery.next_step", lambda feedback: next(answers)):
            run = LLMClassifier(Services(llm_provider(server.url), batch_size=1, sleep=[].append))
            elements = run.classify(blocks, Profile(blocks, {1: (612, 792)}))
        return elements, run, server

    def test_resume_leaves_the_failed_batch_to_the_rules_and_goes_on(self):
        def handler(request):
            if asked_ids(request) == ["a"]:
                return Fail("server")
            return Turn(text=json.dumps({"b": {"type": "heading", "text": "t", "level": 2}}))

        elements, run, server = self.classify_with([("resume", 0.0)], handler)
        # batch 1 failed and was not retried: the rules made it a paragraph; batch 2 was asked
        # and its answer judged (a plain-font line has no heading evidence: refused, noted)
        self.assertEqual([asked_ids(r) for r in server.requests], [["a"], ["b"]])
        self.assertEqual([e["type"] for e in elements], ["paragraph", "paragraph"])
        self.assertNotIn("annotations", elements[0])
        self.assertEqual(elements[1]["annotations"]["llm_refused"]["type"], "heading")
        self.assertEqual(run.stats["recovery"][0]["step"], "resume")
        self.assertIsNone(run.stats["llm_down"])

    def test_refine_retries_the_batch_like_retry(self):
        _, run, server = self.classify_with([("refine", 0.0)], failing(1, Fail("server")))
        self.assertEqual([asked_ids(r) for r in server.requests], [["a"], ["a"], ["b"]])
        self.assertEqual([r["step"] for r in run.stats["recovery"]], ["refine"])

    def test_ask_ends_the_run_with_the_failure(self):
        from dua.errors import ServerError

        with self.assertRaises(ServerError):
            self.classify_with([("ask", 0.0)], lambda request: Fail("server"))

    def test_handler_saying_stop_ends_the_run_with_the_failure(self):
        blocks = [block("a", "Some words", 100), block("b", "More words", 140)]
        provider, waits = _Broken(), []
        run = LLMClassifier(Services(provider, sleep=waits.append))
        with self.assertLogs("dua.recovery.ops", "WARNING") as logs:  # escalated to ops
            with self.assertRaises(KeyError):
                run.classify(blocks, Profile(blocks, {1: (612, 792)}))
        self.assertEqual((provider.calls, waits), (1, []))
        (record,) = run.stats["recovery"]
        self.assertEqual((record["error_code"], record["next_action"], record["step"]),
                         ("UNEXPECTED_ERROR", "escalate", "stop"))
        self.assertIn("notify_ops:extract_pipeline", record["automated_actions"])
        self.assertIn("escalation", logs.output[0])


class NodeRecoveryTest(unittest.TestCase):
    def test_run_ids_are_fresh_valid_query_ids(self):
        ids = {new_run_id("extract") for _ in range(50)}
        self.assertEqual(len(ids), 50)
        for run_id in ids:
            self.assertRegex(run_id, r"^extract_[0-9a-f]{12}$")
            self.assertTrue(QUERY_ID.match(run_id))

    def test_a_retry_waits_the_handlers_delay_and_records_it(self):
        from dua.errors import RateLimitError

        waits, told = [], []
        recovery = NodeRecovery("extract_pipeline", sleep=waits.append, on_progress=told.append)
        step, record = recovery.decide(RateLimitError("slow down", retry_after=0.02), "classify_llm",
                                       batch="1/2")
        self.assertEqual((step, waits, record["delay_s"]), ("retry", [0.02], 0.02))
        self.assertEqual(recovery.records, [record])
        self.assertEqual(record["batch"], "1/2")
        self.assertTrue(recovery.query_id.startswith("extract_"))
        self.assertEqual(told, [f"classify_llm failed (LLM_RATE_LIMITED): {record['user_message']}"
                                " (waiting 0.02s)"])

    def test_a_document_error_asks_the_user_and_says_nothing_itself(self):
        from dua.errors import NoTextLayerError

        told = []
        recovery = NodeRecovery("extract_pipeline", on_progress=told.append)
        step, record = recovery.decide(NoTextLayerError("scan.pdf has no text layer"), "load")
        self.assertEqual((step, record["next_action"]), ("ask", "await_user"))
        self.assertEqual(told, [])  # the run stops with the error, and the CLI reports it


if __name__ == "__main__":
    unittest.main()
