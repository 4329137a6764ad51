"""Structured output (seed 003): a schema-checked answer through one of three strategies.

``ToolStrategy`` offers the schema as a tool the model must call, ``ProviderStrategy`` asks
the server for JSON mode (``response_format``), ``PromptedStrategy`` asks for JSON in the text.
``handle_errors`` decides whether a wrong answer is fed back for another try; transport
failures and cut-off answers never are (they propagate from the provider untouched).
"""
from __future__ import annotations

import dataclasses
import json
from typing import Callable

from ..errors import (ContentFilteredError, DuaError, EmptyResponseError, InvalidStructureError,
                      MultipleStructuredOutputsError, NoTextError, NoToolActivityError, SchemaError,
                      StructuredOutputError, StructuredOutputValidationError, ToolArgumentsError,
                      ToolNotFoundError, TruncatedResponseError, excerpt)
from .parsing import ParseFailure, load_llm_json
from .response import Response, Status, Usage, emit
from .schema import Field, Object, Tagged, as_schema, to_response_format

STRUCTURED_OUTPUT_ERROR_TEMPLATE = """Your previous response didn't match the expected schema.
Error: {error}
Please try again with valid output matching the schema."""
DEFAULT_MAX_ATTEMPTS = 3
PROMPT_INSTRUCTIONS = ("Answer with one JSON value that matches this JSON Schema, and nothing else "
                       "(no prose, no code fences):\n{schema}")
# Errors the provider raises that are the model's doing, so feeding them back can help.
_MODEL_ERRORS = (NoToolActivityError, ToolArgumentsError, NoTextError)


def _default_name(schema: object) -> str:
    return schema.__name__ if isinstance(schema, type) else "structured_output"


def _check_policy(handle_errors: object, max_attempts: object) -> None:
    ok = (isinstance(handle_errors, (bool, str)) or callable(handle_errors)
          or (isinstance(handle_errors, tuple) and handle_errors
              and all(isinstance(t, type) and issubclass(t, BaseException) for t in handle_errors)))
    if not ok:
        raise TypeError("handle_errors must be True, False, a message, an exception type, a tuple "
                        f"of exception types or a callable, got {handle_errors!r}")
    if not isinstance(max_attempts, int) or isinstance(max_attempts, bool) or max_attempts < 1:
        raise ValueError(f"max_attempts must be a positive int, got {max_attempts!r}")


@dataclasses.dataclass
class ToolStrategy:
    """The schema is a tool the model is made to call; its arguments are the answer."""

    schema: object
    name: str = ""
    description: str = ""
    handle_errors: object = True
    max_attempts: int = DEFAULT_MAX_ATTEMPTS

    def __post_init__(self) -> None:
        self.field = as_schema(self.schema)
        self.name = self.name or _default_name(self.schema)
        _check_policy(self.handle_errors, self.max_attempts)
        # Tool parameters must be an object; anything else travels wrapped as {"result": …}.
        self.wrapped = not isinstance(self.field, (Object, Tagged))
        self.parameters = Object({"result": self.field}) if self.wrapped else self.field

    def request(self, messages: list) -> tuple:
        tool = {"name": self.name, "parameters": self.parameters.to_json_schema(),
                "description": self.description or self.field.description
                or f"Return the {self.name} result. Always call this tool to answer."}
        return list(messages), {"tools": [tool], "tool_choice": self.name}

    def parse(self, response: Response) -> tuple:
        calls = response.tool_calls
        if not calls:
            raise StructuredOutputValidationError(self.name, NoToolActivityError(
                f"the model answered with text instead of calling {self.name}", text=response.text),
                raw=excerpt(response.text))
        if len(calls) > 1:
            raise MultipleStructuredOutputsError([c.name for c in calls])
        call = calls[0]
        if call.name != self.name:
            raise StructuredOutputValidationError(self.name, ToolNotFoundError(
                call.name, f"no such tool; the only tool is {self.name}", available=[self.name]),
                raw=excerpt(call.raw_arguments or ""))
        problems = self.parameters.validate(call.arguments)
        if problems:
            raise StructuredOutputValidationError(self.name, SchemaError(problems),
                                                  raw=excerpt(call.raw_arguments or ""))
        return (call.arguments["result"] if self.wrapped else call.arguments), []

    def feedback(self, response: Response | None, error: Exception, message: str) -> list:
        if response is None or not response.tool_calls:
            return _text_feedback(_raw_text(response, error), message)
        # Every tool call is answered, one tool message per id, or servers reject the next turn.
        calls = []
        for i, call in enumerate(response.tool_calls):
            calls.append({"id": call.id or f"call_{i}", "type": "function", "function": {
                "name": call.name, "arguments": call.raw_arguments or json.dumps(call.arguments)}})
            if call.signature:  # Gemini answers 400 to a signed call sent back unsigned
                calls[-1]["thought_signature"] = call.signature
        out = [{"role": "assistant", "content": response.text or "", "tool_calls": calls}]
        out += [{"role": "tool", "tool_call_id": c["id"], "name": c["function"]["name"],
                 "content": message} for c in calls]
        return out


