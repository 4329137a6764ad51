"""Declarative schemas: plain-dict and dataclass forms, every problem with its path, JSON Schema export."""
from __future__ import annotations

import dataclasses
import typing
import unittest

from dua.documents.schema import ELEMENT_SCHEMA, ELEMENT_TYPES
from dua.errors import SchemaError
from dua.llm.schema import (AnyValue, Integer, ListOf, Number, Object, OneOf, Scalar, String, as_schema,
                            summarize, tagged, to_response_format, to_tool)

ITEMS = as_schema({"items": [{"text": str}], "note?": str})


@dataclasses.dataclass
class Item:
    text: str


@dataclasses.dataclass
class Invoice:
    """An invoice as the model reads it."""

    number: str
    total: float
    lines: list[Item]
    paid: bool = False
    due: str | None = None
    kind: typing.Literal["tax", "proforma"] = "tax"


@dataclasses.dataclass
class Node:
    child: Node | None = None


class PlainDictSchemaTest(unittest.TestCase):
    def test_valid_data_has_no_problems(self):
        self.assertEqual(ITEMS.validate({"items": [{"text": "a"}], "note": "n"}), [])

    def test_path_names_list_index_and_key(self):
        problems = ITEMS.validate({"items": [{"text": "a"}, {"text": "b"}, {"text": 3}]})
        self.assertEqual(problems, ["items[2].text: expected string, got int"])

    def test_all_problems_are_collected_not_just_the_first(self):
        problems = ITEMS.validate({"items": ["x", {}, {"text": None}], "note": 5})
        self.assertEqual(problems, ["items[0]: expected object, got string",
                                    "items[1].text: required field is missing",
                                    "items[2].text: expected string, got null",
                                    "note: expected string, got int"])

    def test_optional_key_may_be_absent_or_null(self):
        self.assertEqual(ITEMS.validate({"items": []}), [])
        self.assertEqual(ITEMS.validate({"items": [], "note": None}), [])

    def test_bool_is_not_an_int_and_int_is_a_number(self):
        self.assertEqual(as_schema(int).validate(True), ["<root>: expected int, got bool"])
        self.assertEqual(as_schema(int).validate(2.0), ["<root>: expected int, got number"])
        self.assertEqual(as_schema(float).validate(2), [])

    def test_union_of_scalars_and_bounds_and_enum(self):
        self.assertEqual(as_schema((str, None)).validate(None), [])
        self.assertEqual(Integer(minimum=1, maximum=6).validate(7), ["<root>: expected at most 6, got 7"])
        self.assertEqual(String(enum=["a"]).validate("b"), ["<root>: expected one of ['a'], got 'b'"])
        self.assertEqual(Number(minimum=0).validate(-0.5), ["<root>: expected at least 0, got -0.5"])

    def test_extra_fields_are_allowed_unless_forbidden(self):
        strict = Object({"a": int}, extra="forbid")
        self.assertEqual(as_schema({"a": int}).validate({"a": 1, "b": 2}), [])
        self.assertEqual(strict.validate({"a": 1, "b": 2}), ["b: unexpected field"])

    def test_nested_objects_and_lists_of_lists(self):
        schema = as_schema({"page": {"rows": [[int]]}})
        self.assertEqual(schema.validate({"page": {"rows": [[1], [2, "x"], 3]}}),
                         ["page.rows[1][1]: expected int, got string", "page.rows[2]: expected list, got int"])
        self.assertEqual(schema.validate({"page": None}), ["page: expected object, got null"])

    def test_one_of_reports_the_closest_option(self):
        schema = OneOf({"text": str}, [int])
        self.assertEqual(schema.validate([1]), [])
        self.assertEqual(schema.validate({"text": 1}), ["text: expected string, got int"])

    def test_min_items(self):
        self.assertEqual(ListOf(str, min_items=1).validate([]), ["<root>: expected at least 1 items, got 0"])

    def test_check_raises_schema_error_with_every_problem(self):
        with self.assertRaises(SchemaError) as cm:
            ITEMS.check({"items": [1, 2]})
        self.assertEqual(cm.exception.problems, ["items[0]: expected object, got int",
                                                 "items[1]: expected object, got int"])
        self.assertIsInstance(cm.exception, ValueError)

    def test_summarize_counts_the_tail(self):
        self.assertEqual(summarize(["a", "b", "c"], limit=2), "a; b; and 1 more problems")

    def test_bad_specs_are_type_errors(self):
        for spec in (set(), [int, str], {1: int}, 3, (int, set())):
            with self.subTest(spec=spec), self.assertRaises(TypeError):
                as_schema(spec)
        with self.assertRaises(TypeError):
            tagged("type", {"a": [int]})
        with self.assertRaises(TypeError):
            Scalar(list)


