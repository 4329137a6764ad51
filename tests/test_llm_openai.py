"""OpenAI-compatible specifics: request bodies, tool-call argument faults, server quirks."""
from __future__ import annotations

import unittest

from dua.config import Settings
from dua.errors import (ContentFilteredError, ContextLengthError, InvalidStructureError,
                        ProviderError, StreamInterruptedError, ToolArgumentsError,
                        TruncatedResponseError, UnexpectedTypeError, UsageError)
from dua.llm.openai_compat import OpenAICompatProvider
from dua.llm.transport import RetryPolicy
from tests.llm_replies import openai_chunk
from tests.llm_server import LLMServer, Reply, Stream, Turn

HI = [{"role": "user", "content": "hi"}]
EMIT = [{"name": "emit_rows", "description": "Emit rows.", "parameters": {"type": "object"}}]


def provider(server: LLMServer, key: str | None = "sk-k") -> OpenAICompatProvider:
    settings = Settings(provider="openai", model="gpt-test", base_url=server.url + "/v1",
                        api_key=key, timeout=5)
    return OpenAICompatProvider(settings, retry=RetryPolicy(max_retries=1), sleep=lambda s: None)


def run(script: list, stream: bool = False, key: str | None = "sk-k", **kw):
    with LLMServer(script) as server:
        response = provider(server, key).complete(HI, stream=stream, **kw)
    return response, server


