"""Structured output (seed 003) against the fake LLM server: strategies, handle_errors, attempts."""
from __future__ import annotations

import dataclasses
import json
import unittest

from dua.config import Settings
from dua.errors import (AuthenticationError, MultipleStructuredOutputsError, SchemaError,
                        StructuredOutputValidationError, ToolArgumentsError, ToolNotFoundError,
                        TruncatedResponseError)
from dua.llm.gemini import GeminiProvider
from dua.llm.openai_compat import OpenAICompatProvider
from dua.llm.response import Usage
from dua.llm.structured import (STRUCTURED_OUTPUT_ERROR_TEMPLATE, PromptedStrategy, ToolStrategy,
                                complete_structured)
from dua.llm.transport import RetryPolicy
from tests.llm_server import Fail, LLMServer, Reply, Turn

SCHEMA = {"title": str, "level": int}
GOOD = {"title": "Summary", "level": 2}
BAD = {"title": "Summary", "level": "2"}  # level as a string
BAD_PROBLEM = "level: expected int, got string"
ASK = [{"role": "user", "content": "Classify: Summary"}]


@dataclasses.dataclass
class Heading:
    """A heading of the document."""

    title: str
    level: int


def tool_turn(args, name="heading") -> Turn:
    return Turn(tool_calls=[(name, args)], usage=(10, 4))


def make_provider(server: LLMServer, wire: str = "openai"):
    cls, path = (OpenAICompatProvider, "/v1") if wire == "openai" else (GeminiProvider, "/v1beta")
    settings = Settings(provider=wire, model="m", base_url=server.url + path, timeout=5)
    return cls(settings, retry=RetryPolicy(max_retries=2, backoff_base=0.001, budget=5),
               sleep=lambda s: None)


def run(script: list, strategy, wire: str = "openai", **kw):
    """(result or exception, server) for one structured call against a scripted model."""
    with LLMServer(script) as server:
        try:
            return complete_structured(make_provider(server, wire), ASK, strategy, **kw), server
        except Exception as exc:  # the tests assert on the exception itself
            return exc, server


def tool_messages(request) -> list:
    return [m for m in request.body["messages"] if m["role"] == "tool"]


def template(error: str) -> str:
    return STRUCTURED_OUTPUT_ERROR_TEMPLATE.format(error=error)


