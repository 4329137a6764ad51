"""Safe execution of generated parsers: a static allow-list check, then a fresh, limited child
process forked from a pre-loaded server, with results crossing back as JSON (never pickle).

    from dua.sandbox import check_source, run_parser, Sandbox
"""
from __future__ import annotations

from .policy import Violation, check_source
from .runner import MAX_TIMEOUT, Limits, RunInfo, Sandbox, default_sandbox, run_parser, valid_timeout

__all__ = ("Limits", "MAX_TIMEOUT", "RunInfo", "Sandbox", "Violation", "check_source",
           "default_sandbox", "run_parser", "valid_timeout")
