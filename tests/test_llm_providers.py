"""The provider contract: one behavioural suite run against both providers, streamed and not.

Every fault asserts the exact exception type (or the successful retry) and the number of
requests the test server saw. Waits are recorded by an injected sleep, never slept.
"""
from __future__ import annotations

import json
import time
import unittest

from dua.config import Settings
from dua.errors import (AuthenticationError, BadRequestError, ContentFilteredError,
                        ContextLengthError, InvalidStructureError, LLMConnectionError,
                        LLMTimeoutError, ModelNotFoundError, NoCandidatesError, NoTextError,
                        NoToolActivityError, ProviderError, QuotaExceededError, RateLimitError,
                        ServerError, StreamInterruptedError, TruncatedResponseError)
from dua.llm.gemini import GeminiProvider
from dua.llm.openai_compat import OpenAICompatProvider
from dua.llm.response import Usage
from dua.llm.transport import RetryPolicy
from tests.llm_server import Fail, LLMServer, Pause, Reply, Stream, Turn, free_port

KEY = "sk-test-0123456789abcdef"
HI = [{"role": "user", "content": "hi"}]
EMIT = [{"name": "emit_rows", "description": "Emit rows.",
         "parameters": {"type": "object", "properties": {"rows": {"type": "array"}}}}]
CUT_JSON = '{"rows":[{"d":"2024-01-02","amt":'


