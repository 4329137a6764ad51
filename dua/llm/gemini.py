"""The Gemini (Generative Language API) provider: ``models/{model}:generateContent`` and
``:streamGenerateContent?alt=sse``, translated to and from the neutral interface.

OpenAI-style messages become ``contents`` (functionCall / functionResponse parts) and a
``systemInstruction``; wire facts are in shared/notes/llm_wire.md §2.2.
"""
from __future__ import annotations

import json

from ..errors import (MissingAttributeError, NoCandidatesError, PromptBlockedError,
                      UnexpectedTypeError, UsageError)
from .provider import Provider
from .response import Piece, finish_reason, token_count

_FINISH = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter",
           "RECITATION": "content_filter", "BLOCKLIST": "content_filter",
           "PROHIBITED_CONTENT": "content_filter", "SPII": "content_filter",
           "IMAGE_SAFETY": "content_filter", "IMAGE_PROHIBITED_CONTENT": "content_filter",
           "MODEL_ARMOR": "content_filter", "MALFORMED_FUNCTION_CALL": "tool_error",
           "UNEXPECTED_TOOL_CALL": "tool_error", "TOO_MANY_TOOL_CALLS": "tool_error"}
_MODES = {"auto": "AUTO", "none": "NONE", "required": "ANY"}


class GeminiWire:
    """Reads ``GenerateContentResponse`` objects, whole or as stream events."""

    name = "gemini"
    candidates_name = "candidates"
    has_done = False

    def validate(self, payload: object) -> None:
        """Check a whole answer has a first candidate (or say why the prompt was blocked)."""
        if not isinstance(payload, dict):
            raise UnexpectedTypeError("a JSON object", type(payload).__name__, path="response")
        candidates = payload.get("candidates")
        if candidates is None:
            _raise_if_blocked(payload)
            raise NoCandidatesError("no candidates in response")
        if not isinstance(candidates, list):
            raise UnexpectedTypeError("a list", type(candidates).__name__, path="candidates")
        if not candidates:
            _raise_if_blocked(payload)
            raise NoCandidatesError("no candidates in response")
        if not isinstance(candidates[0], dict):
            raise UnexpectedTypeError("an object", type(candidates[0]).__name__,
                                      path="candidates[0]")

    def read(self, payload: object, index: int) -> Piece:
        """One answer or stream event as a Piece (usage is cumulative on every event)."""
        if type(payload) is not dict:
            raise UnexpectedTypeError("a JSON object", type(payload).__name__,
                                      path=f"chunk[{index}]")
        meta = payload.get("usageMetadata")
        piece = Piece(usage=_usage(meta) if meta else None)
        candidates = payload.get("candidates")
        if not candidates:
            _raise_if_blocked(payload)  # blockReason arrives only in the first chunk
            return piece
        if type(candidates) is not list or type(candidates[0]) is not dict:
            raise UnexpectedTypeError("a list of objects", type(candidates).__name__,
                                      path="candidates")
        candidate = candidates[0]
        piece.candidate = True
        finish = candidate.get("finishReason")
        if finish is not None:
            piece.finish = finish_reason(finish, _FINISH, "candidates[0].finishReason")
            piece.raw_finish = finish
        content = candidate.get("content")
        if content is not None:
            _read_parts(content, piece)
        return piece


def _raise_if_blocked(payload: dict) -> None:
    feedback = payload.get("promptFeedback")
    reason = feedback.get("blockReason") if isinstance(feedback, dict) else None
    if reason:
        detail = feedback.get("blockReasonMessage") or ""
        raise PromptBlockedError(f"prompt blocked ({reason}){': ' + detail if detail else ''}",
                                 block_reason=reason)


def _read_parts(content: object, piece: Piece) -> None:
    if type(content) is not dict:
        raise UnexpectedTypeError("an object", type(content).__name__, path="candidates[0].content")
    parts = content.get("parts") or []
    if type(parts) is not list:
        raise UnexpectedTypeError("a list", type(parts).__name__, path="candidates[0].content.parts")
    texts = []
    for i, part in enumerate(parts):
        if type(part) is not dict:
            raise UnexpectedTypeError("an object", type(part).__name__,
                                      path=f"candidates[0].content.parts[{i}]")
        text = part.get("text")
        if text and type(text) is not str:
            raise UnexpectedTypeError("a string", type(text).__name__,
                                      path=f"candidates[0].content.parts[{i}].text")
        if text and not part.get("thought"):  # thinking text is not the answer
            texts.append(text)
        call = part.get("functionCall")
        if call is not None:
            # Thinking models sign their calls; the signature must come back with the call.
            signature = part.get("thoughtSignature")
            piece.tools = (piece.tools or []) + [_function_call(call, i) + (
                signature if isinstance(signature, str) else None,)]
    piece.text = "".join(texts)


