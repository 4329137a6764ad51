"""The Error Handler agent (seed 004) as a graph on ``dua.graph``:

    ingress -> classify -> [analyze] -> policy -> [actions] -> message -> format -> telemetry

``analyze`` runs only for causes with RCA heuristics, ``actions`` only when the plan has some,
and a duplicate of an error already recorded stops after ingress (the handler replays its
answer). The nodes read the store and decide; they never write it. ``record.py`` writes what
they decided, in one transaction (the handler's), and then announces it.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
import re
import time
from typing import Any, Callable, TypedDict

from ..errors import PayloadValidationError, excerpt, utc_now
from ..graph import END, START, Graph
from ..schemas import ErrorPayload, Feedback
from . import actions as _actions
from . import messages, policy
from .telemetry import Telemetry


class RecoveryState(TypedDict, total=False):
    """The seed's five contexts: error, rca, recovery, session and telemetry.

    A dict (LangGraph's TypedDict state): the graph applies each node's updates with a dict
    copy, where a dataclass ``replace`` of all these fields cost a tenth of the handling time.
    """

    raw: Any
    strict: bool
    error: dict          # ErrorContext
    error_id: str
    fingerprint: str
    event_key: str
    duplicate: bool
    abandoned: bool      # a row left pending by an older dua that died mid-request
    prior: Any           # the store.Prior the decision rests on (the handler re-checks it)
    attempt: int
    verdict: dict
    rca: dict            # RCAContext
    recovery: dict       # RecoveryContext
    session: dict        # SessionContext
    writes: list         # what the actions want written, e.g. ("retry", attempt, due)
    feedback: dict
    feedback_json: str   # as stored and sent: a duplicate gets these very bytes
    telemetry: dict      # TelemetryContext


def new_state(raw: Any, strict: bool = True, **known: Any) -> RecoveryState:
    """A state before ingress; ``known`` is what the handler has already worked out (admit)."""
    state = RecoveryState(raw=raw, strict=strict, error={}, error_id="", fingerprint="",
                          event_key="", duplicate=False, abandoned=False, prior=None, attempt=1,
                          verdict={}, rca={}, recovery={}, session={}, writes=[], feedback={},
                          feedback_json="", telemetry={})
    state.update(known)
    return state


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
    planning: bool = False  # outside the write lock: an action with an outside effect may not run

    def for_run(self, planning: bool = False) -> Services:
        """A copy with its own durations, so that concurrent runs do not mix their timings."""
        # A shallow copy by hand: dataclasses.replace re-runs __init__ on every field, and
        # copy.copy goes through the pickle protocol; this runs once per error handled.
        run = object.__new__(Services)
        run.__dict__.update(self.__dict__)
        run.durations, run.planning = {}, planning
        return run

    def note_event(self, event: Any) -> None:
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


def admit(raw: Any, strict: bool) -> dict:
    """Validate and identify an error: its ErrorContext, fingerprint and event key (no store).

    Raises:
        PayloadValidationError: strict and the payload is malformed.
    """
    error = normalise(raw, strict)
    fp = fingerprint(error)
    return {"error": error, "fingerprint": fp, "event_key": event_key(error, fp)}


def ingress(state: RecoveryState, svc: Services) -> dict:
    """Admit the error (unless the handler has), refuse an unknown query, look the event up,
    count the attempt, and merge the error's context into the session (new keys win).

    Raises:
        PayloadValidationError: strict and the payload is malformed or its query unknown.
    """
    admitted = {} if state["event_key"] else admit(state["raw"], state["strict"])
    known = {**state, **admitted}
    error, fp, key = known["error"], known["fingerprint"], known["event_key"]
    prior = svc.store.prior(key, error["query_id"], error["error_code"], fp)
    if state["strict"] and prior.registered and not prior.known:
        raise PayloadValidationError([f"data.query_id: unknown query {error['query_id']!r}"])
    if prior.found and prior.found[1] == "done":
        return {**admitted, "error_id": prior.found[0], "duplicate": True, "prior": prior,
                "feedback_json": prior.found[2]}
    stamp = re.sub(r"\D", "", error["timestamp"])[:8]
    declared = error["context"].get("attempt")
    # This error is not recorded yet: it is one more than those already counted.
    attempt = max(prior.attempts + 1, declared if isinstance(declared, int) else 0)
    # "q_unknown" is shared by unrelated callers: its context is this error's alone.
    session = {} if error["query_id"] == "q_unknown" else dict(prior.session)
    session.update(error["context"])
    return {**admitted, "error_id": f"err_{stamp}_{key[:16]}", "attempt": attempt,
            "session": session, "abandoned": prior.found is not None, "prior": prior}


def classify(state: RecoveryState, svc: Services) -> dict:
    return {"verdict": policy.classify(state["error"])}


def analyze(state: RecoveryState, svc: Services) -> dict:
    """Root cause from the payload, the session context and the synonym store."""
    error, session, synonyms = state["error"], state["session"], []
    if state["verdict"]["cause"] == "missing_field":
        ctx = {**session, **error["context"]}
        field = ctx.get("field") or ctx.get("missing_field") or policy.field_from(error["message"])
        synonyms = svc.store.synonyms(str(field)) if field else []
    return {"rca": policy.analyze(error, state["verdict"]["cause"], session, synonyms)}


def decide(state: RecoveryState, svc: Services) -> dict:
    plan = policy.decide(state["verdict"], state["rca"], state["error"], state["attempt"],
                         svc.limits)
    return {"recovery": {"plan": plan, "done": [], "details": {}}}


def act(state: RecoveryState, svc: Services) -> dict:
    done, updates, details, writes = _actions.execute(state["recovery"]["plan"]["actions"],
                                                      state, svc)
    return {"recovery": {**state["recovery"], "done": done, "details": details},
            "session": {**state["session"], **updates}, "writes": writes}


def message(state: RecoveryState, svc: Services) -> dict:
    rec = state["recovery"]
    plan, done = rec["plan"], rec["done"]
    text = messages.user_message(state["verdict"], state["rca"], state["error"], plan, done)
    suggestions = list(plan["suggestions"])
    if "use_cache:true" not in done and "Use cached results" in suggestions:
        suggestions.remove("Use cached results")  # nothing cached to offer
    return {"recovery": {**rec, "user_message": text, "suggestions": suggestions}}


def format_feedback(state: RecoveryState, svc: Services) -> dict:
    """Seed 004's feedback object (recorded with the error, so that duplicates get it too)."""
    rec, error, verdict = state["recovery"], state["error"], state["verdict"]
    context = {"session": state["session"], "error_code": error["error_code"],
               "root_cause": state["rca"].get("root_cause", verdict["cause"]),
               "strategy": rec["plan"]["strategy"], "attempt": state["attempt"],
               "fingerprint": state["fingerprint"], **rec["details"]}
    feedback = Feedback(
        error_id=state["error_id"], error_type=verdict["error_type"],
        error_source=error["agent_id"], severity=verdict["severity"],
        user_message=rec["user_message"], recovery_suggestions=rec["suggestions"],
        automated_actions=rec["done"], next_action=rec["plan"]["next_action"],
        confidence=verdict["confidence"], context_preserved=True,
        query_id=error["query_id"], timestamp=utc_now(), context=context)
    # Shallow on purpose: the JSON the record makes is the copy that is kept (asdict's deep
    # copy cost a third of the handling time).
    return {"feedback": {name: getattr(feedback, name) for name in _FEEDBACK_FIELDS}}


_FEEDBACK_FIELDS = tuple(f.name for f in dataclasses.fields(Feedback))


def emit_telemetry(state: RecoveryState, svc: Services) -> dict:
    """The telemetry event of a handled error (recorded and logged once it is committed)."""
    fb = state["feedback"]
    # The nodes before this one, as timed by the graph (``Services.note_event``).
    seconds = sum(svc.durations.values()) / 1000
    event = {"event": "error_handled", "error_id": fb["error_id"], "query_id": fb["query_id"],
             "error_type": fb["error_type"], "error_code": state["error"]["error_code"],
             "severity": fb["severity"], "next_action": fb["next_action"],
             "actions_taken": fb["automated_actions"], "attempt": state["attempt"],
             "duration_ms": round(seconds * 1000, 3), "node_durations_ms": dict(svc.durations)}
    return {"telemetry": {**state["telemetry"], "event": event, "seconds": seconds}}


# --- routes ---------------------------------------------------------------------------------


def route_after_ingress(state: RecoveryState) -> str:
    return END if state["duplicate"] else "classify"


def route_after_classify(state: RecoveryState) -> str:
    return "analyze" if policy.has_heuristics(state["verdict"]["cause"]) else "policy"


def route_after_policy(state: RecoveryState) -> str:
    return "actions" if state["recovery"]["plan"]["actions"] else "message"


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
