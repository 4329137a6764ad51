"""Gemini specifics: message translation, blocks and finish reasons, RetryInfo, quota."""
from __future__ import annotations

import unittest

from dua.config import Settings
from dua.errors import (AuthenticationError, ContentFilteredError, NoCandidatesError, NoTextError,
                        PromptBlockedError, ProviderError, QuotaExceededError, RateLimitError,
                        ToolArgumentsError, TruncatedResponseError)
from dua.llm.gemini import GeminiProvider, to_contents
from dua.llm.response import Usage
from dua.llm.transport import RetryPolicy
from tests.llm_replies import gemini_error, gemini_usage, quota_failure
from tests.llm_server import Fail, LLMServer, Reply, Stream, Turn

HI = [{"role": "user", "content": "hi"}]
KEY = "AIzaSy-test-key-0123456789"


class _Run:
    def provider(self, server: LLMServer, max_retries: int = 2) -> GeminiProvider:
        settings = Settings(provider="gemini", model="models/gemini-test",
                            base_url=server.url + "/v1beta", api_key=KEY, timeout=5)
        self.waits = []
        return GeminiProvider(settings, retry=RetryPolicy(max_retries=max_retries, budget=60),
                              sleep=self.waits.append)

    def call(self, script: list, stream: bool = False, messages: list = HI, **kw):
        with LLMServer(script) as server:
            response = self.provider(server).complete(messages, stream=stream, **kw)
        return response, server

    def raises(self, error: type, script: list, stream: bool = False, requests: int = 1, **kw):
        with LLMServer(script) as server:
            with self.assertRaises(error) as caught:
                self.provider(server).complete(HI, stream=stream, **kw)
        self.assertIs(type(caught.exception), error)
        self.assertEqual(server.count, requests)
        return caught.exception


class GeminiRequestTest(_Run, unittest.TestCase):
    def test_messages_become_contents_with_system_instruction_and_function_parts(self):
        messages = [
            {"role": "system", "content": "You extract rows."},
            {"role": "user", "content": "page text"},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function",
             "function": {"name": "emit_rows", "arguments": '{"rows": []}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "Your previous response was wrong"},
        ]
        system, contents = to_contents(messages)
        self.assertEqual(system, "You extract rows.")
        self.assertEqual(contents, [
            {"role": "user", "parts": [{"text": "page text"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "emit_rows",
                                                          "args": {"rows": []}}}]},
            {"role": "user", "parts": [{"functionResponse": {
                "name": "emit_rows", "response": {"content": "Your previous response was wrong"}}}]},
        ])

    def test_body_has_generation_config_tools_and_tool_config(self):
        tools = [{"name": "emit_rows", "description": "d", "parameters": {"type": "object"}}]
        _, server = self.call([Turn(tool_calls=[("emit_rows", {})])], tools=tools,
                             tool_choice="emit_rows", max_tokens=99)
        body = server.requests[0].body
        self.assertEqual(body["generationConfig"]["maxOutputTokens"], 99)
        self.assertEqual(body["tools"][0]["functionDeclarations"][0]["name"], "emit_rows")
        self.assertEqual(body["toolConfig"], {"functionCallingConfig": {
            "mode": "ANY", "allowedFunctionNames": ["emit_rows"]}})

    def test_json_schema_format_sets_mime_type_and_schema(self):
        fmt = {"type": "json_schema", "name": "rows", "schema": {"type": "object"}}
        _, server = self.call([Turn(text="{}")], response_format=fmt)
        config = server.requests[0].body["generationConfig"]
        self.assertEqual(config["responseMimeType"], "application/json")
        self.assertEqual(config["responseJsonSchema"], {"type": "object"})

    def test_key_goes_in_a_header_never_the_url(self):
        _, server = self.call([Turn(text="ok")], stream=True)
        request = server.requests[0]
        self.assertEqual(request.headers["x-goog-api-key"], KEY)
        self.assertEqual(request.path, "/v1beta/models/gemini-test:streamGenerateContent")
        self.assertEqual(request.query, {"alt": ["sse"]})
        self.assertNotIn(KEY, request.path)


