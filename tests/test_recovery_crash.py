"""Crash safety of ``dua serve``: killed with SIGKILL at a random moment while clients post
errors, and restarted on the same --db, it has lost no acknowledged error (each reads back
with the very feedback the client got), the clients' retries of what was in flight make no
duplicate (by Idempotency-Key or by the payload's own identity), and the store passes
PRAGMA integrity_check. 20 kills, loopback only; the counts are printed.
"""
from __future__ import annotations

import http.client
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import unittest

from tests.support import REPO

KILLS = 20
CLIENTS = 4  # two send an Idempotency-Key, two rely on the payload's identity (error_id)
KINDS = (("query_engine", "query_error", "DB_TIMEOUT", "Query timed out during aggregation",
          {"aggregation": "sum", "date_range_days": 365}),
         ("visualization_agent", "chart_error", "INCOMPATIBLE_CHART_TYPE",
          "Pie chart cannot display time-series data", {"chart": "pie"}),
         ("query_engine", "schema_error", "FIELD_NOT_FOUND", "product_id not found",
          {"field": "product_id", "available_fields": ["product_code", "name"]}),
         ("query_engine", "system_error", "SERVICE_UNAVAILABLE", "Warehouse unavailable (503)",
          {"service": "warehouse"}))


def payload(tag: str, n: int) -> bytes:
    agent, etype, code, message, context = KINDS[n % len(KINDS)]
    return json.dumps({"agent_id": agent, "timestamp": "2025-08-08T12:01:00Z", "status": "error",
                       "data": {"error_type": etype, "error_code": code, "message": message,
                                "context": context, "query_id": f"q_{tag}_{n}"}}).encode()


class Service:
    """``python -m dua serve`` on loopback, on the given store."""

    def __init__(self, db: str):
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dua", "serve", "--port", "0", "--json", "--quiet", "--db", db],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=REPO,
            env=dict(os.environ, PYTHONPATH=REPO))
        self.port = json.loads(self.proc.stdout.readline())["port"]

    def post(self, body: bytes, key: str | None) -> tuple:
        """(status, feedback, was it an answer recorded before?)"""
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            headers = {"Content-Type": "application/json", **({"Idempotency-Key": key} if key else {})}
            conn.request("POST", "/v1/errors", body, headers)
            resp = conn.getresponse()
            replayed = resp.status == 200 or resp.getheader("Idempotent-Replayed") == "true"
            return resp.status, json.loads(resp.read()), replayed
        finally:
            conn.close()

    def record(self, error_id: str) -> dict | None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", f"/v1/errors/{error_id}")
            resp = conn.getresponse()
            body = resp.read()
            return json.loads(body) if resp.status == 200 else None
        finally:
            conn.close()

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.proc.stdout.close()

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGTERM)
        self.proc.wait(30)
        self.proc.stdout.close()


class Poster(threading.Thread):
    """Posts new errors over one keep-alive connection until the server goes away."""

    def __init__(self, port: int, tag: str, keyed: bool):
        super().__init__(daemon=True)
        self.port, self.tag, self.keyed = port, tag, keyed
        self.acked: list = []  # (body, key, status, feedback): answered 201/200
        self.in_flight = None  # (body, key): sent, never answered
        self.refused: list = []  # any other answer: a bug

    def run(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        n = 0
        while True:
            body, key = payload(self.tag, n), f"{self.tag}-{n}" if self.keyed else None
            headers = {"Content-Type": "application/json", **({"Idempotency-Key": key} if key else {})}
            try:
                conn.request("POST", "/v1/errors", body, headers)
                resp = conn.getresponse()
                answer = resp.read()
            except (OSError, http.client.HTTPException):  # the server was killed
                self.in_flight = (body, key)
                conn.close()
                return
            if resp.status not in (200, 201):
                self.refused.append((resp.status, answer[:200]))
                return
            self.acked.append((body, key, resp.status, json.loads(answer)))
            n += 1


class CrashTest(unittest.TestCase):
    def test_sigkill_under_load_loses_no_acknowledged_error_and_retries_make_no_duplicate(self):
        rng = random.Random()
        seed = rng.randrange(1 << 30)
        rng.seed(seed)
        counts = dict.fromkeys(("acknowledged", "in_flight", "retried_new", "retried_replayed",
                                "lost", "changed"), 0)  # changed: read back or replayed otherwise
        submitted: set = set()
        with tempfile.TemporaryDirectory() as tmp:
            db = os.path.join(tmp, "recovery.sqlite3")
            service = Service(db)
            try:
                for kill in range(KILLS):
                    posters = [Poster(service.port, f"k{kill}c{c}", keyed=c % 2 == 0)
                               for c in range(CLIENTS)]
                    for p in posters:
                        p.start()
                    threading.Event().wait(rng.uniform(0.05, 0.4))  # the random moment
                    service.kill()
                    for p in posters:
                        p.join(60)
                    service = Service(db)
                    self.check_round(service, posters, counts, submitted, f"seed {seed}, kill {kill}")
            finally:
                service.stop()
            rows, events = sqlite3.connect(db).execute(
                "SELECT COUNT(*), COUNT(DISTINCT event_key) FROM errors").fetchone()
            integrity = sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0]
        duplicates = rows - len(submitted)
        print(f"\ncrash test (seed {seed}): {KILLS} SIGKILLs, {counts['acknowledged']} acknowledged "
              f"errors, {counts['lost']} lost, {counts['changed']} with another feedback; "
              f"{counts['in_flight']} in flight at the kills, retried: {counts['retried_new']} "
              f"new, {counts['retried_replayed']} already recorded; {rows} records for "
              f"{len(submitted)} distinct errors ({duplicates} duplicates); "
              f"integrity_check: {integrity}", file=sys.stderr)
        self.assertGreater(counts["acknowledged"], KILLS)  # there was load to lose
        self.assertEqual((counts["lost"], counts["changed"], duplicates), (0, 0, 0))
        self.assertEqual(rows, events)
        self.assertEqual(integrity, "ok")

    def check_round(self, service: Service, posters: list, counts: dict, submitted: set,
                    where: str) -> None:
        for p in posters:
            self.assertEqual(p.refused, [], where)
            for body, key, status, feedback in p.acked:
                counts["acknowledged"] += 1
                submitted.add(body)
                record = service.record(feedback["error_id"])
                if record is None:
                    counts["lost"] += 1
                elif record["feedback"] != feedback:
                    counts["changed"] += 1
            if p.acked:  # a retry of something answered gets that answer again
                body, key, status, feedback = p.acked[-1]
                if service.post(body, key) != (status if key else 200, feedback, True):
                    counts["changed"] += 1
            if p.in_flight:
                counts["in_flight"] += 1
                body, key = p.in_flight
                status, feedback, replayed = service.post(body, key)
                self.assertIn(status, (200, 201), where)
                counts["retried_replayed" if replayed else "retried_new"] += 1
                submitted.add(body)
                self.assertEqual(service.post(body, key)[1], feedback, where)  # stable from now on


if __name__ == "__main__":
    unittest.main()
