"""Seed 002's three user-facing messages (empty, validation, generic) for LLM failures.

Each ends with a "Technical details:" line so a user report carries what a developer
needs (error code, provider message, request id) without a traceback.
"""
from __future__ import annotations

from ..errors import DuaError, EmptyResponseError, ResponseValidationError


def format_error_message(error: BaseException) -> str:
    """The right one of the three messages for ``error``."""
    if isinstance(error, EmptyResponseError):
        return format_empty_response_message(error)
    if isinstance(error, ResponseValidationError):
        return format_validation_error_message(error)
    return format_generic_error_message(error)


def format_empty_response_message(error: EmptyResponseError) -> str:
    """Seed 002's message for an empty answer."""
    reason = getattr(error, "reason", "") or str(error)
    return (
        "The AI returned an empty response. This can happen if:\n"
        "• The request was unclear or too complex\n"
        "• The model encountered an internal error\n"
        "• Rate limiting or quota issues\n\n"
        "Please try:\n"
        "• Rephrasing your request more clearly\n"
        "• Breaking complex requests into smaller steps\n"
        f"\nTechnical details: {_details(error, reason)}"
    )


def format_validation_error_message(error: ResponseValidationError) -> str:
    """Seed 002's message for an answer of the wrong shape."""
    expected = getattr(error, "expected", "") or "a valid response"
    got = getattr(error, "got", "") or "something else"
    return (
        "Received an unexpected response format from the AI.\n"
        f"Expected: {expected}\n"
        f"Got: {got}\n\n"
        "This may be a temporary API issue. Please try again.\n"
        f"\nTechnical details: {_details(error, str(error))}"
    )


def format_generic_error_message(error: BaseException) -> str:
    """Seed 002's message for anything else (transport errors included)."""
    hint = getattr(error, "hint", "") if isinstance(error, DuaError) else ""
    advice = hint or "Please check your internet connection and try again."
    return (
        "An error occurred while communicating with the AI:\n"
        f"{type(error).__name__}: {error}\n\n"
        f"{advice}\n"
        f"\nTechnical details: {_details(error, str(error))}"
    )


def _details(error: BaseException, what: str) -> str:
    parts = [getattr(error, "error_code", type(error).__name__), what]
    for name in ("status", "request_id", "finish_reason", "attempts"):
        value = getattr(error, name, None)
        if value not in (None, ""):
            parts.append(f"{name}={value}")
    return "; ".join(str(p) for p in parts if p)
