"""ResponseHandler (seed 002) without a network, and the three user-facing messages."""
from __future__ import annotations

import unittest

from dua.errors import (LLMTimeoutError, MissingAttributeError, NoCandidatesError, NoTextError,
                        StreamInterruptedError, UnexpectedTypeError)
from dua.llm.gemini import GeminiWire
from dua.llm.messages import (format_empty_response_message, format_error_message,
                              format_generic_error_message, format_validation_error_message)
from dua.llm.openai_compat import OpenAIWire
from dua.llm.response import ResponseChunk, ResponseHandler, Usage
from tests.llm_replies import Turn


class ResponseHandlerTest(unittest.TestCase):
    def test_validate_response_rejects_bad_shapes_by_type(self):
        handler = ResponseHandler(OpenAIWire())
        cases = [(None, UnexpectedTypeError), ({}, MissingAttributeError),
                 ({"choices": {}}, UnexpectedTypeError), ({"choices": []}, NoCandidatesError),
                 ({"choices": [{}]}, MissingAttributeError),
                 ({"choices": [{"message": "hi"}]}, UnexpectedTypeError)]
        for payload, error in cases:
            with self.subTest(payload=payload), self.assertRaises(error):
                handler.validate_response(payload)
        handler.validate_response(Turn(text="ok").body("openai", "m"))

    def test_gemini_validate_response_needs_candidates(self):
        with self.assertRaises(NoCandidatesError):
            ResponseHandler(GeminiWire()).validate_response({"usageMetadata": {}})

    def test_process_chunk_returns_what_the_chunk_contributed(self):
        handler = ResponseHandler(OpenAIWire(), streaming=True)
        events = Turn(text="Hello", chunks=1, tool_calls=[("emit_rows", {})]).events("openai", "m")
        chunks = [handler.process_chunk(e) for e in events if isinstance(e, dict)]
        self.assertEqual(chunks[1], ResponseChunk("Hello", False))
        self.assertTrue(chunks[2].has_tool_call)
        self.assertEqual(chunks[2].tool_name, "emit_rows")
        self.assertEqual(chunks[-2].metadata, {"finish_reason": "tool_calls"})
        self.assertIsNone(handler.process_chunk({}))

    def test_status_preview_is_cut_at_fifty_characters(self):
        seen = []
        handler = ResponseHandler(OpenAIWire(), seen.append, streaming=True)
        for event in Turn(text="line one\n" + "y" * 60, chunks=5).events("openai", "m")[:-1]:
            handler.process_chunk(event)
        self.assertEqual(seen[0], "💭 line one yyyyy")
        self.assertEqual(seen[-1], "💭 line one " + "y" * 41 + "...")
        self.assertEqual(len(seen), 4)  # nothing more once the preview is full
        self.assertTrue(all(s.kind == "text" for s in seen))

    def test_final_text_for_tool_only_answers_names_the_tool(self):
        handler = ResponseHandler(OpenAIWire())
        handler.process_chunk(Turn(tool_calls=[("emit_rows", {})]).body("openai", "m"))
        self.assertEqual(handler.get_final_text(), "Analysis complete. Executed emit_rows successfully.")

    def test_empty_handler_raises_no_candidates_and_no_text(self):
        with self.assertRaises(NoCandidatesError):
            ResponseHandler(OpenAIWire()).get_final_response()
        handler = ResponseHandler(OpenAIWire())
        handler.process_chunk(Turn(text="").body("openai", "m"))
        with self.assertRaises(NoTextError) as caught:
            handler.get_final_response()
        self.assertIn("no text or tool activity after 1 chunks", str(caught.exception))

    def test_unfinished_stream_raises_interrupted_with_usage(self):
        handler = ResponseHandler(GeminiWire(), streaming=True)
        handler.process_chunk(Turn(text="part", finish=None, chunks=1).events("gemini", "m")[0])
        with self.assertRaises(StreamInterruptedError) as caught:
            handler.get_final_response()
        self.assertEqual(caught.exception.text, "part")
        self.assertEqual(caught.exception.usage, Usage(12, 5, 1))


class UserMessageTest(unittest.TestCase):
    def test_empty_message_lists_causes_and_technical_details(self):
        text = format_empty_response_message(NoCandidatesError("no candidates in response"))
        self.assertTrue(text.startswith("The AI returned an empty response. This can happen if:\n"))
        self.assertIn("• Rephrasing your request more clearly", text)
        self.assertTrue(text.endswith("Technical details: LLM_NO_CANDIDATES; no candidates in response"))

    def test_validation_message_shows_expected_and_got(self):
        text = format_validation_error_message(MissingAttributeError("a 'choices' list", "missing"))
        self.assertIn("Expected: a 'choices' list\nGot: missing\n", text)
        self.assertIn("Technical details: LLM_MISSING_FIELD", text)

    def test_generic_message_names_the_type_and_the_fix(self):
        text = format_generic_error_message(LLMTimeoutError("slow", status=None, attempts=3))
        self.assertIn("LLMTimeoutError: slow", text)
        self.assertIn("Raise DUA_LLM_TIMEOUT", text)
        self.assertIn("attempts=3", text)

    def test_dispatch_picks_the_matching_format(self):
        self.assertIn("empty response", format_error_message(NoTextError("x")))
        self.assertIn("unexpected response format", format_error_message(UnexpectedTypeError("a", "b")))
        self.assertIn("ValueError: boom", format_error_message(ValueError("boom")))


if __name__ == "__main__":
    unittest.main()
