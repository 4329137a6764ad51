"""The static half of the fence: an allow-list check of a generated parser's syntax tree.

It never runs the code. Every finding is a ``Violation`` with the line and a reason written
for the refine step, which feeds it back to the parser writer word for word.
"""
from __future__ import annotations

import ast
import dataclasses
import re

from . import reader_block

# Top-level packages a parser may import; submodules of these are allowed too.
ALLOWED_MODULES = frozenset({
    "__future__", "abc", "bisect", "calendar", "collections", "contextlib", "copy", "csv",
    "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions", "functools", "heapq",
    "io", "itertools", "json", "math", "numbers", "numpy", "operator", "pandas", "pdfplumber",
    "pprint", "random", "re", "statistics", "string", "textwrap", "time", "typing",
    "unicodedata", "warnings",
})

# Builtins that run code, reach files or the interpreter's innards.
FORBIDDEN_NAMES = frozenset({
    "eval", "exec", "compile", "__import__", "open", "globals", "vars", "locals", "breakpoint",
    "input", "help", "memoryview", "__builtins__", "__loader__", "__spec__",
})
ATTR_BUILTINS = frozenset({"getattr", "setattr", "delattr", "hasattr"})
ALLOWED_DUNDERS = frozenset({"__name__", "__init__"})
# Dunder names a module may define or read as plain names.
ALLOWED_DUNDER_NAMES = ALLOWED_DUNDERS | {"__all__", "__doc__", "__version__", "__file__",
                                           "__main__", "__future__"}
# Frame and code objects lead back to globals and builtins without a single dunder.
FORBIDDEN_ATTRS = frozenset({
    "gi_frame", "gi_code", "cr_frame", "cr_code", "ag_frame", "ag_code", "f_back", "f_globals",
    "f_locals", "f_builtins", "f_code", "tb_frame", "tb_next", "func_globals", "func_code",
    "ctypeslib", "fork_exec", "mkfifo", "mknod", "pidfd_open", "pidfd_send_signal", "system",
    "popen", "chroot",
})
# Modules a parser may not use, also when reached as an attribute of an allowed one
# (warnings.sys, random._os, pandas._config.localization.subprocess); leading underscores
# are ignored.
FORBIDDEN_MODULE_ATTRS = frozenset({
    "os", "sys", "posix", "nt", "subprocess", "posixsubprocess", "socket", "ctypes", "importlib",
    "builtins", "pickle", "marshal", "shutil", "pathlib", "tempfile", "signal", "resource",
    "threading", "multiprocessing", "mmap", "gc", "inspect", "runpy", "pty", "urllib", "http",
    "ssl", "sqlite3", "sysconfig", "fcntl", "asyncio", "zipimport", "pkgutil", "webbrowser",
    "ftplib", "smtplib", "imp", "faulthandler",
})
# Calls allowed in a top-level constant, e.g. DATE = re.compile(...), COLS = ", ".join(...).
TOP_LEVEL_CALLS = frozenset({
    "compile", "frozenset", "set", "tuple", "dict", "list", "namedtuple", "NamedTuple",
    "Decimal", "TypeVar", "date", "datetime", "timedelta", "time", "field", "OrderedDict",
    "defaultdict", "Fraction", "escape", "join", "Enum", "str", "int", "float", "bool",
    "Timestamp", "NewType", "enumerate", "range", "zip", "sorted", "len", "min", "max",
    "format", "upper", "lower", "strip", "split", "replace",
})
_NAME_GETTERS = ATTR_BUILTINS | {"attrgetter", "methodcaller"}
_DUNDER = re.compile(r"^__\w+__$")
_DUNDER_IN_TEXT = re.compile(r"__[A-Za-z0-9]\w*?__")
_CLASS_BODY = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Assign, ast.AnnAssign, ast.Pass,
               ast.ClassDef)


@dataclasses.dataclass(frozen=True)
class Violation:
    """One reason the parser cannot run: 1-based line, 0-based column, and why."""

    line: int
    col: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


def check_source(source: str, filename: str = "parser.py") -> list:
    """Every policy violation in ``source``, in line order; an empty list means it may run.

    A syntax error is reported as a violation too, so that one list feeds the refine step.
    """
    if not isinstance(source, str):
        raise TypeError(f"source must be str, not {type(source).__name__}")
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        return [Violation(exc.lineno or 1, max((exc.offset or 1) - 1, 0),
                          f"syntax error: {exc.msg}")]
    except ValueError as exc:  # null bytes in the source
        return [Violation(1, 0, f"unreadable source: {exc}")]
    # dua's own word reader, copied in unchanged, is the one block that may use pdfium (it
    # never runs in the sandbox: the child hands its read_pages the words read beforehand)
    block = reader_block.find(tree, source) or range(0)
    checker = _Checker(reader_block.private_names() if block else frozenset())
    checker.check_module(tree, block)
    for i, stmt in enumerate(tree.body):
        if i not in block:
            checker.visit(stmt)
    found = sorted(set(checker.found), key=lambda v: (v.line, v.col, v.reason))
    return found


