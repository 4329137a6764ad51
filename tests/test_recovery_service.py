"""The HTTP service on a real socket (127.0.0.1, port 0): validation, auth, idempotency keys,
status codes, keep-alive latency, 64 concurrent clients and the graceful stop."""
from __future__ import annotations

import copy
import http.client
import json
import os
import tempfile
import threading
import time
import unittest

from dua.recovery import ErrorHandler, Store
from dua.recovery.server import make_server
from tests.test_recovery_agent import CHART, DB_TIMEOUT, OUTAGE


class Server:
    """A service in a background thread; ``request`` speaks HTTP/1.1 over one connection."""

    def __init__(self, handler: ErrorHandler | None = None, **options):
        self.handler = handler or ErrorHandler(notifier=lambda event: None)
        self.httpd = make_server(self.handler, "127.0.0.1", 0, **options)
        self.port = self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05})
        self.thread.start()

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)

    def request(self, method: str, path: str, body: object = None, headers: dict | None = None,
                conn: http.client.HTTPConnection | None = None) -> tuple:
        own = conn is None
        conn = conn or self.connect()
        data = body if isinstance(body, (bytes, type(None))) else json.dumps(body).encode()
        hdrs = {"Content-Type": "application/json"} if data is not None else {}
        hdrs.update(headers or {})
        conn.request(method, path, body=data, headers=hdrs)
        resp = conn.getresponse()
        raw = resp.read()
        if own:
            conn.close()
        ctype = resp.getheader("Content-Type", "")
        doc = json.loads(raw) if "json" in ctype else raw.decode()
        return resp.status, doc, resp

    def stop(self) -> None:
        self.httpd.stop(grace=5)
        self.thread.join(5)


class ServiceCase(unittest.TestCase):
    options: dict = {}

    def setUp(self):
        self.server = Server(**self.options)

    def tearDown(self):
        self.server.stop()

    def post(self, body, **kw):
        return self.server.request("POST", "/v1/errors", body, **kw)

    def assertProblem(self, result, status: int, slug: str):
        code, doc, resp = result
        self.assertEqual(code, status, doc)
        self.assertEqual(resp.getheader("Content-Type"), "application/problem+json")
        self.assertEqual((doc["status"], doc["type"].rsplit("/", 1)[1]), (status, slug))
        for key in ("title", "detail", "instance"):
            self.assertIn(key, doc)
        return doc


def broken(path: str, value) -> dict:
    doc = copy.deepcopy(CHART)
    keys = path.split(".")
    target = doc
    for key in keys[:-1]:
        target = target[key]
    if value is KeyError:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return doc


