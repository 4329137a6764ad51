"""The Error Handler's HTTP routes and request handler (imported only by ``dua serve``).

Every error answer is ``application/problem+json`` (RFC 9457). A handler reads one whole
request from memory and writes its answer to memory: the server's event loop (``server.py``)
does the socket work. A route that writes returns a ``Write``: its job runs in the group
commit, and the answer is made once that has committed (``RequestHandler.resume``).
"""
from __future__ import annotations

import email.utils
import hashlib
import hmac
import io
import json
import logging
import re
import time
from http.server import BaseHTTPRequestHandler
from typing import Any, Callable

from ..errors import DuaError, PayloadValidationError
from . import head
from .handler import Outcome

LOG = logging.getLogger("dua.recovery.http")
MAX_BODY = 1 << 20
PROBLEM = "application/problem+json"
TYPE_BASE = "https://dua.invalid/problems/"  # .invalid: a stable name that never resolves

# (pattern, route label, {method: handler method name})
ROUTES = (
    (re.compile(r"^/v1/errors$"), "/v1/errors", {"POST": "post_error"}),
    (re.compile(r"^/v1/errors/(?P<error_id>[\w.:-]{1,128})$"), "/v1/errors/{error_id}",
     {"GET": "get_error"}),
    (re.compile(r"^/v1/sessions/(?P<query_id>[\w.:-]{1,128})$"), "/v1/sessions/{query_id}",
     {"GET": "get_session", "PUT": "put_session"}),
    (re.compile(r"^/v1/cache/(?P<key>[\w.:-]{1,200})$"), "/v1/cache/{key}", {"PUT": "put_cache"}),
    (re.compile(r"^/healthz$"), "/healthz", {"GET": "get_healthz"}),
    (re.compile(r"^/metrics$"), "/metrics", {"GET": "get_metrics"}),
)
OPEN_ROUTES = ("/healthz",)  # probes need no token


class Problem(Exception):
    """An RFC 9457 answer: status, short title, detail and extension members."""

    def __init__(self, status: int, slug: str, title: str, detail: str = "", **extra: object):
        super().__init__(detail or title)
        self.status, self.slug, self.title, self.detail, self.extra = status, slug, title, detail, extra

    def body(self, instance: str) -> dict:
        doc = {"type": TYPE_BASE + self.slug, "title": self.title, "status": self.status,
               "detail": self.detail or self.title, "instance": instance}
        doc.update(self.extra)
        return doc


class Write:
    """A route's write: ``job`` runs in the store's transaction (the group commit), then
    ``answer(result)`` makes the reply; ``after()``, if given, runs either way, first."""

    __slots__ = ("job", "answer", "after")

    def __init__(self, job: Callable[[], Any], answer: Callable[[Any], int],
                 after: Callable[[], None] | None = None):
        self.job, self.answer, self.after = job, answer, after


