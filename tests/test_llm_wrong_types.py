"""Every field of a good answer replaced by an odd value: a typed dua error or an answer,
never a bare TypeError/KeyError/ValueError (seed 002's "wrong types" case)."""
from __future__ import annotations

import copy
import unittest

from dua.config import Settings
from dua.errors import DuaError, InvalidStructureError, ServerError, UnexpectedTypeError
from dua.llm import get_provider
from dua.llm.gemini import GeminiWire
from dua.llm.openai_compat import OpenAIWire
from dua.llm.response import ResponseHandler
from dua.llm.transport import RetryPolicy
from tests.llm_server import LLMServer, Reply, Stream

_OPENAI = {"choices": [{"index": 0, "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "hi", "tool_calls": [
                            {"id": "c", "type": "function",
                             "function": {"name": "f", "arguments": "{}"}}]}}],
           "usage": {"prompt_tokens": 1, "completion_tokens": 2}}
_GEMINI = {"candidates": [{"finishReason": "STOP", "content": {"role": "model", "parts": [
               {"text": "hi"}, {"functionCall": {"name": "f", "args": {}}}]}}],
           "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 2}}
_ODD = (None, 1, -1, 1.5, "x", "", [], {}, [1], {"a": 1}, True, 10 ** 30)
_DELETE = object()


def _paths(node, path=()):
    keys = node.keys() if isinstance(node, dict) else range(len(node)) \
        if isinstance(node, list) else ()
    for key in keys:
        yield path + (key,)
        yield from _paths(node[key], path + (key,))


def _mutated(good: dict, path: tuple, value: object) -> dict:
    payload = copy.deepcopy(good)
    parent = payload
    for key in path[:-1]:
        parent = parent[key]
    if value is _DELETE:
        del parent[path[-1]]
    else:
        parent[path[-1]] = value
    return payload


def _run(wire, payload: object, streaming: bool) -> None:
    handler = ResponseHandler(wire, streaming=streaming)
    if not streaming:
        handler.validate_response(payload)
    handler.process_chunk(payload)
    handler.mark_done()
    handler.get_final_response()


class WrongTypesTest(unittest.TestCase):
    def test_any_field_of_either_wire_with_an_odd_value_ends_in_a_dua_error_or_an_answer(self):
        for wire, good in ((OpenAIWire(), _OPENAI), (GeminiWire(), _GEMINI)):
            for path in _paths(good):
                for value in _ODD + (_DELETE,):
                    for streaming in (False, True):
                        payload = _mutated(good, path, value)
                        with self.subTest(wire=wire.name, path=path, value=value,
                                          streaming=streaming):
                            try:
                                _run(wire, payload, streaming)
                            except DuaError:
                                pass

    def test_a_non_string_finish_reason_names_its_path(self):
        bad = _mutated(_OPENAI, ("choices", 0, "finish_reason"), ["stop"])
        with self.assertRaises(UnexpectedTypeError) as caught:
            _run(OpenAIWire(), bad, streaming=False)
        self.assertIn("choices[0].finish_reason", str(caught.exception))

    def test_a_usage_figure_that_is_not_a_number_names_its_path(self):
        bad = _mutated(_GEMINI, ("usageMetadata", "promptTokenCount"), "many")
        with self.assertRaises(UnexpectedTypeError) as caught:
            _run(GeminiWire(), bad, streaming=True)
        self.assertIn("usageMetadata.promptTokenCount", str(caught.exception))

    def test_a_gemini_text_part_that_is_not_a_string_names_its_path(self):
        bad = _mutated(_GEMINI, ("candidates", 0, "content", "parts", 0, "text"), 7)
        with self.assertRaises(UnexpectedTypeError) as caught:
            _run(GeminiWire(), bad, streaming=False)
        self.assertIn("parts[0].text", str(caught.exception))

    def test_a_streamed_choices_that_is_not_a_list_is_a_typed_error(self):
        with self.assertRaises(UnexpectedTypeError):
            _run(OpenAIWire(), {"choices": {"a": 1}}, streaming=True)

    def test_json_nested_too_deep_in_a_body_event_or_error_is_a_typed_error(self):
        deep = "[" * 100_000
        script = [(Reply(200, deep, content_type="application/json"), False, InvalidStructureError),
                  (Stream(["data: " + deep]), True, InvalidStructureError),
                  (Reply(500, deep, content_type="application/json"), False, ServerError)]
        for item, stream, error in script:
            with self.subTest(error=error.__name__, stream=stream), LLMServer([item]) as server:
                provider = get_provider(Settings(provider="openai", model="m", base_url=server.url),
                                        retry=RetryPolicy(max_retries=0))
                with self.assertRaises(error):
                    provider.complete([{"role": "user", "content": "hi"}], stream=stream)
                self.assertEqual(server.count, 1)


if __name__ == "__main__":
    unittest.main()
