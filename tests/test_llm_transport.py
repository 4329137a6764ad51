"""Transport: waits the server asks for, error classification, backoff, budget, proxies."""
from __future__ import annotations

import email.utils
import json
import os
import time
import unittest
from unittest import mock

from dua.errors import (AuthenticationError, BadRequestError, ContextLengthError,
                        LLMConnectionError, LLMTimeoutError, ModelNotFoundError,
                        QuotaExceededError, RateLimitError, ServerError)
from dua.llm.http_errors import error_from_status, redact, retry_after_from
from dua.llm.transport import RetryPolicy, Transport
from tests.llm_replies import Fail
from tests.llm_server import LLMServer, Reply


def _json_reader(resp, deadline):
    return json.loads(resp.read())


class RetryAfterTest(unittest.TestCase):
    def test_header_forms(self):
        now = time.time()
        date = email.utils.formatdate(now + 30, usegmt=True)
        cases = [({"retry-after-ms": "1500"}, 1.5), ({"retry-after": "2"}, 2.0),
                 ({"retry-after": "0.5"}, 0.5), ({"retry-after": "soon"}, None), ({}, None),
                 ({"retry-after-ms": "250", "retry-after": "9"}, 0.25)]
        for headers, expected in cases:
            with self.subTest(headers=headers):
                self.assertEqual(retry_after_from(headers, {}), expected)
        self.assertAlmostEqual(retry_after_from({"retry-after": date}, {}, now=now), 30, delta=1)

    def test_past_http_date_means_no_wait(self):
        self.assertEqual(retry_after_from({"retry-after": "Fri, 29 Sep 2023 16:28:37 GMT"}, {}), 0.0)

    def test_gemini_retry_info_and_message_hints(self):
        err = {"details": [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
                            "retryDelay": "45.837906927s"}]}
        self.assertEqual(retry_after_from({}, err), 45.837906927)
        self.assertEqual(retry_after_from({}, {}, "Please try again in 644ms."), 0.644)
        self.assertEqual(retry_after_from({}, {}, "Please retry in 47.4s."), 47.4)


class ClassifyTest(unittest.TestCase):
    def classify(self, fail: Fail, wire: str = "openai"):
        status, headers, body = fail.render(wire)
        return error_from_status(status, headers, json.dumps(body).encode(), provider=wire,
                                 model="test-model")

    def test_each_fail_kind_maps_to_its_class_in_both_wires(self):
        expected = {"rate_limit": RateLimitError, "quota": QuotaExceededError,
                    "server": ServerError, "overloaded": ServerError,
                    "auth": AuthenticationError, "context": ContextLengthError,
                    "not_found": ModelNotFoundError, "bad_request": BadRequestError}
        for wire in ("openai", "gemini"):
            for kind, cls in expected.items():
                with self.subTest(wire=wire, kind=kind):
                    self.assertIs(type(self.classify(Fail(kind), wire)), cls)

    def test_server_quirk_bodies_from_the_wire_notes_map_to_their_classes(self):
        cases = [  # (status, literal body, class, retried?) from shared/notes/llm_wire.md
            (401, {"error": {"code": 401, "message": "Invalid API Key",
                             "type": "authentication_error"}}, AuthenticationError, False),
            (400, {"error": {"code": 400, "message": "the request exceeds the available context "
                             "size, try increasing it", "type": "exceed_context_size_error"}},
             ContextLengthError, False),
            (404, {"error": {"message": 'model "qwen9" not found, try pulling it first',
                             "type": "not_found_error", "param": None, "code": None}},
             ModelNotFoundError, False),
            (503, {"error": {"code": 503, "message": "Loading model", "type": "unavailable_error"}},
             ServerError, True),
            (501, {"error": {"code": 501, "message": "not supported",
                             "type": "not_supported_error"}}, BadRequestError, False),
            (500, {"error": {"message": "1 validation error: Input should be 'text' or "
                             "'json_object'", "type": "internal_server_error", "code": None}},
             BadRequestError, False),
            (402, {"error": {"code": 402, "message": "Insufficient credits"}},
             QuotaExceededError, False),
            (529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}},
             ServerError, True),
        ]
        for status, body, cls, retried in cases:
            with self.subTest(status=status, body=body):
                exc = error_from_status(status, {}, json.dumps(body).encode(), model="qwen9")
                self.assertIs(type(exc), cls)
                self.assertEqual(exc.retryable, retried)

    def test_azure_content_filter_400_says_a_resend_will_not_help(self):
        body = {"error": {"message": "The response was filtered due to the prompt triggering "
                          "Azure OpenAI's content management policy.", "type": None,
                          "param": "prompt", "code": "content_filter", "status": 400,
                          "innererror": {"code": "ResponsibleAIPolicyViolation"}}}
        exc = error_from_status(400, {}, json.dumps(body).encode())
        self.assertIs(type(exc), BadRequestError)
        self.assertIn("content filter", exc.user_message)

    def test_quota_with_null_code_is_still_quota(self):
        body = {"error": {"message": "You exceeded your current quota, please check your plan and "
                          "billing details.", "type": "insufficient_quota", "code": None}}
        exc = error_from_status(429, {}, json.dumps(body).encode())
        self.assertIsInstance(exc, QuotaExceededError)

    def test_error_carries_status_message_request_id_and_code(self):
        exc = error_from_status(400, {"x-request-id": "req_9"}, json.dumps(
            {"error": {"code": 400, "message": "bad", "type": "invalid_request_error"}}).encode())
        self.assertEqual((exc.status, exc.provider_message, exc.request_id, exc.code),
                         (400, "bad", "req_9", 400))
        self.assertIn("req_9", str(exc))

    def test_html_and_empty_bodies_do_not_crash(self):
        exc = error_from_status(502, {}, b"<html><body><h1>502 Bad Gateway</h1></body></html>")
        self.assertIn("502 Bad Gateway", str(exc))
        self.assertIn("(empty body)", str(error_from_status(503, {}, b"")))

    def test_x_should_retry_is_read_both_ways(self):
        self.assertTrue(error_from_status(400, {"x-should-retry": "true"}, b"").should_retry)
        self.assertFalse(error_from_status(500, {"x-should-retry": "false"}, b"").should_retry)
        self.assertIsNone(error_from_status(500, {}, b"").should_retry)

    def test_echoed_key_is_redacted(self):
        key = "sk-live-abcdefgh12345678"
        body = json.dumps({"error": {"message": f"Incorrect API key provided: {key}."}}).encode()
        exc = error_from_status(401, {}, body, secrets=(key,))
        self.assertNotIn(key, str(exc))
        self.assertEqual(redact(f"a {key} b", (key,)), "a **** b")

    def test_a_key_echoed_where_the_message_is_cut_leaks_no_part_of_it(self):
        key = "sk-live-abcdefgh12345678"
        for pad in range(250, 300, 7):
            message = "x" * pad + f" Incorrect API key provided: {key}."
            exc = error_from_status(401, {}, json.dumps({"error": {"message": message}}).encode(),
                                    secrets=(key,))
            html = error_from_status(502, {}, f"<p>{'y' * (pad - 100)} {key}</p>".encode(),
                                     secrets=(key,))
            with self.subTest(pad=pad):
                self.assertNotIn(key[:8], str(exc))
                self.assertNotIn(key[:8], str(html))


