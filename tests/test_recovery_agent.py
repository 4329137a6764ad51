"""The Error Handler graph: seed 004's five scenarios, dua's own error codes, skipped nodes."""
from __future__ import annotations

import random
import unittest

from dua import errors
from dua.recovery.agent import Services, build_graph, new_state
from dua.recovery.handler import ErrorHandler
from dua.recovery.record import record
from dua.recovery.store import Store


def payload(agent: str, error_type: str, code: str, message: str, context: dict | None = None,
            query_id: str = "q_456", timestamp: str = "2025-08-08T12:01:00Z") -> dict:
    return {"agent_id": agent, "timestamp": timestamp, "status": "error",
            "data": {"error_type": error_type, "error_code": code, "message": message,
                     "context": context or {}, "query_id": query_id}}


AMBIGUOUS = payload("input_parser", "input_error", "AMBIGUOUS_INPUT",
                    "Input ambiguous: 'Show revenue'", {"input": "Show revenue"})
MISSING_FIELD = payload("query_engine", "schema_error", "FIELD_NOT_FOUND",
                        "Schema missing field: product_id not found",
                        {"field": "product_id", "available_fields": ["product_code", "name", "price"]})
DB_TIMEOUT = payload("query_engine", "query_error", "DB_TIMEOUT",
                     "Query timed out after 30s during a large aggregation",
                     {"aggregation": "sum", "group_by": "month", "date_range_days": 730})
CHART = payload("visualization_agent", "chart_error", "INCOMPATIBLE_CHART_TYPE",
                "Pie chart cannot display time-series data", {"chart": "pie", "dimension": "date"})
OUTAGE = payload("query_engine", "system_error", "SERVICE_UNAVAILABLE",
                 "Downstream warehouse is unavailable (503)", {"service": "warehouse"})


def run_graph(raw: dict, store: Store | None = None, **services) -> tuple:
    """The final state and the names of the nodes that ran, in order; what the graph decided
    is recorded, as the handler does, in one transaction."""
    svc = Services(store or Store(), rng=random.Random(7), **services)
    state, path = new_state(raw), []
    with svc.store.transaction():
        for event, state in build_graph().stream(state, context=svc):
            path.append(event.node)
        if not state["duplicate"]:
            record(state, svc)
    return state, path