@dataclasses.dataclass
class PromptedStrategy:
    """JSON in the answer text, for models with neither tools nor JSON mode.

    ``instructions=""`` adds none (the caller's prompt already says what to answer);
    ``response_format`` goes to the server as it is (``{"type": "json_object"}`` asks for
    JSON mode without a schema, since llama.cpp answers json_schema with a 500); ``conform``
    maps an answer that clearly names what the schema can take ("heading level 3") before
    validating it.
    """

    schema: object
    name: str = ""
    handle_errors: object = True
    max_attempts: int = DEFAULT_MAX_ATTEMPTS
    lenient: bool = False
    instructions: str | None = None
    response_format: dict | None = None
    conform: bool = False

    def __post_init__(self) -> None:
        self.field = as_schema(self.schema)
        self.name = self.name or _default_name(self.schema)
        _check_policy(self.handle_errors, self.max_attempts)

    def request(self, messages: list) -> tuple:
        text = self.instructions
        if text is None:
            text = PROMPT_INSTRUCTIONS.format(schema=json.dumps(self.field.to_json_schema()))
        options = {"response_format": self.response_format} if self.response_format else {}
        return (_with_instructions(messages, text) if text else list(messages)), options

    def parse(self, response: Response) -> tuple:
        return _parse_text(response, self.field, self.name, self.lenient, self.conform)

    def feedback(self, response: Response | None, error: Exception, message: str) -> list:
        return _text_feedback(_raw_text(response, error), message)


@dataclasses.dataclass
class ProviderStrategy:
    """The server enforces the schema (``response_format``); failures propagate, no retry.

    ``mode="json_object"`` is for servers that only have a JSON mode (llama.cpp answers
    json_schema with a 500): the schema then travels in the prompt, as with PromptedStrategy.
    """

    schema: object
    name: str = ""
    strict: bool = False
    mode: str = "json_schema"
    max_attempts: int = dataclasses.field(default=1, init=False)

    def __post_init__(self) -> None:
        if self.mode not in ("json_schema", "json_object"):
            raise ValueError(f"mode must be 'json_schema' or 'json_object', got {self.mode!r}")
        self.field = as_schema(self.schema)
        self.name = self.name or _default_name(self.schema)

    def request(self, messages: list) -> tuple:
        if self.mode == "json_object":
            text = PROMPT_INSTRUCTIONS.format(schema=json.dumps(self.field.to_json_schema()))
            return _with_instructions(messages, text), {"response_format": {"type": "json_object"}}
        fmt = to_response_format(self.field, self.name)
        if self.strict:
            fmt["strict"] = True
        return list(messages), {"response_format": fmt}

    def parse(self, response: Response) -> tuple:
        return _parse_text(response, self.field, self.name, False)


def _with_instructions(messages: list, text: str) -> list:
    """``messages`` with ``text`` added to the last user turn (some templates drop system)."""
    out = list(messages)
    last = out[-1] if out else None
    if isinstance(last, dict) and last.get("role") == "user" and isinstance(last.get("content"), str):
        out[-1] = {**last, "content": f"{last['content']}\n\n{text}"}
    else:
        out.append({"role": "user", "content": text})
    return out