def _function_call(call: object, i: int) -> tuple:
    path = f"candidates[0].content.parts[{i}].functionCall"
    if type(call) is not dict:
        raise UnexpectedTypeError("an object", type(call).__name__, path=path)
    name = call.get("name")
    if not name:
        raise MissingAttributeError("a function name", "missing", path=f"{path}.name")
    args = call.get("args", {})  # Gemini omits args for a call without parameters
    if type(args) is not dict:
        raise UnexpectedTypeError("an object", type(args).__name__, path=f"{path}.args")
    return (None, call.get("id"), name, None, args)


def _usage(meta: object) -> tuple | None:
    if type(meta) is not dict:
        return None
    # Thinking tokens are billed as output.
    out = token_count(meta.get("candidatesTokenCount"), "usageMetadata.candidatesTokenCount") + \
        token_count(meta.get("thoughtsTokenCount"), "usageMetadata.thoughtsTokenCount")
    return (token_count(meta.get("promptTokenCount"), "usageMetadata.promptTokenCount"), out)


class GeminiProvider(Provider):
    """Google's Gemini API, spoken directly (no SDK)."""

    name = "gemini"
    wire = GeminiWire()
    api_root = "/v1beta"

    def endpoint(self, stream: bool) -> str:
        import urllib.parse  # lazy: keeps import dua fast

        model = self.model[len("models/"):] if self.model.startswith("models/") else self.model
        # Quoted, so a typo such as "gemini 2.5" is the server's 404 naming the model, not a
        # URL urllib refuses on every retry; "/" stays for tunedModels/… names.
        model = urllib.parse.quote(model, safe="/")
        if stream:
            return f"{self.base_url}/models/{model}:streamGenerateContent?alt=sse"
        return f"{self.base_url}/models/{model}:generateContent"

    def headers(self) -> dict:
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["x-goog-api-key"] = self.api_key  # a header, so the key is never in a URL
        return headers

    def build_body(self, messages, tools, response_format, stream, tool_choice, max_tokens,
                   temperature) -> dict:
        system, contents = to_contents(messages)
        body: dict = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        config: dict = {"temperature": temperature, "candidateCount": 1}
        if max_tokens is not None:
            config["maxOutputTokens"] = max_tokens
        if response_format and response_format.get("type") != "text":
            config["responseMimeType"] = "application/json"
            if response_format.get("type") == "json_schema":
                config["responseJsonSchema"] = response_format["schema"]
        body["generationConfig"] = config
        if tools:
            body["tools"] = [{"functionDeclarations": [
                {"name": t["name"], "description": t.get("description", ""),
                 "parametersJsonSchema": t.get("parameters") or {"type": "object"}}
                for t in tools]}]
            if tool_choice is not None:
                mode = {"mode": _MODES.get(tool_choice, "ANY")}
                if tool_choice not in _MODES:
                    mode["allowedFunctionNames"] = [tool_choice]
                body["toolConfig"] = {"functionCallingConfig": mode}
        return body


def to_contents(messages: list) -> tuple:
    """OpenAI-style messages as (system text, Gemini ``contents``)."""
    system, contents, names = [], [], {}
    for message in messages:
        role, text = message["role"], message.get("content") or ""
        if role == "system":
            system.append(text)
            continue
        if role == "tool":
            name = names.get(message.get("tool_call_id")) or message.get("name") or "tool"
            part = {"functionResponse": {"name": name, "response": _tool_result(text)}}
            _append(contents, "user", part)
            continue
        parts = [{"text": text}] if text else []
        if role == "assistant":
            for call in message.get("tool_calls") or ():
                function = call.get("function") or {}
                names[call.get("id")] = function.get("name")
                part = {"functionCall": {"name": function.get("name"),
                                         "args": _arguments(function.get("arguments"))}}
                if call.get("thought_signature"):
                    part["thoughtSignature"] = call["thought_signature"]
                parts.append(part)
        for part in parts:
            _append(contents, "model" if role == "assistant" else "user", part)
    return "\n\n".join(system), contents


def _append(contents: list, role: str, part: dict) -> None:
    # Gemini wants turns to alternate, so consecutive parts of one role share a turn.
    if contents and contents[-1]["role"] == role:
        contents[-1]["parts"].append(part)
    else:
        contents.append({"role": role, "parts": [part]})


def _tool_result(text: str) -> dict:
    try:
        value = json.loads(text)
    except ValueError:
        return {"content": text}
    return value if isinstance(value, dict) else {"content": value}


def _arguments(arguments: object) -> dict:
    if isinstance(arguments, dict):
        return arguments
    try:
        value = json.loads(arguments or "{}")
    except (TypeError, ValueError):
        raise UsageError(f"assistant tool_calls arguments are not JSON: {arguments!r:.80}") from None
    if not isinstance(value, dict):
        raise UsageError("assistant tool_calls arguments must be a JSON object")
    return value