class ValidationTest(ServiceCase):
    """One test per class of malformed payload; each names the field."""

    def assertInvalid(self, body, field: str, **kw):
        doc = self.assertProblem(self.post(body, **kw), 400, kw.pop("slug", "invalid-payload"))
        self.assertTrue(any(p.startswith(field) for p in doc["problems"]), doc["problems"])

    def test_missing_field(self):
        self.assertInvalid(broken("data.error_code", KeyError), "data.error_code: required")

    def test_wrong_type(self):
        self.assertInvalid(broken("data.context", "chart=pie"), "data.context: expected object")

    def test_unknown_error_type(self):
        self.assertInvalid(broken("data.error_type", "oops_error"), "data.error_type: expected one of")

    def test_bad_timestamp(self):
        self.assertInvalid(broken("timestamp", "yesterday"), "timestamp: expected ISO 8601")

    def test_bad_query_id(self):
        self.assertInvalid(broken("data.query_id", "q 1; DROP"), "data.query_id")

    def test_unknown_query_once_queries_are_registered(self):
        self.assertEqual(self.server.request("PUT", "/v1/sessions/q_known", {"user": "ana"})[0], 200)
        self.assertInvalid(broken("data.query_id", "q_other"), "data.query_id: unknown query")
        self.assertEqual(self.post(broken("data.query_id", "q_known"))[0], 201)

    def test_not_json(self):
        doc = self.assertProblem(self.post(b"{not json"), 400, "invalid-json")
        self.assertIn("not valid JSON", doc["problems"][0])

    def test_empty_body_is_named_empty(self):
        doc = self.assertProblem(self.post(b""), 400, "invalid-json")
        self.assertEqual(doc["problems"], ["<body>: empty; send a JSON object"])

    def test_a_list_is_one_problem_not_every_field_missing(self):
        doc = self.assertProblem(self.post([CHART]), 400, "invalid-payload")
        self.assertEqual(doc["problems"], ["<root>: expected object, got list"])

    def test_a_malformed_content_length_is_400_naming_it(self):
        for length in ("-5", "abc"):
            conn = self.server.connect()
            conn.putrequest("POST", "/v1/errors")
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", length)
            conn.endheaders()
            resp = conn.getresponse()
            doc = json.loads(resp.read())
            self.assertEqual((resp.status, doc["type"].rsplit("/", 1)[1]),
                             (400, "invalid-content-length"), length)
            self.assertIn(repr(length), doc["detail"])
            conn.close()

    def test_json_nested_too_deeply_is_400_not_500(self):
        doc = self.assertProblem(self.post(b"[" * 100000 + b"]" * 100000), 400, "invalid-json")
        self.assertEqual(doc["problems"], ["<body>: JSON nested too deeply"])
        deep: list = []
        for _ in range(200):
            deep = [deep]
        self.assertInvalid(broken("data.context", {"rows": deep}), "data.context: nested deeper")

    def test_too_large(self):
        self.assertProblem(self.post(b"{" + b" " * (1 << 20) + b"}"), 413, "payload-too-large")

    def test_wrong_content_type(self):
        self.assertProblem(self.post(CHART, headers={"Content-Type": "text/plain"}), 415,
                           "unsupported-media-type")

    def test_missing_length(self):
        conn = self.server.connect()
        conn.putrequest("POST", "/v1/errors")
        conn.putheader("Content-Type", "application/json")
        conn.endheaders()
        resp = conn.getresponse()
        self.assertEqual(resp.status, 411)
        conn.close()


class RoutesTest(ServiceCase):
    def test_new_then_duplicate_then_get(self):
        code, first, resp = self.post(CHART)
        self.assertEqual(code, 201)
        self.assertEqual(resp.getheader("Location"), f"/v1/errors/{first['error_id']}")
        code, again, _ = self.post(CHART)
        self.assertEqual((code, again), (200, first))
        code, record, _ = self.server.request("GET", f"/v1/errors/{first['error_id']}")
        self.assertEqual((code, record["feedback"]), (200, first))
        code, session, _ = self.server.request("GET", "/v1/sessions/q_456")
        self.assertEqual(session["error_ids"], [first["error_id"]])

    def test_a_cached_result_put_over_http_is_offered_on_timeout(self):
        self.assertEqual(self.server.request("PUT", "/v1/cache/query:q_456", {"rows": 3})[0], 200)
        code, fb, _ = self.post(DB_TIMEOUT)
        self.assertIn("use_cache:true", fb["automated_actions"])
        self.assertIn("Use cached results", fb["recovery_suggestions"])

    def test_unknown_paths_and_ids_are_404(self):
        self.assertProblem(self.server.request("GET", "/v2/nothing"), 404, "not-found")
        self.assertProblem(self.server.request("GET", "/v1/errors/err_missing"), 404, "not-found")
        self.assertProblem(self.server.request("GET", "/v1/sessions/q_missing"), 404, "not-found")

    def test_wrong_method_is_405_with_allow(self):
        doc = self.assertProblem(self.server.request("DELETE", "/v1/errors"), 405, "method-not-allowed")
        self.assertEqual(doc["allow"], "POST")
        self.assertEqual(self.server.request("GET", "/v1/errors")[2].getheader("Allow"), "POST")

    def test_head_answers_like_get_without_a_body_and_options_is_405(self):
        conn = self.server.connect()
        conn.request("HEAD", "/healthz")
        resp = conn.getresponse()
        self.assertEqual((resp.status, resp.read()), (200, b""))
        self.assertEqual(resp.getheader("Content-Length"), str(len(b'{"status":"ok"}')))
        conn.request("HEAD", "/v1/errors")  # POST only: HEAD is a wrong method there
        resp = conn.getresponse()
        resp.read()
        self.assertEqual((resp.status, resp.getheader("Allow")), (405, "POST"))
        conn.close()
        doc = self.assertProblem(self.server.request("OPTIONS", "/v1/sessions/q_1"), 405,
                                 "method-not-allowed")
        self.assertEqual(doc["allow"], "GET, PUT")

    def test_healthz_and_metrics(self):
        self.assertEqual(self.server.request("GET", "/healthz")[:2], (200, {"status": "ok"}))
        self.post(DB_TIMEOUT)
        code, text, resp = self.server.request("GET", "/metrics")
        self.assertEqual(code, 200)
        self.assertTrue(resp.getheader("Content-Type").startswith("text/plain; version=0.0.4"))
        self.assertIn('dua_recovery_errors_total{error_type="query_error",next_action="resume"} 1',
                      text)
        self.assertIn('dua_http_requests_total{method="POST",route="/v1/errors",status="201"} 1', text)
        self.assertIn('dua_recovery_handle_seconds_bucket{le="+Inf"} 1', text)

    def test_refused_body_closes_the_connection_cleanly(self):
        conn = self.server.connect()
        status, _, resp = self.server.request("POST", "/v1/nowhere", CHART, conn=conn)
        self.assertEqual(status, 404)
        self.assertEqual(resp.getheader("Connection"), "close")
        conn.close()


