"""The automated action executor: runs the policy's safe actions against the store.

Actions are strings ``kind:argument`` (``retry:2``, ``use_cache:true``, ``map_field:a->b``…).
Nothing here is irreversible, and nothing here writes the store: a retry is handed back to be
queued when the error is recorded, mappings and scopes go into the session context for the
pipeline to apply, and escalation calls the ops notifier hook (under the write lock only).
"""
from __future__ import annotations

import logging
import random
import time
from typing import Any, Callable

from .policy import MAX_RETRIES

OPS_LOG = logging.getLogger("dua.recovery.ops")
BACKOFF_BASE = 0.5
BACKOFF_CAP = 30.0


def backoff_delay(attempt: int, base: float = BACKOFF_BASE, cap: float = BACKOFF_CAP,
                  rng: random.Random | None = None) -> float:
    """Exponential backoff with "equal jitter": half fixed, half random, never above ``cap``."""
    ceiling = min(cap, base * (2 ** max(attempt - 1, 0)))
    return ceiling / 2 + (rng or random).uniform(0, ceiling / 2)


def retry_with_backoff(fn: Callable[[], Any], attempts: int = 3, *, retryable: Callable = None,
                       sleep: Callable[[float], None] = time.sleep, rng: random.Random | None = None,
                       base: float = BACKOFF_BASE, cap: float = BACKOFF_CAP) -> Any:
    """Call ``fn`` until it succeeds or ``attempts`` are spent; re-raises the last error.

    ``retryable(exc)`` decides which errors are worth another try (default: ``exc.retryable``).
    """
    check = retryable or (lambda exc: bool(getattr(exc, "retryable", False)))
    for attempt in range(1, attempts + 1):
        try:
            return fn()
        except Exception as exc:
            if attempt == attempts or not check(exc):
                raise
            delay = getattr(exc, "retry_after", None)
            sleep(float(delay) if isinstance(delay, (int, float)) and delay >= 0
                  else backoff_delay(attempt, base, cap, rng))
    raise ValueError("attempts must be at least 1")


def drain_retries(store: Any, run: Callable[[dict], Any], *, clock: Callable[[], float] = time.time,
                  rng: random.Random | None = None, max_attempts: int = MAX_RETRIES,
                  base: float = BACKOFF_BASE, cap: float = BACKOFF_CAP) -> dict:
    """Run the queued retries whose time has come; ``run(item)`` re-attempts the failed step.

    A failed run queues the next attempt with a longer backoff; after ``max_attempts`` the
    item is marked dead. Returns how many were done, re-queued and dead.
    """
    counts = {"done": 0, "requeued": 0, "dead": 0}
    for item in store.due_retries(clock()):
        try:
            run(item)
        except Exception:
            nxt = item["attempt"] + 1
            if nxt <= max_attempts:
                store.finish_retry(item["id"], "failed")
                store.enqueue_retry(item["error_id"], item["query_id"], nxt,
                                    clock() + backoff_delay(nxt, base, cap, rng))
                counts["requeued"] += 1
            else:
                store.finish_retry(item["id"], "dead")
                counts["dead"] += 1
            continue
        store.finish_retry(item["id"], "done")
        counts["done"] += 1
    return counts


def log_notifier(event: dict) -> None:
    """Default ops hook: a warning on the ``dua.recovery.ops`` logger (ops wire it elsewhere)."""
    OPS_LOG.warning("escalation %s", event)


class NeedsLock(Exception):
    """An action with an effect outside the store was reached while planning without the
    write lock: the handler runs the error again under it, so that the effect happens once."""


def execute(actions: list, state: Any, services: Any) -> tuple:
    """Run each action; returns (actions actually run, session context updates, details,
    store writes to make when the error is recorded).

    Raises:
        NeedsLock: an outside effect (the ops notifier) while ``services.planning``.
    """
    done, session, details, writes = [], {}, {}, []
    for action in actions:
        kind, _, arg = action.partition(":")
        # Advisory actions (suggest_conversion, ask_clarification, fallback, refine, list_fields)
        # are performed by the pipeline; recording them is the whole of our part.
        runner = RUNNERS.get(kind)
        result = runner(arg, state, services, session, details, writes) if runner else action
        if result:
            done.append(result)
    return done, session, details, writes


def _retry(arg, state, services, session, details, writes):
    attempt = int(arg)
    ctx = state["error"]["context"]
    after = ctx.get("retry_after")
    delay = float(after) if isinstance(after, (int, float)) and after >= 0 else backoff_delay(
        attempt, services.backoff_base, services.backoff_cap, services.rng)
    writes.append(("retry", attempt, services.clock() + delay))
    # "id" is the queue's, known once the retry is queued (see record.py).
    details["retry"] = {"id": None, "attempt": attempt, "delay_s": round(delay, 3),
                        "max_attempts": services.limits.get("max_retries", MAX_RETRIES)}
    return f"retry:{attempt}"


def _use_cache(arg, state, services, session, details, writes):
    ctx = state["error"]["context"]
    key = str(ctx.get("cache_key") or f"query:{state['error']['query_id']}")
    hit = services.store.cache_get(key)
    if hit is None:
        details["cache"] = {"key": key, "hit": False}
        return None
    details["cache"] = {"key": key, "hit": True, "stored_at": hit[1]}
    session["use_cache"] = key
    return "use_cache:true"


def _reduce_scope(arg, state, services, session, details, writes):
    session["scope"] = arg
    return f"reduce_scope:{arg}"


def _map_field(arg, state, services, session, details, writes):
    field, _, target = arg.partition("->")
    mapping = dict(state["session"].get("field_map") or {})
    mapping[field] = target
    session["field_map"] = mapping
    return f"map_field:{arg}"


def _notify_ops(arg, state, services, session, details, writes):
    if services.planning:
        raise NeedsLock("notify_ops")
    event = {"error_id": state["error_id"], "query_id": state["error"]["query_id"], "service": arg,
             "error_code": state["error"]["error_code"], "message": state["error"]["message"]}
    try:
        services.notifier(event)
    except Exception as exc:  # a broken hook must not break the answer to the pipeline
        details["notify_ops"] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        return None
    details["notify_ops"] = {"ok": True}
    return f"notify_ops:{arg}"


RUNNERS = {"retry": _retry, "use_cache": _use_cache, "reduce_scope": _reduce_scope,
           "map_field": _map_field, "notify_ops": _notify_ops}