class RetryLoopTest(unittest.TestCase):
    def transport(self, **policy) -> tuple:
        waits = []
        transport = Transport(read_timeout=2, retry=RetryPolicy(**policy), sleep=waits.append,
                              rng=lambda: 1.0)
        return transport, waits

    def test_persistent_500_makes_one_plus_max_retries_requests_with_growing_backoff(self):
        transport, waits = self.transport(max_retries=3, backoff_base=0.5, backoff_max=1.5)
        with LLMServer([Fail("server")] * 4) as server:
            with self.assertRaises(ServerError) as caught:
                transport.post(server.url + "/v1/chat/completions", {}, {}, _json_reader)
        self.assertEqual(server.count, 4)
        self.assertEqual(waits, [0.5, 1.0, 1.5])  # full jitter at its top (rng=1), capped
        self.assertEqual(caught.exception.failures, ["HTTP 500 ServerError"] * 4)

    def test_backoff_longer_than_the_budget_gives_up(self):
        transport, waits = self.transport(max_retries=3, backoff_base=5, budget=2)
        with LLMServer([Fail("server")] * 4) as server:
            with self.assertRaises(ServerError) as caught:
                transport.post(server.url + "/v1/chat/completions", {}, {}, _json_reader)
        self.assertEqual((server.count, waits), (1, []))
        self.assertIn("retry budget", str(caught.exception))

    def test_real_retry_after_wait_is_slept(self):
        transport = Transport(read_timeout=2, retry=RetryPolicy(max_retries=1))
        started = time.monotonic()
        with LLMServer([Fail("rate_limit", retry_after=0.05), Reply(200, {"ok": 1})]) as server:
            result = transport.post(server.url + "/v1/chat/completions", {}, {}, _json_reader)
        self.assertEqual(result, {"ok": 1})
        self.assertGreaterEqual(time.monotonic() - started, 0.05)

    def test_exhausted_budget_before_an_attempt_is_a_timeout(self):
        clock = iter([0.0, 100.0, 100.0, 100.0])
        transport = Transport(read_timeout=1, retry=RetryPolicy(budget=5), clock=lambda: next(clock))
        with self.assertRaises(LLMTimeoutError):
            transport.post("http://127.0.0.1:9/v1/chat/completions", {}, {}, _json_reader)
        self.assertEqual(transport.requests_sent, 0)

    def test_read_timeout_is_separate_from_the_connect_timeout(self):
        transport = Transport(read_timeout=2, connect_timeout=0.05, retry=RetryPolicy(max_retries=0))
        with LLMServer([Reply(200, {"ok": 1}, delay=0.3)]) as server:
            result = transport.post(server.url + "/v1/chat/completions", {}, {}, _json_reader)
        self.assertEqual(result, {"ok": 1})

    def test_tls_to_a_plain_http_server_is_a_connection_error(self):
        transport, waits = self.transport(max_retries=1)
        with LLMServer([]) as server, self.assertRaises(LLMConnectionError):
            transport.post(server.url.replace("http:", "https:") + "/v1/chat/completions", {}, {},
                           _json_reader)
        self.assertEqual(len(waits), 1)

    def test_proxy_variables_are_ignored(self):
        transport, _ = self.transport()
        with LLMServer([Reply(200, {"ok": 1})]) as server, mock.patch.dict(
                os.environ, {"http_proxy": "http://127.0.0.1:9", "HTTP_PROXY": "http://127.0.0.1:9",
                             "no_proxy": ""}):
            self.assertEqual(transport.post(server.url + "/v1/chat/completions", {}, {},
                                            _json_reader), {"ok": 1})

    def test_unknown_path_is_a_not_found_error(self):
        transport, _ = self.transport()
        with LLMServer([]) as server, self.assertRaises(ModelNotFoundError) as caught:
            transport.post(server.url + "/v1/chat/completion", {}, {}, _json_reader)
        self.assertIn("Not Found", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
