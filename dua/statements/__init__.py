"""The statement-parser agent (seed 001): analysis, engine, writers, verification, workflow.

Nothing is imported here, so ``import dua.statements`` stays as light as ``import dua``;
``dua.statements.agent.run_agent`` is the entry point.
"""
from __future__ import annotations
