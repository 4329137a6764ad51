"""Realistic model answers in both wire formats, for tests/llm_server.py.

``Turn`` is one neutral model answer (text, tool calls, finish, usage) that renders as an
OpenAI ``chat.completion`` / chunk stream or a Gemini ``GenerateContentResponse`` / SSE
stream, whichever the request asked for. ``Fail`` is one neutral HTTP error rendered
with each provider's real body. Shapes follow shared/notes/llm_wire.md §2 and §3.
"""
from __future__ import annotations

import json

OPENAI_FINISH = {"stop": "stop", "length": "length", "filter": "content_filter",
                 "tool_calls": "tool_calls", "tool_error": "stop"}
GEMINI_FINISH = {"stop": "STOP", "length": "MAX_TOKENS", "filter": "SAFETY",
                 "tool_calls": "STOP", "tool_error": "MALFORMED_FUNCTION_CALL"}


class Turn:
    """One scripted model answer, rendered per wire and per stream flag.

    text: the answer text; chunks: how many stream events it is split into.
    tool_calls: ``[(name, arguments)]`` — a dict, or a str sent verbatim as OpenAI's
        ``arguments`` (use it for invalid JSON; Gemini gets ``{}`` for a bad str).
    finish: stop | length | filter | tool_calls | tool_error | None (no finish at all)
        | any other string, sent as is.
    usage: (input_tokens, output_tokens) or None. refusal: OpenAI ``message.refusal``.
    end: how a stream ends — "done" (finish, usage, [DONE]), "no_done" (finish, no
        [DONE]), "reset" (TCP RST after ``cut_after`` events), "truncate" (a chunk cut
        mid-way, then FIN), "stall" (idle ``stall`` seconds after ``cut_after`` events).
    delay: seconds before the status line (a reply slower than the read timeout).
    """

    def __init__(self, text: str = "", tool_calls=(), finish: str | None = "auto",
                 usage: tuple | None = (12, 5), chunks: int = 3, refusal: str | None = None,
                 end: str = "done", cut_after: int = 2, stall: float = 2.0,
                 headers: dict | None = None, delay: float = 0.0):
        self.text = text
        self.tool_calls = list(tool_calls)
        if finish == "auto":
            finish = "tool_calls" if self.tool_calls else "stop"
        self.finish = finish
        self.usage = usage
        self.chunks = max(1, chunks)
        self.refusal = refusal
        self.end = end
        self.cut_after = cut_after
        self.stall = stall
        self.headers = dict(headers or {})
        self.delay = delay

    def body(self, wire: str, model: str) -> dict:
        return openai_body(self, model) if wire == "openai" else gemini_body(self, model)

    def events(self, wire: str, model: str) -> list:
        return openai_events(self, model) if wire == "openai" else gemini_events(self, model)


