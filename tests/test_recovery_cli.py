"""`dua handle` and `dua serve` as a user runs them (subprocesses)."""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from tests.support import REPO, run_dua
from tests.test_recovery_agent import CHART, DB_TIMEOUT


class HandleCommandTest(unittest.TestCase):
    def test_handle_prints_the_feedback_for_a_file_and_for_stdin(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "payload.json")
            with open(path, "w") as fh:
                json.dump(CHART, fh)
            done = run_dua("handle", path, env={"DUA_HOME": tmp})
            self.assertEqual(done.returncode, 0, done.stderr)
            self.assertEqual(json.loads(done.stdout)["next_action"], "resume")
            self.assertEqual(os.listdir(tmp), ["payload.json"])  # in memory: nothing written
        done = run_dua("handle", "-", "--json", input=json.dumps(DB_TIMEOUT))
        self.assertEqual(json.loads(done.stdout)["error_type"], "query_error")

    def test_handle_in_memory_says_its_queued_retry_ends_with_it_and_with_db_keeps_it(self):
        done = run_dua("handle", "-", input=json.dumps(DB_TIMEOUT))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertIn("I've queued retry 1", json.loads(done.stdout)["user_message"])
        self.assertIn("queued in memory and is gone when this command ends; pass --db FILE",
                      done.stderr)
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "r.sqlite3")
            done = run_dua("handle", "-", "--db", db, input=json.dumps(DB_TIMEOUT))
            self.assertNotIn("in memory", done.stderr)
            from dua.recovery import Store

            self.assertEqual([r["query_id"] for r in Store(db).retries("q_456")], ["q_456"])
        chart = run_dua("handle", "-", input=json.dumps(CHART))  # nothing queued, nothing said
        self.assertNotIn("queued", chart.stderr)

    def test_handle_with_db_persists_and_replays(self):
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "r.sqlite3")
            first = run_dua("handle", "-", "--db", db, input=json.dumps(CHART))
            second = run_dua("handle", "-", "--db", db, input=json.dumps(CHART))
            self.assertEqual(json.loads(first.stdout)["error_id"], json.loads(second.stdout)["error_id"])

    def test_a_malformed_payload_exits_3_naming_the_field(self):
        bad = dict(CHART, timestamp="noon")
        done = run_dua("handle", "-", input=json.dumps(bad))
        self.assertEqual(done.returncode, 3)
        self.assertIn("timestamp: expected ISO 8601", done.stderr)
        self.assertNotIn("Traceback", done.stderr)
        done = run_dua("handle", "-", input="{oops")
        self.assertEqual(done.returncode, 3)
        self.assertIn("not valid JSON", done.stderr)

    def test_an_empty_payload_says_empty_and_names_stdin(self):
        done = run_dua("handle", "-", input="  \n")
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertIn("stdin: empty; expected a JSON object", done.stderr)
        self.assertNotIn("Traceback", done.stderr)

    def test_a_payload_nested_too_deeply_is_bad_input_not_a_bug(self):
        done = run_dua("handle", "-", input="[" * 100000 + "]" * 100000)
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertIn("stdin: JSON nested too deeply", done.stderr)

    def test_a_list_payload_is_one_problem(self):
        done = run_dua("handle", "-", input=json.dumps([CHART]))
        self.assertEqual(done.returncode, 3, done.stderr)
        self.assertIn("<root>: expected object, got list", done.stderr)
        self.assertNotIn("required field is missing", done.stderr)

    def test_the_payload_in_help_is_one_handle_accepts(self):
        helptext = run_dua("handle", "--help").stdout
        example = re.search(r"echo '(.+)' \| python -m dua handle -", helptext)
        self.assertIsNotNone(example, helptext)
        done = run_dua("handle", "-", input=example.group(1))
        self.assertEqual(done.returncode, 0, done.stderr)
        self.assertEqual(json.loads(done.stdout)["next_action"], "resume")

    def test_a_missing_file_is_a_usage_error(self):
        done = run_dua("handle", "/nonexistent/payload.json")
        self.assertEqual(done.returncode, 2)
        self.assertIn("Cannot read the payload file", done.stderr)