class TaggedSchemaTest(unittest.TestCase):
    def test_each_element_type_is_accepted(self):
        samples = {"heading": {"text": "T", "level": 2}, "paragraph": {"text": "p"},
                   "list": {"items": [{"text": "i"}]}, "table": {"rows": [["a", 1, None]], "header": ["h"]},
                   "figure": {}, "caption": {"text": "c"}, "header": {"text": "h"},
                   "footer": {"text": "f"}, "page_number": {"text": "1"}}
        self.assertEqual(set(samples), set(ELEMENT_TYPES))
        for kind, fields in samples.items():
            with self.subTest(kind):
                self.assertEqual(ELEMENT_SCHEMA.validate({"type": kind, **fields}), [])

    def test_missing_and_unknown_discriminator(self):
        self.assertEqual(ELEMENT_SCHEMA.validate({"text": "x"}), ["type: required field is missing"])
        self.assertIn("type: expected one of ['heading',", ELEMENT_SCHEMA.validate({"type": "banner"})[0])

    def test_required_keys_per_type(self):
        self.assertEqual(ELEMENT_SCHEMA.validate({"type": "heading", "content": "x"}),
                         ["text: required field is missing", "level: required field is missing"])

    def test_nested_tagged_paths(self):
        doc = as_schema({"elements": [ELEMENT_SCHEMA]})
        problems = doc.validate({"elements": [{"type": "paragraph", "text": "ok"}, {"type": "list", "items": "a"}]})
        self.assertEqual(problems, ["elements[1].items: expected list, got string"])

    def test_forbidding_extras_ignores_the_discriminator(self):
        schema = tagged("kind", {"a": Object({"x": int}, extra="forbid")})
        self.assertEqual(schema.validate({"kind": "a", "x": 1}), [])
        self.assertEqual(schema.validate({"kind": "a", "x": 1, "y": 2}), ["y: unexpected field"])


class DataclassSchemaTest(unittest.TestCase):
    def test_fields_types_and_defaults(self):
        schema = as_schema(Invoice)
        self.assertEqual(schema.required, ["number", "total", "lines"])
        self.assertEqual(schema.validate({"number": "7", "total": 3, "lines": [{"text": "x"}]}), [])

    def test_problems_in_a_dataclass_schema(self):
        problems = as_schema(Invoice).validate({"number": 7, "lines": [{"text": 1}], "due": 3, "kind": "x"})
        self.assertEqual(problems, ["number: expected string, got int", "total: required field is missing",
                                    "lines[0].text: expected string, got int", "due: expected string or null, got int",
                                    "kind: expected one of ['tax', 'proforma'], got 'x'"])

    def test_docstring_becomes_the_description(self):
        self.assertEqual(as_schema(Invoice).to_json_schema()["description"], "An invoice as the model reads it.")
        self.assertNotIn("description", as_schema(Item).to_json_schema())

    def test_a_recursive_dataclass_is_refused_clearly(self):
        with self.assertRaisesRegex(TypeError, "refers to itself"):
            as_schema(Node)

    def test_build_turns_valid_data_into_dataclass_instances(self):
        invoice = as_schema(Invoice).build({"number": "7", "total": 3.5, "lines": [{"text": "x"}],
                                            "due": None, "extra": 1})
        self.assertEqual(invoice, Invoice("7", 3.5, [Item("x")]))
        self.assertEqual(as_schema({"a": int}).build({"a": 1}), {"a": 1})
        self.assertEqual(tagged("t", {"i": Item}).build({"t": "i", "text": "y"}), Item("y"))

    def test_evaluated_annotations_work_too(self):
        Point = dataclasses.make_dataclass("Point", [("x", int), ("tags", typing.List[str]),
                                                     ("label", typing.Optional[str], None)])
        schema = as_schema(Point)
        self.assertEqual(schema.validate({"x": 1, "tags": ["a", 2]}), ["tags[1]: expected string, got int"])
        self.assertEqual(schema.required, ["x", "tags"])


class JsonSchemaTest(unittest.TestCase):
    def test_object_schema(self):
        self.assertEqual(ITEMS.to_json_schema(), {
            "type": "object",
            "properties": {"items": {"type": "array", "items": {"type": "object", "properties": {
                "text": {"type": "string"}}, "required": ["text"]}}, "note": {"type": "string"}},
            "required": ["items"]})

    def test_tagged_schema_is_an_object_with_one_variant_per_type(self):
        out = ELEMENT_SCHEMA.to_json_schema()
        self.assertEqual(out["type"], "object")
        self.assertEqual(out["properties"]["type"]["enum"], list(ELEMENT_TYPES))
        heading = out["anyOf"][0]
        self.assertEqual(heading["properties"]["type"], {"type": "string", "enum": ["heading"]})
        self.assertEqual(heading["required"], ["type", "text", "level"])
        self.assertEqual(heading["properties"]["level"]["minimum"], 1)

    def test_scalars_unions_and_anything(self):
        self.assertEqual(as_schema((str, int, None)).to_json_schema(), {"type": ["string", "integer", "null"]})
        self.assertEqual(AnyValue().to_json_schema(), {})
        self.assertEqual(as_schema(Invoice).to_json_schema()["properties"]["kind"],
                         {"type": "string", "enum": ["tax", "proforma"]})

    def test_tool_and_response_format_shapes(self):
        tool = to_tool(ITEMS, "emit_items", "Return the items.")
        self.assertEqual(set(tool), {"name", "description", "parameters"})
        self.assertEqual(tool["parameters"], ITEMS.to_json_schema())
        fmt = to_response_format(ITEMS, "items")
        self.assertEqual(fmt, {"type": "json_schema", "name": "items", "schema": ITEMS.to_json_schema()})


if __name__ == "__main__":
    unittest.main()
