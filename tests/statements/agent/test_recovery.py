"""The statement agent follows the Error Handler: refine, ask, fall back, stop, as it says."""
from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import tempfile
import unittest
from unittest import mock

import pandas as pd

from dua import cli
from dua.config import Settings
from dua.errors import NoTextLayerError
from dua.recovery import default_handler
from dua.statements.agent import agent
from dua.statements.agent.llm_writer import LLMWriter
from dua.statements.agent.writer import BuiltinWriter
from tests.llm_server import Fail, LLMServer, free_port

from ...support import FIXTURES, run_dua, shared_sample
from .test_agent import _FlakyWriter

FOLDER = os.path.join(FIXTURES, "statements", "card_parens")
PDF, CSV = os.path.join(FOLDER, "a.pdf"), os.path.join(FOLDER, "a.csv")


def flaky(bad: int):
    return lambda ctx, state: _FlakyWriter(BuiltinWriter(ctx.pages, ctx.analysis, ctx.expected), bad)


def handler_records(query_id: str) -> int:
    """How many times the in-process handler was consulted for one run."""
    store = default_handler().store
    return store.query("SELECT COUNT(*) FROM errors WHERE query_id = ?", (query_id,))[0][0]


class TempDirCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-recovery-")
        self.addCleanup(shutil.rmtree, self.tmp, True)
        self.lines, self.sleeps = [], []

    def run_agent(self, pdf=PDF, bank="card", **kw):
        kw.setdefault("parsers_dir", os.path.join(self.tmp, "parsers"))
        return agent.run_agent(pdf, bank, on_progress=self.lines.append,
                               sleep=self.sleeps.append, **kw)


class ExecuteRecoveryTest(TempDirCase):
    def test_a_crashing_parser_is_refined_because_the_handler_said_refine(self):
        state = self.run_agent(expected=CSV, make_writer=flaky(1))
        self.assertEqual((state.final_status, state.retry_count), ("passed", 1))
        (record,) = state.recovery
        self.assertEqual((record["node"], record["error_code"], record["step"],
                          record["next_action"], record["automated_actions"]),
                         ("execute", "PARSER_CRASHED", "refine", "resume", ["refine:1"]))
        self.assertIn("The generated parser failed", record["user_message"])
        self.assertIn("cannot find the table", record["user_message"])
        self.assertEqual(state.attempts[0]["recovery"], [record])
        self.assertNotIn("recovery", state.attempts[1])
        self.assertEqual(self.lines, [f"execute failed (PARSER_CRASHED): {record['user_message']}"])
        self.assertEqual(handler_records(state.run_id), 1)
        self.assertEqual(state.feedback, {})

    def test_refinement_stops_when_the_handlers_budget_says_ask(self):
        # --max-retries would allow 9 refinements; the handler's budget (3) ends the run first.
        state = self.run_agent(expected=CSV, make_writer=flaky(99), max_retries=9)
        self.assertEqual((state.final_status, state.retry_count, len(state.attempts)),
                         ("failed", 3, 4))
        self.assertEqual([r["step"] for r in state.recovery], ["refine", "refine", "refine", "ask"])
        last = state.recovery[-1]
        self.assertEqual(state.feedback["error_id"], last["error_id"])
        self.assertEqual((state.feedback["next_action"], state.feedback["user_message"]),
                         ("await_user", last["user_message"]))
        self.assertIn("Check that the statement layout is supported",
                      state.feedback["recovery_suggestions"])
        self.assertIn(f"execute failed (PARSER_CRASHED): {last['user_message']} "
                      "(the run ends here)", self.lines)
        self.assertIn("  try: Check that the statement layout is supported", self.lines)

    def test_the_hard_cap_still_ends_a_run_the_handler_would_refine(self):
        state = self.run_agent(expected=CSV, make_writer=flaky(99), max_retries=1)
        self.assertEqual((state.final_status, state.retry_count), ("failed", 1))
        self.assertEqual([(r["node"], r["step"]) for r in state.recovery],
                         [("execute", "refine"), ("execute", "refine"), ("finalize", "ask")])
        last = state.recovery[-1]
        self.assertEqual((state.feedback["error_id"], state.feedback["next_action"]),
                         (last["error_id"], "await_user"))
        self.assertIn("Raise --max-retries (it was 1).", state.feedback["recovery_suggestions"])
        self.assertIn("The parser for card failed after 1 refinement(s): ParserCrashedError",
                      state.feedback["user_message"])
        self.assertEqual(self.lines[2:4], [
            "--max-retries 1 spent: no further refinement",
            f"finalize failed (NOT_VERIFIED): {last['user_message']} (the run ends here)"])
        self.assertEqual(state.attempts[-1]["recovery"], state.recovery[1:])

    def test_a_bug_in_a_node_escalates_with_the_feedback_attached(self):
        def broken(ctx, state):
            raise RuntimeError("writer exploded")

        with self.assertRaises(RuntimeError) as caught:
            self.run_agent(make_writer=broken)
        feedback = caught.exception.feedback
        self.assertEqual((feedback["next_action"], feedback["error_source"]),
                         ("escalate", "dua_statement_agent"))
        self.assertEqual(feedback["context"]["session"]["node"], "analyze")
        self.assertEqual(handler_records(feedback["query_id"]), 1)


