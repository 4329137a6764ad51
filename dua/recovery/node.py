"""How a dua pipeline follows the Error Handler when one of its nodes fails.

``NodeRecovery`` is one run's side of the conversation: it sends the failure to the in-process
handler under the run's query id (so the handler's retry budget spans the run), waits the delay
the handler asks for, keeps the record shown in the JSON result, and tells the user as it goes.
It never decides anything itself: the step comes from ``dua.recovery.next_step``.
"""
from __future__ import annotations

import os
import time
from typing import Callable


def new_run_id(prefix: str) -> str:
    """A query id unique to one run (``extract_3f9c…``): the handler counts attempts per id."""
    return f"{prefix}_{os.urandom(6).hex()}"


class NodeRecovery:
    """Ask, wait, record, tell: one run's consultations of the Error Handler."""

    def __init__(self, agent_id: str, query_id: str | None = None, *,
                 sleep: Callable[[float], None] = time.sleep,
                 on_progress: Callable[[str], None] | None = None):
        self.agent_id, self.sleep, self.on_progress = agent_id, sleep, on_progress
        self.query_id = query_id or new_run_id(agent_id.split("_")[0])
        self.records: list = []  # one dict per consultation, in order (stats.recovery)
        self.last_feedback: dict | None = None  # the whole feedback of the latest consultation

    def decide(self, exc: BaseException, node: str, **context: object) -> tuple:
        """``(step, record)`` for a failure of ``node``; a "retry" step has already waited.

        step is one of dua.recovery.next_step's: retry, refine, fallback, resume, ask, stop.
        """
        from . import next_step, recover  # lazy: the handler loads only on the error path

        feedback = recover(exc, self.agent_id, query_id=self.query_id,
                           context={"node": node, **context})
        step, delay = next_step(feedback)
        self.last_feedback = feedback.to_dict()
        record = {"node": node, **context,
                  "error_code": getattr(exc, "error_code", "UNEXPECTED_ERROR"),
                  "error_id": feedback.error_id, "next_action": feedback.next_action,
                  "step": step, "delay_s": round(delay, 3),
                  "automated_actions": list(feedback.automated_actions),
                  "user_message": feedback.user_message,
                  "recovery_suggestions": list(feedback.recovery_suggestions)}
        self.records.append(record)
        self._tell(record)
        if step == "retry" and delay > 0:
            self.sleep(delay)
        return step, record

    def _tell(self, record: dict) -> None:
        # ask and stop end the run with the failure itself, and the CLI reports that one.
        if not self.on_progress or record["step"] in ("ask", "stop"):
            return
        message = f"{record['node']} failed ({record['error_code']}): {record['user_message']}"
        if record["step"] == "retry":
            self.on_progress(f"{message} (waiting {record['delay_s']:.2f}s)")
            return
        if record["step"] == "refine":  # the message says what happens next; no wait to show
            self.on_progress(message)
            return
        self.on_progress(message)
        for suggestion in record["recovery_suggestions"]:
            if suggestion not in message:
                self.on_progress(f"  try: {suggestion}")
