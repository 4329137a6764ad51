"""LLM text → JSON, with seed 000's result dicts: ``parse_llm_response`` never raises.

The decision order is the seed's: empty → ``EmptyLLMResponse``; not starting with ``{`` or
``[`` → ``InvalidLLMResponseFormat``; ``json.loads`` fails → ``JSONDecodeError``; the schema
rejects it → ``SchemaValidationError``; anything else → ``UnexpectedParsingError``.
"""
from __future__ import annotations

import json

from ..errors import SchemaError
from ._fences import strip_fences
from .schema import as_schema, summarize

ERROR_TYPES = ("EmptyLLMResponse", "InvalidLLMResponseFormat", "JSONDecodeError",
               "SchemaValidationError", "UnexpectedParsingError")
SUCCESS_KEYS = ("status", "data")
ERROR_KEYS = ("status", "error_type", "message", "original_content", "cleaned_content")
# ast.literal_eval builds a syntax tree first: bound what lenient mode hands it.
_LITERAL_MAX_CHARS = 1_000_000
_LITERAL_MAX_DEPTH = 100


class ParseFailure(Exception):
    """One of seed 000's error outcomes; ``cause`` is the underlying exception, if any."""

    def __init__(self, error_type: str, message: str, cleaned: str | None,
                 cause: BaseException | None = None):
        super().__init__(message)
        self.error_type, self.message, self.cleaned, self.cause = error_type, message, cleaned, cause


def parse_llm_response(raw: object, schema: object = None, lenient: bool = False,
                       conform: bool = False) -> dict:
    """Seed 000's ``parse_llm_classification_response`` for any schema; never raises on ``raw``.

    Returns ``{"status": "success", "data": …}`` or ``{"status": "error", "error_type",
    "message", "original_content", "cleaned_content"}``. With ``lenient=True`` unambiguous
    slips (trailing commas, a Python-literal dict) are repaired and the success dict gains
    ``"repaired": [kinds]``. With ``conform=True`` an answer that clearly names what the
    schema can take (``"heading level 3"``) is mapped to it first (``dua.llm.conform``), each
    mapping listed in ``"repaired"`` too. A malformed ``schema`` argument is a programming error and raises
    ``TypeError`` before ``raw`` is looked at.
    """
    field = None if schema is None else as_schema(schema)
    try:
        data, repairs = load_llm_json(raw, field, lenient, conform)
    except ParseFailure as failure:
        return _error(failure.error_type, failure.message, raw, failure.cleaned)
    except Exception as exc:  # why: the seed's contract is that classification never crashes
        return _error("UnexpectedParsingError", f"{type(exc).__name__}: {exc}", raw, None)
    result = {"status": "success", "data": data}
    if repairs:
        result["repaired"] = repairs
    return result


def load_llm_json(raw: object, schema: object = None, lenient: bool = False,
                  conform: bool = False) -> tuple:
    """``(data, repairs)`` for a model's reply; ``repairs`` lists what lenient mode fixed
    and, with ``conform``, what was mapped to the schema's own names.

    Raises:
        ParseFailure: with seed 000's ``error_type``, the message and the cleaned text.
    """
    text = _as_text(raw)
    if text is None:
        raise ParseFailure("EmptyLLMResponse", "The LLM response is empty (None).", None)
    cleaned, blocks = strip_fences(text)
    if not cleaned:
        what = "empty" if not text.strip(" \t\r\n\ufeff") else "empty after removing code fences"
        raise ParseFailure("EmptyLLMResponse", f"The LLM response is {what}.", cleaned)
    if cleaned[0] not in "{[":
        raise ParseFailure("InvalidLLMResponseFormat", _format_message(cleaned, blocks), cleaned)
    data, repairs = _decode(cleaned, lenient)
    field = None if schema is None else as_schema(schema)
    if conform and field is not None:
        from .conform import conform as to_schema  # lazy: only callers that ask pay for it

        data, mapped = to_schema(data, field)
        repairs = repairs + mapped
    if field is not None:
        problems = field.validate(data)
        if problems:
            raise ParseFailure("SchemaValidationError", "The JSON does not match the schema: "
                               + summarize(problems), cleaned, SchemaError(problems))
    return data, repairs


def _as_text(raw: object) -> str | None:
    if raw is None or isinstance(raw, str):
        return raw
    if isinstance(raw, (bytes, bytearray)):
        try:
            return bytes(raw).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseFailure("InvalidLLMResponseFormat", f"The LLM response is not UTF-8 text: {exc}",
                               None, exc) from None
    raise ParseFailure("UnexpectedParsingError",
                       f"Expected the LLM response as text, got {type(raw).__name__}.", None)


def _format_message(cleaned: str, blocks: int) -> str:
    if blocks > 1:
        return (f"The LLM response has {blocks} fenced code blocks; expected exactly one JSON "
                "object or array.")
    start = cleaned[:60].replace("\n", " ")
    return f"The LLM response is not JSON: it starts with {start!r}, not '{{' or '['."


def _reject_constant(name: str) -> object:
    # Python's json accepts NaN and Infinity; JSON does not, and neither do other parsers.
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        # 1e999 overflows to inf, which json.dumps would write back as non-JSON "Infinity".
        raise ValueError(f"{text} is out of range for a JSON number")
    return value


def loads_json(text: str) -> object:
    """``json.loads`` that accepts only what JSON allows: no NaN, Infinity or overflowing floats."""
    return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float)


def _decode(cleaned: str, lenient: bool) -> tuple:
    try:
        return loads_json(cleaned), []
    except json.JSONDecodeError as exc:
        error: Exception = exc
        message = f"Invalid JSON: {exc}"
    except ValueError as exc:
        error, message = exc, f"Invalid JSON: {exc}"
    except RecursionError as exc:
        raise ParseFailure("UnexpectedParsingError", "The JSON is nested too deeply to parse "
                           "(RecursionError).", cleaned, exc) from None
    if lenient:
        from ._repair import repair
        repaired = repair(cleaned, _LITERAL_MAX_CHARS, _LITERAL_MAX_DEPTH)
        if repaired is not None:
            return repaired
    raise ParseFailure("JSONDecodeError", message, cleaned, error)


def _error(error_type: str, message: str, raw: object, cleaned: str | None) -> dict:
    original = raw
    if isinstance(raw, (bytes, bytearray)):
        original = bytes(raw).decode("utf-8", "replace")
    elif raw is not None and not isinstance(raw, str):
        original = repr(raw)
    return {"status": "error", "error_type": error_type, "message": message,
            "original_content": original, "cleaned_content": cleaned}
