"""Loopback load test of ``dua serve``: POST /v1/errors against the floor of GET /healthz.

The server runs in its own process (``python -m dua serve --port 0``) with a file store; 16
keep-alive clients in this process send 10,000 requests per figure. Any 5xx or connection
error fails the benchmark instead of being averaged away.
"""
from __future__ import annotations

import http.client
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

from .figures import Figure

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLIENTS = 16
REQUESTS = 10_000
DISTINCT = 2_500  # the mixed run repeats each error 4 times: 25% new, 75% duplicates


def _payload(i: int) -> bytes:
    kinds = (("query_engine", "query_error", "DB_TIMEOUT", "Query timed out during aggregation",
              {"aggregation": "sum", "date_range_days": 365}),
             ("visualization_agent", "chart_error", "INCOMPATIBLE_CHART_TYPE",
              "Pie chart cannot display time-series data", {"chart": "pie", "dimension": "date"}),
             ("query_engine", "schema_error", "FIELD_NOT_FOUND", "product_id not found",
              {"field": "product_id", "available_fields": ["product_code", "name"]}),
             ("input_parser", "input_error", "AMBIGUOUS_INPUT", "Input ambiguous: 'Show revenue'",
              {"input": "Show revenue"}))
    agent, etype, code, message, ctx = kinds[i % len(kinds)]
    return json.dumps({"agent_id": agent, "timestamp": "2025-08-08T12:01:00Z", "status": "error",
                       "data": {"error_type": etype, "error_code": code, "message": message,
                                "context": ctx, "query_id": f"q_{i}"}}).encode()


def _load(port: int, requests: list) -> dict:
    """Send ``requests`` (method, path, body) over CLIENTS keep-alive connections."""
    latencies, statuses, failures = [], [], []
    lock = threading.Lock()
    shares = [requests[n::CLIENTS] for n in range(CLIENTS)]

    def client(share: list) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine, codes = [], []
        try:
            for method, path, body in share:
                headers = {"Content-Type": "application/json"} if body else {}
                started = time.perf_counter()
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                resp.read()
                mine.append(time.perf_counter() - started)
                codes.append(resp.status)
        except Exception as exc:  # reported below: the benchmark fails on any
            failures.append(repr(exc))
        finally:
            conn.close()
            with lock:
                latencies.extend(mine)
                statuses.extend(codes)

    threads = [threading.Thread(target=client, args=(s,)) for s in shares]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - started
    errors = [s for s in statuses if s >= 500]
    if failures or errors or len(statuses) != len(requests):
        raise RuntimeError(f"load test failed: {len(errors)} 5xx, {len(failures)} client errors "
                           f"{failures[:3]}, {len(statuses)}/{len(requests)} answered")
    q = statistics.quantiles(latencies, n=100)
    return {"rps": len(requests) / elapsed, "p50": q[49], "p99": q[98], "n": len(requests)}


def _start(tmp: str) -> tuple:
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.Popen([sys.executable, "-m", "dua", "serve", "--port", "0", "--quiet", "--db",
                             os.path.join(tmp, "bench.sqlite3")], stderr=subprocess.PIPE,
                            text=True, env=env, cwd=REPO)
    line = proc.stderr.readline()
    match = re.search(r"127\.0\.0\.1:(\d+)", line)
    if not match:
        proc.kill()
        raise RuntimeError(f"dua serve did not start: {line}{proc.stderr.read()}")
    return proc, int(match.group(1))


def run() -> list:
    with tempfile.TemporaryDirectory() as tmp:
        proc, port = _start(tmp)
        try:
            _load(port, [("GET", "/healthz", None)] * 500)  # warm up
            floor = _load(port, [("GET", "/healthz", None)] * REQUESTS)
            new = _load(port, [("POST", "/v1/errors", _payload(i)) for i in range(REQUESTS)])
            mixed = _load(port, [("POST", "/v1/errors", _payload(REQUESTS + i % DISTINCT))
                                 for i in range(REQUESTS)])
        finally:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(30)
            proc.stderr.close()
        if code != 0:
            raise RuntimeError(f"dua serve exited with {code} after SIGTERM")
    floor_name = f"GET /healthz ({CLIENTS} clients)"
    figures = []
    for label, m in (("POST /v1/errors, all new", new), ("POST /v1/errors, 75% duplicates", mixed)):
        figures += [
            Figure(f"{label}: {m['n']:,} req, 0 5xx", m["rps"], floor["rps"], "req/s", floor_name,
                   higher_is_better=True),
            Figure(f"{label}: p50", m["p50"] * 1000, floor["p50"] * 1000, "ms", floor_name),
            Figure(f"{label}: p99", m["p99"] * 1000, floor["p99"] * 1000, "ms", floor_name),
        ]
    return figures
