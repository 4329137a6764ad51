"""What both providers share: the ``complete`` flow, body reading, usage accounting.

A provider subclass supplies its ``wire`` (payload -> Piece), ``endpoint``, ``headers``
and ``build_body``; everything else — retries, streaming, the ResponseHandler, turning
cut streams into errors — is here, once.
"""
from __future__ import annotations

import json
from typing import Callable

from ..errors import (InvalidStructureError, LLMConnectionError, LLMTimeoutError,
                      StreamInterruptedError, TransportError, UsageError, excerpt)
from .http_errors import error_from_event, parse_error_body
from .response import Response, ResponseHandler, Status, Usage, emit
from .sse import DONE, iter_events
from .transport import RetryPolicy, Transport, is_timeout

_READ_SIZE = 65536
# Sent when the caller names no limit: llama.cpp reads a missing max_tokens as "up to the
# context window", and a small model then runs for minutes (shared/notes/llm_wire.md).
DEFAULT_MAX_TOKENS = 2048


class Provider:
    """Base of the LLM providers; ``complete`` is the whole public interface."""

    name = ""
    wire = None
    api_root = ""  # the path a bare "http://host:port" base URL gets (Ollama's /v1…)

    def __init__(self, settings, *, retry: RetryPolicy | None = None,
                 connect_timeout: float = 10.0, clock: Callable | None = None,
                 sleep: Callable | None = None, rng: Callable | None = None):
        if not settings.model:
            raise UsageError(f"no model chosen for the {self.name} provider",
                             hint="Set --model or DUA_LLM_MODEL.")
        self.settings = settings
        self.model = settings.model
        self.base_url = api_base(settings.resolved_base_url or "", self.api_root)
        self._key = _header_key(settings.api_key)
        # Secrets themselves (not revealed text) so no repr of the transport shows them.
        self.transport = Transport(settings.timeout, connect_timeout, retry, clock=clock,
                                   sleep=sleep, rng=rng, secrets=(settings.api_key, self._key))
        self.usage = Usage()  # summed over every call this provider made (agents report it)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, model={self.model!r})"

    def complete(self, messages: list, tools: list | None = None,
                 response_format: dict | None = None, stream: bool = False,
                 on_status: Callable | None = None, tool_choice: str | None = None,
                 max_tokens: int | None = None, temperature: float = 0.0) -> Response:
        """One model turn: send ``messages`` and return the checked, normalised answer.

        Raises:
            UsageError: malformed messages, tools or options (a programming error).
            TransportError: the server could not be reached or said no (after retries).
            ResponseError: the server answered, but not usefully (seed 002).
        """
        check_request(messages, tools, tool_choice, response_format)
        if max_tokens is None:
            max_tokens = DEFAULT_MAX_TOKENS
        body = self.build_body(messages, tools, response_format, stream, tool_choice,
                               max_tokens, temperature)
        reader = self._read_stream if stream else self._read_whole

        def read(resp, deadline):
            # A fresh handler per attempt: a retried stream must not inherit the refusal,
            # finish reason or raw chunks of the attempt that broke.
            handler = ResponseHandler(self.wire, on_status, streaming=stream, model=self.model,
                                      require_tool=tool_choice not in (None, "auto", "none"))
            return reader(handler, resp, deadline)

        sent = self.transport.requests_sent
        try:
            response = self.transport.post(self.endpoint(stream), self.headers(), body, read,
                                           on_status=on_status, provider=self.name,
                                           model=self.model)
        except Exception as exc:
            usage = getattr(exc, "usage", None)
            self._count(usage if isinstance(usage, Usage) else Usage(), sent)
            raise
        self._count(response.usage, sent)
        return response

    def _count(self, usage: Usage, sent: int) -> None:
        """Add one call's tokens, and every HTTP request it took (the transport's retries
        included: each costs the server a prompt evaluation), to ``self.usage``."""
        requests = self.transport.requests_sent - sent
        self.usage = self.usage + Usage(usage.input_tokens, usage.output_tokens,
                                        requests)

    # Provider hooks, defined by each subclass: endpoint(stream) -> url, headers() -> dict,
    # build_body(messages, tools, response_format, stream, tool_choice, max_tokens,
    # temperature) -> dict, and the class attributes ``name`` and ``wire``.

    @property
    def api_key(self) -> str:
        return self._key.reveal() if self._key else ""

    # -- reading bodies -------------------------------------------------------------------

    def _read_whole(self, handler: ResponseHandler, resp, deadline: float) -> Response:
        body = _read_body(resp, deadline, self.transport.clock)
        payload = _decode_json(body, resp.headers.get("content-type", ""), self.name)
        self._raise_error_body(payload)
        handler.validate_response(payload)
        handler.process_chunk(payload)
        return handler.get_final_response()

    def _read_stream(self, handler: ResponseHandler, resp, deadline: float) -> Response:
        ctype = resp.headers.get("content-type", "")
        if "event-stream" not in ctype:
            # A server that ignored "stream" (or put an error in a 200) answers in one piece.
            handler.streaming = False
            return self._read_whole(handler, resp, deadline)
        try:
            for event in iter_events(resp.readline, deadline, self.transport.clock):
                if event.data == DONE:
                    handler.mark_done()
                    break  # anything after [DONE] is ignored
                if event.event == "error":
                    raise self._event_error(_loads_or_none(event.data), event.data, handler)
                payload = _event_json(event)
                if isinstance(payload, dict) and _is_error(payload):
                    raise self._event_error(payload, event.data, handler)
                handler.process_chunk(payload)
        except (OSError, LLMTimeoutError) as exc:
            raise _interrupted(handler, exc, self.name) from exc
        except Exception as exc:
            if type(exc).__module__ != "http.client":  # IncompleteRead: a cut chunked body
                raise
            raise _interrupted(handler, exc, self.name) from exc
        return handler.get_final_response()

    def _event_error(self, payload: object, data: str, handler: ResponseHandler) -> TransportError:
        # llama.cpp's legacy ``error:`` field carries the error object itself, unwrapped.
        err = parse_error_body(payload) or (payload if isinstance(payload, dict) else None)
        exc = error_from_event(err or {"message": data}, provider=self.name,
                               secrets=self.transport.secrets)
        # What the model wrote before the error is kept with it, not silently dropped.
        exc.partial_text = exc.details["partial_text"] = handler.text
        exc.usage = handler.usage
        return exc

    def _raise_error_body(self, payload: object) -> None:
        if isinstance(payload, (dict, list)) and _is_error(payload):
            raise error_from_event(parse_error_body(payload), provider=self.name,
                                   secrets=self.transport.secrets)