class HandleErrorsCases:
    """Every handle_errors form, a scripted model answering wrongly then rightly (or never).

    Run once per wire (CPython's PyTest / CTest shape): ``WIRE`` names it.
    """

    WIRE = "openai"

    def run_(self, script: list, strategy, **kw):
        return run(script, strategy, wire=self.WIRE, **kw)

    def feedback_texts(self, request) -> list:
        """The feedback the server received as tool results, in order."""
        if self.WIRE == "openai":
            return [m["content"] for m in tool_messages(request)]
        return [part["functionResponse"]["response"]["content"] for turn in request.body["contents"]
                for part in turn["parts"] if "functionResponse" in part]

    def assert_retried_to_success(self, result, server, attempts: int):
        self.assertEqual(result.data, GOOD)
        self.assertEqual(server.count, attempts)
        self.assertEqual((len(result.attempts), result.retries), (attempts, attempts - 1))
        self.assertEqual(result.usage, Usage(10 * attempts, 4 * attempts, attempts))

    def test_true_retries_with_the_default_template_as_a_tool_message(self):
        result, server = self.run_([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, name="heading"))
        self.assert_retried_to_success(result, server, 2)
        feedback = template(f"Failed to parse structured output for 'heading': {BAD_PROBLEM}")
        self.assertEqual(self.feedback_texts(server.requests[1]), [feedback])
        self.assertEqual(result.attempts[0].feedback, feedback)
        self.assertIn(BAD_PROBLEM, result.attempts[0].error)
        self.assertEqual(json.loads(result.attempts[0].raw), BAD)

    def test_false_propagates_the_validation_error_at_once(self):
        exc, server = self.run_([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading", handle_errors=False))
        self.assertIsInstance(exc, StructuredOutputValidationError)
        self.assertEqual((exc.tool_name, server.count, len(exc.attempts)), ("heading", 1, 1))
        self.assertIsInstance(exc.source, SchemaError)
        self.assertEqual(exc.source.problems, [BAD_PROBLEM])
        self.assertIsNone(exc.attempts[0].feedback)

    def test_a_string_is_sent_back_verbatim_on_every_retry(self):
        message = "Call heading with an integer level."
        result, server = self.run_([tool_turn(BAD), tool_turn(BAD), tool_turn(GOOD)],
                             ToolStrategy(SCHEMA, "heading", handle_errors=message))
        self.assert_retried_to_success(result, server, 3)
        self.assertEqual(self.feedback_texts(server.requests[2]), [message, message])

    def test_an_exception_type_matches_the_underlying_cause(self):
        result, server = self.run_([tool_turn(BAD), tool_turn(GOOD)],
                             ToolStrategy(SCHEMA, "heading", handle_errors=SchemaError))
        self.assert_retried_to_success(result, server, 2)
        self.assertIn(BAD_PROBLEM, self.feedback_texts(server.requests[1])[0])

    def test_an_exception_type_that_does_not_match_propagates(self):
        exc, server = self.run_([tool_turn(BAD), tool_turn(GOOD)],
                          ToolStrategy(SCHEMA, "heading", handle_errors=MultipleStructuredOutputsError))
        self.assertIsInstance(exc, StructuredOutputValidationError)
        self.assertEqual(server.count, 1)

    def test_a_tuple_of_types_retries_only_those(self):
        result, server = self.run_([tool_turn(BAD), tool_turn(GOOD)],
                             ToolStrategy(SCHEMA, "heading", handle_errors=(KeyError, SchemaError)))
        self.assert_retried_to_success(result, server, 2)
        exc, server = self.run_([tool_turn(BAD), tool_turn(GOOD)],
                          ToolStrategy(SCHEMA, "heading", handle_errors=(KeyError, TypeError)))
        self.assertIsInstance(exc, StructuredOutputValidationError)
        self.assertEqual(server.count, 1)

    def test_a_callable_writes_the_feedback(self):
        seen = []

        def handler(error):
            seen.append(error)
            return f"Fix this: {error.source.problems[0]}"

        result, server = self.run_([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading", handle_errors=handler))
        self.assert_retried_to_success(result, server, 2)
        self.assertEqual(self.feedback_texts(server.requests[1]), [f"Fix this: {BAD_PROBLEM}"])
        self.assertIsInstance(seen[0], StructuredOutputValidationError)

    def test_a_callable_returning_none_stops(self):
        exc, server = self.run_([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading", handle_errors=lambda e: None))
        self.assertIsInstance(exc, StructuredOutputValidationError)
        self.assertEqual(server.count, 1)

    def test_an_exception_raised_by_the_callable_propagates(self):
        def handler(error):
            raise RuntimeError("handler gave up")

        exc, server = self.run_([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading", handle_errors=handler))
        self.assertEqual((type(exc), str(exc), server.count), (RuntimeError, "handler gave up", 1))

    def test_a_model_that_never_gets_it_right_stops_after_three_attempts(self):
        exc, server = self.run_([tool_turn(BAD)] * 5, ToolStrategy(SCHEMA, "heading"))
        self.assertIsInstance(exc, StructuredOutputValidationError)
        self.assertEqual((server.count, len(exc.attempts)), (3, 3))
        self.assertEqual(exc.usage, Usage(30, 12, 3))
        self.assertEqual(len(exc.details["attempt_errors"]), 3)
        self.assertEqual([a.feedback is not None for a in exc.attempts], [True, True, False])
        # The transcript grows by one exchange per retry, not more.
        self.assertEqual(len(self.feedback_texts(server.requests[2])), 2)

    def test_each_retry_is_reported_to_on_status(self):
        seen = []
        result, _ = self.run_([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"), on_status=seen.append)
        retries = [s for s in seen if getattr(s, "kind", "") == "structured_retry"]
        self.assertEqual(len(retries), 1)
        self.assertEqual(retries[0].info["attempt"], 2)
        self.assertIn(BAD_PROBLEM, retries[0].info["error"])

    def test_a_dataclass_schema_names_the_tool_and_builds_the_value(self):
        result, server = self.run_([tool_turn(BAD, name="Heading"), tool_turn(GOOD, name="Heading")], ToolStrategy(Heading))
        self.assertEqual((result.value, result.data), (Heading("Summary", 2), GOOD))
        tools = server.requests[0].body["tools"][0]
        tool = tools["function"] if self.WIRE == "openai" else tools["functionDeclarations"][0]
        self.assertEqual((tool["name"], tool["description"]), ("Heading", "A heading of the document."))

    def test_max_attempts_bounds_the_retries(self):
        exc, server = self.run_([tool_turn(BAD)] * 5, ToolStrategy(SCHEMA, "heading", max_attempts=2))
        self.assertEqual((server.count, len(exc.attempts)), (2, 2))


class ToolStrategyHandleErrorsOpenAITest(HandleErrorsCases, unittest.TestCase):
    WIRE = "openai"


class ToolStrategyHandleErrorsGeminiTest(HandleErrorsCases, unittest.TestCase):
    WIRE = "gemini"


class ToolStrategyModelMistakesTest(unittest.TestCase):
    def test_the_tool_message_answers_the_assistant_call_it_follows(self):
        result, server = run([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"))
        messages = server.requests[1].body["messages"]
        self.assertEqual(messages[:-2], server.requests[0].body["messages"])
        assistant, tool = messages[-2:]
        self.assertEqual((assistant["role"], assistant["content"]), ("assistant", ""))
        self.assertEqual(assistant["tool_calls"][0]["function"], {"name": "heading", "arguments": json.dumps(BAD)})
        self.assertEqual((tool["role"], tool["tool_call_id"], tool["name"]),
                         ("tool", assistant["tool_calls"][0]["id"], "heading"))

    def test_two_calls_raise_multiple_outputs_and_every_call_is_answered(self):
        two = Turn(tool_calls=[("heading", GOOD), ("heading_again", GOOD)])
        result, server = run([two, tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"))
        self.assertEqual((result.data, server.count), (GOOD, 2))
        self.assertIn("MultipleStructuredOutputsError", result.attempts[0].error)
        self.assertIn("heading, heading_again", result.attempts[0].error)
        messages = server.requests[1].body["messages"]
        ids = [c["id"] for c in messages[-3]["tool_calls"]]
        self.assertEqual([m["tool_call_id"] for m in tool_messages(server.requests[1])], ids)
        self.assertEqual(len(set(ids)), 2)

    def test_two_calls_without_retry_name_both_tools(self):
        two = Turn(tool_calls=[("heading", GOOD), ("other", GOOD)])
        exc, _ = run([two], ToolStrategy(SCHEMA, "heading", handle_errors=False))
        self.assertIsInstance(exc, MultipleStructuredOutputsError)
        self.assertEqual(exc.tool_names, ["heading", "other"])

    def test_an_unknown_tool_is_fed_back_naming_the_real_one(self):
        result, server = run([tool_turn(GOOD, name="delete_everything"), tool_turn(GOOD)],
                             ToolStrategy(SCHEMA, "heading", handle_errors=ToolNotFoundError))
        self.assertEqual((result.data, server.count), (GOOD, 2))
        self.assertIn("the only tool is heading", tool_messages(server.requests[1])[0]["content"])

    def test_arguments_that_are_not_json_are_fed_back_never_run_as_empty(self):
        broken = Turn(tool_calls=[("heading", '{"title": "Summ')], finish="tool_calls")
        result, server = run([broken, tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading", handle_errors=ToolArgumentsError))
        self.assertEqual((result.data, server.count), (GOOD, 2))
        last = server.requests[1].body["messages"][-1]
        self.assertEqual(last["role"], "user")
        self.assertIn("arguments are not valid JSON", last["content"])
        self.assertEqual(result.attempts[0].raw, '{"title": "Summ')

    def test_text_instead_of_a_tool_call_is_fed_back_as_a_user_message(self):
        result, server = run([Turn(text="It is a heading."), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"))
        self.assertEqual((result.data, server.count), (GOOD, 2))
        first = server.requests[0].body
        self.assertEqual(first["tool_choice"], {"type": "function", "function": {"name": "heading"}})
        echoed, feedback = server.requests[1].body["messages"][-2:]
        self.assertEqual(echoed, {"role": "assistant", "content": "It is a heading."})
        self.assertEqual(feedback["role"], "user")
        self.assertIn("tool call was required", feedback["content"])

    def test_a_non_object_schema_travels_wrapped(self):
        strategy = ToolStrategy([{"text": str}], name="items")
        result, server = run([tool_turn({"result": [{"text": "a"}]}, name="items")], strategy)
        self.assertEqual(result.data, [{"text": "a"}])
        params = server.requests[0].body["tools"][0]["function"]["parameters"]
        self.assertEqual(params["required"], ["result"])


class _DuckProvider:
    """A provider that returns a cut-off Response instead of raising (a third-party one)."""

    def __init__(self):
        self.calls = 0

    def complete(self, messages, **kw):
        from dua.llm.response import Response
        self.calls += 1
        return Response(text='{"title": "Summ', finish_reason="length", usage=Usage(5, 1, 1))


class NeverFedBackTest(unittest.TestCase):
    """Truncation and transport failures propagate; the model is never told it erred."""

    def test_a_length_finish_from_any_provider_is_truncation(self):
        duck = _DuckProvider()
        with self.assertRaises(TruncatedResponseError) as cm:
            complete_structured(duck, ASK, PromptedStrategy(SCHEMA, lenient=True))
        self.assertEqual((duck.calls, len(cm.exception.attempts)), (1, 1))
        self.assertEqual(cm.exception.usage, Usage(5, 1, 1))

    def test_a_cut_off_answer_raises_truncated_without_a_retry(self):
        cut = Turn(tool_calls=[("heading", '{"')], finish="length", usage=(10, 1))
        exc, server = run([cut, tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"))
        self.assertIsInstance(exc, TruncatedResponseError)
        self.assertEqual((server.count, len(exc.attempts)), (1, 1))
        self.assertIn("max_tokens", exc.hint)

    def test_a_cut_off_prompted_answer_is_not_repaired(self):
        exc, server = run([Turn(text='{"title": "Summ', finish="length")], PromptedStrategy(SCHEMA, lenient=True))
        self.assertIsInstance(exc, TruncatedResponseError)
        self.assertEqual(server.count, 1)

    def test_server_errors_are_retried_by_the_transport_not_fed_back(self):
        result, server = run([Fail("server"), Fail("server"), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"))
        self.assertEqual((result.data, server.count, len(result.attempts)), (GOOD, 3, 1))
        self.assertEqual(tool_messages(server.requests[2]), [])

    def test_an_auth_failure_propagates_with_the_attempts(self):
        exc, server = run([tool_turn(BAD), Fail("auth")], ToolStrategy(SCHEMA, "heading"))
        self.assertIsInstance(exc, AuthenticationError)
        self.assertEqual((server.count, len(exc.attempts)), (2, 2))
        self.assertEqual(exc.attempts[1].error_type, "AuthenticationError")


class OtherWiresTest(unittest.TestCase):
    def test_gemini_feedback_is_a_function_response(self):
        result, server = run([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"), wire="gemini")
        self.assertEqual((result.data, server.count), (GOOD, 2))
        contents = server.requests[1].body["contents"]
        self.assertEqual(contents[-2]["parts"][0]["functionCall"]["name"], "heading")
        response = contents[-1]["parts"][0]["functionResponse"]
        self.assertEqual(response["name"], "heading")
        self.assertIn(BAD_PROBLEM, response["response"]["content"])

    def test_a_signed_gemini_call_goes_back_with_its_thought_signature(self):
        signed = Reply(200, {"candidates": [{"finishReason": "STOP", "content": {
            "role": "model", "parts": [{"functionCall": {"name": "heading", "args": BAD},
                                        "thoughtSignature": "c2lnbmF0dXJl"}]}}]})
        result, server = run([signed, tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"), wire="gemini")
        self.assertEqual((result.data, server.count), (GOOD, 2))
        call_part = server.requests[1].body["contents"][-2]["parts"][0]
        self.assertEqual((call_part["functionCall"]["name"], call_part["thoughtSignature"]),
                         ("heading", "c2lnbmF0dXJl"))

    def test_streaming_tool_calls_retry_the_same_way(self):
        result, server = run([tool_turn(BAD), tool_turn(GOOD)], ToolStrategy(SCHEMA, "heading"), stream=True)
        self.assertEqual((result.data, server.count), (GOOD, 2))
        self.assertTrue(server.requests[1].body["stream"])


if __name__ == "__main__":
    unittest.main()