def module_allowed(name: str) -> bool:
    return name.split(".")[0] in ALLOWED_MODULES


class _Checker(ast.NodeVisitor):
    """Walks the whole tree once; ``check_module`` adds the top-level shape rules."""

    def __init__(self, reader_names: frozenset = frozenset()) -> None:
        self.found = []
        # with the reader block present, its private names and rebinding read_pages are
        # refused elsewhere: overriding a helper would change what the trusted block does
        self.reader_names = reader_names
        self.reader_present = bool(reader_names)
        self.called = set()  # ids of the nodes called directly, as f(...)

    def visit(self, node: ast.AST) -> None:
        for text, stored in _identifiers(node):
            if text in self.reader_names or (self.reader_present and stored and
                                             text == reader_block.PUBLIC):
                self.flag(node, f"'{text}' belongs to dua's word reader: call read_pages() "
                                "and leave the rest of the reader alone")
            elif "pdfium" in text.lower():
                self.flag(node, f"'{text[:60]}' is not allowed: a parser reaches pdfium only "
                                "through read_pages(), the word reader dua copies into it")
        super().visit(node)

    def flag(self, node: ast.AST, reason: str) -> None:
        self.found.append(Violation(getattr(node, "lineno", 1), getattr(node, "col_offset", 0),
                                    reason))

    # --- top-level shape ------------------------------------------------------------

    def check_module(self, tree: ast.Module, block: range = range(0)) -> None:
        if not any(isinstance(s, ast.FunctionDef) and s.name == "parse" and
                   (s.args.args or s.args.posonlyargs) for s in tree.body):
            self.flag(tree.body[0] if tree.body else tree,
                      "the module defines no top-level function parse(pdf_path)")
        for i, stmt in enumerate(tree.body):
            if i in block or isinstance(stmt, (ast.Import, ast.ImportFrom, ast.FunctionDef,
                                               ast.AsyncFunctionDef, ast.Pass)):
                continue
            if isinstance(stmt, ast.ClassDef):
                self._check_class_body(stmt)
            elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                if stmt.value is not None:
                    self._check_constant(stmt.value)
            elif isinstance(stmt, ast.Expr) and _is_docstring(stmt) and i == 0:
                continue
            elif _is_main_guard(stmt):
                continue  # never true inside the sandbox; its body is still checked below
            else:
                self.flag(stmt, f"top-level {_describe(stmt)} is not allowed: a parser module "
                                "holds only imports, constants, functions and classes")

    def _check_class_body(self, cls: ast.ClassDef) -> None:
        for stmt in cls.body:
            if isinstance(stmt, _CLASS_BODY) or (isinstance(stmt, ast.Expr) and
                                                 _is_docstring(stmt)):
                continue
            self.flag(stmt, f"{_describe(stmt)} in the body of class {cls.name} is not allowed")

    def _check_constant(self, value: ast.AST) -> None:
        todo = [value]
        while todo:
            node = todo.pop()
            if isinstance(node, ast.Lambda):
                continue  # its body runs only when called, inside parse()
            if isinstance(node, ast.Call) and _call_name(node.func) not in TOP_LEVEL_CALLS:
                self.flag(node, f"top-level call to {_call_name(node.func) or 'an expression'}() "
                                "is not allowed: compute it inside parse()")
            todo.extend(ast.iter_child_nodes(node))

    # --- everywhere -------------------------------------------------------------------

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if not module_allowed(alias.name):
                self.flag(node, _import_reason(alias.name))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.flag(node, "relative import is not allowed: a parser is a standalone file")
        elif not module_allowed(node.module or ""):
            self.flag(node, _import_reason(node.module or ""))
        for alias in node.names:
            if alias.name == "*":
                self.flag(node, f"'from {node.module} import *' is not allowed: import names")
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        self._check_not_passed_on(node, node.id)
        if node.id in FORBIDDEN_NAMES:
            self.flag(node, f"'{node.id}' is not allowed: {_why(node.id)}")
        elif _DUNDER.match(node.id) and node.id not in ALLOWED_DUNDER_NAMES:
            self.flag(node, f"the name '{node.id}' is not allowed")

    def _check_not_passed_on(self, node: ast.AST, name: str) -> None:
        # g = getattr or map(getattr, ...) would take a computed name past visit_Call's check
        if name in _NAME_GETTERS and id(node) not in self.called:
            self.flag(node, f"'{name}' may only be called directly, with the attribute name "
                            "written out (obj.name)")

    def visit_Attribute(self, node: ast.Attribute) -> None:
        self._check_not_passed_on(node, node.attr)
        if _DUNDER.match(node.attr) and node.attr not in ALLOWED_DUNDERS:
            self.flag(node, f"dunder attribute '.{node.attr}' is not allowed "
                            "(only __name__ and __init__)")
        elif node.attr in FORBIDDEN_ATTRS:
            self.flag(node, f"attribute '.{node.attr}' is not allowed: it reaches interpreter "
                            "internals, processes or native code")
        elif node.attr.lstrip("_") in FORBIDDEN_MODULE_ATTRS:
            self.flag(node, f"attribute '.{node.attr}' is not allowed: it reaches the "
                            f"{node.attr.lstrip('_')} module, which a parser may not use")
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        # also inside longer strings: "{0.__class__}".format(x) looks attributes up too
        if isinstance(node.value, str):
            for name in sorted(set(_DUNDER_IN_TEXT.findall(node.value)) - ALLOWED_DUNDER_NAMES):
                self.flag(node, f"the string '{name}' names interpreter internals and is not "
                                "allowed")

    def visit_Call(self, node: ast.Call) -> None:
        self.called.add(id(node.func))
        if isinstance(node.func, ast.Name) and node.func.id in ATTR_BUILTINS:
            name = node.args[1] if len(node.args) > 1 else None
            if not _is_str(name):
                self.flag(node, f"{node.func.id}() with a computed attribute name is not allowed: "
                                "write the attribute out (obj.name)")
        elif _call_name(node.func) in ("attrgetter", "methodcaller"):
            names = node.args if _call_name(node.func) == "attrgetter" else node.args[:1]
            if not names or not all(_is_str(n) for n in names):
                self.flag(node, f"{_call_name(node.func)}() with a computed name is not allowed: "
                                "write the attribute out (obj.name)")
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.flag(node, "'global' is not allowed: pass values in and return them")


