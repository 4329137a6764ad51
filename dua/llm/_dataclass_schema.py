"""Reading a dataclass as an object schema: its fields, their annotations, their defaults.

Annotations are usually strings (``from __future__ import annotations``), and ``X | None`` or
``list[str]`` cannot be evaluated on Python 3.9, so string annotations are read with ``ast``
rather than ``typing.get_type_hints``.
"""
from __future__ import annotations

import ast
import builtins
import dataclasses
import sys
import typing

from .schema import AnyValue, ListOf, NoneType, Object, OneOf, Scalar, as_schema

_LISTS = {"list", "List", "Sequence", "tuple", "Tuple"}
_DICTS = {"dict", "Dict", "Mapping"}
_building: set = set()


def object_from_dataclass(cls: type) -> Object:
    """An ``Object`` with one field per dataclass field; fields with defaults are optional.

    Raises:
        TypeError: an annotation that has no schema, or a dataclass that contains itself.
    """
    if cls in _building:
        raise TypeError(f"dataclass {cls.__name__} refers to itself; "
                        "recursive schemas are not supported")
    _building.add(cls)
    try:
        namespace = dict(vars(builtins))
        namespace.update(vars(sys.modules.get(cls.__module__, typing)))
        fields, optional = {}, []
        for f in dataclasses.fields(cls):
            fields[f.name] = _annotation(f.type, namespace, f"{cls.__name__}.{f.name}")
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
                optional.append(f.name)
        doc = (cls.__doc__ or "").strip()
        # dataclass() invents "Name(a: int, …)" when there is no docstring; that is not a description.
        description = "" if doc.startswith(cls.__name__ + "(") else doc.splitlines()[0] if doc else ""
        return Object(fields, optional, description=description, cls=cls)
    finally:
        _building.discard(cls)


def _annotation(annotation: object, namespace: dict, where: str):
    if isinstance(annotation, str):
        try:
            node = ast.parse(annotation, mode="eval").body
        except SyntaxError:
            raise TypeError(f"{where}: cannot read the annotation {annotation!r}") from None
        return _from_node(node, namespace, where)
    return _from_type(annotation, namespace, where)


def _from_node(node: ast.AST, namespace: dict, where: str):
    if isinstance(node, ast.Constant):
        if node.value is None:
            return Scalar(NoneType)
        if isinstance(node.value, str):
            return _annotation(node.value, namespace, where)  # a quoted forward reference
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _union([_from_node(side, namespace, where) for side in (node.left, node.right)])
    if isinstance(node, ast.Subscript):
        return _generic(_name(node.value), _subscript_args(node), namespace, where)
    if isinstance(node, (ast.Name, ast.Attribute)):
        base = _name(node).split(".")[-1]
        if base in _LISTS:
            return ListOf(AnyValue())
        if base in _DICTS:
            return Object()
        if base in ("Any", "object"):
            return AnyValue()
        if base in namespace:
            return _from_type(namespace[base], namespace, where)
    raise TypeError(f"{where}: no schema for the annotation {ast.unparse(node)!r}")


def _subscript_args(node: ast.Subscript) -> list:
    inner = node.slice  # the expression itself since Python 3.9 (3.8's ast.Index is gone)
    return list(inner.elts) if isinstance(inner, ast.Tuple) else [inner]


def _generic(name: str, args: list, namespace: dict, where: str):
    base = name.split(".")[-1]
    if base in _LISTS:
        args = [a for a in args if not (isinstance(a, ast.Constant) and a.value is Ellipsis)]
        return ListOf(_from_node(args[0], namespace, where)) if len(args) == 1 else ListOf(AnyValue())
    if base in _DICTS:
        return Object()
    if base == "Optional":
        return _union([_from_node(args[0], namespace, where), Scalar(NoneType)])
    if base == "Union":
        return _union([_from_node(a, namespace, where) for a in args])
    if base == "Literal":
        values = [a.value for a in args if isinstance(a, ast.Constant)]
        kinds = tuple(dict.fromkeys(type(v) for v in values))
        return Scalar(*kinds, enum=values)
    raise TypeError(f"{where}: no schema for the generic {name}[…]")


def _from_type(tp: object, namespace: dict, where: str):
    origin = typing.get_origin(tp)
    if origin is None:
        try:
            return as_schema(tp)
        except TypeError as exc:
            raise TypeError(f"{where}: {exc}") from None
    args = typing.get_args(tp)
    if origin in (list, tuple) or getattr(origin, "__name__", "") in _LISTS:
        args = [a for a in args if a is not Ellipsis]
        return ListOf(_from_type(args[0], namespace, where)) if len(args) == 1 else ListOf(AnyValue())
    if origin is dict:
        return Object()
    if origin is typing.Union or getattr(origin, "__name__", "") == "UnionType":
        return _union([_from_type(a, namespace, where) for a in args])
    if origin is typing.Literal:
        return Scalar(*dict.fromkeys(type(v) for v in args), enum=list(args))
    raise TypeError(f"{where}: no schema for the annotation {tp!r}")


def _union(options: list):
    # A union of scalars stays one Scalar so that messages read "expected string or null".
    if all(isinstance(o, Scalar) and o.enum is None for o in options):
        types = tuple(dict.fromkeys(t for o in options for t in o.types))
        return Scalar(*types)
    return OneOf(*options)


def _name(node: ast.AST) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_name(node.value)}.{node.attr}"
    raise TypeError(f"unsupported annotation node {type(node).__name__}")
