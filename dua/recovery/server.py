"""The HTTP server of ``dua serve``: one event loop reads every connection, frames whole
requests (``connection.py``) and answers them (``service.py``); the writes go to the group
commit (``committer.py``), whose thread hands each answer back once it is durable.

Why a loop and not a thread per connection: with 16 keep-alive clients, every request woke
a thread that then queued for the GIL, and every sqlite call of the committer handed the GIL
to one of them and waited to get it back (measured under the recovery bench: futex calls were
17.5% of the server's CPU with a thread per connection, 6% with the loop; server CPU per
request, one in four a duplicate, fell from about 500 us to 420). Here two threads share the
GIL: the loop, and the committer while it runs a batch.

The loop never waits on the store for a write: a slow notifier or a store locked by another
process holds up the writes queued behind it, not health checks, reads or replays.
"""
from __future__ import annotations

import logging
import queue
import selectors
import socket
import threading
import time
from typing import Any

from .committer import Committer
from .connection import DRAIN_LIMIT, Connection
from .handler import ErrorHandler
from .service import MAX_BODY, RequestHandler

LOG = logging.getLogger("dua.recovery.http")
IDLE_TIMEOUT = 30.0  # a connection silent this long (no request under way) is closed
LOG_EVERY = 0.2  # telemetry lines go out at most this late, as one log record
READ, WRITE = selectors.EVENT_READ, selectors.EVENT_WRITE
_WAKE = object()  # selector data of the committer's wake-up socket