def split_text(text: str, n: int) -> list:
    if not text:
        return []
    size = max(1, -(-len(text) // n))
    return [text[i:i + size] for i in range(0, len(text), size)]


def _args_text(arguments) -> str:
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def _args_obj(arguments) -> dict:
    if isinstance(arguments, dict):
        return arguments
    try:
        value = json.loads(arguments)
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


# --- OpenAI-compatible -----------------------------------------------------------------


def openai_usage(usage: tuple) -> dict:
    return {"prompt_tokens": usage[0], "completion_tokens": usage[1],
            "total_tokens": usage[0] + usage[1]}


def openai_body(turn: Turn, model: str = "test-model") -> dict:
    message = {"role": "assistant", "content": turn.text or None, "refusal": turn.refusal}
    if turn.tool_calls:
        message["tool_calls"] = [
            {"id": f"call_{i}", "type": "function",
             "function": {"name": name, "arguments": _args_text(args)}}
            for i, (name, args) in enumerate(turn.tool_calls)]
    body = {"id": "chatcmpl-test", "object": "chat.completion", "created": 1727346161,
            "model": model, "system_fingerprint": "fp_test",
            "choices": [{"index": 0, "message": message, "logprobs": None,
                         "finish_reason": OPENAI_FINISH.get(turn.finish, turn.finish)}]}
    if turn.usage:
        body["usage"] = openai_usage(turn.usage)
    return body


def openai_chunk(delta: dict, finish: str | None = None, model: str = "test-model") -> dict:
    return {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 1727346176,
            "model": model, "system_fingerprint": "fp_test",
            "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}]}


def openai_events(turn: Turn, model: str = "test-model") -> list:
    events = [openai_chunk({"role": "assistant", "content": ""}, model=model)]
    events += [openai_chunk({"content": piece}, model=model)
               for piece in split_text(turn.text, turn.chunks)]
    if turn.refusal:
        events.append(openai_chunk({"refusal": turn.refusal}, model=model))
    for i, (name, args) in enumerate(turn.tool_calls):
        head = {"index": i, "id": f"call_{i}", "type": "function",
                "function": {"name": name, "arguments": ""}}
        events.append(openai_chunk({"tool_calls": [head]}, model=model))
        for fragment in split_text(_args_text(args), 3):  # fragments split JSON tokens
            events.append(openai_chunk(
                {"tool_calls": [{"index": i, "function": {"arguments": fragment}}]}, model=model))
    if turn.finish is not None:
        events.append(openai_chunk({}, OPENAI_FINISH.get(turn.finish, turn.finish), model))
        if turn.usage:
            events.append({"id": "chatcmpl-test", "object": "chat.completion.chunk",
                           "created": 1727346176, "model": model, "choices": [],
                           "usage": openai_usage(turn.usage)})
    if turn.end == "done" and turn.finish is not None:
        events.append("data: [DONE]\n\n")
    return events


def openai_error(message: str, type_: str | None = None, code=None, param=None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


# --- Gemini ----------------------------------------------------------------------------


def gemini_usage(usage: tuple, thoughts: int = 0) -> dict:
    meta = {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1],
            "totalTokenCount": usage[0] + usage[1] + thoughts}
    if thoughts:
        meta["thoughtsTokenCount"] = thoughts
    return meta


def _gemini_candidate(parts: list, finish: str | None) -> dict:
    candidate = {"index": 0}
    if parts or finish in (None, "STOP", "MAX_TOKENS"):
        candidate["content"] = {"role": "model", "parts": parts}
    if finish is not None:
        candidate["finishReason"] = finish
        if finish == "SAFETY":
            candidate["safetyRatings"] = [{"category": "HARM_CATEGORY_DANGEROUS_CONTENT",
                                           "probability": "HIGH", "blocked": True}]
    return candidate


def _gemini_calls(turn: Turn) -> list:
    return [{"functionCall": {"name": name, "args": _args_obj(args)}}
            for name, args in turn.tool_calls]


def gemini_body(turn: Turn, model: str = "test-model") -> dict:
    parts = ([{"text": turn.text}] if turn.text else []) + _gemini_calls(turn)
    finish = GEMINI_FINISH.get(turn.finish, turn.finish)
    if finish == "SAFETY":
        parts = []
    body = {"candidates": [_gemini_candidate(parts, finish)], "modelVersion": model,
            "responseId": "resp-test"}
    if turn.usage:
        body["usageMetadata"] = gemini_usage(turn.usage)
    return body


def gemini_events(turn: Turn, model: str = "test-model") -> list:
    """Text deltas, then whole function calls; the last event carries finish and usage."""
    finish = GEMINI_FINISH.get(turn.finish, turn.finish)
    pieces = [[{"text": t}] for t in split_text(turn.text, turn.chunks)]
    if turn.tool_calls:
        pieces.append(_gemini_calls(turn))
    if not pieces or finish == "SAFETY":
        pieces.append([])
    events = []
    for i, parts in enumerate(pieces):
        last = i == len(pieces) - 1
        event = {"candidates": [_gemini_candidate(parts, finish if last else None)],
                 "modelVersion": model}
        if turn.usage:  # cumulative on every event, as Gemini does
            event["usageMetadata"] = gemini_usage((turn.usage[0], turn.usage[1] if last else i + 1))
        events.append(event)
    return events


def gemini_error(code: int, message: str, status: str, details: list | None = None) -> dict:
    err = {"code": code, "message": message, "status": status}
    if details:
        err["details"] = details
    return {"error": err}


def retry_info(delay: str) -> dict:
    return {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}


def quota_failure(quota_id: str) -> dict:
    return {"@type": "type.googleapis.com/google.rpc.QuotaFailure",
            "violations": [{"quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
                            "quotaId": quota_id}]}


# --- neutral errors --------------------------------------------------------------------

_OPENAI_FAILS = {
    "rate_limit": (429, openai_error("Rate limit reached for test-model in organization org-x on "
                                     "tokens per min (TPM): Limit 30000, Used 29937, Requested 385.",
                                     "tokens", "rate_limit_exceeded")),
    "quota": (429, openai_error("You exceeded your current quota, please check your plan and billing "
                                "details. For more information on this error, read the docs.",
                                "insufficient_quota", "insufficient_quota")),
    "server": (500, openai_error("The server had an error while processing your request. Sorry "
                                 "about that!", "server_error")),
    "overloaded": (503, {"error": {"code": 503, "message": "Loading model",
                                   "type": "unavailable_error"}}),
    "auth": (401, openai_error("Incorrect API key provided: sk-abc***. You can find your API key "
                               "at https://platform.openai.com/account/api-keys.",
                               "invalid_request_error", "invalid_api_key")),
    "context": (400, openai_error("This model's maximum context length is 8192 tokens. However, "
                                  "you requested 11046 tokens.", "invalid_request_error",
                                  "context_length_exceeded", "messages")),
    "not_found": (404, openai_error("The model `test-model` does not exist or you do not have "
                                    "access to it.", "invalid_request_error", "model_not_found")),
    "bad_request": (400, openai_error("Invalid value for 'temperature'.", "invalid_request_error",
                                      "invalid_value", "temperature")),
}

_GEMINI_FAILS = {
    "rate_limit": (429, gemini_error(429, "Resource has been exhausted (e.g. check quota).",
                                     "RESOURCE_EXHAUSTED")),
    "quota": (429, gemini_error(429, "You exceeded your current quota, please check your plan and "
                                "billing details.", "RESOURCE_EXHAUSTED",
                                [quota_failure("GenerateRequestsPerDayPerProjectPerModel-FreeTier")])),
    "server": (500, gemini_error(500, "Internal error encountered.", "INTERNAL")),
    "overloaded": (503, gemini_error(503, "The model is overloaded. Please try again later.",
                                     "UNAVAILABLE")),
    "auth": (400, gemini_error(400, "API key not valid. Please pass a valid API key.",
                               "INVALID_ARGUMENT",
                               [{"@type": "type.googleapis.com/google.rpc.ErrorInfo",
                                 "reason": "API_KEY_INVALID", "domain": "googleapis.com"}])),
    "context": (400, gemini_error(400, "The input token count (1048577) exceeds the maximum number "
                                  "of tokens allowed (1048576).", "INVALID_ARGUMENT")),
    "not_found": (404, gemini_error(404, "models/test-model is not found for API version v1beta.",
                                    "NOT_FOUND")),
    "bad_request": (400, gemini_error(400, "Invalid value at 'generation_config.temperature'.",
                                      "INVALID_ARGUMENT")),
}

FAIL_KINDS = tuple(_OPENAI_FAILS)


class Fail:
    """One neutral HTTP error (a ``FAIL_KINDS`` name) with each provider's real body.

    retry_after: sent as ``Retry-After`` (seconds); retry_delay: Gemini ``RetryInfo``
    (e.g. "0.05s"); headers: extra headers (``x-should-retry``, ``x-request-id`` …).
    """

    def __init__(self, kind: str, retry_after: float | str | None = None,
                 retry_delay: str | None = None, headers: dict | None = None,
                 status: int | None = None):
        if kind not in _OPENAI_FAILS:
            raise ValueError(f"unknown fail kind {kind!r}; one of {FAIL_KINDS}")
        self.kind = kind
        self.headers = dict(headers or {})
        if retry_after is not None:
            self.headers["retry-after"] = str(retry_after)
        self.retry_delay = retry_delay
        self.status = status

    def render(self, wire: str) -> tuple:
        """(status, headers, body dict) for ``wire``."""
        status, body = (_OPENAI_FAILS if wire == "openai" else _GEMINI_FAILS)[self.kind]
        body = json.loads(json.dumps(body))
        if self.retry_delay is not None and wire == "gemini":
            body["error"].setdefault("details", []).append(retry_info(self.retry_delay))
        return self.status or status, self.headers, body
