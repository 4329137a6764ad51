"""parse_llm_response: seed 000's shapes over the fixture corpus, fence stripping, lenient mode, fuzz."""
from __future__ import annotations

import json
import os
import random
import unittest

from dua.documents.schema import ELEMENT_SCHEMA, parse_llm_classification_response
from dua.llm._fences import strip_fences
from dua.llm.parsing import ERROR_KEYS, ERROR_TYPES, ParseFailure, load_llm_json, parse_llm_response
from tests.support import FIXTURES

OUTPUTS = os.path.join(FIXTURES, "llm", "outputs")
SCHEMAS = {"element": ELEMENT_SCHEMA, None: None}


def _read(name: str) -> str:
    with open(os.path.join(OUTPUTS, name), encoding="utf-8", newline="") as fh:
        return fh.read()


def _cases() -> list:
    return json.loads(_read("expected.json"))["cases"]


def assert_documented_shape(test: unittest.TestCase, result: dict, raw: object, lenient: bool) -> None:
    """The result is exactly one of seed 000's dicts (plus "repaired" in lenient mode)."""
    test.assertIsInstance(result, dict)
    if result.get("status") == "success":
        allowed = {"status", "data", "repaired"} if lenient else {"status", "data"}
        test.assertTrue({"status", "data"} <= set(result) <= allowed, sorted(result))
        if "repaired" in result:
            test.assertTrue(result["repaired"])
        return
    test.assertEqual(set(result), set(ERROR_KEYS), sorted(result))
    test.assertEqual(result["status"], "error")
    test.assertIn(result["error_type"], ERROR_TYPES)
    test.assertIsInstance(result["message"], str)
    test.assertTrue(result["message"])
    test.assertIs(result["original_content"], raw) if isinstance(raw, str) else None
    test.assertIsInstance(result["cleaned_content"], (str, type(None)))


class CorpusTest(unittest.TestCase):
    """Every raw output in fixtures/llm/outputs gives its expected outcome."""

    def test_corpus_has_at_least_sixty_cases_of_every_error_type(self):
        cases = _cases()
        self.assertGreaterEqual(len(cases), 60)
        kinds = {c["expected"].get("error_type", "success") for c in cases}
        self.assertEqual(kinds, set(ERROR_TYPES) | {"success"})

    def test_every_case_gives_its_expected_outcome(self):
        for case in _cases():
            with self.subTest(case["file"]):
                raw = _read(case["file"])
                expected = case["expected"]
                result = parse_llm_response(raw, SCHEMAS[case["schema"]], lenient=case["lenient"])
                assert_documented_shape(self, result, raw, case["lenient"])
                self.assertEqual(result["status"], expected["status"], result.get("message"))
                if expected["status"] == "success":
                    self._check_success(result, expected)
                else:
                    self.assertEqual(result["error_type"], expected["error_type"], result["message"])
                    self.assertEqual(result["original_content"], raw)
                    for phrase in expected["contains"]:
                        self.assertIn(phrase, result["message"])

    def _check_success(self, result: dict, expected: dict) -> None:
        if "summary" in expected:
            items = result["data"]["items"]
            self.assertEqual(len(items), expected["summary"]["items_count"])
            self.assertEqual(items[-1], expected["summary"]["last_item"])
        else:
            self.assertEqual(result["data"], expected["data"])
        self.assertEqual(result.get("repaired"), expected.get("repaired"))

    def test_files_match_what_the_generator_writes(self):
        from fixtures.llm.make_outputs import build
        built = build()
        on_disk = sorted(n for n in os.listdir(OUTPUTS))
        self.assertEqual(on_disk, sorted(built))
        for name, text in built.items():
            self.assertEqual(_read(name), text, f"{name}: rerun python -m fixtures.llm.make_outputs")


class SeedExamplesTest(unittest.TestCase):
    """The examples seed 000 gives for each error type, verbatim."""

    def test_empty_and_empty_fence_are_empty_llm_response(self):
        for raw in ("", "```json\n```"):
            self.assertEqual(parse_llm_response(raw, ELEMENT_SCHEMA)["error_type"], "EmptyLLMResponse")

    def test_refusal_and_xml_are_invalid_format(self):
        for raw in ("I am unable to process this request.", "<error>some error</error>"):
            self.assertEqual(parse_llm_response(raw, ELEMENT_SCHEMA)["error_type"], "InvalidLLMResponseFormat")

    def test_single_quotes_are_a_json_decode_error_by_default(self):
        result = parse_llm_response("{'type': 'paragraph', 'text': 'Hello'}", ELEMENT_SCHEMA)
        self.assertEqual(result["error_type"], "JSONDecodeError")

    def test_content_instead_of_text_and_items_as_string_fail_the_schema(self):
        for raw in ('{"type": "heading", "content": "My Title"}', '{"type": "list", "items": "item1, item2"}'):
            self.assertEqual(parse_llm_response(raw, ELEMENT_SCHEMA)["error_type"], "SchemaValidationError")

    def test_the_seed_function_name_uses_the_element_schema(self):
        self.assertEqual(parse_llm_classification_response('{"type": "footer", "text": "p. 2"}'),
                         {"status": "success", "data": {"type": "footer", "text": "p. 2"}})
        self.assertEqual(parse_llm_classification_response('{"type": "list", "items": "a, b"}')["error_type"],
                         "SchemaValidationError")

    def test_cleaned_content_is_the_text_without_fences(self):
        result = parse_llm_response("```json\n{'a': 1}\n```")
        self.assertEqual(result["cleaned_content"], "{'a': 1}")
        self.assertEqual(result["original_content"], "```json\n{'a': 1}\n```")


