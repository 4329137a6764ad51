"""Telemetry: JSON log lines per handled error, the Prometheus text format, the stored events."""
from __future__ import annotations

import json
import re
import unittest

from dua.recovery import ErrorHandler
from dua.recovery.telemetry import Telemetry
from tests.test_recovery_agent import CHART, DB_TIMEOUT

SAMPLE = re.compile(r'^[a-z_]+(\{[a-z_]+="[^"]*"(,[a-z_]+="[^"]*")*\})? [0-9.e+-]+$')


class TelemetryTest(unittest.TestCase):
    def test_each_handled_error_logs_one_json_line_with_ids_severity_actions_and_duration(self):
        handler = ErrorHandler(clock=lambda: 0.0)
        with self.assertLogs("dua.recovery", "INFO") as logs:
            feedback, _ = handler.handle(DB_TIMEOUT)
            handler.handle(DB_TIMEOUT)  # a duplicate: no second line
        [line] = [r.getMessage() for r in logs.records if r.name == "dua.recovery"]
        event = json.loads(line)
        self.assertEqual(event["error_id"], feedback["error_id"])
        self.assertEqual(event["query_id"], "q_456")
        self.assertEqual(event["severity"], "medium")
        self.assertEqual(event["actions_taken"], feedback["automated_actions"])
        self.assertGreater(event["duration_ms"], 0)
        self.assertEqual(handler.store.events()[0], event)

    def test_prometheus_text_has_help_type_and_well_formed_samples(self):
        handler = ErrorHandler()
        handler.handle(CHART)
        handler.handle(CHART)
        text = handler.telemetry.render()
        self.assertIn("# TYPE dua_recovery_errors_total counter", text)
        self.assertIn("# TYPE dua_recovery_handle_seconds histogram", text)
        self.assertIn("dua_recovery_duplicates_total 1", text)
        self.assertIn('dua_recovery_actions_total{kind="suggest_conversion"} 1', text)
        for line in text.splitlines():
            if not line.startswith("#"):
                self.assertRegex(line.replace('le="+Inf"', 'le="inf"'), SAMPLE)

    def test_histogram_buckets_are_cumulative(self):
        t = Telemetry()
        for seconds in (0.0001, 0.003, 0.003, 7.0):
            t.observe("dua_recovery_handle_seconds", seconds)
        text = t.render()
        self.assertIn('dua_recovery_handle_seconds_bucket{le="0.0005"} 1', text)
        self.assertIn('dua_recovery_handle_seconds_bucket{le="0.005"} 3', text)
        self.assertIn('dua_recovery_handle_seconds_bucket{le="5"} 3', text)
        self.assertIn('dua_recovery_handle_seconds_bucket{le="+Inf"} 4', text)
        self.assertIn("dua_recovery_handle_seconds_count 4", text)

    def test_label_values_are_escaped(self):
        t = Telemetry()
        t.count("dua_http_requests_total", route='a"b\\c\nd')
        self.assertIn('route="a\\"b\\\\c\\nd"', t.render())


if __name__ == "__main__":
    unittest.main()
