"""ErrorHandler: runs the agent graph once per distinct error and replays the answer to duplicates.

Identical submissions, even concurrent ones in several threads or processes, get the same
``error_id`` and feedback, and the automated actions run once. Called inside an open
transaction (the service's group commit), the graph runs once, under the write lock. Called
outside one, it first runs without the lock, reading the store: a duplicate is answered there
and then. A new error is then recorded in one write transaction, which first makes sure the
store is still what the decision rested on (the event, the attempts, the session): nothing
committed since the read, or else the same on a second read. If not, or if the plan has an
effect outside the store (the ops notifier), the graph runs again under the lock, where it
sees the latest state and runs that effect once.

Answers already recorded are also kept in memory (the most recent ``ANSWERED`` of them, once
committed): a client's retry is answered from there without touching the store.
"""
from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import random
import threading
import time
from collections import OrderedDict
from typing import Any, Callable

from ..errors import payload_from_exception, utc_now
from ..schemas import Feedback
from . import actions as _actions
from .actions import NeedsLock
from .agent import Services, admit, build_graph, fingerprint, new_state, normalise
from .record import announce, record
from .store import Store
from .telemetry import Telemetry

_GRAPH = None
_GRAPH_LOCK = threading.Lock()
# Recorded answers kept in memory (about 1 KB each): enough for the retries of the last few
# seconds of a busy service; older ones are read from the store as before.
ANSWERED = 10_000


def _graph():
    global _GRAPH
    if _GRAPH is None:  # built once per process; the lock only guards the first build
        with _GRAPH_LOCK:
            if _GRAPH is None:
                _GRAPH = build_graph()
    return _GRAPH


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One submission's answer: the feedback exactly as stored, and whether this call made it."""

    error_id: str
    feedback_json: str
    created: bool

    @property
    def feedback(self) -> dict:
        return json.loads(self.feedback_json)


