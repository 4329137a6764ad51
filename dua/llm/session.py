"""One run's use of an LLM provider: a total deadline, no request sent twice, one count.

A real small model at temperature 0 answers an identical request identically, so a
repeat costs a whole prompt evaluation and buys nothing: ``Session.complete`` refuses it
(``RepeatedRequestError``) once it has been answered. Every request must name
``max_tokens``; the deadline bounds every attempt, wait and socket read of the run.
"""
from __future__ import annotations

import hashlib
import json

from ..errors import (LLMBudgetSpentError, LLMTimeoutError, RepeatedRequestError,
                      ResponseValidationError, StreamInterruptedError, TransportError, UsageError)

BUDGET_PER_TIMEOUT = 10  # the run's total LLM time, in --llm-timeout units, when not given
# Per-request options that do not change what the model is asked.
_NOT_ASKED = ("on_status",)


def run_budget(settings) -> float:
    """The run's total LLM seconds: --llm-budget, else BUDGET_PER_TIMEOUT x --llm-timeout."""
    given = getattr(settings, "llm_budget", None)
    return given if given is not None else BUDGET_PER_TIMEOUT * getattr(settings, "timeout", 60.0)


def fingerprint(messages: list, options: dict) -> str:
    """A stable digest of what a request asks (messages and the options that shape it)."""
    shaped = {k: v for k, v in sorted(options.items()) if k not in _NOT_ASKED}
    text = json.dumps([messages, shaped], sort_keys=True, default=str, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Session:
    """Wraps a provider for one run; quacks like it (``complete``, ``usage``, ``name``).

    ``seconds`` is the run's total LLM time (None: unbounded but for the provider's own
    per-call budget). ``answers`` holds every answer text seen, so callers can tell a
    repeated answer from a new one.
    """

    def __init__(self, provider, seconds: float | None = None):
        self.provider = provider
        self.name, self.model = getattr(provider, "name", ""), getattr(provider, "model", "")
        transport = getattr(provider, "transport", None)
        self.clock = getattr(transport, "clock", None) or _monotonic()
        self.seconds = seconds
        self.deadline = None if seconds is None else self.clock() + seconds
        if transport is not None and self.deadline is not None:
            transport.deadline = self.deadline
        self.asked: set = set()
        self.answers: list = []
        self.refused = 0  # requests not sent: repeats and requests past the deadline

    def __repr__(self) -> str:
        return f"Session({self.provider!r}, seconds={self.seconds})"

    @property
    def usage(self):
        from .response import Usage  # lazy: only a duck-typed provider lacks its own

        return getattr(self.provider, "usage", None) or Usage()

    def remaining(self) -> float | None:
        return None if self.deadline is None else self.deadline - self.clock()

    def seen_answer(self, text: str) -> bool:
        """Whether the model already gave this exact answer earlier in the run."""
        return (text or "").strip() in self.answers[:-1]

    def complete(self, messages: list, **options):
        """The provider's ``complete``, unless the request was answered before or time is up.

        Raises:
            UsageError: no ``max_tokens`` (a programming error: every request names one).
            RepeatedRequestError: this exact request was already answered in this run.
            LLMBudgetSpentError: the run's LLM deadline is spent (before or during the call).
            TransportError, ResponseError: from the provider.
        """
        if options.get("max_tokens") is None:
            raise UsageError("every LLM request must name max_tokens")
        key = fingerprint(messages, options)
        if key in self.asked:
            self.refused += 1
            raise RepeatedRequestError("this exact request was already answered in this run; "
                                       "sending it again would buy the same answer")
        left = self.remaining()
        if left is not None and left <= 0:
            self.refused += 1
            raise LLMBudgetSpentError(f"the run's LLM budget of {self.seconds:g} s is spent")
        try:
            response = self.provider.complete(messages, **options)
        except (TransportError, ResponseValidationError, StreamInterruptedError) as exc:
            # No model answer came back (the server, the network or the wire format failed):
            # the same request may go again (the Error Handler decides), unless the deadline
            # is what stopped it.
            left = self.remaining()
            if isinstance(exc, LLMTimeoutError) and left is not None and left <= 0:
                raise LLMBudgetSpentError(f"the run's LLM budget of {self.seconds:g} s ran out "
                                          f"during a request ({exc.message})") from exc
            raise
        except Exception as exc:  # the model answered, but unusably: that answer stands
            self.asked.add(key)
            self.answers.append((getattr(exc, "text", None) or "").strip())
            raise
        self.asked.add(key)
        self.answers.append((response.text or "").strip())
        return response


def _monotonic():
    import time  # lazy: keeps import dua fast

    return time.monotonic
