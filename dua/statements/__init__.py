"""The statement-parser agent (seed 001), in its stages, each a package that imports only the
ones before it: ``notation`` (dates as printed), ``table`` (the page's table, and the engine a
parser carries), ``learning`` (the layout's guess and what the answer key teaches),
``verification`` (the checks), ``agent`` (the writers and the workflow), ``output`` (the rows
in the common schema and the formats finance tools read).

Nothing is imported here, so ``import dua.statements`` stays as light as ``import dua``;
``dua.statements.agent.agent.run_agent`` is the entry point. No module of a stage imports a
later stage, and no two modules import each other (``tests/statements/test_stages.py``).
"""
from __future__ import annotations

STAGES = ("notation", "table", "learning", "verification", "agent", "output")
