"""Structured output (seed 003), text strategies: prompted JSON, the provider's JSON mode,
and handle_errors' decision table without a server."""
from __future__ import annotations

import json
import unittest

from dua.errors import SchemaError, StructuredOutputValidationError
from dua.llm.schema import as_schema
from dua.llm.structured import (STRUCTURED_OUTPUT_ERROR_TEMPLATE, PromptedStrategy, ProviderStrategy,
                                ToolStrategy, handle_structured_error)
from tests.llm_server import Turn
from tests.test_llm_structured import BAD, BAD_PROBLEM, GOOD, SCHEMA, run, template

class PromptedStrategyTest(unittest.TestCase):
    def test_instructions_carry_the_json_schema_and_feedback_is_a_user_message(self):
        result, server = run([Turn(text="I am unable to process this request."),
                              Turn(text="```json\n" + json.dumps(GOOD) + "\n```")], PromptedStrategy(SCHEMA))
        self.assertEqual((result.data, server.count), (GOOD, 2))
        first = server.requests[0].body["messages"]
        self.assertEqual(len(first), 1)
        self.assertIn(json.dumps(as_schema(SCHEMA).to_json_schema()), first[0]["content"])
        echoed, feedback = server.requests[1].body["messages"][-2:]
        self.assertEqual(echoed, {"role": "assistant", "content": "I am unable to process this request."})
        self.assertEqual(feedback["role"], "user")
        self.assertTrue(feedback["content"].startswith("Your previous response didn't match the expected schema."))
        self.assertIn("expected a JSON object or array", feedback["content"])

    def test_json_decode_errors_match_by_their_stdlib_type(self):
        script = [Turn(text="{'title': 'Summary', 'level': 2}"), Turn(text=json.dumps(GOOD))]
        result, server = run(script, PromptedStrategy(SCHEMA, handle_errors=json.JSONDecodeError))
        self.assertEqual((result.data, server.count), (GOOD, 2))
        self.assertIn("double quotes", server.requests[1].body["messages"][-1]["content"])

    def test_schema_errors_do_not_match_a_json_decode_filter(self):
        exc, server = run([Turn(text=json.dumps(BAD))], PromptedStrategy(SCHEMA, handle_errors=json.JSONDecodeError))
        self.assertIsInstance(exc, StructuredOutputValidationError)
        self.assertEqual((exc.error_kind, server.count), ("SchemaValidationError", 1))

    def test_a_string_message_and_the_attempt_cap(self):
        exc, server = run([Turn(text="nope")] * 4, PromptedStrategy(SCHEMA, handle_errors="JSON only, please."))
        self.assertEqual((server.count, len(exc.attempts)), (3, 3))
        users = [m["content"] for m in server.requests[2].body["messages"] if m["role"] == "user"]
        self.assertEqual(users[1:], ["JSON only, please.", "JSON only, please."])

    def test_false_propagates(self):
        exc, server = run([Turn(text="nope"), Turn(text=json.dumps(GOOD))], PromptedStrategy(SCHEMA, handle_errors=False))
        self.assertEqual((exc.error_kind, server.count), ("InvalidLLMResponseFormat", 1))

    def test_an_empty_answer_is_fed_back_without_an_empty_assistant_turn(self):
        result, server = run([Turn(text="", finish="stop"), Turn(text=json.dumps(GOOD))], PromptedStrategy(SCHEMA))
        self.assertEqual((result.data, server.count), (GOOD, 2))
        roles = [m["role"] for m in server.requests[1].body["messages"]]
        self.assertEqual(roles, ["user", "user"])
        self.assertIn("Empty response", result.attempts[0].error)

    def test_lenient_mode_repairs_and_says_so(self):
        result, server = run([Turn(text="{'title': 'Summary', 'level': 2}")], PromptedStrategy(SCHEMA, lenient=True))
        self.assertEqual((result.data, result.repaired, server.count), (GOOD, ["python_literal"], 1))

    def test_custom_instructions_replace_the_default(self):
        result, server = run([Turn(text=json.dumps(GOOD))], PromptedStrategy(SCHEMA, instructions="JSON!"))
        self.assertEqual(server.requests[0].body["messages"][-1]["content"], "Classify: Summary\n\nJSON!")