class GeminiAnswerTest(_Run, unittest.TestCase):
    def test_prompt_blocked_is_no_candidates_with_reason(self):
        body = {"promptFeedback": {"blockReason": "OTHER"},
                "usageMetadata": {"promptTokenCount": 171, "totalTokenCount": 171}}
        for stream in (False, True):
            with self.subTest(stream=stream):
                item = Stream([body]) if stream else Reply(200, body)
                exc = self.raises(PromptBlockedError, [item], stream=stream)
                self.assertIsInstance(exc, NoCandidatesError)
                self.assertEqual(exc.block_reason, "OTHER")

    def test_safety_and_recitation_without_content_are_content_filtered(self):
        for reason in ("SAFETY", "RECITATION", "PROHIBITED_CONTENT"):
            body = {"candidates": [{"finishReason": reason, "index": 0}]}
            with self.subTest(reason=reason):
                exc = self.raises(ContentFilteredError, [Reply(200, body)])
                self.assertEqual(exc.finish_reason, reason)

    def test_max_tokens_spent_on_thoughts_is_truncation(self):
        body = {"candidates": [{"content": {"role": "model", "parts": [{"text": ""}]},
                                "finishReason": "MAX_TOKENS", "index": 0}],
                "usageMetadata": gemini_usage((5, 0), thoughts=2040)}
        exc = self.raises(TruncatedResponseError, [Reply(200, body)])
        self.assertEqual(exc.usage, Usage(5, 2040, 1))

    def test_malformed_function_call_is_a_tool_arguments_error(self):
        self.raises(ToolArgumentsError, [Turn(finish="tool_error")])

    def test_function_call_args_holding_nan_or_infinity_are_a_tool_arguments_error(self):
        for literal in ("NaN", "Infinity", "1e999"):
            body = ('{"candidates": [{"finishReason": "STOP", "content": {"role": "model", "parts": '
                    '[{"functionCall": {"name": "emit", "args": {"amount": %s}}}]}}]}' % literal)
            with self.subTest(literal=literal):
                self.raises(ToolArgumentsError, [Reply(200, body.encode(),
                                                       content_type="application/json")])

    def test_stop_with_no_parts_is_no_text(self):
        body = {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}]}
        self.raises(NoTextError, [Reply(200, body)])

    def test_thought_parts_are_not_answer_text(self):
        body = {"candidates": [{"content": {"role": "model", "parts": [
            {"text": "let me think", "thought": True}, {"text": "42"}]}, "finishReason": "STOP"}]}
        response, _ = self.call([Reply(200, body)])
        self.assertEqual(response.text, "42")

    def test_cumulative_stream_usage_keeps_the_last_figure(self):
        response, _ = self.call([Turn(text="abcdef", chunks=3, usage=(40, 9))], stream=True)
        self.assertEqual(response.usage, Usage(40, 9, 1))

    def test_error_wrapped_in_a_list_is_understood(self):
        body = [gemini_error(500, "Internal error encountered.", "INTERNAL")]
        self.raises(ProviderError, [Reply(200, body)])


class GeminiErrorTest(_Run, unittest.TestCase):
    def test_invalid_key_on_a_400_is_an_authentication_error(self):
        exc = self.raises(AuthenticationError, [Fail("auth"), Turn(text="x")])
        self.assertEqual(exc.status, 400)
        self.assertNotIn(KEY, str(exc))

    def test_retry_info_delay_is_honoured(self):
        response, server = self.call([Fail("rate_limit", retry_delay="0.05s"), Turn(text="ok")])
        self.assertEqual((response.text, server.count), ("ok", 2))
        self.assertEqual(self.waits, [0.05])

    def test_long_retry_info_delay_beyond_max_wait_is_not_waited(self):
        exc = self.raises(RateLimitError, [Fail("rate_limit", retry_delay="120.837906927s"),
                                           Turn(text="x")])
        self.assertEqual(exc.retry_after, 120.837906927)
        self.assertIn("server asked to wait 120.8", str(exc))
        self.assertEqual(self.waits, [])

    def test_per_day_quota_is_not_retried(self):
        self.raises(QuotaExceededError, [Fail("quota"), Turn(text="x")])

    def test_per_minute_quota_is_a_rate_limit_retried_after_its_retry_info_delay(self):
        # The real free-tier text says "check your plan and billing", like a spent quota:
        # the quota id, not the wording, decides.
        for message in ("Quota exceeded for quota metric 'Generate Content requests per minute'",
                        "You exceeded your current quota, please check your plan and billing "
                        "details. Please retry in 0.01s."):
            body = gemini_error(429, message, "RESOURCE_EXHAUSTED",
                                [quota_failure("GenerateRequestsPerMinutePerProjectPerModel"),
                                 {"@type": "type.googleapis.com/google.rpc.RetryInfo",
                                  "retryDelay": "0.01s"}])
            with self.subTest(message=message):
                response, server = self.call([Reply(429, body), Turn(text="ok")])
                self.assertEqual((response.text, server.count, self.waits), ("ok", 2, [0.01]))

    def test_quota_details_of_odd_shapes_are_read_without_crashing(self):
        for details in ([{"violations": 5}], [{"violations": [3, None]}], "x", [None]):
            body = gemini_error(429, "Resource has been exhausted.", "RESOURCE_EXHAUSTED", details)
            with self.subTest(details=details):
                self.raises(RateLimitError, [Reply(429, body)] * 3, requests=3)


if __name__ == "__main__":
    unittest.main()
