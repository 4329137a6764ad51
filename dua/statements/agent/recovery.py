"""How the statement agent follows the Error Handler when one of its nodes fails.

A crashing parser, a failed comparison, an LLM that is down or an unreadable PDF is sent to
the in-process handler through the run's ``NodeRecovery`` (one query id per run, so the
handler's budgets span the run). Its step is recorded in the state (``recovery``,
``recovery_step``, the attempt history) and the routes follow it; ``max_retries`` stays the
hard cap on refinements. This module decides nothing itself.
"""
from __future__ import annotations

from typing import Callable

AGENT_ID = "dua_statement_agent"  # who asks the Error Handler
REFINE_STEPS = ("refine", "retry", "fallback", "resume")  # each means: write a better parser
ENDING_STEPS = ("ask", "stop")


def consult(state, ctx, exc: BaseException, node: str, attempts: list, **context) -> dict:
    """State updates after asking the handler about ``exc`` raised in ``node``.

    ``attempts`` is the attempt history to attach the decision to (its last entry).
    """
    step, record = ctx.recovery.decide(exc, node, bank=state.target_bank,
                                       parser_attempt=len(state.attempts),
                                       expected=ctx.expected is not None, **context)
    updates = {"recovery": state.recovery + [record], "recovery_step": step,
               "attempts": with_records(attempts, [record])}
    if step in ENDING_STEPS:
        updates["feedback"] = dict(ctx.recovery.last_feedback or {})
        tell(ctx.on_progress, record, "the run ends here")
    elif state.retry_count >= state.max_retries and ctx.on_progress:
        # The handler would go on; our own hard cap says no (seed 001's max_retries).
        ctx.on_progress(f"--max-retries {state.max_retries} spent: no further refinement")
    return updates


def conclude(state, ctx) -> dict:
    """A run our ``max_retries`` cap ended (the handler had budget left): its final answer.

    The handler is told no refinement is left, so its feedback says what the user can do.
    """
    from ...errors import VerificationError

    why = state.comparison_result.get("summary") or (state.errors[-1] if state.errors else "")
    spent = exhausted(state)
    hint = ("The writer has nothing new to try: every parser it could write reads these "
            "pages the same way or worse." if spent
            else f"Raise --max-retries (it was {state.max_retries}).")
    exc = VerificationError(
        f"The parser for {state.target_bank} failed after {state.retry_count} refinement(s): "
        f"{why.splitlines()[0] if why else 'no result'}", hint=hint)
    return consult(state, ctx, exc, "finalize", state.attempts, refinements_left=0)


def exhausted(state) -> bool:
    """The writer said it has no candidate better than those it wrote."""
    return bool(state.errors) and state.errors[-1].endswith("has no better candidate")


def may_refine(state) -> bool:
    """What seed 001's routes ask after a failure, now answered by the handler's step."""
    return state.recovery_step in REFINE_STEPS and state.retry_count < state.max_retries


def with_records(attempts: list, records: list) -> list:
    """A copy of the attempt history with ``records`` added to its last entry's decisions."""
    attempts = [dict(a) for a in attempts]
    if attempts and records:
        attempts[-1]["recovery"] = list(attempts[-1].get("recovery", [])) + list(records)
    return attempts


def tell(on_progress: Callable[[str], None] | None, record: dict, outcome: str) -> None:
    """One progress line for a decision NodeRecovery leaves to its caller, and the suggestions."""
    if on_progress is None:
        return
    message = f"{record['node']} failed ({record['error_code']}): {record['user_message']}"
    on_progress(f"{message} ({outcome})")
    for suggestion in record["recovery_suggestions"]:
        if suggestion not in message:
            on_progress(f"  try: {suggestion}")


def invoke(graph, state, ctx, **options):
    """Run ``graph``; a failure that ends the run leaves with the handler's feedback attached.

    The exception is re-raised unchanged but for ``exc.feedback`` (seed 004's dict), which
    ``dua.cli`` shows instead of asking the handler a second time.
    """
    failed = {"node": "agent"}  # a step-limit error happens between nodes
    user_on_event = options.pop("on_event", None)

    def on_event(event) -> None:
        if event.outcome == "error":
            failed["node"] = event.node
        if user_on_event:
            user_on_event(event)

    try:
        return graph.invoke(state, context=ctx, on_event=on_event, **options)
    except Exception as exc:  # any failure: the handler explains it, the caller reports it
        if not isinstance(getattr(exc, "feedback", None), dict):
            attach(exc, ctx.recovery, failed["node"])
        raise


def attach(exc: BaseException, recovery, node: str) -> None:
    """Ask the handler about a failure that ends the run and keep its feedback on ``exc``."""
    recovery.decide(exc, node)
    try:
        exc.feedback = recovery.last_feedback
    except AttributeError:  # an exception without a __dict__: the CLI asks for itself
        pass