class RequestHandler(BaseHTTPRequestHandler):
    """One request, read from ``data`` (head and body, as the event loop framed it); the answer
    is in ``wfile``, unless ``pending`` holds a Write the server must run first."""

    protocol_version = "HTTP/1.1"
    server_version = "dua-error-handler"

    def __init__(self, server: Any, client_address: tuple, data: bytes):
        # Not BaseHTTPRequestHandler.__init__, which would read a socket: the loop did.
        self.server, self.client_address = server, client_address
        self.rfile, self.wfile = io.BytesIO(data), io.BytesIO()
        self.close_connection = True
        self.pending: Write | None = None
        self.admitted = False  # arriving before the service began to stop: not refused for it

    def parse_request(self) -> bool:
        return head.parse_request(self)  # the stdlib's, without the email package (head.py)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """The stdlib's own refusals (bad request line, unsupported method…) as problem+json."""
        title = message or self.responses.get(code, ("Error",))[0]
        doc = Problem(code, f"http-{code}", title, explain or title).body(getattr(self, "path", ""))
        body = json.dumps(doc).encode()
        self.close_connection = True
        self.send_response(code, title)
        self.send_header("Content-Type", PROBLEM)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.end_headers()
        if getattr(self, "command", None) != "HEAD":
            self.wfile.write(body)

    def handle_expect_100(self) -> bool:
        return True  # the event loop sent "100 Continue" while the body was on its way

    def log_message(self, fmt: str, *args) -> None:
        # Called for every request: format nothing unless someone reads the debug log.
        if LOG.isEnabledFor(logging.DEBUG):
            LOG.debug("%s %s", self.address_string(), fmt % args)

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def do_PUT(self) -> None:
        self._dispatch("PUT")

    def do_DELETE(self) -> None:
        self._dispatch("DELETE")

    def do_PATCH(self) -> None:
        self._dispatch("PATCH")

    def do_HEAD(self) -> None:
        # Probes often send HEAD; it is a GET whose body _send leaves out.
        self._dispatch("HEAD")

    def do_OPTIONS(self) -> None:
        self._dispatch("OPTIONS")  # answered 405 with the Allow header of the route

    # --- plumbing ----------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        self._started = time.perf_counter()
        self._consumed, self._label = False, "other"
        self._guarded(lambda: self._call(method))

    def _call(self, method: str) -> Any:
        if self.server.closing and not self.admitted:  # type: ignore[attr-defined]
            raise Problem(503, "shutting-down", "Shutting down",
                          "The service is stopping; retry on another instance or later")
        name, params = self._route(method)
        self._authorize(self._label)
        return getattr(self, name)(**params)

    def resume(self, result: Any, error: Exception | None) -> None:
        """Answer the pending Write with what its job gave (or the error it raised)."""
        write, self.pending = self.pending, None

        def answer() -> int:
            if write.after is not None:
                write.after()
            if error is not None:
                raise error
            return write.answer(result)

        self._guarded(answer)

    def _guarded(self, step: Callable[[], Any]) -> None:
        """Run a step of the request; every failure becomes its problem+json answer."""
        try:
            outcome = step()
            if isinstance(outcome, Write):
                self.pending = outcome  # answered by resume(), once the job has committed
        except Problem as problem:
            self._problem(problem)
        except PayloadValidationError as exc:
            self._problem(Problem(400, "invalid-payload", "Invalid error payload", str(exc),
                                  problems=list(exc.problems)))
        except DuaError as exc:
            self._problem(Problem(503, "unavailable", "Service unavailable", exc.message))
        except Exception:
            LOG.exception("request %s %s failed", self.command, self.path)
            self._problem(Problem(500, "internal", "Internal error",
                                  "The error handler failed; see the server log."))

    def _route(self, method: str) -> tuple:
        path = self.path.split("?", 1)[0]
        for pattern, label, methods in ROUTES:
            match = pattern.match(path)
            if match:
                self._label = label
                if method == "HEAD" and "GET" in methods:
                    return methods["GET"], match.groupdict()
                if method not in methods:
                    allow = ", ".join(sorted(methods))
                    raise Problem(405, "method-not-allowed", "Method not allowed",
                                  f"{method} is not allowed on {label}; use {allow}", allow=allow)
                return methods[method], match.groupdict()
        raise Problem(404, "not-found", "Not found", f"No resource at {path}")

    def _authorize(self, route: str) -> None:
        token = self.server.token  # type: ignore[attr-defined]
        if token is None or route in OPEN_ROUTES:
            return
        given = self.headers.get("Authorization", "")
        scheme, _, value = given.partition(" ")
        # compare_digest: the time taken must not reveal how much of the token matched.
        if scheme.lower() != "bearer" or not hmac.compare_digest(value.strip().encode(), token):
            raise Problem(401, "unauthorized", "Unauthorized",
                          "Send 'Authorization: Bearer <token>' with the token given to dua serve",
                          www_authenticate='Bearer realm="dua"')

    def _send(self, status: int, body: bytes, content_type: str, headers: dict | None = None) -> int:
        # Counted before the reply leaves, so a client that reads /metrics next sees it.
        telemetry = self.server.error_handler.telemetry  # type: ignore[attr-defined]
        telemetry.count("dua_http_requests_total", method=self.command, route=self._label,
                        status=str(status))
        telemetry.observe("dua_http_request_seconds", time.perf_counter() - self._started,
                          route=self._label)
        self.log_request(status)
        if self.server.closing or self.close_connection:  # type: ignore[attr-defined]
            self.close_connection = True
        start = _head(self, status, content_type, len(body), headers)
        # One write, one packet: the stdlib's send_header path writes the head and the body
        # separately, two syscalls (and two GIL hand-offs under load) per answer.
        self.wfile.write(start if self.command == "HEAD" else start + body)
        return status

    def _json(self, status: int, doc: object, headers: dict | None = None) -> int:
        return self._send(status, json.dumps(doc).encode(), "application/json", headers)

    def _problem(self, problem: Problem) -> int:
        headers = {}
        if problem.status == 405:
            headers["Allow"] = str(problem.extra.get("allow", ""))
        if problem.status == 503:
            headers["Retry-After"] = "1"
        if problem.status == 401:
            headers["WWW-Authenticate"] = str(problem.extra.pop("www_authenticate", "Bearer"))
        if not self._consumed and (self.headers.get("Transfer-Encoding") or
                                   self.headers.get("Content-Length", "0") not in ("", "0")):
            # The unread body of a refused request would be parsed as the next request.
            self.close_connection = True
        body = json.dumps(problem.body(self.path)).encode()
        return self._send(problem.status, body, PROBLEM, headers)

    def _body(self) -> bytes:
        ctype = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if ctype != "application/json" and not ctype.endswith("+json"):
            raise Problem(415, "unsupported-media-type", "Unsupported media type",
                          f"Send Content-Type: application/json, not {ctype or 'nothing'}")
        length = self.headers.get("Content-Length")
        if length is None:
            raise Problem(411, "length-required", "Length required", "Send a Content-Length header")
        if not length.strip().isdigit():
            # Sent but unusable: the client is told what is wrong, not that it is missing.
            raise Problem(400, "invalid-content-length", "Invalid Content-Length",
                          f"Content-Length must be a number of bytes, got {length!r}")
        size, limit = int(length), self.server.max_body  # type: ignore[attr-defined]
        if size > limit:  # the event loop did not wait for it: it drains or drops the rest
            raise Problem(413, "payload-too-large", "Payload too large",
                          f"The body is {size} bytes; the limit is {limit}", max_bytes=limit)
        self._consumed = True
        return self.rfile.read(size)

    # --- endpoints -------------------------------------------------------------------------

    def post_error(self) -> int | Write:
        body = self._body()
        key = self.headers.get("Idempotency-Key")
        if key is not None:
            return self._keyed(key.strip(), body)
        handler = self.server.error_handler  # type: ignore[attr-defined]
        answer = handler.replay(body) or handler.prepare(_parse_json(body), body=body)
        if isinstance(answer, Outcome):  # a retry answered from memory
            return self._answer(answer)
        return Write(answer, self._answer)

    def _answer(self, outcome: Outcome) -> int:
        # The feedback goes out as the very bytes stored: no second encoding.
        return self._send(201 if outcome.created else 200, outcome.feedback_json.encode(),
                          "application/json", {"Location": f"/v1/errors/{outcome.error_id}"})

    def _keyed(self, key: str, body: bytes) -> Write:
        """The request and its recorded answer commit together, so a key never outlives a crash
        half-used: after a restart the retry either replays the answer or is handled afresh."""
        if not 0 < len(key) <= 255:
            raise Problem(400, "invalid-idempotency-key", "Invalid Idempotency-Key",
                          "The Idempotency-Key header must be 1 to 255 characters")
        server, digest = self.server, hashlib.sha256(body).hexdigest()
        store = server.error_handler.store  # type: ignore[attr-defined]
        raw = _parse_json(body)  # a refused body does not hold its key
        holder = server.hold_key(key, digest)  # type: ignore[attr-defined]
        if holder is not None:
            _check_same_body(holder, digest)
            raise Problem(409, "idempotency-key-in-flight", "Request in progress",
                          "The first request with this Idempotency-Key has not finished; retry later")

        def answer_once() -> tuple:  # in the committer's transaction
            stored = store.find_key(key)
            if stored is not None:
                return stored, None
            outcome = server.error_handler.submit(raw)  # type: ignore[attr-defined]
            store.save_key(key, digest, 201 if outcome.created else 200, outcome.feedback_json)
            return None, outcome

        return Write(answer_once, lambda result: self._replay_key(digest, *result),
                     after=lambda: server.drop_key(key))  # type: ignore[attr-defined]

    def _replay_key(self, digest: str, stored: tuple | None, outcome: Outcome | None) -> int:
        if outcome is not None:  # answered only now that it is committed
            return self._answer(outcome)
        _check_same_body(stored[0], digest)
        replayed = {"Idempotent-Replayed": "true"}
        error_id = json.loads(stored[2]).get("error_id")
        if error_id:
            replayed["Location"] = f"/v1/errors/{error_id}"
        return self._send(stored[1], stored[2].encode(), "application/json", replayed)

    def get_error(self, error_id: str) -> int:
        record = self.server.error_handler.error(error_id)  # type: ignore[attr-defined]
        if record is None:
            raise Problem(404, "not-found", "Not found", f"No error with id {error_id}")
        return self._json(200, record)

    def get_session(self, query_id: str) -> int:
        session = self.server.error_handler.session(query_id)  # type: ignore[attr-defined]
        if session is None:
            raise Problem(404, "not-found", "Not found", f"No session for query {query_id}")
        return self._json(200, session)

    def _json_body(self) -> object:
        return _parse_json(self._body() or b"{}")

    def put_cache(self, key: str) -> Write:
        """Store a result the cache fallback may serve (key: ``query:<query_id>`` or a cache_key)."""
        value, store = self._json_body(), self.server.error_handler.store  # type: ignore
        return Write(lambda: store.cache_put(key, value),
                     lambda _: self._json(200, {"key": key, "stored": True}))

    def put_session(self, query_id: str) -> Write:
        """Register a query (and its context): from then on, payloads must name known queries."""
        context = self._json_body()
        if not isinstance(context, dict):
            raise Problem(400, "invalid-session", "Invalid session", "The body must be a JSON object",
                          problems=["<body>: expected object"])
        handler = self.server.error_handler  # type: ignore[attr-defined]
        return Write(lambda: (handler.store.register_query(query_id, context),
                              handler.session(query_id))[1],
                     lambda session: self._json(200, session))

    def get_healthz(self) -> int:
        return self._send(200, b'{"status":"ok"}', "application/json")

    def get_metrics(self) -> int:
        text = self.server.error_handler.telemetry.render()  # type: ignore[attr-defined]
        return self._send(200, text.encode(), "text/plain; version=0.0.4; charset=utf-8")