class ErrorHandler:
    """The Error Handler over one store (in memory unless a Store is given)."""

    def __init__(self, store: Store | None = None, *, telemetry: Telemetry | None = None,
                 clock: Callable[[], float] = time.time, rng: random.Random | None = None,
                 notifier: Callable[[dict], None] = _actions.log_notifier,
                 limits: dict | None = None, backoff: tuple = (_actions.BACKOFF_BASE,
                                                               _actions.BACKOFF_CAP)):
        """``notifier`` runs inside the write transaction of an escalated error: keep it quick
        (hand the event to a queue), or every new error waits for it."""
        self.store = store if store is not None else Store()
        self.telemetry = telemetry or Telemetry()
        self.services = Services(self.store, self.telemetry, clock, rng or random.Random(),
                                 notifier, dict(limits or {}), backoff[0], backoff[1])
        self._answered = _Answered(ANSWERED)

    def submit(self, raw: Any, strict: bool = True) -> Outcome:
        """Handle one payload, or replay the answer already recorded for it.

        Raises:
            PayloadValidationError: strict and the payload is malformed or its query unknown.
            StoreError: the store is unusable.
        """
        answer = self.prepare(raw, strict)
        return answer if isinstance(answer, Outcome) else answer()

    def prepare(self, raw: Any, strict: bool = True,
                body: bytes | None = None) -> Outcome | Callable[[], Outcome]:
        """What can be answered without the store: a bad payload raises, an answer already in
        memory is replayed; anything else comes back as the job that decides and records it,
        for the caller to run in a transaction (the service's group commit: ``Committer``).
        ``body``: the request's bytes, whose retries ``replay`` then knows on sight.

        Raises:
            PayloadValidationError: strict and the payload is malformed.
        """
        admitted = admit(raw, strict)  # a bad payload takes no lock
        if body is not None and strict:
            self._answered.know_body(_digest(body), admitted["event_key"])
        known = self._answered.get(admitted["event_key"])
        if known is not None:
            return self._replay(*known)
        return lambda: self._handle(raw, strict, admitted)

    def replay(self, body: bytes) -> Outcome | None:
        """The answer recorded for these very bytes, when a strict ``prepare`` saw them before
        (a client's retry): the same bytes make the same payload, so it need not be read."""
        known = self._answered.for_body(_digest(body))
        return None if known is None else self._replay(*known)

    def _handle(self, raw: Any, strict: bool, admitted: dict) -> Outcome:
        state = services = None
        if not self.store.in_transaction():  # decided before the write lock, checked under it
            services = self.services.for_run(planning=True)
            state = self._run(new_state(raw, strict, **admitted), services)
            if state is not None and state["duplicate"]:
                return self._replay_recorded(state)
        # Inside an open transaction (the group commit's) the store cannot change meanwhile:
        # the graph runs once, its outside effects included.
        with self.store.transaction():
            if state is None or not self._still_valid(state):
                services = self.services.for_run()
                state = self._run(new_state(raw, strict, **admitted), services)
            if not state["duplicate"]:
                feedback_json, event_json = record(state, services)
                self._remember(state, feedback_json)
                # Counted and logged once committed: with a group commit, after the batch's.
                self.store.after_commit(lambda: announce(state, services, event_json))
        if state["duplicate"]:
            return self._replay_recorded(state)
        return Outcome(state["error_id"], feedback_json, True)

    def _remember(self, state: dict, feedback_json: str) -> None:
        """Keep the answer in memory once it is committed (a rollback forgets it).

        Not for "q_unknown": with queries registered, a strict retry of one is refused (it has
        no session to be known by), which only the store can tell. Every other recorded error
        made its query's session, so its retries are never refused.
        """
        if state["error"]["query_id"] == "q_unknown":
            return
        key, answer = state["event_key"], (state["error_id"], feedback_json)
        self.store.after_commit(lambda: self._answered.put(key, answer))

    def _replay_recorded(self, state: dict) -> Outcome:
        self._remember(state, state["feedback_json"])
        return self._replay(state["error_id"], state["feedback_json"])

    @staticmethod
    def _run(state: dict, services: Services) -> dict | None:
        """The decided state; None when planning reached an effect that needs the lock."""
        try:
            return _graph().invoke(state, context=services, step_limit=20,
                                   on_event=services.note_event)
        except NeedsLock:
            return None

    def _still_valid(self, state: dict) -> bool:
        """Inside the transaction: is the store still what the plan was decided on?"""
        prior = state["prior"]
        if self.store.unchanged_since(prior.version):  # nothing committed since: no re-read
            return True
        error = state["error"]
        now = self.store.prior(state["event_key"], error["query_id"], error["error_code"],
                               state["fingerprint"])
        return now[:5] == prior[:5]  # the content, not when or where it was read

    def _replay(self, error_id: str, feedback_json: str) -> Outcome:
        self.telemetry.count("dua_recovery_duplicates_total")
        return Outcome(error_id, feedback_json, False)

    def handle(self, raw: Any, strict: bool = True) -> tuple:
        """Handle one payload; returns (feedback dict, True when this call created the error).

        Raises:
            PayloadValidationError: strict and the payload is malformed or its query unknown.
            StoreError: the store is unusable.
        """
        outcome = self.submit(raw, strict)
        return outcome.feedback, outcome.created

    def error(self, error_id: str) -> dict | None:
        return self.store.error(error_id)

    def session(self, query_id: str) -> dict | None:
        return self.store.session(query_id)

    def next_attempt(self, payload: dict) -> int:
        """The attempt number this payload would be: earlier failures of its kind, plus one."""
        error = normalise(payload, strict=False)
        return self.store.attempts(error["query_id"], error["error_code"], fingerprint(error)) + 1


class _Answered:
    """event_key -> (error_id, feedback JSON) of the most recently recorded or replayed errors.

    Only committed answers go in, and a recorded answer never changes: an entry is never stale,
    only missing (evicted, or recorded by another process), and then the store answers.
    """

    def __init__(self, capacity: int):
        self._capacity = capacity
        self._entries: OrderedDict = OrderedDict()
        self._bodies: OrderedDict = OrderedDict()  # digest of a request body -> its event_key
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple | None:
        with self._lock:
            return self._get(key)

    def _get(self, key: str) -> tuple | None:
        answer = self._entries.get(key)
        if answer is not None:
            self._entries.move_to_end(key)  # a retried error is likely retried again
        return answer

    def put(self, key: str, answer: tuple) -> None:
        with self._lock:
            _keep(self._entries, key, answer, self._capacity)

    def know_body(self, digest: bytes, key: str) -> None:
        with self._lock:
            _keep(self._bodies, digest, key, self._capacity)

    def for_body(self, digest: bytes) -> tuple | None:
        with self._lock:
            key = self._bodies.get(digest)
            return None if key is None else self._get(key)


def _keep(entries: OrderedDict, key: Any, value: Any, capacity: int) -> None:
    entries[key] = value
    entries.move_to_end(key)
    if len(entries) > capacity:
        entries.popitem(last=False)


def _digest(body: bytes) -> bytes:
    return hashlib.sha256(body).digest()


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
