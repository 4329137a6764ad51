"""The Error Handler agent (seed 004) as a graph on ``dua.graph``:

    ingress -> classify -> [analyze] -> policy -> [actions] -> message -> format -> telemetry

``analyze`` runs only for causes with RCA heuristics, ``actions`` only when the plan has some,
and a duplicate of an error already claimed stops after ingress (the handler replays its answer).
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import time
from typing import Any, Callable

from ..errors import PayloadValidationError, excerpt, utc_now
from ..graph import END, START, Graph
from ..schemas import ErrorPayload, Feedback
from . import actions as _actions
from . import messages, policy
from .telemetry import Telemetry


@dataclasses.dataclass
class RecoveryState:
    """The seed's five contexts: error, rca, recovery, session and telemetry."""

    raw: Any = None
    strict: bool = True
    error: dict = dataclasses.field(default_factory=dict)       # ErrorContext
    error_id: str = ""
    fingerprint: str = ""
    duplicate: bool = False
    attempt: int = 1
    verdict: dict = dataclasses.field(default_factory=dict)
    rca: dict = dataclasses.field(default_factory=dict)         # RCAContext
    recovery: dict = dataclasses.field(default_factory=dict)    # RecoveryContext
    session: dict = dataclasses.field(default_factory=dict)     # SessionContext
    feedback: dict = dataclasses.field(default_factory=dict)
    telemetry: dict = dataclasses.field(default_factory=dict)   # TelemetryContext


@dataclasses.dataclass
class Services:
    """What the nodes use; tests inject a fake clock, a seeded rng and a recording notifier."""

    store: Any
    telemetry: Telemetry = dataclasses.field(default_factory=Telemetry)
    clock: Callable[[], float] = time.time
    rng: random.Random = dataclasses.field(default_factory=random.Random)
    notifier: Callable[[dict], None] = _actions.log_notifier
    limits: dict = dataclasses.field(default_factory=dict)
    backoff_base: float = _actions.BACKOFF_BASE
    backoff_cap: float = _actions.BACKOFF_CAP
    durations: dict = dataclasses.field(default_factory=dict)  # per run: node -> ms

    def for_run(self) -> Services:
        """A copy with its own durations, so that concurrent runs do not mix their timings."""
        return dataclasses.replace(self, durations={})

    def record(self, event: Any) -> None:
        """``on_event`` hook of the graph: keeps each node's duration for the telemetry line."""
        self.durations[event.node] = round(event.duration * 1000, 3)


_NUMBERS = re.compile(r"0x[0-9a-f]+|\d+(?:\.\d+)?")
_SPACES = re.compile(r"\s+")


def fingerprint(error: dict) -> str:
    """Which errors are "the same problem": source, type, code, normalised message, query."""
    message = _SPACES.sub(" ", _NUMBERS.sub("#", error["message"].lower())).strip()
    parts = (error["agent_id"], error["error_type"], error["error_code"].upper(), message,
             error["query_id"])
    return hashlib.sha256("\x1f".join(parts).encode()).hexdigest()[:24]


def event_key(error: dict, fp: str) -> str:
    """Which submissions are "the same error": the problem, when it happened, which attempt."""
    attempt = error["context"].get("attempt", "")
    raw = f"{fp}\x1f{error['timestamp']}\x1f{attempt}"
    return hashlib.sha256(raw.encode()).hexdigest()


def normalise(raw: Any, strict: bool) -> dict:
    """The ErrorContext; a bad payload raises when strict, else becomes an INVALID_PAYLOAD error.

    Raises:
        PayloadValidationError: strict and the payload is malformed (``.problems`` names fields).
    """
    try:
        p = ErrorPayload.from_dict(raw)
    except PayloadValidationError as exc:
        if strict:
            raise
        source = raw.get("agent_id") if isinstance(raw, dict) else None
        return {"agent_id": source if isinstance(source, str) and source else "unknown_agent",
                "timestamp": utc_now(), "error_type": "validation_error",
                "error_code": "INVALID_PAYLOAD", "message": _malformed(exc.problems),
                "query_id": "q_unknown",
                "context": {"problems": list(exc.problems), "original": excerpt(raw, 300)}}
    return {"agent_id": p.agent_id, "timestamp": p.timestamp, "error_type": p.error_type,
            "error_code": p.error_code, "message": p.message, "query_id": p.query_id,
            "context": dict(p.context)}


def _malformed(problems: list) -> str:
    more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
    return f"Malformed error payload: {'; '.join(problems[:3])}{more}"


# --- nodes ---------------------------------------------------------------------------------


def ingress(state: RecoveryState, svc: Services) -> dict:
    """Validate, fingerprint and claim the error; merge its context into the session."""
    error = normalise(state.raw, state.strict)
    store = svc.store
    if state.strict and store.knows_queries() and not store.query_known(error["query_id"]):
        raise PayloadValidationError([f"data.query_id: unknown query {error['query_id']!r}"])
    fp = fingerprint(error)
    key = event_key(error, fp)
    stamp = re.sub(r"\D", "", error["timestamp"])[:8]
    payload = {"agent_id": error["agent_id"], "data": error}
    error_id, owner = store.claim_error(f"err_{stamp}_{key[:16]}", key, fp, payload)
    if not owner:
        return {"error": error, "error_id": error_id, "fingerprint": fp, "duplicate": True}
    declared = error["context"].get("attempt")
    used = store.attempts(error["query_id"], error["error_code"], fp)
    attempt = max(used, declared if isinstance(declared, int) else 0)
    # "q_unknown" is shared by unrelated callers: its context is this error's alone.
    session = dict(error["context"]) if error["query_id"] == "q_unknown" else \
        store.merge_session(error["query_id"], error["agent_id"], error["context"])
    return {"error": error, "error_id": error_id, "fingerprint": fp, "attempt": attempt,
            "session": session}