class ProviderContract:
    """Mixed into one TestCase per (provider, stream) pair."""

    cls = None
    provider = ""
    suffix = ""
    stream = False

    def make(self, server: LLMServer | None = None, timeout: float = 5.0, max_retries: int = 2,
             budget: float = 30.0, url: str | None = None):
        base = url or server.url + self.suffix
        settings = Settings(provider=self.provider, model="test-model", base_url=base,
                            api_key=KEY, timeout=timeout)
        self.waits = []
        return self.cls(settings, retry=RetryPolicy(max_retries=max_retries, budget=budget),
                        sleep=self.waits.append, rng=lambda: 0.5)

    def ask(self, script: list, **kw):
        """Run one complete() against ``script``; returns (response, server)."""
        make_kw = {k: kw.pop(k) for k in ("timeout", "max_retries", "budget") if k in kw}
        with LLMServer(script) as server:
            provider = self.make(server, **make_kw)
            response = provider.complete(HI, stream=self.stream, **kw)
        return response, server

    def fails(self, error: type, script: list, requests: int, **kw):
        """Assert ``error`` (exactly that class) and the server's request count."""
        make_kw = {k: kw.pop(k) for k in ("timeout", "max_retries", "budget") if k in kw}
        with LLMServer(script) as server:
            provider = self.make(server, **make_kw)
            with self.assertRaises(error) as caught:
                provider.complete(HI, stream=self.stream, **kw)
        self.assertIs(type(caught.exception), error, caught.exception)
        self.assertEqual(server.count, requests)
        return caught.exception

    # -- answers -------------------------------------------------------------------------

    def test_text_answer_is_normalised_with_usage(self):
        response, server = self.ask([Turn(text="Hello from the model")])
        self.assertEqual(response.text, "Hello from the model")
        self.assertEqual(response.finish_reason, "stop")
        self.assertEqual(response.usage, Usage(12, 5, 1))
        self.assertEqual(response.provider, self.provider)
        self.assertEqual(response.tool_calls, [])
        self.assertEqual(server.count, 1)
        self.assertEqual(server.requests[0].stream, self.stream)

    def test_tool_call_arguments_are_parsed_dicts(self):
        response, _ = self.ask([Turn(tool_calls=[("emit_rows", {"rows": [{"amt": 12.5}]})])],
                               tools=EMIT, tool_choice="emit_rows")
        self.assertEqual(len(response.tool_calls), 1)
        call = response.tool_calls[0]
        self.assertEqual((call.name, call.arguments), ("emit_rows", {"rows": [{"amt": 12.5}]}))
        self.assertTrue(call.id)
        self.assertEqual(response.finish_reason, "tool_calls")

    def test_two_tool_calls_are_both_returned_in_order(self):
        turn = Turn(tool_calls=[("emit_rows", {"rows": []}), ("get_stock_price", {"s": "X"})])
        response, _ = self.ask([turn], tools=EMIT + [{"name": "get_stock_price"}])
        self.assertEqual([c.name for c in response.tool_calls], ["emit_rows", "get_stock_price"])
        self.assertEqual(response.tool_calls[1].arguments, {"s": "X"})
        self.assertNotEqual(response.tool_calls[0].id, response.tool_calls[1].id)

    def test_usage_is_summed_per_provider_across_calls(self):
        with LLMServer([Turn(text="a", usage=(10, 2)), Turn(text="b", usage=(7, 3))]) as server:
            provider = self.make(server)
            provider.complete(HI, stream=self.stream)
            provider.complete(HI, stream=self.stream)
        self.assertEqual(provider.usage, Usage(17, 5, 2))

    def test_status_callback_sees_request_and_text_preview(self):
        seen = []
        self.ask([Turn(text="x" * 80)], on_status=seen.append)
        kinds = [s.kind for s in seen]
        self.assertEqual(kinds[0], "request")
        self.assertIn("text", kinds)
        self.assertTrue(seen[-1].endswith("..."), seen[-1])

    def test_status_callback_reports_tool_activity(self):
        seen = []
        self.ask([Turn(tool_calls=[("emit_rows", {})])], tools=EMIT, on_status=seen.append)
        self.assertIn("🔧 Using emit_rows...", seen)

    # -- retries -------------------------------------------------------------------------

    def test_429_with_retry_after_is_retried_after_that_wait(self):
        response, server = self.ask([Fail("rate_limit", retry_after=0.05), Turn(text="ok")])
        self.assertEqual(response.text, "ok")
        self.assertEqual(server.count, 2)
        self.assertEqual(self.waits, [0.05])

    def test_a_retry_is_reported_to_on_status_with_its_attempt_wait_and_reason(self):
        seen = []
        self.ask([Fail("rate_limit", retry_after=0.05), Turn(text="ok")], on_status=seen.append)
        retries = [s for s in seen if s.kind == "retry"]
        self.assertEqual(len(retries), 1)
        self.assertEqual((retries[0].info["attempt"], retries[0].info["wait"]), (2, 0.05))
        self.assertIn("HTTP 429", retries[0].info["reason"])

    def test_500_then_success_is_retried_with_jittered_backoff(self):
        response, server = self.ask([Fail("server"), Turn(text="ok")])
        self.assertEqual((response.text, server.count), ("ok", 2))
        self.assertEqual(len(self.waits), 1)
        self.assertTrue(0 <= self.waits[0] <= RetryPolicy().backoff_base, self.waits)

    def test_503_overloaded_then_success_is_retried(self):
        response, server = self.ask([Fail("overloaded"), Fail("overloaded"), Turn(text="ok")])
        self.assertEqual((response.text, server.count, len(self.waits)), ("ok", 3, 2))

    def test_persistent_500_gives_up_after_max_retries(self):
        exc = self.fails(ServerError, [Fail("server")] * 5, requests=3)
        self.assertEqual(exc.status, 500)
        self.assertEqual(exc.attempts, 3)
        self.assertIn("gave up after 3 attempts", str(exc))

    def test_retry_after_longer_than_budget_gives_up_at_once(self):
        exc = self.fails(RateLimitError, [Fail("rate_limit", retry_after=121), Turn(text="x")],
                         requests=1, budget=30)
        self.assertIn("server asked to wait 121 s", str(exc))
        self.assertEqual(self.waits, [])

    def test_x_should_retry_true_retries_a_400(self):
        response, server = self.ask([Fail("bad_request", headers={"x-should-retry": "true"}),
                                     Turn(text="ok")])
        self.assertEqual((response.text, server.count), ("ok", 2))

    def test_x_should_retry_false_stops_a_500(self):
        self.fails(ServerError, [Fail("server", headers={"x-should-retry": "false"})], requests=1)

    def test_read_timeout_is_retried_then_raised(self):
        self.fails(LLMTimeoutError, [Turn(text="late", delay=1.0)] * 2, requests=2,
                   timeout=0.2, max_retries=1)

    def test_slow_reply_then_fast_reply_succeeds(self):
        response, server = self.ask([Turn(text="late", delay=1.0), Turn(text="ok")], timeout=0.2)
        self.assertEqual((response.text, server.count), ("ok", 2))

    def test_trickling_json_answer_is_stopped_by_the_total_deadline(self):
        text = json.dumps(self.make_body(Turn(text="slow")))
        parts = [p for i in range(0, len(text), 20) for p in (text[i:i + 20], Pause(0.2))]
        started = time.monotonic()
        exc = self.fails(LLMTimeoutError, [Stream(parts, content_type="application/json")],
                         requests=1, timeout=1.0, budget=0.3)
        self.assertIn("deadline", str(exc))
        self.assertLess(time.monotonic() - started, 1.0)  # not after the whole trickle

    def test_connection_refused_is_retried_then_raised(self):
        provider = self.make(url=f"http://127.0.0.1:{free_port()}{self.suffix}")
        with self.assertRaises(LLMConnectionError):
            provider.complete(HI, stream=self.stream)
        self.assertEqual(len(self.waits), 2)

    # -- failures that are not retried -----------------------------------------------------

    def test_auth_failure_is_not_retried_and_never_shows_the_key(self):
        exc = self.fails(AuthenticationError, [Fail("auth"), Turn(text="x")], requests=1)
        payload = str(exc.to_payload("agent"))
        for text in (str(exc), repr(exc), payload, repr(self.make(url="http://127.0.0.1:9"))):
            self.assertNotIn(KEY, text)

    def test_logs_say_what_was_retried_and_never_show_the_key(self):
        with self.assertLogs("dua.llm", "DEBUG") as logs:
            self.ask([Fail("rate_limit", retry_after=0.01), Turn(text="ok")])
        text = "\n".join(logs.output)
        self.assertIn("HTTP 429 RateLimitError; retrying in 0.01 s", text)
        self.assertNotIn(KEY, text)

    def test_quota_exhausted_429_is_not_retried(self):
        exc = self.fails(QuotaExceededError, [Fail("quota"), Turn(text="x")], requests=1)
        self.assertIn("will not help", exc.user_message)

    def test_context_too_long_is_not_retried(self):
        self.fails(ContextLengthError, [Fail("context"), Turn(text="x")], requests=1)

    def test_unknown_model_is_not_retried_and_named(self):
        exc = self.fails(ModelNotFoundError, [Fail("not_found"), Turn(text="x")], requests=1)
        self.assertIn("test-model", str(exc))

    def test_bad_request_is_not_retried(self):
        exc = self.fails(BadRequestError, [Fail("bad_request"), Turn(text="x")], requests=1)
        self.assertEqual(exc.request_id, "req_test")

    def test_error_body_with_status_200_is_a_provider_error(self):
        body = {"error": {"code": 502, "message": "Provider returned error"}}
        exc = self.fails(ProviderError, [Reply(200, body)], requests=1)
        self.assertIn("Provider returned error", str(exc))

    def test_html_page_with_status_200_is_invalid_structure(self):
        page = "<html><body><h1>Welcome to the hotel wifi</h1></body></html>"
        self.fails(InvalidStructureError, [Reply(200, page, content_type="text/html")], requests=1)

    def test_html_502_is_retried_and_its_text_reported(self):
        page = "<html><body><h1>502 Bad Gateway</h1></body></html>"
        exc = self.fails(ServerError, [Reply(502, page, content_type="text/html")] * 3, requests=3)
        self.assertIn("502 Bad Gateway", str(exc))

    # -- unusable answers ------------------------------------------------------------------

    def test_empty_choices_raise_no_candidates(self):
        self.fails(NoCandidatesError, [self.empty_answer()], requests=1)

    def test_cut_off_json_raises_truncated_with_the_partial_text(self):
        exc = self.fails(TruncatedResponseError, [Turn(text=CUT_JSON, finish="length")],
                         requests=1)
        self.assertEqual(exc.text, CUT_JSON)
        self.assertEqual(exc.usage, Usage(12, 5, 1))

    def test_safety_finish_raises_content_filtered(self):
        self.fails(ContentFilteredError, [Turn(finish="filter")], requests=1)

    def test_answer_without_text_or_tools_raises_no_text(self):
        self.fails(NoTextError, [Turn(text="")], requests=1)

    def test_required_tool_answered_with_text_raises_no_tool_activity(self):
        exc = self.fails(NoToolActivityError, [Turn(text="Here are your rows: none")], requests=1,
                         tools=EMIT, tool_choice="required")
        self.assertEqual(exc.text, "Here are your rows: none")

    def test_failed_call_still_counts_in_usage(self):
        with LLMServer([Turn(text=CUT_JSON, finish="length", usage=(30, 1))]) as server:
            provider = self.make(server)
            with self.assertRaises(TruncatedResponseError):
                provider.complete(HI, stream=self.stream)
        self.assertEqual(provider.usage, Usage(30, 1, 1))