def _head(handler: RequestHandler, status: int, content_type: str, length: int,
          headers: dict | None) -> bytes:
    """The status line and headers of an answer, as ``send_response`` and ``send_header``
    would write them (HTTP/0.9 has neither)."""
    if handler.request_version == "HTTP/0.9":
        return b""
    reason = handler.responses.get(status, ("",))[0]
    lines = [f"{handler.protocol_version} {status} {reason}",
             f"Server: {handler.version_string()}", f"Date: {_http_date()}",
             f"Content-Type: {content_type}", f"Content-Length: {length}"]
    lines += [f"{key}: {value}" for key, value in (headers or {}).items()]
    if handler.close_connection:
        lines.append("Connection: close")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1", "strict")


_DATE = (0, "")


def _http_date() -> str:
    """The Date header's value, formatted once per second rather than once per answer."""
    global _DATE
    now = int(time.time())
    if _DATE[0] != now:
        _DATE = (now, email.utils.formatdate(now, usegmt=True))
    return _DATE[1]


def _check_same_body(first_digest: str, digest: str) -> None:
    if first_digest != digest:
        raise Problem(422, "idempotency-key-reused", "Idempotency-Key reused",
                      "This Idempotency-Key was used with a different request body")


def _parse_json(body: bytes) -> object:
    """The request body as JSON, or a 400 naming what is wrong with it."""
    if not body.strip():
        raise Problem(400, "invalid-json", "Body is not JSON", "The body is empty",
                      problems=["<body>: empty; send a JSON object"])
    try:
        return json.loads(body)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise Problem(400, "invalid-json", "Body is not JSON", str(exc),
                      problems=[f"<body>: not valid JSON ({exc})"]) from None
    except RecursionError:
        raise Problem(400, "invalid-json", "Body is not JSON", "The JSON is nested too deeply",
                      problems=["<body>: JSON nested too deeply"]) from None
