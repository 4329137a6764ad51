"""JSON POST over urllib with connect/read timeouts, a total deadline, and retries.

It owns the attempt loop (backoff with full jitter, Retry-After and friends, the budget)
and turning urllib/socket failures into ``dua.errors``; mapping HTTP error bodies to
classes lives in ``http_errors``. It never reads the environment (no proxies from it)
and never puts the API key in a message.
"""
from __future__ import annotations

import dataclasses
import json
import logging
import random
import time
from typing import Callable, Sequence

from ..errors import (DuaError, LLMConnectionError, LLMTimeoutError, RateLimitError, ServerError,
                      TransportError)
from .http_errors import error_from_status, redact
from .response import Status, emit

_RETRYABLE = (LLMConnectionError, LLMTimeoutError, RateLimitError, ServerError)
log = logging.getLogger("dua.llm")


@dataclasses.dataclass(frozen=True)
class RetryPolicy:
    """How hard one call tries: attempts, backoff and the wall-clock budget.

    ``budget`` bounds one call including its waits (None: five times the read timeout);
    a server that asks for a wait longer than ``max_wait`` or the remaining budget is not
    waited for: the call fails at once with the server's figure in the message.
    """

    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_max: float = 8.0
    budget: float | None = None
    max_wait: float = 60.0

    def backoff(self, attempt: int, rng: Callable[[], float]) -> float:
        """Full jitter (AWS architecture blog): uniform in [0, min(cap, base * 2**(n-1))]."""
        return rng() * min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1))


class Transport:
    """Sends one JSON request per attempt and hands the open response to ``read``.

    ``read(response, deadline)`` consumes the body; if it raises a retryable transport error
    (it does so only while nothing has reached the caller yet) the attempt is retried.
    """

    def __init__(self, read_timeout: float = 60.0, connect_timeout: float = 10.0,
                 retry: RetryPolicy | None = None, *, clock: Callable[[], float] | None = None,
                 sleep: Callable[[float], None] | None = None,
                 rng: Callable[[], float] | None = None, secrets: Sequence[str] = ()):
        self.read_timeout = read_timeout
        self.connect_timeout = min(connect_timeout, read_timeout)
        self.retry = retry or RetryPolicy()
        self.clock = clock or time.monotonic
        self.sleep = sleep or time.sleep
        self.rng = rng or random.random
        self.secrets = tuple(s for s in secrets if s)
        self.requests_sent = 0
        # The run's total LLM deadline (a ``clock()`` value) or None; it bounds every
        # attempt, wait and socket read of every call (dua.llm.session sets it).
        self.deadline: float | None = None
        self._opener = None

    def __repr__(self) -> str:
        return f"Transport(read_timeout={self.read_timeout}, retry={self.retry})"

    @property
    def budget(self) -> float:
        return self.retry.budget if self.retry.budget is not None else 5 * self.read_timeout

    def post(self, url: str, headers: dict, body: dict, read: Callable, *,
             on_status: Callable | None = None, provider: str = "", model: str = ""):
        """POST ``body`` as JSON and return ``read(response, deadline)``, retrying as the policy allows.

        Raises:
            TransportError: the last attempt's typed error (status, provider message,
                request id, attempts); ResponseError subclasses from ``read`` pass through.
        """
        data = json.dumps(body, separators=(",", ":")).encode("utf-8")
        deadline = self.clock() + self.budget
        if self.deadline is not None:
            deadline = min(deadline, self.deadline)
        failures: list = []
        attempt = 0
        while True:
            attempt += 1
            emit(on_status, Status("request", "⏳ Sending message to AI...", attempt=attempt))
            log.debug("POST %s (attempt %d, %d bytes)", url, attempt, len(data))
            try:
                response = self._open(url, headers, data, deadline, provider, model)
                try:
                    return read(response, deadline)
                finally:
                    response.close()
            except TransportError as exc:
                failures.append(_describe(exc))
                wait = self._wait_before_retry(exc, attempt, deadline, failures)
            log.warning("%s: %s; retrying in %.2f s", provider or "LLM", failures[-1], wait)
            emit(on_status, Status("retry", f"🔁 Retrying in {wait:.1f}s (attempt {attempt + 1} of "
                                            f"{self.retry.max_retries + 1}): {failures[-1]}",
                                   attempt=attempt + 1, wait=wait, reason=failures[-1]))
            self.sleep(wait)

    def _wait_before_retry(self, exc: TransportError, attempt: int, deadline: float,
                           failures: list) -> float:
        """Seconds to wait before the next attempt, or re-raise ``exc`` when that is pointless."""
        should = getattr(exc, "should_retry", None)
        retry = isinstance(exc, _RETRYABLE) if should is None else should
        _record(exc, attempt, failures)
        if not retry:
            raise exc
        if attempt > self.retry.max_retries:
            _amend(exc, f"gave up after {attempt} attempt{'s' if attempt > 1 else ''}")
            raise exc
        asked = getattr(exc, "retry_after", None)
        wait = asked if asked is not None else self.retry.backoff(attempt, self.rng)
        remaining = deadline - self.clock()
        if wait > min(self.retry.max_wait, remaining):
            source = "server asked to wait" if asked is not None else "backoff needs"
            _amend(exc, f"{source} {wait:g} s, more than the {max(remaining, 0):.0f} s left "
                        "in the retry budget; not retried")
            raise exc
        return max(wait, 0.0)

    def _open(self, url: str, headers: dict, data: bytes, deadline: float, provider: str,
              model: str):
        """One attempt up to the response headers; every failure becomes a TransportError."""
        import urllib.error  # lazy: keeps import dua fast
        import urllib.request  # lazy: keeps import dua fast

        remaining = deadline - self.clock()
        if remaining <= 0:
            raise LLMTimeoutError(f"no time left in the {self.budget:g} s budget for {provider}")
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        self.requests_sent += 1
        try:
            return self._get_opener().open(request, timeout=min(self.connect_timeout, remaining))
        except urllib.error.HTTPError as exc:
            with exc:
                body = _read_error_body(exc)
            raise error_from_status(exc.code, exc.headers, body, provider=provider, model=model,
                                    secrets=self.secrets, url=url) from None
        except urllib.error.URLError as exc:
            raise _os_error(exc.reason, url, self.secrets) from exc
        except OSError as exc:  # a timeout or reset while reading the status line
            raise _os_error(exc, url, self.secrets) from exc
        except Exception as exc:  # http.client.HTTPException: a garbled status line
            raise LLMConnectionError(f"bad HTTP answer from {_host(url)}: {type(exc).__name__}: "
                                     f"{redact(str(exc), self.secrets)}") from exc

    def _get_opener(self):
        if self._opener is None:
            self._opener = build_opener(self.connect_timeout, self._read_timeout)
        return self._opener

    def _read_timeout(self) -> float:
        """The socket read timeout: the configured one, cut to what the run deadline leaves."""
        if self.deadline is None:
            return self.read_timeout
        return max(0.05, min(self.read_timeout, self.deadline - self.clock()))


