"""The SSE reader on its own: framing, comments, line ends, flush at EOF, bad lines."""
from __future__ import annotations

import io
import unittest

from dua.errors import InvalidStructureError, LLMTimeoutError
from dua.llm.sse import iter_events


def events(raw: bytes) -> list:
    return [(e.event, e.data, e.index) for e in iter_events(io.BytesIO(raw).readline)]


class SSEReaderTest(unittest.TestCase):
    def test_events_are_split_on_blank_lines(self):
        self.assertEqual(events(b"data: a\n\ndata: b\n\n"),
                         [("message", "a", 0), ("message", "b", 1)])

    def test_multi_line_data_is_joined_with_newlines(self):
        self.assertEqual(events(b"data: line one\ndata: line two\n\n"),
                         [("message", "line one\nline two", 0)])

    def test_comments_and_id_retry_fields_are_skipped(self):
        raw = b": keep-alive\n\n: OPENROUTER PROCESSING\nid: 7\nretry: 100\ndata: x\n\n"
        self.assertEqual(events(raw), [("message", "x", 0)])

    def test_crlf_and_lone_cr_line_ends(self):
        self.assertEqual(events(b"data: a\r\n\r\ndata: b\r\rdata: c\n\n"),
                         [("message", "a", 0), ("message", "b", 1), ("message", "c", 2)])

    def test_pending_event_is_flushed_at_eof(self):
        self.assertEqual(events(b"data: x\n\ndata: [DONE]"), [("message", "x", 0),
                                                              ("message", "[DONE]", 1)])

    def test_event_names_and_llama_cpp_error_field(self):
        raw = b'event: error\ndata: {"m": 1}\n\nerror: {"code": 400}\n\n'
        self.assertEqual(events(raw), [("error", '{"m": 1}', 0), ("error", '{"code": 400}', 1)])

    def test_a_leading_byte_order_mark_is_ignored(self):
        self.assertEqual(events(b"\xef\xbb\xbfdata: a\n\n"), [("message", "a", 0)])
        self.assertEqual(events(b"\xef\xbb\xbf: hi\n\ndata: a\n\n"), [("message", "a", 0)])

    def test_value_without_space_after_colon(self):
        self.assertEqual(events(b"data:{}\n\n"), [("message", "{}", 0)])

    def test_multibyte_text_and_one_mebibyte_line(self):
        big = "ж" * (1 << 19)
        raw = f"data: известни\n\ndata: {big}\n\n".encode("utf-8")
        self.assertEqual([e[1] for e in events(raw)], ["известни", big])

    def test_line_without_a_field_name_is_invalid_structure(self):
        with self.assertRaises(InvalidStructureError) as caught:
            events(b'data: ok\n\n{"choices": []}\n\n')
        self.assertEqual(caught.exception.event_index, 1)
        self.assertIn("choices", caught.exception.got)

    def test_bytes_that_are_not_utf8_are_invalid_structure(self):
        with self.assertRaises(InvalidStructureError):
            events(b"data: \xff\xfe\n\n")

    def test_deadline_stops_a_stream(self):
        ticks = iter(range(100))
        with self.assertRaises(LLMTimeoutError):
            list(iter_events(io.BytesIO(b"data: a\n\n" * 50).readline, deadline=5,
                             clock=lambda: next(ticks)))


if __name__ == "__main__":
    unittest.main()
