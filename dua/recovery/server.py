"""The HTTP server of ``dua serve``: ThreadingHTTPServer with a deep listen backlog (the
default of 5 refuses bursts of 64 clients), in-flight accounting, a group commit of new errors
(``committer.py``) and a graceful stop on SIGTERM that lets running requests finish.
"""
from __future__ import annotations

import logging
import threading
from http.server import ThreadingHTTPServer

from .committer import Committer
from .handler import ErrorHandler
from .service import MAX_BODY, RequestHandler

LOG = logging.getLogger("dua.recovery.http")


class ErrorServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with a deep backlog, in-flight accounting and a graceful stop."""

    request_queue_size = 128
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple, handler: ErrorHandler, token: str | None = None,
                 max_body: int = MAX_BODY):
        self.error_handler = handler
        self.token = token.encode() if token else None
        self.max_body = max_body
        self.closing = False
        self._inflight = 0
        self._idle = threading.Condition()
        self._keys: dict = {}  # Idempotency-Key -> body digest, while its request runs here
        self._keys_lock = threading.Lock()
        # One thread decides and records new errors, a batch per commit: under the GIL, two
        # at once only pass it back and forth at each of their sqlite calls (measured under 16
        # clients: some 15% more CPU per error, and a p99 half again as long). Parsing,
        # replies and duplicates answered from memory stay concurrent.
        super().__init__(address, RequestHandler)
        self.committer = Committer(handler.store)  # once bound: a failed bind leaves no thread
        handler.telemetry.hold_lines()  # logged from the serve loop: see service_actions

    def hold_key(self, key: str, digest: str) -> str | None:
        """Mark a keyed request as running; None when taken, else the running one's digest.

        Kept in memory, not in the store: a crash must not leave a key that blocks its retry.
        """
        with self._keys_lock:
            if key in self._keys:
                return self._keys[key]
            self._keys[key] = digest
            return None

    def drop_key(self, key: str) -> None:
        with self._keys_lock:
            self._keys.pop(key, None)

    def enter(self) -> None:
        with self._idle:
            self._inflight += 1

    def leave(self) -> None:
        with self._idle:
            self._inflight -= 1
            self._idle.notify_all()

    def wait_idle(self, timeout: float) -> bool:
        """Wait until no request is being processed; False when ``timeout`` ran out first."""
        with self._idle:
            return self._idle.wait_for(lambda: self._inflight == 0, timeout)

    def service_actions(self) -> None:
        # serve_forever calls this between accepts, at least every poll interval (0.2 s):
        # the telemetry lines of the requests handled meanwhile go out in one write.
        self.error_handler.telemetry.flush()

    def server_close(self) -> None:
        super().server_close()
        if hasattr(self, "committer"):  # not when the bind failed
            self.committer.stop()  # the jobs already queued are finished first

    def handle_error(self, request, client_address) -> None:
        # A client that drops its connection is routine, not a traceback on stderr.
        LOG.debug("connection from %s failed", client_address, exc_info=True)

    def stop(self, grace: float = 10.0) -> None:
        """Stop accepting, let in-flight requests finish (up to ``grace`` s), close the socket."""
        self.closing = True
        self.shutdown()
        self.wait_idle(grace)
        self.server_close()
        self.error_handler.telemetry.flush()


def make_server(handler: ErrorHandler, host: str = "127.0.0.1", port: int = 8765,
                token: str | None = None, max_body: int = MAX_BODY) -> ErrorServer:
    """Bind the service (port 0 picks a free port; ``server.server_address`` tells which)."""
    return ErrorServer((host, port), handler, token, max_body)


def serve_until_signalled(server: ErrorServer, grace: float = 10.0) -> None:
    """Serve until SIGTERM or SIGINT, then stop gracefully (in-flight requests finish)."""
    import signal  # lazy: only the serving process installs handlers

    def _stop(signum, frame):
        server.closing = True  # requests already running finish; new ones are told to go
        # shutdown() waits for serve_forever to return, so it cannot run on this thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.closing = True
        server.wait_idle(grace)
        server.server_close()
        server.error_handler.telemetry.flush()  # before the caller stops its logging
