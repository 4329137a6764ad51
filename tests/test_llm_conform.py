"""dua.llm.conform: a model's own wording mapped to what the schema can take, derived from
the schema's names alone; anything unclear is left for validation to reject."""
from __future__ import annotations

import json
import unittest

from dua.llm.parsing import parse_llm_response
from dua.llm.schema import Integer, String, tagged

LEVEL = Integer(1, 6, description="1 = title, 2 = section, 3 = subsection")
BLOCK = tagged("type", {"heading": {"level?": LEVEL}, "paragraph": {}, "header": {},
                        "page_number": {}})


def read(answer: object, schema: object = BLOCK) -> dict:
    return parse_llm_response(json.dumps(answer), schema, conform=True)


class ConformTest(unittest.TestCase):
    def test_a_variant_named_with_a_level_takes_the_variant_and_the_level(self):
        for said, want in (("heading level 3", 3), ("Heading 2", 2), ("h2", 2), ("H4", 4),
                           ("heading_level_5", 5), ("Heading (level 2)", 2)):
            with self.subTest(said):
                got = read({"type": said})
                self.assertEqual(got["data"], {"type": "heading", "level": want})
                self.assertEqual(got["repaired"], [f"type: {said!r} -> heading, level {want}"])

    def test_a_level_named_in_the_level_fields_description_gives_its_number(self):
        self.assertEqual(read({"type": "title"})["data"], {"type": "heading", "level": 1})
        self.assertEqual(read({"type": "Section heading"})["data"],
                         {"type": "heading", "level": 2})
        # another description, another mapping: nothing is looked up in a list of phrasings
        other = tagged("type", {"heading": {"level?": Integer(1, 6, description="1 = chapter")},
                                "paragraph": {}})
        self.assertEqual(read({"type": "chapter"}, other)["data"], {"type": "heading", "level": 1})
        self.assertEqual(read({"type": "title"}, other)["status"], "error")

    def test_case_and_separators_of_a_variant_name_and_a_level_written_as_text(self):
        self.assertEqual(read({"type": "Page Number"})["data"], {"type": "page_number"})
        self.assertEqual(read({"type": "heading", "level": "level 3"})["data"],
                         {"type": "heading", "level": 3})
        self.assertEqual(read({"kind": "Page-Number"},
                              {"kind": String(enum=["page_number", "header"])})["data"],
                         {"kind": "page_number"})

    def test_an_answer_that_names_nothing_clearly_is_left_for_validation_to_reject(self):
        for said in ("subtitle", "main heading", "heading 2 3", "h", "2", "header 2", "para",
                     "title heading 3"):
            with self.subTest(said):
                got = read({"type": said})
                self.assertEqual(got["status"], "error")
                self.assertEqual(got["error_type"], "SchemaValidationError")
        # the answer's own level disagrees with the one its type names
        self.assertEqual(read({"type": "heading level 3", "level": 2})["status"], "error")

    def test_without_conform_the_schema_takes_only_its_own_names(self):
        got = parse_llm_response(json.dumps({"type": "heading level 3"}), BLOCK)
        self.assertEqual(got["error_type"], "SchemaValidationError")


if __name__ == "__main__":
    unittest.main()
