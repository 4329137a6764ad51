"""An incremental Server-Sent-Events reader over any binary ``readline``.

It owns framing only (fields, comments, CR/LF/CRLF, multi-line ``data:``, EOF flush);
what an event means (``[DONE]``, JSON chunks, error events) is the provider's business.
I/O errors from ``readline`` pass through untouched so the caller can tell a cut stream
from a bad one.
"""
from __future__ import annotations

from typing import Callable, Iterator

from ..errors import InvalidStructureError, LLMTimeoutError, excerpt

DONE = "[DONE]"
# llama.cpp builds before PR #16109 send a non-standard ``error:`` field (llm_wire.md §2.4).
_FIELDS = ("data", "event", "id", "retry", "error")


class Event:
    """One dispatched event: its ``event`` name, joined ``data`` and 0-based ``index``."""

    __slots__ = ("event", "data", "index")

    def __init__(self, event: str, data: str, index: int):
        self.event = event
        self.data = data
        self.index = index

    def __repr__(self) -> str:
        return f"Event({self.event!r}, {excerpt(self.data, 60)!r}, index={self.index})"


def iter_events(
    readline: Callable[[], bytes],
    deadline: float | None = None,
    clock: Callable[[], float] | None = None,
) -> Iterator[Event]:
    """Yield the events read line by line until EOF (a pending event is flushed at EOF).

    Raises:
        InvalidStructureError: a line that is not UTF-8 or not an SSE field.
        LLMTimeoutError: the wall-clock ``deadline`` (by ``clock``) passed mid-stream.
    """
    data: list = []
    name = ""
    index = 0
    while True:
        raw = readline()
        if deadline is not None and clock() > deadline:
            raise LLMTimeoutError("the stream ran past its total deadline", event_index=index)
        if not raw:
            break
        if not index and raw[:3] == b"\xef\xbb\xbf":
            raw = raw[3:]  # the SSE spec ignores a leading BOM (checked until the first event)
        if raw[:6] == b"data: " and raw[-1:] == b"\n" and b"\r" not in raw:
            data.append(_decode(raw[6:-1], index))  # the common line, without the general path
            continue
        for line in _split_lines(raw, index):
            if line:
                name = _take_field(line, data, name, index)
                continue
            if data:
                yield Event(name or "message", "\n".join(data), index)
                index += 1
            data = []
            name = ""
    if data:
        yield Event(name or "message", "\n".join(data), index)


def _decode(raw: bytes, index: int) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidStructureError("UTF-8 text", excerpt(repr(raw), 120), event_index=index) from None


def _split_lines(raw: bytes, index: int) -> list:
    """Decode one ``readline`` result into lines; a lone CR also ends a line."""
    text = _decode(raw, index)
    if text.endswith("\n"):
        text = text[:-2] if text.endswith("\r\n") else text[:-1]
    elif text.endswith("\r"):
        text = text[:-1]
    return text.split("\r") if "\r" in text else [text]


def _take_field(line: str, data: list, name: str, index: int) -> str:
    """Apply one non-empty line to the pending event; returns the event name."""
    if line[0] == ":":
        return name  # a comment: keep-alives such as ": ping" or ": OPENROUTER PROCESSING"
    field, _, value = line.partition(":")
    if value[:1] == " ":
        value = value[1:]
    if field == "data":
        data.append(value)
        return name
    if field == "event":
        return value
    if field == "error":
        data.append(value)
        return "error"
    if field in _FIELDS:
        return name
    # The SSE spec says ignore unknown fields, but a model server that writes bare JSON or
    # garbage here is broken, and ignoring it would turn an error into an "empty" success.
    raise InvalidStructureError("an SSE field (data:, event:, id:, retry:) or a ': ' comment",
                                excerpt(line, 120), event_index=index)