def api_base(raw: str, root: str) -> str:
    """The base URL requests are built on, forgiving how users write it.

    ``http://localhost:11434``, ``…/v1``, ``…/v1/`` and a pasted ``…/v1/chat/completions``
    all mean the same server; a bare host gets the provider's ``root`` path, because
    posting to ``/chat/completions`` there answers a 404 that reads like a bad model.

    Raises:
        UsageError: not an http(s) URL with a host (urllib would fail on every retry).
    """
    import urllib.parse  # lazy: keeps import dua fast

    url = raw.strip().rstrip("/")
    for suffix in ("/chat/completions", "/models"):
        if url.endswith(suffix):
            url = url[:-len(suffix)]
    parts = urllib.parse.urlsplit(url)
    if parts.query or parts.fragment or "@" in parts.netloc:
        # Users paste "?key=…" or "user:key@host"; the key must not travel in a URL that
        # reprs, logs and error messages show, so refuse it without echoing it.
        raise UsageError(f"the LLM base URL for {parts.hostname or 'the server'} carries a query "
                         "or credentials; give only http(s)://host[:port][/path]",
                         hint="Put the key in DUA_LLM_API_KEY and the rest in DUA_LLM_BASE_URL.")
    try:
        port_ok = parts.port is None or parts.port > 0
    except ValueError:
        port_ok = False
    if parts.scheme not in ("http", "https") or not parts.hostname or not port_ok \
            or any(c.isspace() for c in url):
        raise UsageError(f"the LLM base URL {raw!r} is not an http(s)://host[:port][/path] URL",
                         hint="Set --base-url or DUA_LLM_BASE_URL, e.g. "
                              "http://localhost:11434/v1.")
    return url if parts.path else url + root