class IdempotencyKeyTest(ServiceCase):
    def test_same_key_same_body_replays_the_stored_response(self):
        first = self.post(OUTAGE, headers={"Idempotency-Key": "k1"})
        second = self.post(OUTAGE, headers={"Idempotency-Key": "k1"})
        self.assertEqual((first[0], second[0]), (201, 201))  # the first answer, status included
        self.assertEqual(first[1], second[1])
        self.assertEqual(second[2].getheader("Idempotent-Replayed"), "true")
        self.assertEqual(second[2].getheader("Location"), f"/v1/errors/{first[1]['error_id']}")

    def test_same_key_different_body_is_422(self):
        self.post(OUTAGE, headers={"Idempotency-Key": "k2"})
        self.assertProblem(self.post(CHART, headers={"Idempotency-Key": "k2"}), 422,
                           "idempotency-key-reused")

    def test_a_key_still_in_flight_is_409_then_replays_once_answered(self):
        entered, release = threading.Event(), threading.Event()

        def slow_notifier(event):  # OUTAGE escalates: the first request waits in here
            entered.set()
            release.wait(10)

        tmp = tempfile.TemporaryDirectory()
        self.addCleanup(tmp.cleanup)
        store = Store(os.path.join(tmp.name, "recovery.sqlite3"))  # as dua serve has: reads never wait
        server = Server(ErrorHandler(store, notifier=slow_notifier))
        self.addCleanup(server.stop)
        first = []
        thread = threading.Thread(target=lambda: first.append(
            server.request("POST", "/v1/errors", OUTAGE, {"Idempotency-Key": "k3"})))
        thread.start()
        self.assertTrue(entered.wait(10))
        try:
            self.assertProblem(server.request("POST", "/v1/errors", OUTAGE, {"Idempotency-Key": "k3"}),
                               409, "idempotency-key-in-flight")
            self.assertProblem(server.request("POST", "/v1/errors", CHART, {"Idempotency-Key": "k3"}),
                               422, "idempotency-key-reused")
        finally:
            release.set()
            thread.join(10)
        self.assertEqual(first[0][0], 201)
        code, doc, resp = server.request("POST", "/v1/errors", OUTAGE, {"Idempotency-Key": "k3"})
        self.assertEqual((code, doc, resp.getheader("Idempotent-Replayed")), (201, first[0][1], "true"))
        self.assertEqual(server.handler.store.count_errors(), 1)

    def test_a_refused_request_does_not_burn_its_key(self):
        self.assertEqual(self.post(b"{", headers={"Idempotency-Key": "k4"})[0], 400)
        self.assertEqual(self.post(b"{", headers={"Idempotency-Key": "k4"})[0], 400)
        self.assertProblem(self.post(b"{}", headers={"Idempotency-Key": "k4"}), 400, "invalid-payload")


