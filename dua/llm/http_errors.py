"""HTTP error answers (OpenAI-style, Gemini-style, llama.cpp, HTML) as typed dua errors.

One table for both wire formats: the status picks the family, the body refines it
(quota vs rate limit, Gemini's invalid key on a 400, context length). Waits the server
asks for are read from ``retry-after-ms``, ``Retry-After`` (seconds or HTTP date),
Gemini's ``RetryInfo.retryDelay`` and "try again in 644ms" text, in that order.
"""
from __future__ import annotations

import json
import re
import time
from typing import Mapping, Sequence

from ..errors import (AuthenticationError, BadRequestError, ContextLengthError, LLMTimeoutError,
                      ModelNotFoundError, ProviderError, QuotaExceededError, RateLimitError,
                      ServerError, TransportError, excerpt)

_REQUEST_ID_HEADERS = ("x-request-id", "request-id", "x-goog-request-id", "x-amzn-requestid")
_CONTEXT_MARKERS = ("context_length_exceeded", "exceed_context_size", "maximum context length",
                    "context window", "too many tokens", "exceeds the available context",
                    "input token count")
_QUOTA_MARKERS = ("insufficient_quota", "check your plan and billing", "billing details")
_AUTH_MARKERS = ("api_key_invalid", "api key not valid", "invalid_api_key", "authentication_error",
                 "incorrect api key")
_TRY_AGAIN = re.compile(r"(?:try again|retry) in ([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\b", re.I)
_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)s\s*$")


def redact(text: str, secrets: Sequence[str]) -> str:
    """``text`` with every secret replaced by ``****`` (servers do echo keys back)."""
    for secret in secrets:
        if secret and len(secret) >= 4 and secret in text:
            text = text.replace(secret, "****")
    return text


def parse_error_body(body: bytes | str | object) -> dict:
    """The error object of a body in any known shape, as a dict (empty when unknown)."""
    if isinstance(body, (bytes, str)):
        try:
            body = json.loads(body)
        except (ValueError, UnicodeDecodeError, RecursionError):
            return {}
    if isinstance(body, list) and body:  # Gemini sometimes wraps the error in a list
        body = body[0]
    if not isinstance(body, dict):
        return {}
    err = body.get("error", body if body.get("object") == "error" else None)
    if isinstance(err, str):
        return {"message": err}
    if isinstance(err, dict):
        return err
    if isinstance(body.get("detail"), str):  # FastAPI's 404 shape
        return {"message": body["detail"]}
    return {}


def error_from_status(status: int, headers: Mapping[str, str], body: bytes, *, provider: str = "",
                      model: str = "", secrets: Sequence[str] = (), url: str = "") -> TransportError:
    """The typed error for an HTTP error answer, carrying status, message and request id."""
    err = parse_error_body(body)
    message = _provider_message(err, body, secrets)
    request_id = next((headers.get(h) for h in _REQUEST_ID_HEADERS if headers.get(h)), None)
    cls = _classify(status, err, message)
    text = f"HTTP {status} from {provider or 'the LLM server'}: {message}"
    hint = None
    if cls is ModelNotFoundError and _no_such_endpoint(err, message):
        # A model server names its 404s (not_found_error, NOT_FOUND); a bare one means the
        # path is wrong, and blaming the model would send the user to the wrong setting.
        text += f" (no LLM API at {url.split('?', 1)[0] or 'that URL'})"
        hint = ("Check --base-url / DUA_LLM_BASE_URL: OpenAI-compatible servers usually end in "
                "/v1, Gemini's in /v1beta.")
    elif cls is ModelNotFoundError and model and model not in message:
        text += f" (model {model!r})"
    elif err.get("code") == "content_filter":  # Azure refuses the prompt itself with a 400
        hint = "The provider's content filter refused the prompt; sending it again will not help."
    if request_id:
        text += f" [request id {request_id}]"
    retry_after = None
    if cls in (RateLimitError, ServerError, LLMTimeoutError):
        retry_after = retry_after_from(headers, err, message)
    exc = cls(text, hint=hint, status=status, provider_message=message, request_id=request_id,
              code=err.get("code"), error_kind=err.get("type") or err.get("status"),
              retry_after=retry_after)
    exc.should_retry = _should_retry(headers)
    return exc


def error_from_event(err: dict, *, provider: str = "", secrets: Sequence[str] = ()) -> TransportError:
    """The typed error for an error object inside a 200 answer or a stream."""
    message = _provider_message(err, b"", secrets)
    code = err.get("code")
    blob = f"{message} {err.get('type') or ''} {code or ''}".lower()
    cls = ContextLengthError if any(m in blob for m in _CONTEXT_MARKERS) else ProviderError
    return cls(f"{provider or 'The LLM server'} reported an error: {message}",
               provider_message=message, code=code, error_kind=err.get("type") or err.get("status"),
               status=code if isinstance(code, int) else None)