class ProviderStrategyTest(unittest.TestCase):
    def test_response_format_is_sent_and_the_answer_validated(self):
        result, server = run([Turn(text=json.dumps(GOOD))], ProviderStrategy(SCHEMA, name="heading"))
        self.assertEqual(result.data, GOOD)
        fmt = server.requests[0].body["response_format"]
        self.assertEqual(fmt, {"type": "json_schema", "json_schema": {
            "name": "heading", "schema": as_schema(SCHEMA).to_json_schema()}})

    def test_failures_propagate_without_a_retry(self):
        exc, server = run([Turn(text=json.dumps(BAD)), Turn(text=json.dumps(GOOD))], ProviderStrategy(SCHEMA))
        self.assertIsInstance(exc, StructuredOutputValidationError)
        self.assertEqual(server.count, 1)
        self.assertEqual(exc.source.problems, [BAD_PROBLEM])

    def test_json_object_mode_puts_the_schema_in_the_prompt(self):
        result, server = run([Turn(text=json.dumps(GOOD))], ProviderStrategy(SCHEMA, mode="json_object"))
        body = server.requests[0].body
        self.assertEqual((result.data, body["response_format"]), (GOOD, {"type": "json_object"}))
        self.assertIn(json.dumps(as_schema(SCHEMA).to_json_schema()), body["messages"][-1]["content"])

    def test_gemini_gets_a_response_json_schema(self):
        result, server = run([Turn(text=json.dumps(GOOD))], ProviderStrategy(SCHEMA), wire="gemini")
        config = server.requests[0].body["generationConfig"]
        self.assertEqual((result.data, config["responseMimeType"]), (GOOD, "application/json"))
        self.assertEqual(config["responseJsonSchema"], as_schema(SCHEMA).to_json_schema())


class HandleStructuredErrorTest(unittest.TestCase):
    """Seed 003's decision table, without a server."""

    def setUp(self):
        self.error = StructuredOutputValidationError("t", SchemaError(["x: required field is missing"]))

    def decide(self, handle_errors):
        return handle_structured_error(self.error, ToolStrategy(SCHEMA, handle_errors=handle_errors))

    def test_the_decision_table(self):
        default = template(str(self.error))
        self.assertEqual(self.decide(True), (True, default))
        self.assertEqual(self.decide(False), (False, ""))
        self.assertEqual(self.decide("again"), (True, "again"))
        self.assertEqual(self.decide(StructuredOutputValidationError), (True, default))
        self.assertEqual(self.decide(ValueError), (True, default))
        self.assertEqual(self.decide(SchemaError), (True, default))
        self.assertEqual(self.decide(KeyError), (False, ""))
        self.assertEqual(self.decide((KeyError, SchemaError)), (True, default))
        self.assertEqual(self.decide(lambda e: f"<{e.tool_name}>"), (True, "<t>"))

    def test_the_provider_strategy_never_retries(self):
        self.assertEqual(handle_structured_error(self.error, ProviderStrategy(SCHEMA)), (False, ""))

    def test_the_default_template_is_the_seeds(self):
        self.assertEqual(STRUCTURED_OUTPUT_ERROR_TEMPLATE, "Your previous response didn't match the expected "
                         "schema.\nError: {error}\nPlease try again with valid output matching the schema.")

    def test_bad_policies_are_refused_when_the_strategy_is_built(self):
        for bad in (3, None, (KeyError, "x"), ()):
            with self.subTest(bad=bad), self.assertRaises(TypeError):
                ToolStrategy(SCHEMA, handle_errors=bad)
        with self.assertRaises(ValueError):
            PromptedStrategy(SCHEMA, max_attempts=0)


if __name__ == "__main__":
    unittest.main()