class InputTypesTest(unittest.TestCase):
    def test_a_number_too_large_for_a_float_is_a_json_decode_error_not_infinity(self):
        for raw, lenient in (('{"amount": 1e999}', False), ('[-1e400,]', True)):
            with self.subTest(raw=raw):
                result = parse_llm_response(raw, lenient=lenient)
                self.assertEqual((result["status"], result["error_type"]),
                                 ("error", "JSONDecodeError"))
                self.assertIn("out of range", result["message"])

    def test_none_is_empty(self):
        result = parse_llm_response(None)
        self.assertEqual((result["error_type"], result["original_content"]), ("EmptyLLMResponse", None))

    def test_utf8_bytes_are_decoded(self):
        self.assertEqual(parse_llm_response(b'{"a": "\xe2\x82\xb9"}')["data"], {"a": "\u20b9"})

    def test_bytes_that_are_not_utf8_are_invalid_format(self):
        result = parse_llm_response(b"\xff\xfe{")
        self.assertEqual(result["error_type"], "InvalidLLMResponseFormat")
        self.assertIsInstance(result["original_content"], str)

    def test_a_non_text_value_is_unexpected_not_a_crash(self):
        result = parse_llm_response(42)
        self.assertEqual(result["error_type"], "UnexpectedParsingError")
        self.assertEqual(result["original_content"], "42")

    def test_malformed_schema_is_a_programming_error(self):
        with self.assertRaises(TypeError):
            parse_llm_response("{}", schema=set())

    def test_load_llm_json_raises_with_the_underlying_cause(self):
        with self.assertRaises(ParseFailure) as cm:
            load_llm_json("{'a': 1}")
        self.assertEqual(cm.exception.error_type, "JSONDecodeError")
        self.assertIsInstance(cm.exception.cause, json.JSONDecodeError)


class FenceTest(unittest.TestCase):
    def test_single_block_with_prose_yields_its_content(self):
        self.assertEqual(strip_fences("Sure:\n```json\n[1]\n```\nDone."), ("[1]", 1))

    def test_two_blocks_are_left_alone_and_counted(self):
        text = "```\n1\n```\n```\n2\n```"
        self.assertEqual(strip_fences(text), (text, 2))

    def test_backticks_inside_a_json_string_are_not_a_fence(self):
        text = '{"text": "use ```code``` here"}'
        self.assertEqual(strip_fences(text), (text, 0))

    def test_tilde_closer_does_not_close_a_backtick_fence(self):
        self.assertEqual(strip_fences("```\n~~~\n{}\n```")[0], "~~~\n{}")


def _mutate(rng: random.Random, text: str) -> str:
    pieces = ['{', '}', '[', ']', '"', "'", ',', ':', '\\', '```', '~~~', '\n', 'json', 'null', 'NaN',
              'True', '\ufeff', '\u20b9', ' ', '"type"', '"items"', '"text"', '1e999', '-', '0']
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(5)
        i = rng.randint(0, len(text))
        j = rng.randint(i, min(len(text), i + 8))
        if op == 0:
            text = text[:i] + rng.choice(pieces) + text[i:]
        elif op == 1:
            text = text[:i] + text[j:]
        elif op == 2:
            text = text[:i]
        elif op == 3:
            text = text[:i] + text[i:j] * 2 + text[j:]
        else:
            text = text[:i] + chr(rng.randint(0, 0x2FFF)) + text[j:]
    return text


def _random_text(rng: random.Random) -> str:
    alphabet = '{}[]",:\'\\ \n\t`~abcdefjnlrstuy0123456789.-+eE'
    return "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60)))


class FuzzTest(unittest.TestCase):
    """20,000+ random and mutated strings: never raises, always a documented shape (seeded)."""

    SEED = 20261123
    N = 24_000

    def test_random_and_mutated_strings_never_raise(self):
        rng = random.Random(self.SEED)
        corpus = [_read(c["file"]) for c in _cases() if len(_read(c["file"])) < 2000]
        fed = 0
        for n in range(self.N):
            raw = _mutate(rng, rng.choice(corpus)) if n % 2 else _random_text(rng)
            if rng.random() < 0.1:
                raw = f"Answer:\n```json\n{raw}\n```"
            for schema, lenient in ((ELEMENT_SCHEMA, False), (None, True), (ELEMENT_SCHEMA, True)):
                result = parse_llm_response(raw, schema, lenient)
                assert_documented_shape(self, result, raw, lenient)
                # Short inputs never reach the catch-all: it exists for parser bugs only.
                self.assertNotEqual(result.get("error_type"), "UnexpectedParsingError", (n, raw))
                if result["status"] == "success":
                    json.dumps(result["data"], allow_nan=False)  # what --json writes must be JSON
                if result["status"] == "success" and not result.get("repaired"):
                    self.assertEqual(result["data"], json.loads(strip_fences(raw)[0]))
            fed += 1
        self.assertGreaterEqual(fed, 20_000)


if __name__ == "__main__":
    unittest.main()