def _parse_text(response: Response, field: Field, name: str, lenient: bool,
                conform: bool = False) -> tuple:
    try:
        return load_llm_json(response.text, field, lenient, conform)
    except ParseFailure as failure:
        raise StructuredOutputValidationError(
            name, _source(failure), error_kind=failure.error_type, raw=excerpt(response.text),
            cleaned_content=excerpt(failure.cleaned or "")) from None


def _source(failure: ParseFailure) -> BaseException:
    """The underlying error for seed 000's outcome, typed so handle_errors can match it."""
    if failure.error_type == "EmptyLLMResponse":
        return EmptyResponseError("the output is empty after removing code fences")
    if failure.error_type == "InvalidLLMResponseFormat" and failure.cause is None:
        return InvalidStructureError("a JSON object or array", repr(excerpt(failure.cleaned or "", 60)))
    return failure.cause if failure.cause is not None else ValueError(failure.message)


def _raw_text(response: Response | None, error: Exception) -> str:
    if response is not None:
        return response.text
    source = getattr(error, "source", None)
    return getattr(source, "text", None) or getattr(source, "raw_arguments", None) or ""


def _text_feedback(text: str, message: str) -> list:
    # An empty assistant turn is left out: some servers reject one, and there is nothing to show.
    echo = [{"role": "assistant", "content": text}] if text else []
    return echo + [{"role": "user", "content": message}]


def handle_structured_error(exception: BaseException, strategy: object) -> tuple:
    """Seed 003's ``_handle_structured_output_error``: ``(should_retry, feedback message)``.

    Types are matched against the error and its underlying cause (the ``source``).
    A callable returning None means "do not retry"; an exception it raises propagates.
    """
    if isinstance(strategy, ProviderStrategy) or not hasattr(strategy, "handle_errors"):
        return False, ""
    handle = strategy.handle_errors
    if handle is False:
        return False, ""
    if handle is True:
        return True, STRUCTURED_OUTPUT_ERROR_TEMPLATE.format(error=str(exception))
    if isinstance(handle, str):
        return True, handle
    if isinstance(handle, type) and issubclass(handle, BaseException):
        handle = (handle,)
    if isinstance(handle, tuple):
        if _matches(exception, handle):
            return True, STRUCTURED_OUTPUT_ERROR_TEMPLATE.format(error=str(exception))
        return False, ""
    if callable(handle):
        message = handle(exception)
        return (False, "") if message is None else (True, str(message))
    return False, ""


def _matches(exception: BaseException, types: tuple) -> bool:
    causes = (exception, getattr(exception, "source", None), exception.__cause__)
    return any(isinstance(c, types) for c in causes if c is not None)


@dataclasses.dataclass
class Attempt:
    """One model turn of a structured call, kept for telemetry."""

    number: int
    raw: str | None
    usage: Usage
    error: str | None = None
    error_type: str | None = None
    feedback: str | None = None

    def to_dict(self) -> dict:
        return {"number": self.number, "raw": self.raw, "usage": self.usage.to_dict(),
                "error": self.error, "error_type": self.error_type, "feedback": self.feedback}


@dataclasses.dataclass
class StructuredResult:
    """The validated data, and every attempt it took (usage summed across them).

    ``value`` is ``data`` with dataclass schemas built into instances (else ``data`` itself).
    """

    data: object
    attempts: list
    usage: Usage
    strategy: str
    repaired: list = dataclasses.field(default_factory=list)
    response: Response | None = None
    value: object = None

    @property
    def retries(self) -> int:
        return len(self.attempts) - 1

    def to_dict(self) -> dict:
        return {"data": self.data, "strategy": self.strategy, "usage": self.usage.to_dict(),
                "repaired": list(self.repaired), "attempts": [a.to_dict() for a in self.attempts]}


