"""The service's event loop on a real socket: whole requests framed from whatever arrives
(pipelined, trickled, after "100 Continue"), a slow client or a slow write holding up nobody
else, idle connections closed, and a client gone before its answer leaving the service whole."""
from __future__ import annotations

import http.client
import json
import os
import socket
import tempfile
import threading
import time
import unittest

from dua.recovery import ErrorHandler, Store
from dua.recovery.server import ErrorServer
from tests.test_recovery_agent import CHART, DB_TIMEOUT, OUTAGE


def _request(body: dict, path: str = "/v1/errors", extra: bytes = b"") -> bytes:
    data = json.dumps(body).encode()
    return (b"POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n%s\r\n" % (path.encode(), len(data), extra)) + data


def _answers(sock: socket.socket, count: int) -> list:
    """``count`` HTTP answers read off ``sock``: (status, headers text, body)."""
    reader, answers = sock.makefile("rb"), []
    for _ in range(count):
        status = int(reader.readline().split()[1])
        head = b""
        while True:
            line = reader.readline()
            if line in (b"\r\n", b""):
                break
            head += line
        length = int(next(v for k, _, v in (h.partition(b": ") for h in head.split(b"\r\n"))
                          if k.lower() == b"content-length"))
        answers.append((status, head.decode(), json.loads(reader.read(length))))
    return answers


class LoopCase(unittest.TestCase):
    idle_timeout = 30.0

    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.entered, self.release = threading.Event(), threading.Event()
        self.release.set()
        store = Store(os.path.join(self.tmp.name, "recovery.sqlite3"))
        self.handler = ErrorHandler(store, notifier=self._notifier)
        self.server = ErrorServer(("127.0.0.1", 0), self.handler, idle_timeout=self.idle_timeout)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()

    def tearDown(self):
        self.release.set()
        self.server.stop(grace=5)
        self.thread.join(5)
        self.handler.store.close()
        self.tmp.cleanup()

    def _notifier(self, event: dict) -> None:  # OUTAGE escalates: its write waits in here
        self.entered.set()
        self.release.wait(10)

    def connect(self) -> socket.socket:
        sock = socket.create_connection(("127.0.0.1", self.port), timeout=10)
        self.addCleanup(sock.close)
        return sock

    def hold_a_write(self) -> socket.socket:
        """A connection whose new error waits in the notifier, inside the group commit,
        until ``self.release`` is set."""
        self.release.clear()
        sock = self.connect()
        sock.sendall(_request(OUTAGE))
        self.assertTrue(self.entered.wait(10))
        return sock

    def get(self, path: str) -> tuple:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            conn.request("GET", path)
            resp = conn.getresponse()
            return resp.status, json.loads(resp.read())
        finally:
            conn.close()


class FramingTest(LoopCase):
    def test_pipelined_requests_are_answered_in_order(self):
        sock = self.connect()
        sock.sendall(_request(CHART) + _request(DB_TIMEOUT) + _request(CHART)
                     + b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
        answers = _answers(sock, 4)
        self.assertEqual([a[0] for a in answers], [201, 201, 200, 200])
        self.assertEqual(answers[0][2]["error_id"], answers[2][2]["error_id"])
        self.assertNotEqual(answers[0][2]["error_id"], answers[1][2]["error_id"])
        self.assertEqual(answers[3][2], {"status": "ok"})

    def test_a_request_trickling_in_holds_up_no_other_client(self):
        slow, data = self.connect(), _request(CHART)
        slow.sendall(data[:7])  # part of the request line
        self.assertEqual(self.get("/healthz")[0], 200)
        for i in range(7, len(data), 40):  # the rest, a few bytes at a time
            slow.sendall(data[i:i + 40])
            time.sleep(0.005)
        self.assertEqual(_answers(slow, 1)[0][0], 201)

    def test_a_client_expecting_100_continue_is_told_to_send_its_body(self):
        sock, data = self.connect(), _request(CHART, extra=b"Expect: 100-continue\r\n")
        head, body = data.split(b"\r\n\r\n", 1)
        sock.sendall(head + b"\r\n\r\n")
        self.assertEqual(sock.recv(64), b"HTTP/1.1 100 Continue\r\n\r\n")
        sock.sendall(body)
        self.assertEqual(_answers(sock, 1)[0][0], 201)

    def test_an_oversized_body_is_refused_without_waiting_for_it_and_then_drained(self):
        sock = self.connect()
        size = (1 << 20) + 1
        sock.sendall(b"POST /v1/errors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                     b"Content-Length: %d\r\n\r\n" % size)
        status, head, doc = _answers(sock, 1)[0]  # answered before a byte of the body came
        self.assertEqual((status, doc["type"].rsplit("/", 1)[1]), (413, "payload-too-large"))
        self.assertIn("Connection: close", head)
        sock.sendall(b" " * size)  # read and dropped: the client is not reset mid-send
        self.assertEqual(sock.recv(1), b"")


class IsolationTest(LoopCase):
    def test_a_write_held_in_the_store_holds_up_no_read_or_replay(self):
        recorded = self.connect()
        recorded.sendall(_request(CHART))
        self.assertEqual(_answers(recorded, 1)[0][0], 201)
        held = self.hold_a_write()
        started = time.monotonic()
        self.assertEqual(self.get("/healthz")[0], 200)
        recorded.sendall(_request(CHART))  # a retry, answered from memory
        self.assertEqual(_answers(recorded, 1)[0][0], 200)
        self.assertLess(time.monotonic() - started, 2.0)
        self.release.set()
        self.assertEqual(_answers(held, 1)[0][0], 201)

    def test_a_client_gone_before_its_answer_leaves_the_error_recorded_and_the_service_up(self):
        gone = self.hold_a_write()
        gone.close()
        self.release.set()
        deadline = time.monotonic() + 10
        while self.handler.store.count_errors() < 1 and time.monotonic() < deadline:
            time.sleep(0.01)
        self.assertEqual(self.handler.store.count_errors(), 1)
        sock = self.connect()
        sock.sendall(_request(OUTAGE))  # the same error: its answer was recorded
        self.assertEqual(_answers(sock, 1)[0][0], 200)

    def test_a_connection_broken_at_its_answer_ends_alone(self):
        broken = self.hold_a_write()
        (conn,) = self.server._connections  # its answer will meet a broken pipe
        conn.sock = _Broken(conn.sock)
        self.release.set()
        self.assertEqual(broken.recv(1), b"")  # that connection is closed...
        self.assertEqual(self.get("/healthz")[0], 200)  # ...and the service goes on
        self.assertTrue(self.thread.is_alive())


class _Broken:
    """A socket whose peer is gone by the time anything is sent."""

    def __init__(self, sock: socket.socket):
        self._sock = sock

    def send(self, data) -> int:
        raise BrokenPipeError(32, "Broken pipe")

    def __getattr__(self, name: str):
        return getattr(self._sock, name)


class IdleTest(LoopCase):
    idle_timeout = 0.2

    def test_an_idle_connection_is_closed_and_a_busy_one_is_not(self):
        idle = self.connect()
        busy = self.hold_a_write()
        self.assertEqual(idle.recv(1), b"")  # closed by the server after 0.2 s of silence
        time.sleep(0.4)
        self.release.set()
        self.assertEqual(_answers(busy, 1)[0][0], 201)  # its write outlasted the timeout


if __name__ == "__main__":
    unittest.main()