def _provider_message(err: dict, body: bytes | str, secrets: Sequence[str]) -> str:
    # Redact before cutting: an excerpt can end inside an echoed key and hide it from redact.
    message = err.get("message")
    if isinstance(message, str) and message:
        return excerpt(redact(message, secrets), 300)
    raw = body.decode("utf-8", "replace") if isinstance(body, bytes) else str(body)
    raw = re.sub(r"<[^>]+>", " ", raw)  # an HTML error page: keep its words, not its tags
    return excerpt(" ".join(redact(raw, secrets).split()), 200) or "(empty body)"


def _no_such_endpoint(err: dict, message: str) -> bool:
    """A 404 without a provider's error kind (FastAPI's detail, HTML, empty) or "Invalid URL"."""
    kind = err.get("type") or err.get("status") or err.get("code")
    return not kind or "invalid url" in message.lower()


def _classify(status: int, err: dict, message: str) -> type:
    kind = f"{err.get('type') or ''} {err.get('code') or ''} {err.get('status') or ''}"
    blob = f"{message} {kind} {_reasons(err)}".lower()
    if status in (401, 403) or any(m in blob for m in _AUTH_MARKERS):
        return AuthenticationError
    if status == 429 or "resource_exhausted" in blob:
        return QuotaExceededError if _is_quota(err, blob) else RateLimitError
    if status == 402:  # OpenRouter's "insufficient credits": billing, like a spent quota
        return QuotaExceededError
    if status == 404:
        return ModelNotFoundError
    if status == 408:
        return LLMTimeoutError
    if any(m in blob for m in _CONTEXT_MARKERS):
        return ContextLengthError
    if status == 501 or (status == 500 and "validation error" in blob):
        # Not implemented, or llama-cpp-python's 500 for a request it will never accept
        # (a pydantic dump: json_schema, content null…): a retry asks the same question.
        return BadRequestError
    if status >= 500 or status == 409:
        return ServerError
    return BadRequestError


def _reasons(err: dict) -> str:
    """Gemini's ErrorInfo reasons and QuotaFailure quota ids, as one string."""
    details = err.get("details")
    reasons = [str(d.get("reason") or "") for d in details if isinstance(d, dict)] \
        if isinstance(details, list) else []
    return " ".join(reasons + _quota_ids(err))


def _quota_ids(err: dict) -> list:
    details = err.get("details")
    ids = []
    for detail in details if isinstance(details, list) else ():
        violations = detail.get("violations") if isinstance(detail, dict) else None
        for violation in violations if isinstance(violations, list) else ():
            if isinstance(violation, dict):
                ids.append(str(violation.get("quotaId") or ""))
    return ids


def _is_quota(err: dict, blob: str) -> bool:
    """A 429 that waiting will not fix: billing quota, or a Gemini per-day quota.

    Gemini's quota ids decide when present: its per-minute 429 also says "check your plan
    and billing details", yet it clears after the RetryInfo delay.
    """
    ids = _quota_ids(err)
    if ids:
        return any("perday" in i.lower() for i in ids)
    return any(m in blob for m in _QUOTA_MARKERS)


def _should_retry(headers: Mapping[str, str]) -> bool | None:
    value = (headers.get("x-should-retry") or "").strip().lower()
    return True if value == "true" else False if value == "false" else None


def retry_after_from(headers: Mapping[str, str], err: dict, message: str = "",
                     now: float | None = None) -> float | None:
    """Seconds the server asked us to wait, or None when it did not say (or said nonsense)."""
    ms = _number(headers.get("retry-after-ms"))
    if ms is not None:
        return ms / 1000.0
    value = headers.get("retry-after")
    if value:
        seconds = _number(value)
        if seconds is None:
            seconds = _http_date_delay(value, now)
        if seconds is not None:
            return seconds
    delay = _retry_info_delay(err)
    if delay is not None:
        return delay
    match = _TRY_AGAIN.search(message or "")
    if match:
        return float(match.group(1)) / (1000.0 if match.group(2).lower() == "ms" else 1.0)
    return None


def _number(value: object) -> float | None:
    try:
        number = float(str(value).strip())
    except (TypeError, ValueError):
        return None
    return number if number >= 0 and number == number and number != float("inf") else None


def _http_date_delay(value: str, now: float | None) -> float | None:
    import email.utils  # lazy: keeps import dua fast

    try:
        when = email.utils.parsedate_to_datetime(value.strip())
    except (TypeError, ValueError, IndexError):
        return None
    if when is None or when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _retry_info_delay(err: dict) -> float | None:
    details = err.get("details")
    for detail in details if isinstance(details, list) else ():
        if isinstance(detail, dict) and str(detail.get("@type", "")).endswith("RetryInfo"):
            match = _DURATION.match(str(detail.get("retryDelay", "")))
            if match:
                return float(match.group(1))
    return None
