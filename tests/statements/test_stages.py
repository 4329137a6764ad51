"""The statements' stages: no two modules import each other, however indirectly, and no
stage imports a later one (module level and inside functions alike), read with ``ast``."""
from __future__ import annotations

import ast
import os
import unittest

import dua.statements
from dua.statements import STAGES

ROOT = os.path.dirname(os.path.abspath(dua.statements.__file__))


def modules() -> dict:
    """``{"table.engine": path}`` for every module of every stage."""
    found = {}
    for stage in sorted(os.listdir(ROOT)):
        folder = os.path.join(ROOT, stage)
        if os.path.isdir(folder) and os.path.exists(os.path.join(folder, "__init__.py")):
            for name in sorted(os.listdir(folder)):
                if name.endswith(".py") and name != "__init__.py":
                    found[f"{stage}.{name[:-3]}"] = os.path.join(folder, name)
    return found


def imports(name: str, path: str, known: dict) -> set:
    """The statements modules that module ``name`` imports, anywhere in its body."""
    with open(path, encoding="utf-8") as fh:
        tree = ast.parse(fh.read(), path)
    package = ["dua", "statements"] + name.split(".")[:-1]
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            head = ".".join(base + ([node.module] if node.module else []))
            targets = [head] + [f"{head}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            short = target[len("dua.statements."):] if target.startswith("dua.statements.") else ""
            if short in known:
                out.add(short)
    return out


def graph() -> dict:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def circle(edges: dict) -> list:
    """One import circle as a list of modules (first == last), or []."""
    state = {}

    def visit(node: str, trail: list) -> list:
        state[node] = "open"
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == "open":
                return trail[trail.index(nxt):] + [nxt]
            if nxt not in state:
                found = visit(nxt, trail + [nxt])
                if found:
                    return found
        state[node] = "done"
        return []

    for start in sorted(edges):
        if start not in state:
            found = visit(start, [start])
            if found:
                return found
    return []


class StagesTest(unittest.TestCase):
    def test_every_module_is_in_a_stage(self):
        flat = [n for n in os.listdir(ROOT) if n.endswith(".py") and n != "__init__.py"]
        self.assertEqual(flat, [])
        stages = {name.split(".")[0] for name in modules()}
        self.assertEqual(stages, set(STAGES))

    def test_no_module_imports_itself_through_others(self):
        self.assertEqual(circle(graph()), [], "an import circle")

    def test_no_stage_imports_a_later_one(self):
        later = [f"{a} imports {b}" for a, targets in sorted(graph().items()) for b in sorted(targets)
                 if STAGES.index(b.split(".")[0]) > STAGES.index(a.split(".")[0])]
        self.assertEqual(later, [])

    def test_the_circle_finder_finds_one(self):
        self.assertEqual(circle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"])


if __name__ == "__main__":
    unittest.main()