class SeedScenarioTest(unittest.TestCase):
    """The table of seed 004: each incoming error takes the documented path."""

    def test_ambiguous_input_suggests_clarifying_prompts_and_awaits_user(self):
        state, path = run_graph(AMBIGUOUS)
        fb = state["feedback"]
        self.assertEqual(path, ["ingress", "classify", "analyze", "policy", "actions", "message",
                                "format", "telemetry"])
        self.assertEqual((fb["error_type"], fb["next_action"]), ("input_error", "await_user"))
        self.assertEqual(len(fb["recovery_suggestions"]), 3)
        self.assertTrue(all(s.startswith("Show revenue") for s in fb["recovery_suggestions"]))
        self.assertEqual(fb["automated_actions"], ["ask_clarification:3"])
        self.assertIn("Show revenue", fb["user_message"])

    def test_ambiguous_input_reads_the_users_words_under_common_context_names(self):
        for key in ("user_input", "question", "prompt"):
            raw = payload("input_parser", "input_error", "AMBIGUOUS_INPUT", "Request ambiguous",
                          {key: "Show revenue"})
            fb = run_graph(raw)[0]["feedback"]
            self.assertIn("Show revenue", fb["user_message"], key)
            self.assertEqual(fb["automated_actions"], ["ask_clarification:3"], key)

    def test_ambiguous_input_without_the_users_words_counts_the_one_generic_prompt(self):
        raw = payload("input_parser", "input_error", "AMBIGUOUS_INPUT", "Request ambiguous")
        fb = run_graph(raw)[0]["feedback"]
        self.assertEqual(len(fb["recovery_suggestions"]), 1)
        self.assertEqual(fb["automated_actions"], ["ask_clarification:1"])

    def test_missing_field_with_a_synonym_is_mapped_and_resumes(self):
        state, path = run_graph(MISSING_FIELD)
        fb = state["feedback"]
        self.assertIn("analyze", path)
        self.assertEqual((fb["error_type"], fb["next_action"]), ("schema_error", "resume"))
        self.assertEqual(fb["automated_actions"], ["map_field:product_id->product_code"])
        self.assertEqual(fb["recovery_suggestions"][0], "Use product_code instead of product_id")
        self.assertIn("name", " ".join(fb["recovery_suggestions"]))  # the other fields are listed
        self.assertEqual(fb["context"]["session"]["field_map"], {"product_id": "product_code"})

    def test_missing_field_without_a_match_lists_fields_and_awaits_user(self):
        raw = payload("query_engine", "schema_error", "FIELD_NOT_FOUND", "product_id not found",
                      {"field": "product_id", "available_fields": ["region", "price"]})
        fb = run_graph(raw)[0]["feedback"]
        self.assertEqual(fb["next_action"], "await_user")
        self.assertEqual(fb["recovery_suggestions"], ["Use region", "Use price"])
        self.assertIn("Available fields: region, price", fb["user_message"])

    def test_close_misspelling_below_the_threshold_is_only_suggested(self):
        raw = payload("query_engine", "schema_error", "UNKNOWN_COLUMN", "column 'regon' not found",
                      {"available_fields": ["region", "price"]})
        fb = run_graph(raw)[0]["feedback"]
        self.assertEqual(fb["next_action"], "resume")  # ratio 0.91: above the 0.85 auto-fix bar
        self.assertEqual(fb["automated_actions"], ["map_field:regon->region"])
        raw["data"]["context"]["available_fields"] = ["regional_total", "price"]
        fb = run_graph(raw)[0]["feedback"]
        self.assertEqual(fb["next_action"], "await_user")
        self.assertEqual(fb["recovery_suggestions"][0], "Use regional_total")

    def test_db_timeout_retries_then_falls_back_to_cache_and_reduced_scope(self):
        store = Store()
        store.cache_put("query:q_456", {"rows": [1, 2, 3]})
        state, path = run_graph(DB_TIMEOUT, store, clock=lambda: 1000.0)
        fb = state["feedback"]
        self.assertEqual((fb["error_type"], fb["next_action"]), ("query_error", "resume"))
        self.assertEqual(fb["confidence"], 0.97)
        self.assertEqual(fb["automated_actions"],
                         ["retry:1", "use_cache:true", "reduce_scope:last_30_days"])
        self.assertEqual(fb["recovery_suggestions"],
                         ["Retry now", "Use cached results", "Narrow the date range"])
        self.assertEqual(fb["context"]["root_cause"], "heavy_aggregation")
        [queued] = store.retries("q_456")
        self.assertTrue(1000.25 <= queued["due"] <= 1000.5, queued)

    def test_db_timeout_says_the_retry_is_queued_and_what_runs_the_queue_issue_30(self):
        from dua.recovery.actions import drain_retries

        store = Store()
        store.cache_put("query:q_456", {"rows": [1]})
        message = run_graph(DB_TIMEOUT, store, clock=lambda: 1000.0)[0]["feedback"]["user_message"]
        self.assertNotIn("retry shortly", message)  # no promise of a retry nothing makes
        self.assertIn("I've queued retry 1 of this query", message)
        self.assertIn("drains the retry queue (dua.recovery.actions.drain_retries)", message)
        self.assertIn("cached results are available meanwhile", message)
        # The wording is true: the item waits until a caller drains the queue, then runs once.
        ran = []
        self.assertEqual(drain_retries(store, ran.append, clock=lambda: 999.0)["done"], 0)
        self.assertEqual(drain_retries(store, ran.append, clock=lambda: 2000.0)["done"], 1)
        self.assertEqual([item["query_id"] for item in ran], ["q_456"])

    def test_incompatible_chart_suggests_an_alternative_and_resumes(self):
        fb = run_graph(CHART)[0]["feedback"]
        self.assertEqual((fb["error_type"], fb["next_action"]), ("chart_error", "resume"))
        self.assertEqual(fb["automated_actions"], ["suggest_conversion:line"])
        self.assertEqual(fb["recovery_suggestions"],
                         ["Convert to line chart", "Choose a categorical dimension (product)"])
        self.assertEqual(fb["severity"], "low")
        self.assertIn("line chart", fb["user_message"])

    def test_outage_escalates_through_the_ops_hook_and_says_temporarily_unavailable(self):
        calls = []
        state, path = run_graph(OUTAGE, notifier=calls.append)
        fb = state["feedback"]
        self.assertNotIn("analyze", path)  # no heuristics for an outage: the node is skipped
        self.assertEqual((fb["error_type"], fb["next_action"]), ("system_error", "escalate"))
        self.assertIn("temporarily unavailable", fb["user_message"])
        self.assertEqual(fb["automated_actions"], ["notify_ops:warehouse"])
        self.assertEqual(calls[0]["error_id"], fb["error_id"])
        self.assertEqual(fb["severity"], "high")

    def test_feedback_has_exactly_the_seed_fields_and_preserves_context(self):
        fb = run_graph(CHART)[0]["feedback"]
        for key in ("error_id", "error_type", "error_source", "severity", "confidence",
                    "user_message", "recovery_suggestions", "automated_actions",
                    "context_preserved", "query_id", "timestamp", "next_action"):
            self.assertIn(key, fb)
        self.assertTrue(fb["error_id"].startswith("err_20250808_"))
        self.assertEqual(fb["context"]["session"], {"chart": "pie", "dimension": "date"})
        self.assertTrue(fb["context_preserved"])


class SkippedNodeTest(unittest.TestCase):
    def test_an_error_without_actions_skips_the_executor(self):
        raw = errors.NoTextLayerError("No text layer in scan.pdf").to_payload("dua_parse", "q_1")
        state, path = run_graph(raw)
        self.assertEqual(path, ["ingress", "classify", "policy", "message", "format", "telemetry"])
        self.assertEqual(state["feedback"]["next_action"], "await_user")
        self.assertIn("ocrmypdf", state["feedback"]["recovery_suggestions"][0])

    def test_a_duplicate_stops_after_ingress(self):
        store = Store()
        run_graph(CHART, store)
        state, path = run_graph(CHART, store)
        self.assertEqual(path, ["ingress"])
        self.assertTrue(state["duplicate"])