class StreamContract:
    """Faults only a stream can have; mixed in with ProviderContract when stream=True."""

    def test_reset_after_output_is_interrupted_with_partial_text(self):
        exc = self.fails(StreamInterruptedError, [Turn(text="abcdef", chunks=3, end="reset",
                                                       cut_after=self.events_before_text + 1),
                                                  Turn(text="x")], requests=1)
        self.assertEqual(exc.text, "ab")

    def test_reset_before_any_output_is_retried(self):
        response, server = self.ask([Turn(text="abc", end="reset", cut_after=0), Turn(text="ok")])
        self.assertEqual((response.text, server.count), ("ok", 2))

    def test_truncated_chunked_body_is_interrupted(self):
        exc = self.fails(StreamInterruptedError, [Turn(text="abcdef", chunks=3, end="truncate",
                                                       cut_after=self.events_before_text + 2)],
                         requests=1)
        self.assertEqual(exc.text, "abcd")

    def test_stall_mid_stream_is_interrupted_not_retried(self):
        exc = self.fails(StreamInterruptedError, [Turn(text="abcdef", end="stall", stall=2.0,
                                                       cut_after=self.events_before_text + 1),
                                                  Turn(text="x")], requests=1, timeout=0.3)
        self.assertEqual(exc.text, "ab")
        self.assertIn("read timed out", str(exc))

    def test_stream_without_finish_or_done_is_truncated_stream_error(self):
        exc = self.fails(StreamInterruptedError, [Turn(text="partial", finish=None)], requests=1)
        self.assertEqual(exc.text, "partial")

    def test_trickling_stream_is_stopped_by_the_total_deadline(self):
        events = self.make_events(Turn(text="abcdefghij", chunks=10))
        slow = [e for event in events for e in (event, Pause(0.15))]
        exc = self.fails(StreamInterruptedError, [Stream(slow)], requests=1, timeout=1.0,
                         budget=0.5)
        self.assertIn("deadline", str(exc))

    def test_crlf_split_writes_and_multibyte_text_parse(self):
        turn = Turn(text="известни суми €12", chunks=4)
        response, _ = self.ask([Stream(self.make_events(turn), crlf=True, split=True)])
        self.assertEqual(response.text, "известни суми €12")

    def test_comments_between_events_are_skipped(self):
        events = self.make_events(Turn(text="hello", chunks=2))
        mixed = [": keep-alive\n\n"] + [e for event in events for e in (event, ": PROCESSING\n\n")]
        response, _ = self.ask([Stream(mixed)])
        self.assertEqual(response.text, "hello")

    def test_malformed_event_json_is_invalid_structure_naming_the_event(self):
        events = self.make_events(Turn(text="hello"))[:1] + ['data: {"choices":[{"delta":{"te\n\n']
        exc = self.fails(InvalidStructureError, [Stream(events)], requests=1)
        self.assertEqual(exc.event_index, 1)

    def test_error_event_mid_stream_raises_provider_error(self):
        events = self.make_events(Turn(text="hello"))[:2] + [self.error_event]
        exc = self.fails(ProviderError, [Stream(events)], requests=1)
        self.assertIn("nternal", str(exc))
        self.assertTrue(exc.partial_text and "hello".startswith(exc.partial_text), exc.partial_text)


