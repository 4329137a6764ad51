"""A fake LLM provider over a real socket: both wire formats, streaming, and faults.

Usage::

    from tests.llm_server import LLMServer, Turn, Fail, Reply, Stream, Pause
    with LLMServer([Fail("rate_limit", retry_after=0.01), Turn(text="hello")]) as server:
        settings = Settings(provider="openai", model="m", base_url=server.url + "/v1")
        # Gemini: Settings(provider="gemini", model="m", base_url=server.url + "/v1beta")
        ...
        assert server.count == 2 and server.requests[-1].body["messages"] == [...]

Routes: ``POST /v1/chat/completions`` (OpenAI-compatible; streams when the body says
``"stream": true``) and ``POST /v1beta/models/{model}:generateContent`` /
``:streamGenerateContent?alt=sse`` (Gemini); any other path answers 404 as FastAPI does.

What to answer comes from a *script* (a list served in order; once it runs out every
request gets a 500 "script exhausted") or a *handler* ``fn(request) -> item``. An item is:
- ``Turn(...)``: a neutral model answer rendered in the request's wire format, as JSON or
  as an SSE stream (see tests/llm_replies.py); its ``end`` injects stream faults (no
  ``[DONE]``, no finish, TCP reset, truncated chunk, stall);
- ``Fail(kind, retry_after=…, retry_delay=…, headers=…)``: a provider's real error body
  (rate_limit, quota, server, overloaded, auth, context, not_found, bad_request);
- ``Reply(status, body, headers, content_type, delay)``: any literal answer (HTML pages,
  200 with an error body, a reply slower than the read timeout via ``delay``);
- ``Stream(items, end=…, crlf=…, split=…)``: literal SSE; a dict item is sent as
  ``data: <json>``, a str item verbatim, ``Pause(s)`` idles; ``split`` cuts each event
  into two writes in the middle (mid-UTF-8 included);
- a callable, called with the request, returning one of the above.

Every request is recorded in ``server.requests`` as a ``Request`` (method, path, query,
headers with lower-case names, parsed JSON ``body``, ``wire``, ``stream``, ``model``);
``server.count`` is their number. ``free_port()`` gives a port nobody listens on.
"""
from __future__ import annotations

import http.server
import json
import socket
import struct
import threading
import urllib.parse

from tests.llm_replies import Fail, Turn  # noqa: F401  (re-exported for the tests)
from tests.llm_replies import FAIL_KINDS  # noqa: F401


class Reply:
    """A literal HTTP answer; ``body`` may be a dict/list (JSON), str or bytes."""

    def __init__(self, status: int = 200, body: object = b"", headers: dict | None = None,
                 content_type: str | None = None, delay: float = 0.0):
        self.status, self.body, self.headers = status, body, dict(headers or {})
        self.content_type, self.delay = content_type, delay


class Pause:
    """Inside a Stream: send nothing for ``seconds``."""

    def __init__(self, seconds: float):
        self.seconds = seconds


class Stream:
    """A literal SSE answer; ``end`` is close | reset | truncate | stall (see module doc)."""

    def __init__(self, items: list, end: str = "close", crlf: bool = False, split: bool = False,
                 headers: dict | None = None, status: int = 200, stall: float = 2.0,
                 content_type: str = "text/event-stream; charset=utf-8", delay: float = 0.0):
        self.items, self.end, self.crlf, self.split = list(items), end, crlf, split
        self.headers, self.status, self.stall = dict(headers or {}), status, stall
        self.content_type, self.delay = content_type, delay


class Request:
    """One recorded request."""

    def __init__(self, method: str, path: str, headers: dict, raw: bytes):
        self.method = method
        parsed = urllib.parse.urlsplit(path)
        self.path, self.query = parsed.path, urllib.parse.parse_qs(parsed.query)
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.raw = raw
        try:
            self.body = json.loads(raw) if raw else None
        except ValueError:
            self.body = None
        self.wire = "openai" if self.path.endswith("/chat/completions") else (
            "gemini" if ":" in self.path and "/models/" in self.path else None)
        if self.wire == "gemini":
            self.stream = self.path.endswith(":streamGenerateContent")
            self.model = self.path.split("/models/", 1)[1].split(":", 1)[0]
        else:
            body = self.body if isinstance(self.body, dict) else {}
            self.stream, self.model = bool(body.get("stream")), body.get("model") or "test-model"

    def __repr__(self) -> str:
        return f"Request({self.method} {self.path}, stream={self.stream})"


_ROUTES = ("/v1/chat/completions",)