class ErrorServer:
    """The Error Handler's HTTP/1.1 server: ``serve_forever`` on one thread, ``shutdown`` or
    ``stop`` from another."""

    request_queue_size = 128  # the listen backlog: the default of 5 refuses bursts of clients

    def __init__(self, address: tuple, handler: ErrorHandler, token: str | None = None,
                 max_body: int = MAX_BODY, idle_timeout: float = IDLE_TIMEOUT):
        self.error_handler = handler
        self.token = token.encode() if token else None
        self.max_body = max_body
        self.idle_timeout = idle_timeout
        self.closing = False  # requests are answered 503 "shutting down"
        self.grace = 10.0  # how long a stop waits for the answers under way
        self.socket = _listen(address, self.request_queue_size)
        self.server_address = self.socket.getsockname()
        self._keys: dict = {}  # Idempotency-Key -> body digest, while its request runs here
        self._connections: set = set()
        self._pending = 0  # requests whose write is in the group commit
        self._answers: queue.SimpleQueue = queue.SimpleQueue()  # from the committer's thread
        self._woken = False
        self._wake_in, self._wake_out = socket.socketpair()
        self._selector = selectors.DefaultSelector()
        for sock, data in ((self.socket, None), (self._wake_in, _WAKE)):
            sock.setblocking(False)
            self._selector.register(sock, READ, data)
        self._stop_asked = threading.Event()
        self._loop_done = threading.Event()
        self._loop_done.set()
        self._logged = 0.0
        self.committer = Committer(handler.store)  # once bound: a failed bind leaves no thread
        handler.telemetry.hold_lines()  # logged from the loop, a batch per pass

    # --- idempotency keys (the loop's thread only) ------------------------------------------

    def hold_key(self, key: str, digest: str) -> str | None:
        """Mark a keyed request as running; None when taken, else the running one's digest.

        Kept in memory, not in the store: a crash must not leave a key that blocks its retry.
        """
        if key in self._keys:
            return self._keys[key]
        self._keys[key] = digest
        return None

    def drop_key(self, key: str) -> None:
        self._keys.pop(key, None)

    # --- the loop ---------------------------------------------------------------------------

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Serve until ``shutdown()``; then answer what is under way (up to ``grace`` s)."""
        self._loop_done.clear()
        deadline = None
        try:
            while True:
                if self._stop_asked.is_set():
                    if deadline is None:
                        deadline = self._begin_stop()
                    if not self._under_way() or time.monotonic() >= deadline:
                        return
                for key, mask in self._selector.select(poll_interval):
                    self._event(key, mask)
                self._answer_writes()
                self._close_idle()
                self.service_actions()
        finally:
            self._loop_done.set()

    def service_actions(self) -> None:
        # The telemetry lines of the requests answered meanwhile go out as one record: one
        # per pass of the loop cost a twentieth of the service's CPU under load.
        now = time.monotonic()
        if now - self._logged >= LOG_EVERY:
            self._logged = now
            self.error_handler.telemetry.flush()

    def _event(self, key: Any, mask: int) -> None:
        if key.data is None:
            self._accept()
        elif key.data is _WAKE:
            try:
                self._wake_in.recv(4096)
            except (BlockingIOError, InterruptedError):
                pass
            # After the bytes are read and before the answers are (``_answer_writes``): an
            # answer queued from now on sends a byte of its own.
            self._woken = False
        else:
            if mask & WRITE:
                self._on(key.data, self._flush)
            if mask & READ:
                self._on(key.data, self._read)

    def _on(self, conn: Connection, step) -> None:
        """One step of a connection's work; whatever goes wrong ends that connection only."""
        if conn not in self._connections:
            return
        try:
            step(conn)
        except OSError:  # reset, broken pipe: the client is gone
            self._close(conn)
        except Exception:  # a fault of ours: this connection ends, the service goes on
            LOG.exception("connection from %s failed", conn.address)
            self._close(conn)

    def _accept(self) -> None:
        for _ in range(self.request_queue_size):
            try:
                sock, address = self.socket.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError:  # e.g. out of file descriptors: the client is refused, not us
                LOG.warning("accepting a connection failed", exc_info=True)
                return
            sock.setblocking(False)
            # Nagle plus delayed ACKs would add ~40 ms to every keep-alive answer.
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            conn = Connection(sock, address, time.monotonic())
            self._connections.add(conn)
            self._selector.register(sock, READ, conn)

    def _read(self, conn: Connection) -> None:
        try:
            data = conn.sock.recv(65536)
        except (BlockingIOError, InterruptedError):
            return
        if not data:  # the client closed its side: nothing more can be asked or answered
            self._close(conn)
            return
        conn.last = time.monotonic()
        if conn.unread:
            data = conn.drop(data)
            if not conn.unread and conn.closing:
                self._close(conn)
                return
        if conn.closing:
            return  # after an answer that closes the connection, nothing else is read
        conn.inbuf += data
        self._advance(conn)

    def _advance(self, conn: Connection) -> None:
        """Answer the whole requests that have arrived (in order: none while one's write is
        under way), then send what the socket takes."""
        while conn.busy is None and not conn.closing:
            taken = conn.take_request(self.max_body)
            if taken is None:
                break
            request, unread = taken
            handler = RequestHandler(self, conn.address, request)
            handler.admitted, conn.admitted = conn.admitted, False
            handler.handle_one_request()
            if unread:  # a refused body still on its way
                conn.unread, handler.close_connection = (unread if unread <= DRAIN_LIMIT else 0,
                                                         True)
            if handler.pending is not None:
                conn.busy = handler
                self._pending += 1
                self.committer.submit(handler.pending.job,
                                      lambda result, error, c=conn: self._hand_back(c, result, error))
            else:
                self._reply(conn, handler)
        self._flush(conn)

    def _reply(self, conn: Connection, handler: RequestHandler) -> None:
        conn.outbuf += handler.wfile.getvalue()
        conn.last = time.monotonic()  # idle from now on, not since its request came
        if handler.close_connection:
            conn.closing = True

    def _flush(self, conn: Connection) -> None:
        if not conn.send():
            self._watch(conn, WRITE)  # no more reading until it is sent
            return
        if conn.closing and conn.busy is None and not conn.unread:
            self._close(conn)
            return
        if conn.closing and conn.unread:
            conn.sock.shutdown(socket.SHUT_WR)  # answered: the rest is read only to be dropped
        self._watch(conn, READ)

    def _watch(self, conn: Connection, events: int) -> None:
        if conn.events != events:  # a system call: only when it changes
            conn.events = events
            self._selector.modify(conn.sock, events, conn)

    # --- answers from the group commit ------------------------------------------------------

    def _hand_back(self, conn: Connection, result: Any, error: Exception | None) -> None:
        """On the committer's thread: queue the answer, and wake the loop once per batch."""
        self._answers.put((conn, result, error))
        if not self._woken:
            self._woken = True
            self._wake()

    def _wake(self) -> None:
        try:
            self._wake_out.send(b"\0")
        except (BlockingIOError, InterruptedError):
            pass  # wake-up bytes are already waiting: the loop will come
        except OSError:  # closed: the server has stopped, nobody is left to wake
            pass

    def _answer_writes(self) -> None:
        while True:
            try:
                conn, result, error = self._answers.get_nowait()
            except queue.Empty:
                return
            handler, conn.busy = conn.busy, None
            self._pending -= 1
            handler.resume(result, error)
            self._on(conn, lambda c: self._send_answer(c, handler))

    def _send_answer(self, conn: Connection, handler: RequestHandler) -> None:
        self._reply(conn, handler)
        self._advance(conn)  # the requests that came in behind it

    # --- stopping ----------------------------------------------------------------------------

    def _under_way(self) -> bool:
        return self._pending > 0 or any(conn.outbuf or conn.admitted
                                        for conn in self._connections)

    def _begin_stop(self) -> float:
        """Stop accepting; close the connections with nothing under way. A request already
        arriving is still answered, and every connection closes after its answer."""
        self.closing = True
        self._selector.unregister(self.socket)
        for conn in list(self._connections):
            if conn.inbuf and conn.busy is None:
                conn.admitted = True  # part of it came before the stop: served, not refused
            elif conn.busy is None and not conn.outbuf:
                self._close(conn)
        return time.monotonic() + self.grace

    def _close_idle(self) -> None:
        now = time.monotonic()
        for conn in list(self._connections):
            if conn.busy is None and now - conn.last > self.idle_timeout:
                self._close(conn)

    def _close(self, conn: Connection) -> None:
        if conn not in self._connections:
            return
        self._connections.discard(conn)
        try:
            self._selector.unregister(conn.sock)
        except (KeyError, ValueError):
            pass
        conn.sock.close()

    def shutdown(self) -> None:
        """Ask ``serve_forever`` to stop, and wait until it has (not from the loop's thread)."""
        self._stop_asked.set()
        self._wake()
        self._loop_done.wait()

    def server_close(self) -> None:
        """Close every socket; the writes already queued are committed first."""
        for conn in list(self._connections):
            self._close(conn)
        self.socket.close()
        self.committer.stop()
        self._selector.close()
        self._wake_in.close()
        self._wake_out.close()

    def stop(self, grace: float = 10.0) -> None:
        """Stop accepting, answer the requests under way (up to ``grace`` s), close."""
        self.grace = grace
        self.shutdown()
        self.server_close()
        self.error_handler.telemetry.flush()


def _listen(address: tuple, backlog: int) -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(backlog)
    except BaseException:
        sock.close()
        raise
    return sock


def make_server(handler: ErrorHandler, host: str = "127.0.0.1", port: int = 8765,
                token: str | None = None, max_body: int = MAX_BODY) -> ErrorServer:
    """Bind the service (port 0 picks a free port; ``server.server_address`` tells which)."""
    return ErrorServer((host, port), handler, token, max_body)


def serve_until_signalled(server: ErrorServer, grace: float = 10.0) -> None:
    """Serve until SIGTERM or SIGINT, then stop gracefully (requests under way are answered)."""
    import signal  # lazy: only the serving process installs handlers

    def _stop(signum, frame):
        # shutdown() waits for serve_forever to return, so it cannot run on this thread.
        threading.Thread(target=server.shutdown, daemon=True).start()

    server.grace = grace
    previous = {sig: signal.signal(sig, _stop) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        server.serve_forever(poll_interval=0.2)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        server.server_close()
        server.error_handler.telemetry.flush()  # before the caller stops its logging
