"""The Error Handler (seed 004): classify, diagnose, recover and explain errors.

``handle_in_process(payload)`` answers one payload with the feedback dict (never raises);
``recover(exc, agent_id, …)`` is what dua's own agents call when a node fails, and
``next_step(feedback)`` says how to follow it. The HTTP service (``server``, ``service``) is
imported only by ``dua serve``.
"""
from __future__ import annotations

from .handler import ErrorHandler, default_handler, handle_in_process, next_step, recover
from .store import Store

__all__ = ("ErrorHandler", "Store", "default_handler", "handle_in_process", "next_step", "recover")
