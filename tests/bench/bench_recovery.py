"""Loopback load test of ``dua serve``: POST /v1/errors against the floor of GET /healthz.

The server runs in its own process (``python -m dua serve --port 0``, with its telemetry log
on, written to a file, and a file store); CLIENTS keep-alive ``http.client`` threads in this
process send REQUESTS requests per kind: GET /healthz (the floor), POSTs of which one in four
is a duplicate, POSTs of new errors only, and duplicates only. A duplicate repeats an error
recorded before the timed runs, as a client's retry does. The kinds take turns in ROUNDS
rounds, so that a machine busier at one moment than another weighs on the floor as much as on
the POSTs; each round's share of the floor is computed and the median kept. The server's CPU
time per request is measured too, from /proc. Any 5xx or connection error fails the benchmark
instead of being averaged away.

Targets (issue 17): POST, one in four a duplicate, at >= 0.40 of the floor's req/s with p99
<= 20 ms; duplicates at least as fast as new errors.
"""
from __future__ import annotations

import http.client
import json
import os
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
ROUNDS = 5
RECORDED = 2_500  # errors posted before the timed runs, for the duplicates to repeat


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


def _posts(first_new: int, duplicate_every: int | None) -> list:
    """REQUESTS posts of new errors from ``first_new`` on; every ``duplicate_every``-th one
    (all of them with 1) repeats one of the RECORDED errors instead."""
    requests = []
    for i in range(REQUESTS):
        duplicate = duplicate_every is not None and i % duplicate_every == duplicate_every - 1
        n = (i * 7919) % RECORDED if duplicate else first_new + i
        requests.append(("POST", "/v1/errors", _payload(n)))
    return requests


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
    return {"seconds": elapsed, "latencies": latencies,
            "statuses": {s: statuses.count(s) for s in set(statuses)}}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process, all its threads (Linux)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _start(tmp: str, log) -> tuple:
    env = dict(os.environ, PYTHONPATH=REPO)
    proc = subprocess.Popen([sys.executable, "-m", "dua", "serve", "--port", "0", "--json",
                             "--db", os.path.join(tmp, "bench.sqlite3")],
                            stdout=subprocess.PIPE, stderr=log, text=True, env=env, cwd=REPO)
    line = proc.stdout.readline()
    if not line:
        proc.kill()
        raise RuntimeError("dua serve did not start (see its log)")
    return proc, json.loads(line)["port"]


def _measure(proc, port: int) -> dict:
    kinds = {"floor": [("GET", "/healthz", None)] * REQUESTS, "mixed": _posts(RECORDED, 4),
             "new": _posts(RECORDED + REQUESTS, None), "duplicates": _posts(0, 1)}
    _load(port, kinds["floor"][:500])  # warm up
    _load(port, _posts(0, None)[:RECORDED])  # the errors the duplicates repeat
    runs = {kind: [] for kind in kinds}
    per_round = REQUESTS // ROUNDS
    for r in range(ROUNDS):
        for kind, requests in kinds.items():
            cpu = _cpu_seconds(proc.pid)
            run = _load(port, requests[r * per_round:(r + 1) * per_round])
            run["cpu"] = _cpu_seconds(proc.pid) - cpu
            runs[kind].append(run)
    return {kind: _summary(rounds) for kind, rounds in runs.items()}


def _summary(rounds: list) -> dict:
    latencies = [x for run in rounds for x in run["latencies"]]
    statuses: dict = {}
    for run in rounds:
        for status, n in run["statuses"].items():
            statuses[status] = statuses.get(status, 0) + n
    q = statistics.quantiles(latencies, n=100)
    return {"rps": len(latencies) / sum(run["seconds"] for run in rounds),
            "round_rps": [len(run["latencies"]) / run["seconds"] for run in rounds],
            "p50": q[49], "p99": q[98], "n": len(latencies), "statuses": statuses,
            "cpu_us": sum(run["cpu"] for run in rounds) / len(latencies) * 1e6}


def run() -> list:
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "serve.log"), "w") as log:
            proc, port = _start(tmp, log)
            try:
                runs = _measure(proc, port)
            finally:
                proc.send_signal(signal.SIGTERM)
                code = proc.wait(30)
                proc.stdout.close()
        if code != 0:
            raise RuntimeError(f"dua serve exited with {code} after SIGTERM")
    expected = {"mixed": {201: REQUESTS - REQUESTS // 4, 200: REQUESTS // 4},
                "new": {201: REQUESTS}, "duplicates": {200: REQUESTS}}
    if any(runs[kind]["statuses"] != want for kind, want in expected.items()):
        raise RuntimeError(f"new errors and duplicates were not told apart: {expected} expected")
    return _figures(runs)


def _figures(runs: dict) -> list:
    floor = runs["floor"]
    floor_name = f"GET /healthz ({CLIENTS} clients, in turns with the POSTs)"
    share = statistics.median(m / f for m, f in zip(runs["mixed"]["round_rps"],
                                                    floor["round_rps"]))
    mixed = runs["mixed"]
    figures = [
        Figure(f"POST /v1/errors, 1 in 4 a duplicate: {mixed['n']:,} req, 0 5xx", mixed["rps"],
               floor["rps"], "req/s", floor_name, higher_is_better=True,
               target=f">= 0.40 of the floor (median of {ROUNDS} rounds: {share:.2f})"),
        Figure("POST /v1/errors, 1 in 4 a duplicate: p50", mixed["p50"] * 1000,
               floor["p50"] * 1000, "ms", floor_name),
        Figure("POST /v1/errors, 1 in 4 a duplicate: p99", mixed["p99"] * 1000,
               floor["p99"] * 1000, "ms", floor_name, target="<= 20 ms"),
        Figure("POST /v1/errors, 1 in 4 a duplicate: server CPU per request", mixed["cpu_us"],
               floor["cpu_us"], "us", floor_name),
    ]
    for label, m in (("all new", runs["new"]), ("all duplicates", runs["duplicates"])):
        figures += [
            Figure(f"POST /v1/errors, {label}: {m['n']:,} req, 0 5xx", m["rps"], floor["rps"],
                   "req/s", floor_name, higher_is_better=True),
            Figure(f"POST /v1/errors, {label}: p99", m["p99"] * 1000, floor["p99"] * 1000, "ms",
                   floor_name),
            Figure(f"POST /v1/errors, {label}: server CPU per request", m["cpu_us"],
                   floor["cpu_us"], "us", floor_name),
        ]
    figures.append(Figure("POST /v1/errors req/s, all duplicates against all new",
                          runs["duplicates"]["rps"], runs["new"]["rps"], "req/s", "all new",
                          higher_is_better=True,
                          target="<= 1.00x: duplicates at least as fast as new errors"))
    return figures
