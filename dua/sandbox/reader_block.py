"""The word reader as copied into generated parsers: its source, and how to recognise it.

The word reader's modules in dua/pdf/ (``read_pages`` first), less their docstrings, ``__future__``
lines and relative imports, are the one block of a parser that may use pypdfium2. Standard library
only and no dua imports: ``_child.py`` loads this module by path.
"""
from __future__ import annotations

import ast
import os

_PDF = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "pdf")
SOURCES = tuple(os.path.join(_PDF, name) for name in (
    "words.py", "chars.py", "fonts.py", "tounicode.py", "content.py", "wordrule.py"))
PUBLIC = "read_pages"  # the one name of the block a parser's own code may use
_cache: dict = {}


def source() -> str:
    """The block's text exactly as the writer copies it into a parser."""
    if "source" not in _cache:
        _cache["source"] = "\n\n\n".join(module_text(path) for path in SOURCES) + "\n"
    return _cache["source"]


def holds_reader(parser_path: str) -> bool:
    """Whether the parser file holds the block (as the sandbox's child checks before reading
    ahead); False for a file that cannot be read as text."""
    try:
        with open(parser_path, encoding="utf-8-sig") as fh:
            return source() in fh.read()
    except (OSError, ValueError):
        return False


def module_text(path: str) -> str:
    """A module's source as copied into a parser: no docstring, ``__future__`` line or
    relative import (the copied modules share one namespace)."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    tree = ast.parse(text)
    drop = set()
    for i, stmt in enumerate(tree.body):
        docstring = (i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant)
                     and isinstance(stmt.value.value, str))
        # the modules import each other's names; in one parser they share one namespace
        if docstring or (isinstance(stmt, ast.ImportFrom) and
                         (stmt.level or stmt.module == "__future__")):
            drop.update(range(stmt.lineno, stmt.end_lineno + 1))
    lines = text.splitlines()
    return "\n".join(line for n, line in enumerate(lines, 1) if n not in drop).strip("\n")


def _tree() -> ast.Module:
    # one parse of the block serves its names, its statements' texts and their dumps
    if "tree" not in _cache:
        _cache["tree"] = ast.parse(source())
    return _cache["tree"]


def _dumps() -> list:
    # ast.dump without positions: comments and blank lines aside, the very same code
    if "dumps" not in _cache:
        _cache["dumps"] = [ast.dump(s) for s in _tree().body]
    return _cache["dumps"]


def _texts() -> list:
    """Each statement's lines, or None for one that shares a line with another statement."""
    if "texts" not in _cache:
        body, lines = _tree().body, source().split("\n")
        ends = [0] + [s.end_lineno for s in body]
        _cache["texts"] = [_text(lines, s) if s.col_offset == 0 and _first_line(s) > ends[i]
                           and (i + 1 == len(body) or _first_line(body[i + 1]) > s.end_lineno)
                           else None for i, s in enumerate(body)]
    return _cache["texts"]


def _first_line(stmt: ast.stmt) -> int:
    return min([stmt.lineno] + [d.lineno for d in getattr(stmt, "decorator_list", [])])


def _text(lines: list, stmt: ast.stmt) -> str:
    return "\n".join(lines[_first_line(stmt) - 1:stmt.end_lineno])


def private_names() -> frozenset:
    """The block's top-level names that no code outside it may use or rebind."""
    if "names" not in _cache:
        names = set()
        for stmt in _tree().body:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                names.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        _cache["names"] = frozenset(names - {PUBLIC})
    return _cache["names"]


def find(tree: ast.Module, text: str | None = None) -> range | None:
    """The indices of ``tree.body`` that are the whole block, unchanged, or None.

    ``text``, the source ``tree`` was parsed from, makes the check cheaper (not looser):
    a statement written exactly as the block's is the same code without dumping it.
    """
    size = len(_tree().body)
    body = tree.body
    # "\r" ends a line for the parser but not for split("\n"): count no lines in such text
    lines = text.split("\n") if text is not None and "\r" not in text else None
    for start, stmt in enumerate(body[:len(body) - size + 1]):
        # dumping is the cost (about 10 ms for the block): only where read_pages starts
        if not (isinstance(stmt, ast.FunctionDef) and stmt.name == PUBLIC):
            continue
        if all(_same(body[start + k], k, lines) for k in range(size)):
            return range(start, start + size)
    return None


def _same(stmt: ast.stmt, k: int, lines: list | None) -> bool:
    """Whether ``stmt`` is the block's statement ``k``.

    The same lines parse to the same code, provided that both statements start a line and
    the block's has its lines to itself; anything else is compared by its syntax tree.
    """
    want = _texts()[k]
    if lines is not None and want is not None and stmt.col_offset == 0 \
            and _text(lines, stmt) == want:
        return True
    return ast.dump(stmt) == _dumps()[k]


def load() -> dict:
    """The block run as its own module: the trusted ``read_pages`` and its helpers."""
    namespace = {"__name__": "dua_reader_block"}
    exec(compile(source(), "<dua word reader>", "exec"), namespace)
    return namespace