def _header_key(key):
    """The API key as a header can carry it: without the newline a key file ends with.

    Raises:
        UsageError: spaces, control or non-ASCII characters inside the key; http.client
            would refuse the header on every retry and quote the key in its message.
    """
    if not key:
        return key
    stripped = type(key)(key.reveal().strip()) if hasattr(key, "reveal") else key.strip()
    if not all(33 <= ord(c) < 127 for c in stripped):
        raise UsageError("the API key has spaces, control or non-ASCII characters in it",
                         hint="Set DUA_LLM_API_KEY to the key alone.")
    return stripped


def _is_error(payload: object) -> bool:
    if isinstance(payload, list):
        return len(payload) == 1 and _is_error(payload[0])
    return isinstance(payload, dict) and (
        payload.get("error") is not None or payload.get("object") == "error")


def _interrupted(handler: ResponseHandler, exc: BaseException, provider: str) -> TransportError:
    """A cut stream: retryable if nothing reached the caller yet, else StreamInterruptedError."""
    timeout = is_timeout(exc)
    what = "read timed out" if timeout and not isinstance(exc, LLMTimeoutError) else \
        f"{type(exc).__name__}: {exc}"
    if not handler.delivered:
        cls = LLMTimeoutError if timeout else LLMConnectionError
        return cls(f"the {provider} stream broke before any output ({what})")
    emit(handler.status_callback, Status("interrupted", f"⚠️ Stream interrupted: {what}"))
    return StreamInterruptedError(
        f"the stream was interrupted after {handler.chunk_count} chunks ({what})",
        text=handler.text, usage=handler.usage, cause=what)


def _read_body(resp, deadline: float, clock: Callable) -> bytes:
    """The whole body, with the total deadline checked between reads."""
    parts = []
    # read1 returns what has arrived; read(n) would wait for n bytes and let a server
    # that trickles its answer outlive the deadline.
    read = getattr(resp, "read1", resp.read)
    while True:
        try:
            block = read(_READ_SIZE)
        except Exception as exc:
            if is_timeout(exc):
                raise LLMTimeoutError(f"the server stopped sending mid-answer ({exc})") from exc
            if not isinstance(exc, OSError) and type(exc).__module__ != "http.client":
                raise
            raise LLMConnectionError(f"the answer was cut off ({type(exc).__name__})") from exc
        if not block:
            return b"".join(parts)
        parts.append(block)
        if clock() > deadline:
            raise LLMTimeoutError("the answer ran past its total deadline")


def _decode_json(body: bytes, ctype: str, provider: str) -> object:
    try:
        return json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nesting too deep is not an answer
        raise InvalidStructureError("a JSON answer", f"{ctype or 'no content-type'}: "
                                    f"{excerpt(body.decode('utf-8', 'replace'), 200)}",
                                    provider=provider) from None


def _loads_or_none(data: str) -> object:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _event_json(event) -> object:
    try:
        return json.loads(event.data)
    except (ValueError, RecursionError):
        raise InvalidStructureError("a JSON event", excerpt(event.data, 120),
                                    event_index=event.index) from None


def check_request(messages: object, tools: object, tool_choice: object,
                  response_format: object) -> None:
    """Reject malformed arguments to ``complete`` with a UsageError naming the problem."""
    if not isinstance(messages, list) or not messages:
        raise UsageError("messages must be a non-empty list of {'role', 'content'} dicts")
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in (
                "system", "user", "assistant", "tool"):
            raise UsageError(f"messages[{i}] needs a role of system, user, assistant or tool")
    names = []
    for i, tool in enumerate(tools or ()):
        if not isinstance(tool, dict) or not isinstance(tool.get("name"), str):
            raise UsageError(f"tools[{i}] needs a 'name' (and 'description', 'parameters')")
        names.append(tool["name"])
    if tool_choice not in (None, "auto", "none", "required") and tool_choice not in names:
        raise UsageError(f"tool_choice {tool_choice!r} is not auto, required, none or a tool name")
    if response_format is not None and (not isinstance(response_format, dict) or response_format.get(
            "type") not in ("json_object", "json_schema", "text")):
        raise UsageError("response_format must be {'type': 'json_object'} or "
                         "{'type': 'json_schema', 'name': …, 'schema': {…}}")
    if isinstance(response_format, dict) and response_format.get("type") == "json_schema" and \
            not isinstance(response_format.get("schema"), dict):
        raise UsageError("a json_schema response_format needs a 'schema' dict")