class DocumentRecoveryTest(TempDirCase):
    def test_no_text_layer_ends_the_run_with_the_handlers_ocr_suggestion_asked_once(self):
        with self.assertRaises(NoTextLayerError) as caught:
            self.run_agent(shared_sample("sbi_scanned", "statement.pdf"), "sbi")
        feedback = caught.exception.feedback
        self.assertEqual(feedback["next_action"], "await_user")
        self.assertTrue(any(s.startswith("Run OCR first") for s in feedback["recovery_suggestions"]))
        self.assertEqual(handler_records(feedback["query_id"]), 1)

    def test_dua_parse_json_shows_that_feedback_without_asking_again(self):
        before = default_handler().store.count_errors()
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli.main(["parse", shared_sample("sbi_scanned", "statement.pdf"), "--bank",
                             "sbi", "--parsers-dir", os.path.join(self.tmp, "p"), "--json",
                             "--ocr", "never"])  # with OCR (tesseract), see tests.test_ocr
        self.assertEqual(code, 3)
        report = json.loads(out.getvalue())
        feedback = report["feedback"]
        self.assertEqual((report["status"], feedback["error_source"]),
                         ("error", "dua_statement_agent"))
        self.assertTrue(feedback["query_id"].startswith("statement_"))
        self.assertIn("Run OCR first", feedback["user_message"])
        self.assertIn("Run OCR first", err.getvalue())
        self.assertIn("no text layer", err.getvalue())
        self.assertEqual(default_handler().store.count_errors(), before + 1)