def _known_path(path: str) -> bool:
    return path in _ROUTES or (path.startswith("/v1beta/models/") and (
        path.endswith(":generateContent") or path.endswith(":streamGenerateContent")))


def free_port() -> int:
    """A 127.0.0.1 port with no listener (connection refused)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class LLMServer:
    """A ThreadingHTTPServer on 127.0.0.1, port 0, serving a script or a handler."""

    def __init__(self, script: list | None = None, handler=None):
        self.script = list(script or [])
        self.handler = handler
        self.requests: list = []
        self.stopping = threading.Event()
        self._lock = threading.Lock()
        self._httpd = None

    @property
    def count(self) -> int:
        return len(self.requests)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def __enter__(self) -> LLMServer:
        server = self

        class _Handler(_Speaker):
            owner = server

        self._httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self.stopping.set()  # releases stalled handlers at once
        self._httpd.shutdown()
        self._httpd.server_close()

    def next_item(self, request: Request):
        with self._lock:
            self.requests.append(request)
            if self.handler is not None:
                item = self.handler
            elif self.script:
                item = self.script.pop(0)
            else:
                item = Reply(500, {"error": {"message": "LLMServer script exhausted",
                                             "type": "server_error"}})
        return item(request) if callable(item) else item


class _Speaker(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    owner: LLMServer

    def log_message(self, *args) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        request = Request("POST", self.path, dict(self.headers), raw)
        self.close_connection = True
        if not _known_path(request.path):
            self.owner.requests.append(request)
            return self._json(404, {"detail": "Not Found"}, {})
        item = self.owner.next_item(request)
        try:
            self._serve(request, item)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a timeout test); nothing to report

    def _serve(self, request: Request, item) -> None:
        if isinstance(item, Fail):
            status, headers, body = item.render(request.wire or "openai")
            return self._json(status, body, headers)
        if isinstance(item, Turn):
            if not request.stream:
                self._wait(item.delay)
                return self._json(200, item.body(request.wire, request.model), item.headers)
            cuts = {"reset", "truncate", "stall"}
            events = item.events(request.wire, request.model)
            if item.end in cuts:
                events = events[:item.cut_after]
            end = item.end if item.end in cuts else "close"
            item = Stream(events, end=end, headers=item.headers, stall=item.stall,
                          delay=item.delay)
        if isinstance(item, Stream):
            return self._stream(item)
        if isinstance(item, Reply):
            self._wait(item.delay)
            body = item.body
            if isinstance(body, (dict, list)):
                return self._json(item.status, body, item.headers)
            data = body.encode("utf-8") if isinstance(body, str) else bytes(body)
            return self._send(item.status, data, item.content_type or "text/plain", item.headers)
        raise TypeError(f"LLMServer cannot serve {item!r}")

    def _wait(self, seconds: float) -> None:
        if seconds:
            self.owner.stopping.wait(seconds)

    def _json(self, status: int, body: object, headers: dict) -> None:
        self._send(status, json.dumps(body).encode("utf-8"), "application/json", headers)

    def _send(self, status: int, data: bytes, ctype: str, headers: dict) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("x-request-id", "req_test")
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, stream: Stream) -> None:
        self._wait(stream.delay)
        self.send_response(stream.status)
        self.send_header("Content-Type", stream.content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("x-request-id", "req_test")
        for key, value in stream.headers.items():
            self.send_header(key, value)
        self.end_headers()
        newline = "\r\n" if stream.crlf else "\n"
        for item in stream.items:
            if isinstance(item, Pause):
                self.wfile.flush()
                self._wait(item.seconds)
                continue
            text = f"data: {json.dumps(item, ensure_ascii=False)}{newline}{newline}" \
                if isinstance(item, (dict, list)) else item
            data = text.encode("utf-8")
            for part in ((data[:len(data) // 2], data[len(data) // 2:]) if stream.split
                         else (data,)):
                self._chunk(part)
        self._end(stream)

    def _chunk(self, data: bytes) -> None:
        if data:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()  # one write per chunk, so the client sees them apart

    def _end(self, stream: Stream) -> None:
        if stream.end == "close":
            self.wfile.write(b"0\r\n\r\n")
        elif stream.end == "truncate":
            self.wfile.write(b"40\r\n" + b'data: {"choices":[{"de')  # 64 announced, 20 sent
        elif stream.end == "stall":
            self.wfile.flush()
            self._wait(stream.stall)
            return
        elif stream.end == "reset":
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
            return
        self.wfile.flush()
