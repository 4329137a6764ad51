import inspect
import re
import unittest

from dua import errors
from dua.schemas import ErrorPayload

ALL_ERRORS = [
    obj for _, obj in inspect.getmembers(errors, inspect.isclass)
    if issubclass(obj, errors.DuaError)
]


def _instance(cls):
    """Build any error class with its simplest arguments."""
    try:
        return cls("something went wrong")
    except TypeError:
        return cls()


class ErrorClassesTest(unittest.TestCase):
    def test_every_class_declares_a_canonical_type_and_stable_code(self):
        codes = {}
        for cls in ALL_ERRORS:
            with self.subTest(cls=cls.__name__):
                self.assertIn(cls.error_type, errors.ERROR_TYPES)
                self.assertRegex(cls.error_code, r"^[A-Z][A-Z0-9_]+$")
                self.assertIsInstance(cls.retryable, bool)
                self.assertTrue(cls.__doc__, "every error says what it means")
                if cls is not errors.DuaError:
                    self.assertNotIn(cls.error_code, codes, f"code shared with {codes.get(cls.error_code)}")
                codes[cls.error_code] = cls.__name__

    def test_every_class_round_trips_to_a_valid_seed_004_payload(self):
        for cls in ALL_ERRORS:
            with self.subTest(cls=cls.__name__):
                exc = _instance(cls)
                payload = exc.to_payload("dua_parse", "q_123", {"page": 2})
                parsed = ErrorPayload.from_dict(payload)
                self.assertEqual(parsed.error_type, cls.error_type)
                self.assertEqual(parsed.error_code, cls.error_code)
                self.assertEqual(parsed.query_id, "q_123")
                self.assertEqual(parsed.context["page"], 2)
                self.assertEqual(parsed.context["exception"], cls.__name__)

    def test_every_class_appears_in_the_module_docstring_tree(self):
        for cls in ALL_ERRORS:
            with self.subTest(cls=cls.__name__):
                self.assertRegex(errors.__doc__, rf"\b{cls.__name__}\b")

    def test_errors_also_subclass_the_builtin_with_the_same_meaning(self):
        self.assertTrue(issubclass(errors.LLMTimeoutError, TimeoutError))
        self.assertTrue(issubclass(errors.ParserTimeoutError, TimeoutError))
        self.assertTrue(issubclass(errors.StepLimitError, RecursionError))
        self.assertTrue(issubclass(errors.MissingDependencyError, ImportError))
        self.assertTrue(issubclass(errors.DocumentNotFoundError, FileNotFoundError))
        self.assertTrue(issubclass(errors.ResponseValidationError, ValueError))
        self.assertTrue(issubclass(errors.LLMConnectionError, ConnectionError))

    def test_seed_002_tree_has_the_seed_names_under_response_error(self):
        tree = {
            errors.EmptyResponseError: (errors.NoCandidatesError, errors.NoTextError,
                                        errors.NoToolActivityError),
            errors.ResponseValidationError: (errors.MissingAttributeError,
                                             errors.InvalidStructureError, errors.UnexpectedTypeError),
            errors.ToolExecutionError: (errors.ToolNotFoundError, errors.ToolFailedError),
        }
        for parent, children in tree.items():
            self.assertTrue(issubclass(parent, errors.ResponseError))
            for child in children:
                self.assertTrue(issubclass(child, parent), child.__name__)

    def test_seed_002_messages_keep_their_wording(self):
        self.assertEqual(str(errors.EmptyResponseError("no candidates in response")),
                         "Empty response: no candidates in response")
        exc = errors.ResponseValidationError("candidates attribute", "dict")
        self.assertEqual(str(exc), "Invalid response structure: expected candidates attribute, got dict")
        self.assertEqual((exc.expected, exc.got), ("candidates attribute", "dict"))
        self.assertEqual(str(errors.ToolFailedError("search", "boom")), "Tool 'search' failed: boom")

    def test_seed_003_errors_carry_tool_names_and_source(self):
        multi = errors.MultipleStructuredOutputsError(["a", "b"])
        self.assertEqual(multi.tool_names, ["a", "b"])
        cause = ValueError("age: expected integer")
        invalid = errors.StructuredOutputValidationError("Person", cause)
        self.assertEqual(invalid.tool_name, "Person")
        self.assertIs(invalid.source, cause)
        self.assertIs(invalid.__cause__, cause)

    def test_rate_limit_carries_retry_after_into_the_payload_context(self):
        exc = errors.RateLimitError("slow down", retry_after=2.5, status=429, request_id="req_1")
        self.assertEqual(exc.retry_after, 2.5)
        ctx = exc.to_payload("dua_llm")["data"]["context"]
        self.assertEqual((ctx["retry_after"], ctx["status"], ctx["request_id"]), (2.5, 429, "req_1"))

    def test_user_message_says_what_happened_and_what_to_do(self):
        exc = errors.NoTextLayerError("scan.pdf has no text layer")
        self.assertEqual(exc.user_message, "scan.pdf has no text layer. " + exc.hint)
        self.assertIn("OCR", exc.user_message)

    def test_foreign_exceptions_become_unexpected_error_payloads(self):
        payload = errors.payload_from_exception(KeyError("boom"), "dua_extract", "q_9")
        self.assertEqual(payload["data"]["error_code"], "UNEXPECTED_ERROR")
        self.assertEqual(payload["data"]["error_type"], "system_error")
        self.assertIn("KeyError", payload["data"]["message"])
        ErrorPayload.from_dict(payload)

    def test_exit_codes_follow_the_one_table(self):
        self.assertEqual(errors.NotAPDFError().exit_code, errors.EXIT_BAD_INPUT)
        self.assertEqual(errors.UsageError().exit_code, errors.EXIT_USAGE)
        self.assertEqual(errors.VerificationError().exit_code, errors.EXIT_NOT_VERIFIED)
        self.assertEqual(errors.ServerError().exit_code, errors.EXIT_FAILURE)

    def test_timestamps_are_iso_8601_utc(self):
        self.assertRegex(errors.utc_now(), r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")

    def test_excerpt_marks_the_cut(self):
        self.assertEqual(errors.excerpt("abc", 10), "abc")
        self.assertTrue(re.match(r"^a{5}… \[5 more chars\]$", errors.excerpt("a" * 10, 5)))


if __name__ == "__main__":
    unittest.main()
