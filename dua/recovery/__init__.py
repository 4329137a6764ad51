"""The Error Handler (seed 004): classify, diagnose, recover and explain errors.

``handle_in_process(payload)`` answers one payload with the feedback dict (never raises);
``recover(exc, agent_id, …)`` is what dua's own agents call when a node fails, and
``next_step(feedback)`` says how to follow it; ``NodeRecovery`` (``node``) is a pipeline run's
side of that conversation. The HTTP service (``server``, ``service``) is imported only by
``dua serve``.

The names load on first use, so that a pipeline importing ``dua.recovery.node`` pays for the
handler only when one of its nodes fails.
"""
from __future__ import annotations

from .._lazy import lazy_getattr

__all__ = ("ErrorHandler", "NodeRecovery", "Store", "default_handler", "handle_in_process",
           "new_run_id", "next_step", "recover")

_LAZY = {"ErrorHandler": ".handler", "default_handler": ".handler",
         "handle_in_process": ".handler", "next_step": ".handler", "recover": ".handler",
         "NodeRecovery": ".node", "new_run_id": ".node", "Store": ".store"}


__getattr__ = lazy_getattr(__name__, _LAZY)
