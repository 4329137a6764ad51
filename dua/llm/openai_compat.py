"""The OpenAI-compatible ``/chat/completions`` provider (OpenAI, Groq, Ollama, vLLM,
llama.cpp server, LM Studio): request bodies out, ``Piece``s in.

Wire facts it relies on are in shared/notes/llm_wire.md §2.1, §2.3 and §2.4.
"""
from __future__ import annotations

from ..errors import MissingAttributeError, NoCandidatesError, UnexpectedTypeError
from .provider import Provider
from .response import Piece, finish_reason, token_count

_FINISH = {"stop": "stop", "length": "length", "tool_calls": "tool_calls",
           "function_call": "tool_calls", "content_filter": "content_filter", "eos": "stop",
           "end_turn": "stop", "error": "other"}


class OpenAIWire:
    """Reads ``chat.completion`` answers and ``chat.completion.chunk`` stream events."""

    name = "openai"
    candidates_name = "choices"
    has_done = True

    def validate(self, payload: object) -> None:
        """Check a whole answer has a first choice with a message object."""
        if not isinstance(payload, dict):
            raise UnexpectedTypeError("a JSON object", type(payload).__name__, path="response")
        choices = payload.get("choices")
        if choices is None:
            raise MissingAttributeError("a 'choices' list", "missing", path="choices")
        if not isinstance(choices, list):
            raise UnexpectedTypeError("a list", type(choices).__name__, path="choices")
        if not choices:
            raise NoCandidatesError("no choices in response")
        choice = choices[0]
        if not isinstance(choice, dict):
            raise UnexpectedTypeError("an object", type(choice).__name__, path="choices[0]")
        message = choice.get("message")
        if message is None:
            raise MissingAttributeError("a message", "missing", path="choices[0].message")
        if not isinstance(message, dict):
            raise UnexpectedTypeError("an object", type(message).__name__,
                                      path="choices[0].message")

    def read(self, payload: object, index: int) -> Piece:
        """One answer or stream chunk as a Piece; ``choices: []`` (usage, Azure filters) is legal."""
        if type(payload) is not dict:
            raise UnexpectedTypeError("a JSON object", type(payload).__name__,
                                      path=f"chunk[{index}]")
        usage = payload.get("usage")
        piece = Piece(usage=_usage(usage) if usage else None)
        choices = payload.get("choices")
        if choices is not None and type(choices) is not list:
            raise UnexpectedTypeError("a list", type(choices).__name__, path="choices")
        if not choices:
            if choices is None and usage is None and "prompt_filter_results" not in payload:
                raise MissingAttributeError("a 'choices' list", "missing",
                                            path=f"chunk[{index}].choices")
            return piece
        choice = choices[0]
        if type(choice) is not dict:
            raise UnexpectedTypeError("an object", type(choice).__name__, path="choices[0]")
        piece.candidate = True
        finish = choice.get("finish_reason")
        if finish is not None:
            piece.finish = finish_reason(finish, _FINISH, "choices[0].finish_reason")
            piece.raw_finish = finish
        message = choice.get("delta")
        if message is None:
            message = choice.get("message")
            if message is None:
                if finish is None:
                    raise MissingAttributeError("a delta or message", "missing",
                                                path="choices[0].delta")
                return piece
        if type(message) is not dict:
            raise UnexpectedTypeError("an object", type(message).__name__, path="choices[0].delta")
        _read_message(message, piece)
        return piece


def _read_message(message: dict, piece: Piece) -> None:
    content = message.get("content")
    if content:
        if type(content) is not str:
            raise UnexpectedTypeError("a string", type(content).__name__,
                                      path="choices[0].message.content")
        piece.text = content
    refusal = message.get("refusal")
    if refusal:
        piece.refusal = str(refusal)
    calls = message.get("tool_calls")
    if calls:
        if type(calls) is not list:
            raise UnexpectedTypeError("a list", type(calls).__name__,
                                      path="choices[0].message.tool_calls")
        piece.tools = [_tool_delta(call, i) for i, call in enumerate(calls)]


def _tool_delta(call: object, position: int) -> tuple:
    path = f"choices[0].message.tool_calls[{position}]"
    if type(call) is not dict:
        raise UnexpectedTypeError("an object", type(call).__name__, path=path)
    function = call.get("function") or {}
    if type(function) is not dict:
        raise UnexpectedTypeError("an object", type(function).__name__, path=f"{path}.function")
    arguments = function.get("arguments")
    if "arguments" in function and type(arguments) is not str:
        # Some gateways send an object or null; the wire says string, so say so.
        raise UnexpectedTypeError("a JSON string", type(arguments).__name__,
                                  path=f"{path}.function.arguments")
    index = call.get("index", position)
    return (index, call.get("id"), function.get("name"), arguments, None)


def _usage(usage: object) -> tuple | None:
    if type(usage) is not dict:
        return None
    return (token_count(usage.get("prompt_tokens"), "usage.prompt_tokens"),
            token_count(usage.get("completion_tokens"), "usage.completion_tokens"))


class OpenAICompatProvider(Provider):
    """Any server speaking OpenAI's ``POST {base_url}/chat/completions``."""

    name = "openai"
    wire = OpenAIWire()
    api_root = "/v1"

    def endpoint(self, stream: bool) -> str:
        return f"{self.base_url}/chat/completions"

    def headers(self) -> dict:
        # No Accept-Encoding: urllib does not decompress gzip.
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        return headers

    def build_body(self, messages, tools, response_format, stream, tool_choice, max_tokens,
                   temperature) -> dict:
        body = {"model": self.model, "messages": [_outgoing(m) for m in messages],
                "temperature": temperature, "stream": bool(stream)}
        if max_tokens is not None:
            body["max_tokens"] = max_tokens  # compat servers ignore max_completion_tokens
        if stream:
            body["stream_options"] = {"include_usage": True}
        if tools:
            body["tools"] = [{"type": "function", "function": {
                "name": t["name"], "description": t.get("description", ""),
                "parameters": t.get("parameters") or {"type": "object", "properties": {}}}}
                for t in tools]
            if tool_choice is not None:
                body["tool_choice"] = tool_choice if tool_choice in ("auto", "none", "required") \
                    else {"type": "function", "function": {"name": tool_choice}}
        if response_format:
            body["response_format"] = _response_format(response_format)
        return body


def _outgoing(message: dict) -> dict:
    """A message as sent: ``content`` is never null (llama.cpp rejects null with tool calls)."""
    out = {k: v for k, v in message.items() if k in ("role", "content", "tool_calls",
                                                       "tool_call_id", "name")}
    if out.get("content") is None:
        out["content"] = ""
    return out


def _response_format(fmt: dict) -> dict:
    if fmt.get("type") != "json_schema":
        return {"type": fmt["type"]}
    spec = {"name": fmt.get("name") or "output", "schema": fmt["schema"]}
    if "strict" in fmt:
        spec["strict"] = bool(fmt["strict"])
    return {"type": "json_schema", "json_schema": spec}
