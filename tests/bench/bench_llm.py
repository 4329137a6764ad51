"""ResponseHandler overhead and SSE parsing throughput, beside json.loads / readline floors.

Budgets (issue 4): per chunk at most 20 µs, validate_response at most 100 µs on this
machine (seed 002 allows 500 µs and 1 ms); SSE throughput is reported in MB/s.
"""
from __future__ import annotations

import io
import json

from dua.llm.gemini import GeminiWire
from dua.llm.openai_compat import OpenAIWire
from dua.llm.response import ResponseHandler
from dua.llm.sse import iter_events
from tests.llm_replies import Turn

from .figures import Figure, best_of

_CHUNKS = 2000
_TEXT = "2024-01-02  NEFT/ACME LTD/INV 4411          12,500.00     1,04,220.15\n" * 40


def _chunk_texts(wire: str) -> list:
    events = Turn(text=_TEXT, chunks=_CHUNKS).events(wire, "bench-model")
    return [json.dumps(e) for e in events if isinstance(e, dict)]


def _per_chunk(wire_cls, texts: list) -> tuple:
    """(seconds per process_chunk, seconds per json.loads) over the same chunks."""
    payloads = [json.loads(t) for t in texts]

    def handle():
        handler = ResponseHandler(wire_cls(), lambda s: None, streaming=True)
        for payload in payloads:
            handler.process_chunk(payload)

    def floor():
        for text in texts:
            json.loads(text)

    n = len(texts)
    return best_of(handle, repeat=5) / n, best_of(floor, repeat=5) / n


def _validate() -> tuple:
    body = Turn(text=_TEXT[:2000], tool_calls=[("emit_rows", {"rows": [{"amt": 1}] * 20})]).body(
        "openai", "bench-model")
    text = json.dumps(body)
    handler = ResponseHandler(OpenAIWire())
    value = best_of(lambda: handler.validate_response(body), repeat=7, number=2000)
    floor = best_of(lambda: json.loads(text), repeat=7, number=2000)
    return value, floor


def _sse_throughput() -> tuple:
    """MB/s of iter_events, and of json.loads of every event's data (work a client does anyway)."""
    texts = _chunk_texts("openai") * 4
    raw = "".join(f"data: {t}\n\n" for t in texts).encode("utf-8")
    megabytes = len(raw) / 1e6

    def parse():
        for _ in iter_events(io.BytesIO(raw).readline):
            pass

    def loads():
        for text in texts:
            json.loads(text)

    return megabytes / best_of(parse, repeat=5), megabytes / best_of(loads, repeat=5)


def _stream_end_to_end() -> tuple:
    """Seconds per chunk for SSE framing + json.loads + process_chunk, and for json.loads alone."""
    texts = _chunk_texts("openai")
    raw = "".join(f"data: {t}\n\n" for t in texts).encode("utf-8")

    def whole():
        handler = ResponseHandler(OpenAIWire(), lambda s: None, streaming=True)
        for event in iter_events(io.BytesIO(raw).readline):
            handler.process_chunk(json.loads(event.data))

    def floor():
        for text in texts:
            json.loads(text)

    return best_of(whole, repeat=5) / len(texts), best_of(floor, repeat=5) / len(texts)


def run() -> list:
    oai, oai_floor = _per_chunk(OpenAIWire, _chunk_texts("openai"))
    gem, gem_floor = _per_chunk(GeminiWire, _chunk_texts("gemini"))
    val, val_floor = _validate()
    sse, sse_floor = _sse_throughput()
    e2e, e2e_floor = _stream_end_to_end()
    us = 1e6
    return [
        Figure("ResponseHandler.process_chunk (OpenAI chunk)", oai * us, oai_floor * us, "µs",
               "json.loads of the same chunk", target="≤ 20 µs"),
        Figure("ResponseHandler.process_chunk (Gemini chunk)", gem * us, gem_floor * us, "µs",
               "json.loads of the same chunk", target="≤ 20 µs"),
        Figure("ResponseHandler.validate_response (whole answer)", val * us, val_floor * us, "µs",
               "json.loads of the same answer", target="≤ 100 µs"),
        Figure("SSE parsing (iter_events)", sse, sse_floor, "MB/s",
               "json.loads of the same events", higher_is_better=True),
        Figure("stream end to end (SSE + json.loads + process_chunk)", e2e * us, e2e_floor * us,
               "µs/chunk", "json.loads alone"),
    ]
