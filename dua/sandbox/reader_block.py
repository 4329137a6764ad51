"""The word reader as copied into generated parsers: its source, and how to recognise it.

dua/words.py and the dua/pdfium_*.py modules it imports, less their docstrings,
``__future__`` lines and relative imports, are the one block of a parser that may use pypdfium2. Standard library
only and no dua imports: ``_child.py`` loads this module by path.
"""
from __future__ import annotations

import ast
import os

_DUA = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOURCES = tuple(os.path.join(_DUA, name) for name in (
    "words.py", "pdfium_chars.py", "pdfium_fonts.py", "pdfium_content.py"))
PUBLIC = "read_pages"  # the one name of the block a parser's own code may use
_cache: dict = {}


def source() -> str:
    """The block's text exactly as the writer copies it into a parser."""
    if "source" not in _cache:
        _cache["source"] = "\n\n\n".join(_stripped(path) for path in SOURCES) + "\n"
    return _cache["source"]


def _stripped(path: str) -> str:
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    tree = ast.parse(text)
    drop = set()
    for i, stmt in enumerate(tree.body):
        docstring = (i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                     and isinstance(stmt.value.value, str))
        # the two modules import each other's names; in one parser they share one namespace
        if docstring or (isinstance(stmt, ast.ImportFrom) and
                         (stmt.level or stmt.module == "__future__")):
            drop.update(range(stmt.lineno, stmt.end_lineno + 1))
    lines = text.splitlines()
    return "\n".join(line for n, line in enumerate(lines, 1) if n not in drop).strip("\n")


def _dumps() -> list:
    # ast.dump without positions: comments and blank lines aside, the very same code
    if "dumps" not in _cache:
        _cache["dumps"] = [ast.dump(s) for s in ast.parse(source()).body]
    return _cache["dumps"]


def private_names() -> frozenset:
    """The block's top-level names that no code outside it may use or rebind."""
    if "names" not in _cache:
        names = set()
        for stmt in ast.parse(source()).body:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        _cache["names"] = frozenset(names - {PUBLIC})
    return _cache["names"]


def find(tree: ast.Module) -> range | None:
    """The indices of ``tree.body`` that are the whole block, unchanged, or None."""
    want = _dumps()
    body = tree.body
    for start, stmt in enumerate(body[:len(body) - len(want) + 1]):
        # dumping is the cost (about 10 ms for the block): only where read_pages starts
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name == PUBLIC):
            continue
        if all(ast.dump(body[start + k]) == want[k] for k in range(len(want))):
            return range(start, start + len(want))
    return None


def load() -> dict:
    """The block run as its own module: the trusted ``read_pages`` and its helpers."""
    namespace = {"__name__": "dua_reader_block"}
    exec(compile(source(), "<dua word reader>", "exec"), namespace)
    return namespace
