"""Telemetry: one JSON log line per event through ``logging``, and counters and latency
histograms rendered in the Prometheus text exposition format (version 0.0.4).

Thread-safe; keeps no reference to the store (the agent persists events itself).

A server calls ``hold_lines()``: from then on the lines wait in memory and ``flush()`` (its
serve loop, a few times a second, and its stop) logs them as one record, one line per event,
in one write. Logged one record per event, they cost a busy server a quarter of its CPU per
new error (measured: about 260 of 1,100 us), mostly waking the logging thread for each line.
"""
from __future__ import annotations

import bisect
import logging
import threading

LOG = logging.getLogger("dua.recovery")
BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)

HELP = {
    "dua_recovery_errors_total": ("counter", "Errors handled, by canonical type and next_action."),
    "dua_recovery_duplicates_total": ("counter", "Submissions answered from an earlier identical one."),
    "dua_recovery_actions_total": ("counter", "Automated actions run, by kind."),
    "dua_recovery_handle_seconds": ("histogram", "Time to handle one error payload."),
    "dua_http_requests_total": ("counter", "HTTP requests, by method, route and status."),
    "dua_http_request_seconds": ("histogram", "HTTP request latency, by route."),
}


class Telemetry:
    """Counters and histograms keyed by (name, labels); ``render()`` gives Prometheus text."""

    def __init__(self, logger: logging.Logger | None = None):
        self.logger = logger or LOG
        self._lock = threading.Lock()
        self._flushing = threading.Lock()
        self._counters: dict = {}
        self._histograms: dict = {}
        self._held: list | None = None  # lines waiting for flush(), once hold_lines() is called

    def count(self, name: str, amount: float = 1, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            self._counters[key] = self._counters.get(key, 0) + amount

    def observe(self, name: str, seconds: float, **labels: str) -> None:
        key = (name, tuple(sorted(labels.items())))
        with self._lock:
            hist = self._histograms.get(key)
            if hist is None:
                hist = self._histograms[key] = [[0] * len(BUCKETS), 0.0, 0]
            index = bisect.bisect_left(BUCKETS, seconds)
            if index < len(BUCKETS):
                hist[0][index] += 1
            hist[1] += seconds
            hist[2] += 1

    def value(self, name: str, **labels: str) -> float:
        """A counter's current value (0 when never counted)."""
        with self._lock:
            return self._counters.get((name, tuple(sorted(labels.items()))), 0)

    def log(self, line: str) -> None:
        """One JSON line per event; the CLI or the service decides where it goes."""
        if not self.logger.isEnabledFor(logging.INFO):
            return
        with self._lock:
            held = self._held
            if held is not None:
                held.append(line)
                return
        self.logger.info(line)

    def hold_lines(self) -> None:
        """Keep log lines until ``flush()`` (a SIGKILL loses those not yet flushed, as it loses
        those a logging queue holds; the events themselves are in the store)."""
        with self._lock:
            if self._held is None:
                self._held = []

    def flush(self) -> None:
        """Log the held lines, in order, as one record."""
        with self._flushing:  # two flushes at once must not swap their batches
            with self._lock:
                lines, self._held = self._held, ([] if self._held is not None else None)
            if lines:
                self.logger.info("\n".join(lines))

    def render(self) -> str:
        """The Prometheus text format: HELP and TYPE once per metric, then its samples."""
        with self._lock:
            counters = sorted(self._counters.items())
            histograms = sorted(self._histograms.items(), key=lambda kv: kv[0])
        lines, seen = [], set()
        for (name, labels), value in counters:
            _header(lines, seen, name)
            lines.append(f"{name}{_labels(labels)} {_num(value)}")
        for (name, labels), (buckets, total, count) in histograms:
            _header(lines, seen, name)
            running = 0
            for bound, n in zip(BUCKETS, buckets):
                running += n
                lines.append(f"{name}_bucket{_labels(labels + (('le', _num(bound)),))} {running}")
            lines.append(f"{name}_bucket{_labels(labels + (('le', '+Inf'),))} {count}")
            lines.append(f"{name}_sum{_labels(labels)} {_num(total)}")
            lines.append(f"{name}_count{_labels(labels)} {count}")
        return "\n".join(lines) + "\n"


def _header(lines: list, seen: set, name: str) -> None:
    if name in seen:
        return
    seen.add(name)
    kind, text = HELP.get(name, ("untyped", name))
    lines.append(f"# HELP {name} {text}")
    lines.append(f"# TYPE {name} {kind}")


def _labels(labels: tuple) -> str:
    if not labels:
        return ""
    # Label values escape backslash, quote and newline (the exposition format's rule).
    body = ",".join('{}="{}"'.format(k, str(v).replace("\\", "\\\\").replace('"', '\\"')
                                     .replace("\n", "\\n")) for k, v in labels)
    return "{" + body + "}"


def _num(value: float) -> str:
    return repr(float(value)) if isinstance(value, float) and value != int(value) else str(int(value))