class OpenAIRequestTest(unittest.TestCase):
    def test_body_carries_model_messages_and_limits(self):
        _, server = run([Turn(text="ok")], max_tokens=256, temperature=0.2)
        body = server.requests[0].body
        self.assertEqual((body["model"], body["messages"], body["max_tokens"], body["temperature"]),
                         ("gpt-test", HI, 256, 0.2))
        self.assertFalse(body["stream"])
        self.assertNotIn("stream_options", body)

    def test_stream_asks_for_usage(self):
        response, server = run([Turn(text="ok")], stream=True)
        self.assertEqual(server.requests[0].body["stream_options"], {"include_usage": True})
        self.assertEqual(response.usage.input_tokens, 12)

    def test_bearer_key_is_sent_and_omitted_without_key(self):
        _, server = run([Turn(text="ok")])
        self.assertEqual(server.requests[0].headers["authorization"], "Bearer sk-k")
        _, server = run([Turn(text="ok")], key=None)
        self.assertNotIn("authorization", server.requests[0].headers)

    def test_tools_and_tool_choice_forms(self):
        for choice, expected in (("auto", "auto"), ("required", "required"),
                                 ("emit_rows", {"type": "function",
                                                "function": {"name": "emit_rows"}})):
            with self.subTest(choice=choice):
                _, server = run([Turn(tool_calls=[("emit_rows", {})])], tools=EMIT,
                                tool_choice=choice)
                body = server.requests[0].body
                self.assertEqual(body["tool_choice"], expected)
                self.assertEqual(body["tools"][0]["function"]["name"], "emit_rows")

    def test_response_format_json_schema_is_wrapped(self):
        fmt = {"type": "json_schema", "name": "rows", "schema": {"type": "object"}}
        _, server = run([Turn(text="{}")], response_format=fmt)
        self.assertEqual(server.requests[0].body["response_format"],
                         {"type": "json_schema", "json_schema": {"name": "rows",
                                                                 "schema": {"type": "object"}}})

    def test_null_content_with_tool_calls_is_sent_as_empty_string(self):
        messages = HI + [{"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "emit_rows", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "retry please"}]
        with LLMServer([Turn(text="ok")]) as server:
            provider(server).complete(messages)
        sent = server.requests[0].body["messages"]
        self.assertEqual(sent[1]["content"], "")
        self.assertEqual(sent[2], {"role": "tool", "tool_call_id": "c1", "content": "retry please"})

    def test_bad_arguments_to_complete_are_usage_errors(self):
        with LLMServer([]) as server:
            p = provider(server)
            for kwargs in ({"messages": []}, {"messages": [{"role": "robot"}]},
                           {"messages": HI, "tool_choice": "nope"},
                           {"messages": HI, "response_format": {"type": "yaml"}}):
                with self.subTest(kwargs=kwargs), self.assertRaises(UsageError):
                    p.complete(**kwargs)
        self.assertEqual(server.count, 0)

    def test_missing_model_is_a_usage_error(self):
        with self.assertRaises(UsageError):
            OpenAICompatProvider(Settings(provider="openai"))


class OpenAIToolArgumentsTest(unittest.TestCase):
    def test_invalid_json_arguments_raise_never_become_empty(self):
        for stream in (False, True):
            with self.subTest(stream=stream):
                with self.assertRaises(ToolArgumentsError) as caught:
                    run([Turn(tool_calls=[("emit_rows", '{"city": "Par')])], stream=stream)
                self.assertEqual(caught.exception.raw_arguments, '{"city": "Par')
                self.assertEqual(caught.exception.tool_name, "emit_rows")

    def test_arguments_that_json_forbids_or_nest_too_deep_raise_never_reach_the_caller(self):
        for arguments in ('{"amount": NaN}', '{"amount": 1e999}', '{"a":' * 50_000):
            with self.subTest(arguments=arguments[:20]), self.assertRaises(ToolArgumentsError):
                run([Turn(tool_calls=[("emit_rows", arguments)])])

    def test_unquoted_value_in_arguments_raises(self):
        with self.assertRaises(ToolArgumentsError):
            run([Turn(tool_calls=[("list_windows", '{"action": listt_windows"}')])])

    def test_cut_arguments_with_length_finish_are_truncation(self):
        with self.assertRaises(TruncatedResponseError):
            run([Turn(tool_calls=[("emit_rows", '{"rows": [{"d": "2024')], finish="length")],
                stream=True)

    def test_null_or_object_arguments_are_unexpected_types(self):
        for args in (None, {"city": "Paris"}):
            body = {"id": "x", "object": "chat.completion", "choices": [{"index": 0, "message": {
                "role": "assistant", "content": None, "tool_calls": [{"id": "c", "type": "function",
                "function": {"name": "f", "arguments": args}}]}, "finish_reason": "tool_calls"}]}
            with self.subTest(args=args), self.assertRaises(UnexpectedTypeError) as caught:
                run([Reply(200, body)])
            self.assertIn("arguments", caught.exception.path)

    def test_tool_calls_with_stop_finish_are_still_collected(self):
        response, _ = run([Turn(tool_calls=[("emit_rows", {"rows": []})], finish="stop")],
                          stream=True)
        self.assertEqual(response.tool_calls[0].arguments, {"rows": []})


class OpenAIQuirksTest(unittest.TestCase):
    def test_a_stream_retried_after_a_reset_keeps_nothing_of_the_broken_attempt(self):
        broken = Stream([openai_chunk({"role": "assistant", "refusal": "I can't"}),
                         openai_chunk({}, finish="content_filter")], end="reset")
        response, server = run([broken, Turn(text="Hello")], stream=True)
        self.assertEqual((response.text, response.finish_reason, server.count),
                         ("Hello", "stop", 2))

    def test_refusal_is_content_filtered(self):
        with self.assertRaises(ContentFilteredError) as caught:
            run([Turn(refusal="I'm sorry, I can't assist with that request.")])
        self.assertIn("sorry", caught.exception.refusal)

    def test_azure_filter_chunk_and_usage_chunk_are_not_errors(self):
        azure = {"id": "", "object": "", "created": 0, "model": "", "choices": [],
                 "prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}]}
        events = [azure] + Turn(text="fine").events("openai", "m")
        response, _ = run([Stream(events)], stream=True)
        self.assertEqual(response.text, "fine")

    def test_finish_without_done_is_accepted(self):
        response, _ = run([Turn(text="ok", end="no_done")], stream=True)
        self.assertEqual(response.text, "ok")

    def test_done_without_blank_line_is_done(self):
        events = Turn(text="ok").events("openai", "m")[:-1] + ["data: [DONE]"]
        response, _ = run([Stream(events)], stream=True)
        self.assertEqual(response.text, "ok")

    def test_data_after_done_is_ignored(self):
        events = Turn(text="ok").events("openai", "m") + ["data: garbage\n\n"]
        response, _ = run([Stream(events)], stream=True)
        self.assertEqual(response.text, "ok")

    def test_zero_events_and_no_done_is_interrupted(self):
        with self.assertRaises(StreamInterruptedError):
            run([Stream([])], stream=True)

    def test_ping_and_bare_lines_are_invalid_structure(self):
        for bad in ("data: ping\n\n", '{"choices": []}\n\n'):
            events = [openai_chunk({"role": "assistant"}), bad]
            with self.subTest(bad=bad), self.assertRaises(InvalidStructureError):
                run([Stream(events)], stream=True)

    def test_llama_cpp_legacy_error_line_raises(self):
        err = ('error: {"code":400,"message":"the request exceeds the available context size, '
               'try increasing it","type":"exceed_context_size_error"}\n\ndata: [DONE]\n\n')
        with self.assertRaises(ContextLengthError) as caught:
            run([Stream([openai_chunk({"role": "assistant"}), err])], stream=True)
        self.assertEqual(caught.exception.code, 400)

    def test_vllm_error_object_and_event_error_raise_provider_error(self):
        vllm = {"object": "error", "message": "Bad things", "type": "BadRequestError", "code": 400}
        anthropic = ('event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", '
                     '"message": "Overloaded"}}\n\n')
        for bad in (vllm, anthropic):
            with self.subTest(bad=bad), self.assertRaises(ProviderError):
                run([Stream([openai_chunk({"content": "x"}), bad])], stream=True)

    def test_reasoning_only_chunks_are_not_text(self):
        events = [openai_chunk({"reasoning": "thinking…"})] + Turn(text="ok").events("openai", "m")
        response, _ = run([Stream(events)], stream=True)
        self.assertEqual(response.text, "ok")

    def test_server_that_ignores_stream_answers_json(self):
        response, _ = run([Reply(200, Turn(text="whole").body("openai", "m"))], stream=True)
        self.assertEqual(response.text, "whole")

    def test_ollama_null_finish_reason_non_stream_is_accepted(self):
        response, _ = run([Turn(text="ok", finish=None)])
        self.assertEqual((response.text, response.finish_reason), ("ok", None))


if __name__ == "__main__":
    unittest.main()