class ServeCommandTest(unittest.TestCase):
    def test_serve_answers_on_loopback_and_stops_on_sigterm(self):
        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PYTHONPATH=REPO, DUA_HOME=tmp)
            proc = subprocess.Popen([sys.executable, "-m", "dua", "serve", "--port", "0", "--quiet"],
                                    stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
            try:
                line = proc.stderr.readline()
                port = int(re.search(r"127\.0\.0\.1:(\d+)", line).group(1))
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                conn.request("POST", "/v1/errors", json.dumps(CHART),
                             {"Content-Type": "application/json"})
                self.assertEqual(conn.getresponse().status, 201)
                conn.close()
                proc.send_signal(signal.SIGTERM)
                self.assertEqual(proc.wait(10), 0)
                self.assertIn("stopped", proc.stderr.read())
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                proc.stderr.close()
            self.assertIn("recovery.sqlite3", os.listdir(tmp))  # the store lives under DUA_HOME

    def test_serve_json_prints_where_it_listens_on_stdout(self):
        proc = subprocess.Popen([sys.executable, "-m", "dua", "serve", "--port", "0", "--db",
                                 ":memory:", "--json", "--quiet"], stdout=subprocess.PIPE,
                                stderr=subprocess.DEVNULL, text=True, cwd=REPO,
                                env=dict(os.environ, PYTHONPATH=REPO))
        try:
            where = json.loads(proc.stdout.readline())
            self.assertEqual((where["host"], where["store"]), ("127.0.0.1", ":memory:"))
            conn = http.client.HTTPConnection("127.0.0.1", where["port"], timeout=10)
            conn.request("GET", "/healthz")
            self.assertEqual(conn.getresponse().status, 200)
            conn.close()
            proc.send_signal(signal.SIGTERM)
            self.assertEqual(proc.wait(10), 0)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            proc.stdout.close()

    def test_sigterm_lets_a_request_in_flight_finish(self):
        import socket

        with tempfile.TemporaryDirectory() as tmp:
            env = dict(os.environ, PYTHONPATH=REPO, DUA_HOME=tmp)
            proc = subprocess.Popen([sys.executable, "-m", "dua", "serve", "--port", "0", "--quiet"],
                                    stderr=subprocess.PIPE, text=True, env=env, cwd=REPO)
            try:
                port = int(re.search(r"127\.0\.0\.1:(\d+)", proc.stderr.readline()).group(1))
                body = json.dumps(CHART).encode()
                with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
                    sock.sendall(b"POST /v1/errors HTTP/1.1\r\nHost: x\r\nContent-Type: "
                                 b"application/json\r\nContent-Length: %d\r\n\r\n" % len(body)
                                 + body[:10])
                    time.sleep(0.3)  # the handler is now waiting for the rest of the body
                    proc.send_signal(signal.SIGTERM)
                    time.sleep(0.3)
                    sock.sendall(body[10:])
                    reply = sock.makefile("rb").readline()
                self.assertTrue(reply.startswith(b"HTTP/1.0 201") or reply.startswith(b"HTTP/1.1 201"),
                                reply)
                self.assertEqual(proc.wait(10), 0)
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                proc.stderr.close()

    def test_a_busy_port_is_a_usage_error(self):
        import socket

        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            sock.listen()
            port = sock.getsockname()[1]
            started = time.perf_counter()
            done = run_dua("serve", "--port", str(port), "--db", ":memory:", timeout=30)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("Cannot listen", done.stderr)
        self.assertIn("Pick another --port", done.stderr)
        self.assertLess(time.perf_counter() - started, 20)

    def test_serve_logs_one_json_line_per_new_error_and_none_for_a_duplicate(self):
        with tempfile.TemporaryDirectory() as tmp:
            proc = subprocess.Popen([sys.executable, "-m", "dua", "serve", "--port", "0", "--json",
                                     "--db", os.path.join(tmp, "r.sqlite3")],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    cwd=REPO, env=dict(os.environ, PYTHONPATH=REPO))
            try:
                port = json.loads(proc.stdout.readline())["port"]
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
                for body in (CHART, DB_TIMEOUT, CHART):
                    conn.request("POST", "/v1/errors", json.dumps(body),
                                 {"Content-Type": "application/json"})
                    conn.getresponse().read()
                conn.close()
                proc.send_signal(signal.SIGTERM)
                self.assertEqual(proc.wait(10), 0)
                lines = [json.loads(line) for line in proc.stderr.read().splitlines()
                         if line.startswith("{")]
            finally:
                if proc.poll() is None:
                    proc.kill()
                    proc.wait()
                proc.stdout.close()
                proc.stderr.close()
        # written by the logging thread, every one of them out by the time serve has stopped
        self.assertEqual([(e["event"], e["error_code"]) for e in lines],
                         [("error_handled", "INCOMPATIBLE_CHART_TYPE"),
                          ("error_handled", "DB_TIMEOUT")])

    def test_a_failure_to_start_is_one_line_without_the_telemetry_log(self):
        with tempfile.TemporaryDirectory() as tmp:
            not_a_db = os.path.join(tmp, "notes.sqlite3")
            with open(not_a_db, "w") as fh:
                fh.write("these are notes, not a sqlite database\n" * 4)
            done = run_dua("serve", "--port", "0", "--db", not_a_db, timeout=30)
        self.assertEqual(done.returncode, 4, done.stderr)
        self.assertTrue(done.stderr.startswith("dua serve: "), done.stderr)
        self.assertIn("file is not a database", done.stderr)
        self.assertNotIn("error_handled", done.stderr)  # no JSON log line before the answer
        self.assertNotIn("escalation", done.stderr)
        self.assertNotIn("operators have been notified", done.stderr)
        self.assertIn("try: Check the store path (--db or DUA_HOME)", done.stderr)

    def test_an_empty_token_is_refused_rather_than_serving_without_auth(self):
        done = run_dua("serve", "--port", "0", "--db", ":memory:", "--token", "", timeout=30)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("--token is empty", done.stderr)

    def test_an_address_not_of_this_machine_says_to_fix_host(self):
        done = run_dua("serve", "--host", "192.0.2.1", "--port", "0", "--db", ":memory:",
                       timeout=30)
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("Pass --host an address of this machine", done.stderr)


if __name__ == "__main__":
    unittest.main()