def classify(state: RecoveryState, svc: Services) -> dict:
    return {"verdict": policy.classify(state.error)}


def analyze(state: RecoveryState, svc: Services) -> dict:
    """Root cause from the payload, the session context and the synonym store."""
    synonyms: list = []
    if state.verdict["cause"] == "missing_field":
        ctx = {**state.session, **state.error["context"]}
        field = ctx.get("field") or ctx.get("missing_field") or policy.field_from(state.error["message"])
        synonyms = svc.store.synonyms(str(field)) if field else []
    return {"rca": policy.analyze(state.error, state.verdict["cause"], state.session, synonyms)}


def decide(state: RecoveryState, svc: Services) -> dict:
    plan = policy.decide(state.verdict, state.rca, state.error, state.attempt, svc.limits)
    return {"recovery": {"plan": plan, "done": [], "details": {}}}


def act(state: RecoveryState, svc: Services) -> dict:
    done, updates, details = _actions.execute(state.recovery["plan"]["actions"], state, svc)
    session = {**state.session, **updates}
    if updates and state.error["query_id"] != "q_unknown":
        session = svc.store.merge_session(state.error["query_id"], state.error["agent_id"], updates)
    return {"recovery": {**state.recovery, "done": done, "details": details}, "session": session}


def message(state: RecoveryState, svc: Services) -> dict:
    plan, done = state.recovery["plan"], state.recovery["done"]
    text = messages.user_message(state.verdict, state.rca, state.error, plan, done)
    suggestions = list(plan["suggestions"])
    if "use_cache:true" not in done and "Use cached results" in suggestions:
        suggestions.remove("Use cached results")  # nothing cached to offer
    return {"recovery": {**state.recovery, "user_message": text, "suggestions": suggestions}}


def format_feedback(state: RecoveryState, svc: Services) -> dict:
    """Seed 004's feedback object, stored so that duplicates get exactly this answer."""
    rec, error = state.recovery, state.error
    context = {"session": state.session, "error_code": error["error_code"],
               "root_cause": state.rca.get("root_cause", state.verdict["cause"]),
               "strategy": rec["plan"]["strategy"], "attempt": state.attempt,
               "fingerprint": state.fingerprint, **rec["details"]}
    feedback = Feedback(
        error_id=state.error_id, error_type=state.verdict["error_type"],
        error_source=error["agent_id"], severity=state.verdict["severity"],
        user_message=rec["user_message"], recovery_suggestions=rec["suggestions"],
        automated_actions=rec["done"], next_action=rec["plan"]["next_action"],
        confidence=state.verdict["confidence"], context_preserved=True,
        query_id=error["query_id"], timestamp=utc_now(), context=context).to_dict()
    svc.store.finish_error(state.error_id, feedback)
    return {"feedback": feedback}


def emit_telemetry(state: RecoveryState, svc: Services) -> dict:
    fb = state.feedback
    # The nodes before this one, as timed by the graph (``Services.record``).
    seconds = sum(svc.durations.values()) / 1000
    event = {"event": "error_handled", "error_id": fb["error_id"], "query_id": fb["query_id"],
             "error_type": fb["error_type"], "error_code": state.error["error_code"],
             "severity": fb["severity"], "next_action": fb["next_action"],
             "actions_taken": fb["automated_actions"], "attempt": state.attempt,
             "duration_ms": round(seconds * 1000, 3), "node_durations_ms": dict(svc.durations)}
    svc.telemetry.count("dua_recovery_errors_total", error_type=fb["error_type"],
                        next_action=fb["next_action"])
    svc.telemetry.observe("dua_recovery_handle_seconds", seconds)
    svc.telemetry.log(event)
    svc.store.record_event(event)
    return {"telemetry": {**state.telemetry, "event": event}}


# --- routes ---------------------------------------------------------------------------------


def route_after_ingress(state: RecoveryState) -> str:
    return END if state.duplicate else "classify"


def route_after_classify(state: RecoveryState) -> str:
    return "analyze" if policy.has_heuristics(state.verdict["cause"]) else "policy"


def route_after_policy(state: RecoveryState) -> str:
    return "actions" if state.recovery["plan"]["actions"] else "message"


def build_graph():
    return (
        Graph(RecoveryState)
        .add_node("ingress", ingress)
        .add_node("classify", classify)
        .add_node("analyze", analyze)
        .add_node("policy", decide)
        .add_node("actions", act)
        .add_node("message", message)
        .add_node("format", format_feedback)
        .add_node("telemetry", emit_telemetry)
        .add_edge(START, "ingress")
        .add_conditional_edges("ingress", route_after_ingress, {"classify": "classify", END: END})
        .add_conditional_edges("classify", route_after_classify, ["analyze", "policy"])
        .add_edge("analyze", "policy")
        .add_conditional_edges("policy", route_after_policy, ["actions", "message"])
        .add_edge("actions", "message")
        .add_edge("message", "format")
        .add_edge("format", "telemetry")
        .add_edge("telemetry", END)
        .compile()
    )