def build_opener(connect_timeout: float, read_timeout: float):
    """A urllib opener whose sockets connect within one timeout and then read with another.

    Proxies are decided, not inherited: ``ProxyHandler({})`` ignores ``*_proxy`` variables,
    because ``Settings`` is the only door to the environment.
    """
    import http.client  # lazy: keeps import dua fast
    import urllib.request  # lazy: keeps import dua fast

    def _connected(conn, connect):
        conn.timeout = connect_timeout
        connect(conn)
        # urllib's timeout would be idle-per-read for both; a callable is asked per request.
        conn.sock.settimeout(read_timeout() if callable(read_timeout) else read_timeout)

    class _HTTP(http.client.HTTPConnection):
        def connect(self):
            _connected(self, http.client.HTTPConnection.connect)

    class _HTTPS(http.client.HTTPSConnection):
        def connect(self):
            _connected(self, http.client.HTTPSConnection.connect)

    class _HTTPHandler(urllib.request.HTTPHandler):
        def http_open(self, req):
            return self.do_open(_HTTP, req)

    class _HTTPSHandler(urllib.request.HTTPSHandler):
        def https_open(self, req):
            return self.do_open(_HTTPS, req, context=self._context)

    return urllib.request.build_opener(urllib.request.ProxyHandler({}), _HTTPHandler,
                                       _HTTPSHandler)


def _read_error_body(exc) -> bytes:
    try:
        return exc.read(65536) or b""
    except Exception:  # the error body itself was cut: the status is still the news
        return b""


def is_timeout(exc: object) -> bool:
    """Whether a socket error is a timeout (``socket.timeout`` is apart from TimeoutError on 3.9)."""
    return isinstance(exc, TimeoutError) or type(exc).__name__ == "timeout"


def _os_error(reason: object, url: str, secrets: Sequence[str]) -> TransportError:
    """A socket-level failure as LLMTimeoutError or LLMConnectionError."""
    text = redact(f"{type(reason).__name__}: {reason}", secrets)
    if is_timeout(reason) or "timed out" in str(reason):
        return LLMTimeoutError(f"{_host(url)} did not answer in time ({text})")
    return LLMConnectionError(f"could not reach {_host(url)} ({text})")


def _host(url: str) -> str:
    rest = url.split("://", 1)[-1]
    return rest.split("/", 1)[0]


def _describe(exc: DuaError) -> str:
    status = getattr(exc, "status", None)
    label = f"HTTP {status} " if status else ""
    return f"{label}{type(exc).__name__}"


def _record(exc: DuaError, attempt: int, failures: list) -> None:
    exc.attempts = attempt
    exc.failures = list(failures)
    exc.details["attempts"] = attempt
    exc.details["failures"] = list(failures)


def _amend(exc: DuaError, note: str) -> None:
    exc.message = f"{exc.message.rstrip('.')} ({note})"
    exc.args = (exc.message,)
