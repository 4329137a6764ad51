"""The provider-neutral answer of one LLM call, and seed 002's ResponseHandler.

One handler serves the streaming and the non-streaming path: the provider's ``wire``
turns a JSON payload (a whole answer or one stream chunk) into a ``Piece``; the handler
accumulates pieces, reports status, and decides in ``get_final_response`` whether the
answer is usable, raising seed 002's typed errors when it is not.
"""
from __future__ import annotations

import dataclasses
import json
from typing import Callable

from ..errors import (ContentFilteredError, NoCandidatesError, NoTextError, NoToolActivityError,
                      StreamInterruptedError, ToolArgumentsError, TruncatedResponseError,
                      UnexpectedTypeError, excerpt)
from .parsing import loads_json


@dataclasses.dataclass
class ToolCall:
    """One tool (function) call; ``arguments`` is the parsed JSON object."""

    name: str
    arguments: dict
    id: str | None = None
    raw_arguments: str | None = None
    signature: str | None = None  # Gemini's thoughtSignature, to be sent back with the call


@dataclasses.dataclass
class Usage:
    """Token accounting; ``+`` sums usage across calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens,
                     self.output_tokens + other.output_tokens, self.calls + other.calls)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Response:
    """What every provider returns, so that no caller knows which one answered."""

    text: str = ""
    tool_calls: list = dataclasses.field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = dataclasses.field(default_factory=Usage)
    raw: object = None
    model: str | None = None
    provider: str | None = None
    raw_finish_reason: str | None = None


@dataclasses.dataclass
class ResponseChunk:
    """What one processed payload contributed (seed 002)."""

    text: str
    has_tool_call: bool
    tool_name: str | None = None
    metadata: dict = dataclasses.field(default_factory=dict)


class Status(str):
    """A status line for ``on_status`` callbacks; also carries ``kind`` and ``info`` for code.

    kinds: request, retry, text, tool, interrupted.
    """

    def __new__(cls, kind: str, text: str, **info: object):
        self = super().__new__(cls, text)
        self.kind = kind
        self.info = info
        return self


def emit(callback: Callable | None, status: Status) -> None:
    if callback is not None:
        callback(status)


class Piece:
    """One payload, normalised by a wire: text, tool-call deltas, finish reason, usage.

    ``tools`` holds ``(index, id, name, argument_fragment, argument_object)`` tuples; an
    ``index`` of None means "a new, complete call" (Gemini sends whole calls).
    ``finish`` is one of stop, length, tool_calls, content_filter, tool_error, other.
    """

    __slots__ = ("text", "tools", "finish", "raw_finish", "usage", "candidate", "refusal")

    def __init__(self, text: str = "", tools: list | None = None, finish: str | None = None,
                 raw_finish: str | None = None, usage: tuple | None = None,
                 candidate: bool = False, refusal: str | None = None):
        self.text = text
        self.tools = tools
        self.finish = finish
        self.raw_finish = raw_finish
        self.usage = usage
        self.candidate = candidate
        self.refusal = refusal


def _dumps_args(name: str, obj: dict, usage: Usage) -> str:
    # Gemini's args arrive parsed, and Python's json reads NaN/Infinity: refuse what --json
    # output could not write back.
    try:
        return json.dumps(obj, allow_nan=False)
    except ValueError:
        raise ToolArgumentsError(name, "arguments hold NaN or Infinity, which JSON does not "
                                 "allow", usage=usage) from None


def finish_reason(raw: object, table: dict, path: str) -> str:
    """A wire's finish reason in the neutral vocabulary; a non-string is a typed error."""
    if type(raw) is not str:
        raise UnexpectedTypeError("a string", type(raw).__name__, path=path)
    return table.get(raw, "other")


def token_count(raw: object, path: str) -> int:
    """A usage figure as an int (``"12"`` and ``12.0`` pass); anything else is a typed error."""
    try:
        if type(raw) is bool:
            raise TypeError
        return int(raw or 0)
    except (TypeError, ValueError, OverflowError):
        raise UnexpectedTypeError("a token count", type(raw).__name__, path=path) from None