def _identifiers(node: ast.AST):
    """Every name, attribute, module, alias and string the node itself spells, and whether
    it binds that name."""
    if isinstance(node, ast.Name):
        yield node.id, not isinstance(node.ctx, ast.Load)
    elif isinstance(node, ast.Attribute):
        yield node.attr, not isinstance(node.ctx, ast.Load)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield node.name, True
    elif isinstance(node, ast.alias):
        yield node.name, node.asname is None
        if node.asname:
            yield node.asname, True
    elif isinstance(node, ast.ImportFrom) and node.module:
        yield node.module, False
    elif isinstance(node, ast.arg):
        yield node.arg, True
    elif isinstance(node, ast.keyword) and node.arg:
        yield node.arg, False
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node.value, False
    elif isinstance(getattr(node, "name", None), str):  # except ... as e, case ... as e (3.10)
        yield node.name, True
    elif isinstance(getattr(node, "rest", None), str):  # case {**rest}
        yield node.rest, True
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        for name in node.names:
            yield name, True


def _is_str(node: object) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt.value, ast.Constant) and isinstance(stmt.value.value, str)


def _is_main_guard(stmt: ast.stmt) -> bool:
    test = getattr(stmt, "test", None)
    return (isinstance(stmt, ast.If) and isinstance(test, ast.Compare)
            and isinstance(test.left, ast.Name) and test.left.id == "__name__"
            and len(test.comparators) == 1 and isinstance(test.comparators[0], ast.Constant)
            and test.comparators[0].value == "__main__")


def _call_name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


def _describe(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        return f"call to {_call_name(stmt.value.func) or 'an expression'}()"
    return {"For": "for loop", "While": "while loop", "With": "with block", "Try": "try block",
            "If": "if block", "Expr": "expression", "Delete": "del statement",
            "Raise": "raise statement", "Assert": "assert statement",
            "Global": "global statement"}.get(type(stmt).__name__, type(stmt).__name__)


def _import_reason(name: str) -> str:
    return (f"import of '{name}' is not allowed: use only pdfplumber, pandas, numpy and pure "
            "standard-library modules (re, datetime, decimal, math, collections, ...)")


def _why(name: str) -> str:
    if name == "open":
        return "open the PDF with pdfplumber.open(pdf_path); a parser reads no other file"
    if name in ("eval", "exec", "compile", "__import__"):
        return "a parser may not build or run code at run time"
    return "it reaches outside the parser"