class DuaCodeTest(unittest.TestCase):
    """dua's own error codes get rules too, not only the seed's."""

    def handle(self, exc: errors.DuaError, attempt: int = 1, handler: ErrorHandler | None = None):
        raw = exc.to_payload("statement_agent", "q_run", {"attempt": attempt})
        return (handler or ErrorHandler()).handle(raw)[0]

    def test_rate_limit_retries_after_the_servers_delay_then_falls_back_to_builtin(self):
        handler = ErrorHandler(clock=lambda: 50.0)
        first = self.handle(errors.RateLimitError("429 Too Many Requests", retry_after=2.0), 1, handler)
        self.assertEqual((first["next_action"], first["automated_actions"]), ("resume", ["retry:1"]))
        self.assertEqual(first["context"]["retry"]["delay_s"], 2.0)
        self.assertEqual(handler.store.retries("q_run")[0]["due"], 52.0)
        last = self.handle(errors.RateLimitError("429 Too Many Requests"), 4, handler)
        self.assertEqual(last["automated_actions"], ["fallback:builtin"])
        self.assertIn("built-in engine", last["user_message"])

    def test_auth_failure_falls_back_to_builtin_at_once(self):
        fb = self.handle(errors.AuthenticationError("401 invalid key"))
        self.assertEqual((fb["next_action"], fb["automated_actions"]), ("resume", ["fallback:builtin"]))
        self.assertIn("DUA_LLM_API_KEY", fb["user_message"])

    def test_encrypted_pdf_awaits_the_password(self):
        fb = self.handle(errors.EncryptedPDFError("statement.pdf is encrypted"))
        self.assertEqual((fb["error_type"], fb["next_action"]), ("input_error", "await_user"))
        self.assertIn("--password", fb["user_message"])

    def test_parser_crash_is_refined_until_the_budget_is_spent(self):
        fb = self.handle(errors.ParserCrashedError("KeyError: 'Balance'"), 2)
        self.assertEqual((fb["next_action"], fb["automated_actions"]), ("resume", ["refine:2"]))
        fb = self.handle(errors.ParserCrashedError("KeyError: 'Balance'"), 4)
        self.assertEqual((fb["next_action"], fb["automated_actions"]), ("await_user", []))

    def test_not_verified_and_rejected_parser_are_refined(self):
        for exc in (errors.VerificationError("balances do not reconcile"),
                    errors.PolicyViolationError("import socket is not allowed")):
            with self.subTest(exc=type(exc).__name__):
                fb = self.handle(exc)
                self.assertEqual(fb["error_type"], "validation_error")
                self.assertEqual(fb["automated_actions"], ["refine:1"])

    def test_unexpected_error_escalates(self):
        raw = errors.payload_from_exception(ZeroDivisionError("division by zero"), "dua_extract")
        fb = ErrorHandler(notifier=lambda event: None).handle(raw)[0]
        self.assertEqual((fb["next_action"], fb["severity"]), ("escalate", "high"))
        self.assertEqual(fb["automated_actions"], ["notify_ops:dua_extract"])

    def test_an_unusable_store_names_the_file_and_the_fix_not_a_traceback(self):
        raw = errors.payload_from_exception(
            errors.StoreError("Cannot open the store notes.db: file is not a database"), "dua_serve")
        fb = ErrorHandler(notifier=lambda event: None).handle(raw)[0]
        self.assertEqual((fb["error_type"], fb["next_action"]), ("system_error", "escalate"))
        self.assertTrue(fb["user_message"].startswith("Cannot open the store notes.db"))
        self.assertIn("serve --db", fb["user_message"])  # the hint of StoreError
        self.assertNotIn("report the traceback", " ".join(fb["recovery_suggestions"]))

    def test_unknown_code_is_a_low_confidence_guess_never_auto_fixed(self):
        raw = payload("intent_resolver", "input_error", "WEIRD_THING", "Something odd happened")
        fb = ErrorHandler().handle(raw)[0]
        self.assertLess(fb["confidence"], 0.5)
        self.assertEqual((fb["error_type"], fb["next_action"], fb["automated_actions"]),
                         ("input_error", "await_user", []))

    def test_unknown_code_with_a_telling_message_is_classified_by_pattern(self):
        raw = payload("query_engine", "system_error", "E_PG_57014", "canceling statement due to "
                      "statement timeout")
        fb = ErrorHandler().handle(raw)[0]
        self.assertEqual(fb["error_type"], "query_error")
        self.assertTrue(0.5 < fb["confidence"] < 0.9)

    def test_a_broken_ops_hook_does_not_break_the_answer(self):
        def broken(event):
            raise RuntimeError("pager down")

        fb = ErrorHandler(notifier=broken).handle(OUTAGE)[0]
        self.assertEqual(fb["next_action"], "escalate")
        self.assertEqual(fb["automated_actions"], [])
        self.assertFalse(fb["context"]["notify_ops"]["ok"])


if __name__ == "__main__":
    unittest.main()