def complete_structured(provider, messages: list, strategy, *, stream: bool = False,
                        on_status: Callable | None = None, max_tokens: int | None = None,
                        temperature: float = 0.0) -> StructuredResult:
    """Ask ``provider`` until the answer fits ``strategy.schema`` or the policy says stop.

    Raises:
        StructuredOutputError: the last wrong answer, when handle_errors declines or the
            attempts run out; ``attempts`` and the summed ``usage`` are attached to it.
        TruncatedResponseError, ContentFilteredError, TransportError: straight from the
            provider (never fed back to the model), with ``attempts`` attached too.
    """
    transcript, options = strategy.request(messages)
    options.update(stream=stream, on_status=on_status, max_tokens=max_tokens, temperature=temperature)
    attempts: list = []
    for number in range(1, strategy.max_attempts + 1):
        response, parsed, error, raw, usage = _one_turn(provider, transcript, options, strategy,
                                                        attempts)
        if error is None:
            attempts.append(Attempt(number, raw, usage))
            data, repaired = parsed
            return StructuredResult(data, attempts, _total(attempts), type(strategy).__name__,
                                    repaired, response, strategy.field.build(data))
        should_retry, message = handle_structured_error(error, strategy)
        retry = should_retry and number < strategy.max_attempts
        attempts.append(Attempt(number, raw, usage, f"{type(error).__name__}: {error}",
                                type(error).__name__, message if retry else None))
        if not retry:
            raise _attach(error, attempts)
        emit(on_status, Status("structured_retry", f"↻ {type(error).__name__}; asking again "
                               f"({number + 1}/{strategy.max_attempts})", attempt=number + 1,
                               error=str(error)))
        transcript = transcript + strategy.feedback(response, error, message)
    raise AssertionError("unreachable: the last attempt either returns or raises")


def _one_turn(provider, transcript: list, options: dict, strategy, attempts: list) -> tuple:
    """``(response, (data, repairs) | None, error | None, raw, usage)`` for one model turn."""
    try:
        response = provider.complete(transcript, **options)
    except _MODEL_ERRORS as exc:
        if isinstance(exc, ContentFilteredError) or isinstance(strategy, ProviderStrategy):
            _failed(exc, attempts)
            raise
        raw = getattr(exc, "raw_arguments", None) or getattr(exc, "text", None)
        error = StructuredOutputValidationError(strategy.name, exc, raw=excerpt(raw or ""))
        return None, None, error, raw, _usage_of(exc)
    except DuaError as exc:
        # Transport failures (already retried by the transport), truncation, filters: not the
        # kind of mistake a second look fixes, so they are never fed back.
        _failed(exc, attempts)
        raise
    raw = _raw_of(response)
    if response.finish_reason == "length":
        # Providers raise this themselves; a duck-typed one might not, and a cut-off answer
        # must never be validated (or repaired) as if it were complete.
        exc = TruncatedResponseError(f"The answer was cut off by the token limit ({len(raw)} chars)",
                                     text=raw, usage=response.usage, finish_reason="length")
        _failed(exc, attempts)
        raise exc
    try:
        parsed = strategy.parse(response)
    except StructuredOutputError as error:
        return response, None, error, raw, response.usage
    return response, parsed, None, raw, response.usage


def _raw_of(response: Response) -> str:
    if response.tool_calls:
        return "\n".join(c.raw_arguments or json.dumps(c.arguments) for c in response.tool_calls)
    return response.text


def _usage_of(exc: BaseException) -> Usage:
    usage = getattr(exc, "usage", None)
    return usage if isinstance(usage, Usage) else Usage(calls=1)


def _total(attempts: list) -> Usage:
    total = Usage()
    for attempt in attempts:
        total = total + attempt.usage
    return total


def _failed(exc: DuaError, attempts: list) -> None:
    """Record a provider failure as the last attempt and hang every attempt on it."""
    attempts.append(Attempt(len(attempts) + 1, getattr(exc, "text", None), _usage_of(exc),
                            f"{type(exc).__name__}: {exc}", type(exc).__name__))
    _attach(exc, attempts)


def _attach(error: BaseException, attempts: list) -> BaseException:
    error.attempts = list(attempts)
    error.usage = _total(attempts)
    if isinstance(error, DuaError):
        error.details["attempt_errors"] = [a.error for a in attempts if a.error]
    return error