class AuthTest(ServiceCase):
    options = {"token": "s3cret"}

    def test_missing_or_wrong_token_is_401_and_the_right_one_passes(self):
        doc = self.assertProblem(self.post(CHART), 401, "unauthorized")
        self.assertIn("Bearer", doc["detail"])
        self.assertEqual(self.post(CHART, headers={"Authorization": "Bearer wrong"})[0], 401)
        self.assertEqual(self.post(CHART, headers={"Authorization": "Basic s3cret"})[0], 401)
        self.assertEqual(self.post(CHART, headers={"Authorization": "Bearer s3cret"})[0], 201)
        self.assertEqual(self.server.request("GET", "/healthz")[0], 200)  # probes stay open


class ConcurrencyTest(ServiceCase):
    def test_keep_alive_requests_are_not_delayed_by_nagle(self):
        conn = self.server.connect()
        self.post(CHART, conn=conn)
        started = time.perf_counter()
        for _ in range(20):
            self.assertEqual(self.post(CHART, conn=conn)[0], 200)
        per_request = (time.perf_counter() - started) / 20
        conn.close()
        self.assertLess(per_request, 0.03)  # Nagle + delayed ACK would cost ~40 ms each

    def test_sixty_four_concurrent_keep_alive_clients(self):
        statuses, errors_seen = [], []
        barrier = threading.Barrier(64)

        def client(n: int) -> None:
            try:
                conn = self.server.connect()
                barrier.wait()
                for i in range(3):
                    body = copy.deepcopy(CHART)
                    body["data"]["query_id"] = f"q_{n}"
                    statuses.append(self.post(body, conn=conn)[0])
                conn.close()
            except Exception as exc:  # collected: the assertion below names them
                errors_seen.append(repr(exc))

        threads = [threading.Thread(target=client, args=(n,)) for n in range(64)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual(errors_seen, [])
        self.assertEqual(sorted(set(statuses)), [200, 201])
        self.assertEqual(statuses.count(201), 64)
        self.assertEqual(self.server.handler.store.count_errors(), 64)

    def test_sixteen_concurrent_identical_posts_make_one_record(self):
        results, barrier = [], threading.Barrier(16)

        def client():
            barrier.wait()
            results.append(self.post(OUTAGE)[:2])

        threads = [threading.Thread(target=client) for _ in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(30)
        self.assertEqual(sorted(code for code, _ in results), [200] * 15 + [201])
        self.assertEqual(len({doc["error_id"] for _, doc in results}), 1)
        self.assertEqual(self.server.handler.store.count_errors(), 1)


class GracefulStopTest(unittest.TestCase):
    def test_stop_finishes_the_request_in_flight(self):
        entered = threading.Event()

        def slow_notifier(event):
            entered.set()
            time.sleep(0.3)

        server = Server(ErrorHandler(notifier=slow_notifier))
        result = []
        client = threading.Thread(target=lambda: result.append(server.request("POST", "/v1/errors",
                                                                              OUTAGE)))
        client.start()
        self.assertTrue(entered.wait(5))
        server.stop()
        client.join(5)
        self.assertEqual(result[0][0], 201)
        self.assertEqual(result[0][2].getheader("Connection"), "close")
        with self.assertRaises(OSError):
            server.request("GET", "/healthz")



class StdlibRefusalTest(ServiceCase):
    def test_an_unsupported_method_is_problem_json_too(self):
        code, doc, resp = self.server.request("BREW", "/v1/errors")  # no such HTTP method
        self.assertEqual(code, 501)
        self.assertEqual(resp.getheader("Content-Type"), "application/problem+json")
        self.assertEqual(doc["status"], 501)

    def test_an_oversized_header_is_problem_json(self):
        import socket

        with socket.create_connection(("127.0.0.1", self.server.port), timeout=5) as sock:
            sock.sendall(b"GET /healthz HTTP/1.1\r\nX-Big: " + b"a" * 70000 + b"\r\n\r\n")
            reply = b""
            while b"}" not in reply:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                reply += chunk
        text = reply.decode()
        self.assertTrue(text.startswith("HTTP/1.1 431"), text)
        self.assertIn("application/problem+json", text)

    def test_requests_during_shutdown_are_told_to_retry(self):
        self.server.httpd.closing = True
        try:
            code, doc, resp = self.server.request("GET", "/healthz")
        finally:
            self.server.httpd.closing = False
        self.assertEqual((code, doc["type"].rsplit("/", 1)[1]), (503, "shutting-down"))
        self.assertEqual(resp.getheader("Retry-After"), "1")


if __name__ == "__main__":
    unittest.main()
