"""ErrorHandler: runs the agent graph once per distinct error and replays the answer to duplicates.

Identical submissions, even concurrent ones in several threads or processes, get the same
``error_id`` and feedback, and the automated actions run once: the first claims the error in
the store, the others wait for its feedback.
"""
from __future__ import annotations

import os
import random
import threading
import time
from typing import Any, Callable

from ..errors import StoreError, payload_from_exception, utc_now
from ..schemas import Feedback
from . import actions as _actions
from .agent import RecoveryState, Services, build_graph, fingerprint, normalise
from .store import STALE_SECONDS, Store
from .telemetry import Telemetry

_GRAPH = None
_GRAPH_LOCK = threading.Lock()
WAIT_SECONDS = 30.0


def _graph():
    global _GRAPH
    with _GRAPH_LOCK:
        if _GRAPH is None:
            _GRAPH = build_graph()
        return _GRAPH


class ErrorHandler:
    """The Error Handler over one store (in memory unless a Store is given)."""

    def __init__(self, store: Store | None = None, *, telemetry: Telemetry | None = None,
                 clock: Callable[[], float] = time.time, rng: random.Random | None = None,
                 notifier: Callable[[dict], None] = _actions.log_notifier,
                 limits: dict | None = None, backoff: tuple = (_actions.BACKOFF_BASE,
                                                               _actions.BACKOFF_CAP)):
        self.store = store if store is not None else Store()
        self.telemetry = telemetry or Telemetry()
        self.services = Services(self.store, self.telemetry, clock, rng or random.Random(),
                                 notifier, dict(limits or {}), backoff[0], backoff[1])
        self._done = threading.Condition()

    def handle(self, raw: Any, strict: bool = True) -> tuple:
        """Handle one payload; returns (feedback dict, True when this call created the error).

        Raises:
            PayloadValidationError: strict and the payload is malformed or its query unknown.
            StoreError: the store is unusable, or a duplicate's original never finished.
        """
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            state, services = RecoveryState(raw=raw, strict=strict), self.services.for_run()
            try:
                # stream, not invoke: a failing node still leaves us the claimed error_id.
                for _, state in _graph().stream(state, context=services, step_limit=20,
                                                on_event=services.record):
                    pass
            except BaseException:
                if state.error_id and not state.duplicate:
                    self.store.release_error(state.error_id)
                raise
            finally:
                with self._done:
                    self._done.notify_all()
            if state.error_id == "" or not state.duplicate:
                return state.feedback, True
            feedback = self._wait_for(state.error_id, deadline)
            if feedback is not None:
                self.telemetry.count("dua_recovery_duplicates_total")
                return feedback, False
            # The original failed and released its claim: handle the error ourselves.

    def _wait_for(self, error_id: str, deadline: float) -> dict | None:
        while True:
            record = self.store.error(error_id)
            if record is None:
                return None
            if record["state"] == "done":
                return record["feedback"]
            if record["created"] < time.time() - STALE_SECONDS:
                return None  # its owner died: the next round takes the claim over
            if time.monotonic() > deadline:
                raise StoreError(f"Error {error_id} is still being handled elsewhere",
                                 hint="Retry the request later.")
            # Same-process owners notify; other processes are noticed by the short poll.
            with self._done:
                self._done.wait(0.02)

    def error(self, error_id: str) -> dict | None:
        return self.store.error(error_id)

    def session(self, query_id: str) -> dict | None:
        return self.store.session(query_id)

    def next_attempt(self, payload: dict) -> int:
        """The attempt number this payload would be: earlier failures of its kind, plus one."""
        error = normalise(payload, strict=False)
        return self.store.attempts(error["query_id"], error["error_code"], fingerprint(error)) + 1


_DEFAULT = None
_DEFAULT_LOCK = threading.Lock()


def default_handler() -> ErrorHandler:
    """The process's in-memory handler: nothing written to disk, attempts counted per process."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = ErrorHandler()
        return _DEFAULT


def handle_in_process(payload: dict, handler: ErrorHandler | None = None) -> dict:
    """Seed 004's feedback for a payload; never raises (a bad payload gets a feedback too)."""
    try:
        feedback, _ = (handler or default_handler()).handle(payload, strict=False)
        return feedback
    except Exception as exc:  # the error path of the CLI must always have an answer
        return _last_resort(payload, exc)


def recover(exc: BaseException, agent_id: str, query_id: str | None = None,
            context: dict | None = None, store: Store | None = None) -> Feedback:
    """The decision for a failed node of one of dua's agents (next_action, actions, message).

    Pass a stable ``query_id`` per run: repeated failures of the same kind count as attempts,
    and the policy moves from retry to fallback or escalation when they are spent.
    """
    handler = ErrorHandler(store) if store is not None else default_handler()
    payload = payload_from_exception(exc, agent_id, query_id, context)
    data = payload["data"]
    if not isinstance(data["context"].get("attempt"), int):
        data["context"]["attempt"] = handler.next_attempt(payload)
    return Feedback.from_dict(handle_in_process(payload, handler))


def next_step(feedback: Feedback) -> tuple:
    """How a dua agent follows a feedback: (step, seconds to wait first).

    step is "retry" (same node again, after the delay), "refine" (improve and rerun),
    "fallback" (switch to the built-in engine), "resume" (carry on), "ask" (stop and show the
    user_message and suggestions) or "stop" (escalated: stop with the user_message).
    """
    if feedback.next_action == "await_user":
        return "ask", 0.0
    if feedback.next_action == "escalate":
        return "stop", 0.0
    kinds = [a.split(":", 1)[0] for a in feedback.automated_actions]
    for kind in ("retry", "refine", "fallback"):
        if kind in kinds:
            retry = feedback.context.get("retry") or {}
            delay = retry.get("delay_s", 0.0) if kind == "retry" else 0.0
            return kind, float(delay)
    return "resume", 0.0


def _last_resort(payload: Any, exc: BaseException) -> dict:
    data = payload.get("data") if isinstance(payload, dict) else None
    data = data if isinstance(data, dict) else {}
    message = data.get("message") if isinstance(data.get("message"), str) else "An error occurred"
    return Feedback(
        error_id=f"err_{os.urandom(6).hex()}", error_type="system_error",
        error_source=str(payload.get("agent_id", "unknown_agent")) if isinstance(payload, dict)
        else "unknown_agent", severity="high",
        user_message=f"{message.rstrip('.')}. (The error handler itself failed: "
                     f"{type(exc).__name__}.)",
        recovery_suggestions=["Re-run with --debug and report the traceback"],
        automated_actions=[], next_action="escalate", confidence=0.0,
        query_id=str(data.get("query_id") or "q_unknown"), timestamp=utc_now()).to_dict()
