import json
import unittest

from dua import errors
from dua.schemas import Block, Element, ErrorPayload, Feedback, Line, unclassified_text_block


def payload(**data):
    base = {"error_type": "query_error", "error_code": "DB_TIMEOUT", "message": "timeout",
            "context": {"rows": 10}, "query_id": "q_456"}
    base.update(data)
    return {"agent_id": "query_engine", "timestamp": "2025-08-08T12:20:05Z", "status": "error",
            "data": base}


class ErrorPayloadTest(unittest.TestCase):
    def test_valid_payload_round_trips(self):
        parsed = ErrorPayload.from_dict(payload())
        self.assertEqual(parsed.to_dict(), payload())

    def test_unknown_error_type_names_the_field_and_the_allowed_values(self):
        with self.assertRaises(errors.PayloadValidationError) as ctx:
            ErrorPayload.from_dict(payload(error_type="oops"))
        self.assertEqual(ctx.exception.problems, [
            "data.error_type: expected one of ['input_error', 'schema_error', 'query_error', "
            "'chart_error', 'system_error', 'validation_error'], got 'oops'"])

    def test_every_problem_is_collected_not_just_the_first(self):
        bad = payload(message=5)
        del bad["data"]["error_code"]
        bad["timestamp"] = "yesterday"
        with self.assertRaises(errors.PayloadValidationError) as ctx:
            ErrorPayload.from_dict(bad)
        self.assertEqual(sorted(ctx.exception.problems), sorted([
            "data.error_code: required field is missing",
            "data.message: expected string, got integer",
            "timestamp: expected ISO 8601 date-time, got 'yesterday'",
        ]))

    def test_missing_data_object_and_wrong_root_type_are_named(self):
        with self.assertRaisesRegex(errors.PayloadValidationError, "data: required field is missing"):
            ErrorPayload.from_dict({"agent_id": "a", "timestamp": "2025-08-08T12:20:05Z", "status": "error"})
        with self.assertRaisesRegex(errors.PayloadValidationError, "<root>: expected object, got list"):
            ErrorPayload.from_dict([])

    def test_bad_query_id_is_rejected(self):
        with self.assertRaisesRegex(errors.PayloadValidationError, "data.query_id"):
            ErrorPayload.from_dict(payload(query_id="drop table; --"))

    def test_booleans_are_not_accepted_as_numbers_or_strings(self):
        with self.assertRaisesRegex(errors.PayloadValidationError, "data.message: expected string, got boolean"):
            ErrorPayload.from_dict(payload(message=True))


class FeedbackTest(unittest.TestCase):
    FEEDBACK = {
        "error_id": "err_20250808_0001", "error_type": "query_error", "error_source": "query_engine",
        "severity": "medium", "confidence": 0.92, "user_message": "Database timeout.",
        "recovery_suggestions": ["Retry now"], "automated_actions": ["retry:2"],
        "context_preserved": True, "query_id": "q_456", "timestamp": "2025-08-08T12:20:05Z",
        "next_action": "resume",
    }

    def test_seed_004_feedback_object_round_trips(self):
        fb = Feedback.from_dict(self.FEEDBACK)
        self.assertEqual({k: v for k, v in fb.to_dict().items() if k != "context"}, self.FEEDBACK)

    def test_unknown_next_action_is_named(self):
        with self.assertRaisesRegex(errors.SchemaError, r"feedback.next_action: expected one of"):
            Feedback.from_dict(dict(self.FEEDBACK, next_action="panic"))


class BlockAndElementTest(unittest.TestCase):
    def block(self):
        return Block("p1-b0", 1, (10, 20, 200, 40), [Line("Hello world", (10, 20, 200, 40), "Helvetica", 10.0)],
                     "Hello world", {"source_block_type": "text"})

    def test_block_round_trips_through_json(self):
        block = self.block()
        again = Block.from_dict(json.loads(json.dumps(block.to_dict())))
        self.assertEqual(again, block)

    def test_nested_line_errors_name_their_path(self):
        data = self.block().to_dict()
        data["lines"][0]["bbox"] = [1, 2]
        with self.assertRaisesRegex(errors.SchemaError, r"block.lines\[0\].bbox: expected 4 numbers"):
            Block.from_dict(data)

    def test_element_requires_the_keys_of_its_type(self):
        with self.assertRaisesRegex(errors.SchemaError, "element.level: required field is missing"):
            Element.from_dict({"type": "heading", "text": "Title", "page_number": 1, "bbox": [0, 0, 1, 1]})
        with self.assertRaisesRegex(errors.SchemaError, r"element.items\[1\]: expected object, got string"):
            Element.from_dict({"type": "list", "items": [{"text": "a"}, "b"], "page_number": 1,
                               "bbox": [0, 0, 1, 1]})

    def test_element_round_trips(self):
        data = {"type": "table", "rows": [["a", "b"]], "header": ["x", "y"], "bbox": [0, 0, 1, 1],
                "page_number": 2, "block_ids": ["p2-b1"]}
        self.assertEqual(Element.from_dict(data).to_dict(), data)

    def test_unclassified_text_block_has_seed_000_shape(self):
        error = {"error_type": "JSONDecodeError", "message": "Expecting property name",
                 "original_content": "{'type': 'x'}", "cleaned_content": "{'type': 'x'}"}
        out = unclassified_text_block(self.block(), error)
        self.assertEqual(set(out), {"id", "type", "text", "bbox", "page_number", "lines", "metadata",
                                    "annotations"})
        self.assertEqual(out["type"], "unclassified_text_block")
        self.assertEqual(out["metadata"], {"source_block_type": "text"})
        self.assertEqual(out["annotations"]["classification_error"], {
            "error_type": "JSONDecodeError", "message": "Expecting property name",
            "original_llm_output": "{'type': 'x'}", "cleaned_llm_output": "{'type': 'x'}"})
        Element.from_dict(out)


if __name__ == "__main__":
    unittest.main()