class LLMRecoveryTest(TempDirCase):
    def run_llm(self, url, **kw):
        settings = Settings(provider="openai", model="coder", base_url=url, timeout=5)
        return self.run_agent(expected=CSV, settings=settings, **kw)

    def test_an_llm_that_is_down_is_retried_then_falls_back_as_the_handler_says(self):
        state = self.run_llm(f"http://127.0.0.1:{free_port()}/v1")
        self.assertEqual((state.final_status, state.writer), ("passed", "builtin"))
        steps = [(r["node"], r["error_code"], r["step"]) for r in state.recovery]
        self.assertEqual(steps, [("generate_llm", "LLM_CONNECTION_FAILED", "retry")] * 3
                         + [("generate_llm", "LLM_CONNECTION_FAILED", "fallback")])
        self.assertEqual(self.sleeps, [r["delay_s"] for r in state.recovery[:3]])
        self.assertEqual(state.recovery[-1]["automated_actions"], ["fallback:builtin"])
        self.assertEqual(state.attempts[0]["recovery"], state.recovery)
        fallback = state.recovery[-1]
        self.assertIn(f"generate_llm failed (LLM_CONNECTION_FAILED): {fallback['user_message']}",
                      self.lines)
        self.assertIn("  try: Use --provider builtin (no LLM)", self.lines)
        self.assertIn("fell back to the built-in writer", state.fallback_reason)

    def test_an_escalation_stops_the_run_with_the_feedback_attached_asked_once(self):
        from dua.errors import LLMConnectionError
        from dua.recovery import policy

        # A handler whose policy escalates LLM outages instead of retrying them.
        with mock.patch.dict(policy.POLICIES, {"llm_transient": policy.POLICIES["internal"]}):
            with self.assertRaises(LLMConnectionError) as caught:
                self.run_llm(f"http://127.0.0.1:{free_port()}/v1")
        feedback = caught.exception.feedback
        self.assertEqual((feedback["next_action"], feedback["context"]["session"]["node"]),
                         ("escalate", "generate_llm"))
        self.assertEqual(handler_records(feedback["query_id"]), 1)
        self.assertEqual(self.sleeps, [])

    def test_the_llm_writer_leaves_retries_to_the_handler(self):
        settings = Settings(provider="openai", model="coder", base_url="http://127.0.0.1:9/v1")
        found = mock.Mock(settings={})
        writer = LLMWriter(settings, found, None, fallback=None)
        self.assertEqual(writer.provider.provider.transport.retry.max_retries, 1)  # in its Session

    def test_dua_parse_says_the_handlers_message_when_the_key_is_refused(self):
        with LLMServer(handler=lambda request: Fail("auth")) as server:
            done = run_dua("parse", PDF, "--bank", "card", "--expected", CSV, "--provider",
                           "openai", "--base-url", server.url + "/v1", "--model", "coder",
                           "--parsers-dir", os.path.join(self.tmp, "p"), "--json", cwd=self.tmp,
                           env={"DUA_LLM_API_KEY": "k"})
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual((report["status"], report["writer"], server.count), ("passed", "builtin", 1))
        (record,) = report["recovery"]
        self.assertEqual((record["step"], record["automated_actions"]),
                         ("fallback", ["fallback:builtin"]))
        self.assertIn(f"dua parse: generate_llm failed (LLM_AUTH_FAILED): {record['user_message']}\n",
                      done.stderr)
        self.assertIn("dua parse:   try: Use --provider builtin (no LLM)\n", done.stderr)


class CliBudgetTest(TempDirCase):
    def test_a_result_that_never_matches_ends_failed_with_the_handlers_answer_in_json(self):
        wrong = os.path.join(self.tmp, "wrong.csv")
        pd.read_csv(CSV).iloc[:3].to_csv(wrong, index=False)
        done = run_dua("parse", PDF, "--bank", "card", "--expected", wrong, "--max-retries", "9",
                       "--parsers-dir", os.path.join(self.tmp, "p"), "--json", cwd=self.tmp)
        self.assertEqual(done.returncode, 1, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual(report["status"], "failed")
        steps = [(r["node"], r["step"]) for r in report["recovery"]]
        # The writer refines only while it has a parser better than those it wrote; with a
        # key no reading of the page can match it stops there, long before --max-retries 9.
        self.assertEqual(steps[-1], ("finalize", "ask"))
        self.assertEqual(set(steps[:-1]), {("compare", "refine")})
        self.assertLess(len(report["history"]), 9)
        last, feedback = report["recovery"][-1], report["feedback"]
        self.assertEqual((feedback["error_id"], feedback["next_action"]),
                         (last["error_id"], "await_user"))
        self.assertEqual(feedback["user_message"], last["user_message"])
        self.assertIn("nothing new to try", feedback["user_message"])
        self.assertNotIn("Pass --expected", feedback["user_message"] + " ".join(
            feedback["recovery_suggestions"]))  # it was passed: never advise it again
        self.assertIn("Check that the statement layout is supported",
                      feedback["recovery_suggestions"])
        self.assertIn(f"dua parse: finalize failed (NOT_VERIFIED): {last['user_message']} "
                      "(the run ends here)\n", done.stderr)


if __name__ == "__main__":
    unittest.main()
