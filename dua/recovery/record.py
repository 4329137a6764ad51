"""Recording what the graph decided about one error, and announcing it once it is committed.

``record`` writes the session, the queued retry, the error with its feedback and the telemetry
event, inside the caller's transaction, encoding each JSON once. ``announce`` runs after the
commit: counters, the latency histogram and the log line, so that nothing is counted or logged
for an answer that was rolled back or lost a race to a duplicate.
"""
from __future__ import annotations

import json
from typing import Any


def record(state: dict, svc: Any) -> tuple:
    """Write a decided (not duplicate) error; returns (feedback JSON, telemetry event JSON).

    Raises:
        StoreError: a write failed (the caller's transaction rolls everything back).
    """
    store, error, feedback = svc.store, state["error"], state["feedback"]
    if error["query_id"] != "q_unknown":
        store.save_session(error["query_id"], error["agent_id"], state["session"])
    for kind, attempt, due in state["writes"]:
        if kind == "retry":
            retry_id = store.enqueue_retry(state["error_id"], error["query_id"], attempt, due)
            feedback["context"]["retry"]["id"] = retry_id
    feedback_json = json.dumps(feedback)
    store.record_error(state["error_id"], state["event_key"], state["fingerprint"],
                       {"agent_id": error["agent_id"], "data": error}, feedback_json,
                       replace_pending=state["abandoned"])
    event_json = json.dumps(state["telemetry"]["event"], sort_keys=True, default=str)
    store.record_event(event_json)
    return feedback_json, event_json


def announce(state: dict, svc: Any, event_json: str) -> None:
    """Metrics and the log line of a recorded error (call after its commit)."""
    telemetry, fb = svc.telemetry, state["feedback"]
    for action in fb["automated_actions"]:
        telemetry.count("dua_recovery_actions_total", kind=action.partition(":")[0])
    telemetry.count("dua_recovery_errors_total", error_type=fb["error_type"],
                    next_action=fb["next_action"])
    telemetry.observe("dua_recovery_handle_seconds", state["telemetry"]["seconds"])
    telemetry.log(event_json)