_PREVIEW = 50


class ResponseHandler:
    """Unified response handling for streaming and non-streaming answers (seed 002)."""

    def __init__(self, wire, status_callback: Callable | None = None, *, streaming: bool = False,
                 require_tool: bool = False, model: str | None = None):
        self.wire = wire
        self.status_callback = status_callback
        self.streaming = streaming
        self.require_tool = require_tool
        self.model = model
        self.text_buffer: list = []
        self.tool_activity = False
        self.last_tool_name: str | None = None
        self.chunk_count = 0
        self.done = False
        self.finish: str | None = None
        self.raw_finish: str | None = None
        self.refusal: str | None = None
        self.saw_candidate = False
        self.tokens = (0, 0)
        self.raw: list = []
        self._calls: dict = {}
        self._preview = ""

    def validate_response(self, response: object) -> None:
        """Check a whole (non-streamed) answer's structure.

        Raises:
            ResponseValidationError subclasses, NoCandidatesError, ProviderError.
        """
        self.wire.validate(response)

    def process_chunk(self, chunk: object) -> ResponseChunk | None:
        """Fold one payload into the answer; returns what it contributed.

        Raises:
            ResponseValidationError subclasses, ProviderError (an error event).
        """
        if not chunk:
            return None
        self.chunk_count += 1
        self.raw.append(chunk)
        piece = self.wire.read(chunk, self.chunk_count - 1)
        if piece.usage is not None:
            self.tokens = piece.usage  # cumulative on Gemini, once on OpenAI: last one wins
        if piece.candidate:
            self.saw_candidate = True
        if piece.refusal:
            self.refusal = (self.refusal or "") + piece.refusal
        if piece.finish is not None:
            self.finish, self.raw_finish = piece.finish, piece.raw_finish
        result = ResponseChunk(piece.text, False)
        if piece.text:
            self.text_buffer.append(piece.text)
            self._update_status_preview(piece.text)
        if piece.tools:
            self._add_tools(piece.tools, result)
        if piece.finish is not None:
            result.metadata["finish_reason"] = piece.finish
        return result

    def mark_done(self) -> None:
        """The stream said ``[DONE]``."""
        self.done = True

    @property
    def delivered(self) -> bool:
        """Whether anything reached the caller (after which a retry would duplicate it)."""
        return bool(self.text_buffer or self.tool_activity)

    @property
    def text(self) -> str:
        return "".join(self.text_buffer)

    @property
    def usage(self) -> Usage:
        return Usage(self.tokens[0], self.tokens[1], 1)

    def _add_tools(self, tools: list, result: ResponseChunk) -> None:
        for index, call_id, name, fragment, obj, *signature in tools:
            key = index if index is not None else f"whole-{len(self._calls)}"
            slot = self._calls.get(key)
            if slot is None:
                slot = self._calls[key] = [call_id, name, [], obj, (signature or [None])[0]]
            else:
                slot[0] = slot[0] or call_id
                slot[1] = slot[1] or name
            if fragment:
                slot[2].append(fragment)
            if name:
                result.has_tool_call = True
                result.tool_name = name
                self.tool_activity = True
                self.last_tool_name = name
                self._update_status_tool(name)

    def get_final_response(self) -> Response:
        """The usable answer, or the typed error that says why there is none.

        Raises:
            StreamInterruptedError, NoCandidatesError, TruncatedResponseError,
            ContentFilteredError, ToolArgumentsError, NoTextError, NoToolActivityError.
        """
        usage = self.usage
        # Gemini has no [DONE]: a clean end with no candidate at all is "no candidates".
        if self.streaming and not (self.done or self.finish) and (
                self.saw_candidate or self.wire.has_done):
            raise StreamInterruptedError(
                f"the stream ended after {self.chunk_count} chunks without a finish reason"
                f"{' or [DONE]' if self.wire.has_done else ''}", text=self.text, usage=usage)
        if not self.saw_candidate:
            raise NoCandidatesError(f"no {self.wire.candidates_name} in response", usage=usage)
        self._raise_for_finish(usage)
        calls = self._finish_calls(usage)
        text = self.text
        if not text and not calls:
            raise NoTextError(f"no text or tool activity after {self.chunk_count} chunks "
                              f"(finish reason {self.raw_finish})", finish_reason=self.raw_finish,
                              usage=usage)
        if self.require_tool and not calls:
            raise NoToolActivityError("a tool call was required but the model answered with text",
                                      text=text, usage=usage)
        finish = "tool_calls" if calls and self.finish in (None, "stop") else self.finish
        return Response(text, calls, finish, usage, self.raw if self.streaming else self.raw[0],
                        self.model, self.wire.name, self.raw_finish)

    def _raise_for_finish(self, usage: Usage) -> None:
        finish, raw = self.finish, self.raw_finish
        if finish == "length":
            what = f"{len(self.text)} chars of text" if self.text_buffer else "no text"
            raise TruncatedResponseError(
                f"The answer was cut off by the token limit (finish reason {raw}; {what})",
                text=self.text, usage=usage, finish_reason=raw)
        if finish == "content_filter" or self.refusal:
            why = f"refusal: {excerpt(self.refusal, 200)}" if self.refusal else f"finish reason {raw}"
            raise ContentFilteredError(f"the provider's safety filter blocked the answer ({why})",
                                       finish_reason=raw, refusal=self.refusal, usage=usage)
        if finish == "tool_error":
            raise ToolArgumentsError(self.last_tool_name or "unknown",
                                     f"the model produced a malformed tool call (finish reason {raw})",
                                     usage=usage, finish_reason=raw)

    def _finish_calls(self, usage: Usage) -> list:
        calls = []
        for position, (call_id, name, fragments, obj, signature) in enumerate(self._calls.values()):
            raw = "".join(fragments) if obj is None else None
            if obj is None:
                try:
                    obj = loads_json(raw)  # NaN or 1e999 in arguments would poison --json output
                except (ValueError, RecursionError) as exc:
                    raise ToolArgumentsError(name or "unknown", f"arguments are not valid JSON "
                                             f"({exc}): {excerpt(raw, 200)}", raw_arguments=raw,
                                             usage=usage) from None
            if not isinstance(obj, dict):
                raise ToolArgumentsError(name or "unknown", f"arguments are a JSON "
                                         f"{type(obj).__name__}, not an object", raw_arguments=raw,
                                         usage=usage)
            if not name:
                raise ToolArgumentsError("unknown", "a tool call without a function name",
                                         raw_arguments=raw, usage=usage)
            if raw is None:
                raw = _dumps_args(name, obj, usage)
            # Gemini calls may come without an id; tool replies are paired by it.
            calls.append(ToolCall(name, obj, call_id or f"call_{position}", raw, signature))
        return calls

    def get_final_text(self) -> str:
        """Seed 002's text for display: the text, else a tool-completion message."""
        response = self.get_final_response()
        if response.text:
            return response.text
        return self._generate_tool_completion_message()

    def _generate_tool_completion_message(self) -> str:
        if self.last_tool_name:
            return f"Analysis complete. Executed {self.last_tool_name} successfully."
        return "Analysis complete using available tools."

    def _update_status_preview(self, text: str) -> None:
        # Only the first 50 characters are shown, so stop paying once they are known.
        if not self.status_callback or len(self._preview) > _PREVIEW:
            return
        self._preview += text
        preview = self._preview[:_PREVIEW].replace("\n", " ")
        if len(self._preview) > _PREVIEW:
            preview += "..."
        self.status_callback(Status("text", f"💭 {preview}"))

    def _update_status_tool(self, tool_name: str) -> None:
        if self.status_callback:
            self.status_callback(Status("tool", f"🔧 Using {tool_name}...", tool=tool_name))