class _OpenAI:
    cls = OpenAICompatProvider
    provider = "openai"
    suffix = "/v1"
    events_before_text = 1  # the role chunk
    error_event = {"error": {"message": "Internal error", "type": "server_error", "param": None,
                             "code": None}}

    def empty_answer(self):
        if self.stream:
            return Stream([{"id": "x", "object": "chat.completion.chunk", "choices": []},
                           "data: [DONE]\n\n"])
        return Reply(200, {"id": "x", "object": "chat.completion", "created": 1, "model": "m",
                           "choices": []})

    def make_events(self, turn: Turn) -> list:
        return turn.events("openai", "test-model")

    def make_body(self, turn: Turn) -> dict:
        return turn.body("openai", "test-model")


class _Gemini:
    cls = GeminiProvider
    provider = "gemini"
    suffix = "/v1beta"
    events_before_text = 0
    error_event = {"error": {"code": 500, "message": "Internal error encountered.",
                             "status": "INTERNAL"}}

    def empty_answer(self):
        body = {"candidates": [], "usageMetadata": {"promptTokenCount": 3, "totalTokenCount": 3}}
        return Stream([body]) if self.stream else Reply(200, body)

    def make_events(self, turn: Turn) -> list:
        return turn.events("gemini", "test-model")

    def make_body(self, turn: Turn) -> dict:
        return turn.body("gemini", "test-model")


class OpenAIProviderTest(_OpenAI, ProviderContract, unittest.TestCase):
    stream = False


class OpenAIStreamingProviderTest(_OpenAI, StreamContract, ProviderContract, unittest.TestCase):
    stream = True


class GeminiProviderTest(_Gemini, ProviderContract, unittest.TestCase):
    stream = False


class GeminiStreamingProviderTest(_Gemini, StreamContract, ProviderContract, unittest.TestCase):
    stream = True


if __name__ == "__main__":
    unittest.main()
