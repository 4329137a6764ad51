"""Small declarative schemas for what a model must answer: validation and JSON Schema export.

A schema is built from plain data (``{"text": str, "level?": int}``, ``[{"text": str}]``,
``tagged("type", {...})``) or from a dataclass. ``validate`` collects every problem with its
path (``items[2].text: expected string, got int``); it never stops at the first one.
"""
from __future__ import annotations

import dataclasses

from ..errors import SchemaError

NoneType = type(None)
# The words used in messages; "int" and "bool" are kept short because models read them too.
_NAMES = {str: "string", int: "int", float: "number", bool: "bool", list: "list", dict: "object",
          NoneType: "null"}
_JSON_TYPES = {str: "string", int: "integer", float: "number", bool: "boolean", NoneType: "null"}
_MAX_MESSAGE_PROBLEMS = 20


def type_name(value: object) -> str:
    """The JSON-ish name of a value's type, as used in validation messages."""
    return _NAMES.get(type(value), type(value).__name__)


# A path is built as nested pairs (parent, key or index) and only rendered into
# "items[2].text" when there is a problem to report: validating a clean 2,000-item answer
# then formats no strings at all.
def _at(path: tuple | None, key: object) -> tuple:
    return (path, key)


def _where(path: tuple | None) -> str:
    parts = []
    while path is not None:
        path, key = path
        parts.append(key)
    out = ""
    for key in reversed(parts):
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out or "<root>"


class Field:
    """One node of a schema. ``validate`` returns every problem; ``check`` raises them."""

    description = ""

    def validate(self, value: object) -> list:
        """Every problem with ``value``, each naming its path; empty when it fits."""
        problems: list = []
        self._check(value, None, problems)
        return problems

    def check(self, value: object) -> object:
        """Return ``value`` when it fits.

        Raises:
            SchemaError: listing every problem (``problems`` holds them one by one).
        """
        problems = self.validate(value)
        if problems:
            raise SchemaError(problems)
        return value

    def build(self, value: object) -> object:
        """``value`` (already valid) with objects built from dataclasses turned into instances."""
        return value

    def to_json_schema(self) -> dict:
        """The JSON Schema for tools (``parameters``) and ``response_format``."""
        out = self._json_schema()
        if self.description:
            out["description"] = self.description
        return out

    def _check(self, value: object, path: tuple | None, problems: list) -> None:
        raise TypeError(f"{type(self).__name__} cannot validate")

    def _json_schema(self) -> dict:
        raise TypeError(f"{type(self).__name__} has no JSON Schema")


class AnyValue(Field):
    """Any JSON value."""

    def __init__(self, description: str = ""):
        self.description = description

    def _check(self, value: object, path: tuple | None, problems: list) -> None:
        return None

    def _json_schema(self) -> dict:
        return {}


class Scalar(Field):
    """A string, number, boolean or null (or a union of them), with optional enum and bounds."""

    def __init__(self, *types: type, enum: tuple | list | None = None, minimum: float | None = None,
                 maximum: float | None = None, description: str = ""):
        bad = [t for t in types if t not in _JSON_TYPES]
        if not types or bad:
            raise TypeError(f"Scalar takes str, int, float, bool or None types, got {types!r}")
        self.types = tuple(types)
        self.enum = tuple(enum) if enum is not None else None
        self.minimum, self.maximum = minimum, maximum
        self.description = description

    def accepts(self, value: object) -> bool:
        # bool is an int in Python but never in JSON; an int is a fine number.
        kind = type(value)
        if kind is int and float in self.types:
            return True
        return kind in self.types

    def _check(self, value: object, path: tuple | None, problems: list) -> None:
        if not self.accepts(value):
            # "number" already covers int; saying both reads as two different things.
            want = " or ".join(_NAMES[t] for t in self.types if not (t is int and float in self.types))
            problems.append(f"{_where(path)}: expected {want}, got {type_name(value)}")
        elif self.enum is not None and value not in self.enum:
            problems.append(f"{_where(path)}: expected one of {list(self.enum)}, got {value!r}")
        elif isinstance(value, (int, float)) and not isinstance(value, bool):
            if self.minimum is not None and value < self.minimum:
                problems.append(f"{_where(path)}: expected at least {self.minimum}, got {value!r}")
            if self.maximum is not None and value > self.maximum:
                problems.append(f"{_where(path)}: expected at most {self.maximum}, got {value!r}")

    def _json_schema(self) -> dict:
        names = [_JSON_TYPES[t] for t in self.types]
        out: dict = {"type": names[0] if len(names) == 1 else names}
        if self.enum is not None:
            out["enum"] = list(self.enum)
        if self.minimum is not None:
            out["minimum"] = self.minimum
        if self.maximum is not None:
            out["maximum"] = self.maximum
        return out


def String(enum: tuple | list | None = None, description: str = "") -> Scalar:
    """A string, optionally one of ``enum``."""
    return Scalar(str, enum=enum, description=description)


def Integer(minimum: int | None = None, maximum: int | None = None, description: str = "") -> Scalar:
    """An integer (not a bool, not 2.0), optionally bounded."""
    return Scalar(int, minimum=minimum, maximum=maximum, description=description)


def Number(minimum: float | None = None, maximum: float | None = None, description: str = "") -> Scalar:
    """An int or a float, optionally bounded."""
    return Scalar(float, minimum=minimum, maximum=maximum, description=description)


class ListOf(Field):
    """A list whose every item fits ``item``."""

    def __init__(self, item: object, min_items: int = 0, description: str = ""):
        self.item = as_schema(item)
        self.min_items = min_items
        self.description = description

    def _check(self, value: object, path: tuple | None, problems: list) -> None:
        if not isinstance(value, list):
            problems.append(f"{_where(path)}: expected list, got {type_name(value)}")
            return
        if len(value) < self.min_items:
            problems.append(f"{_where(path)}: expected at least {self.min_items} items, "
                            f"got {len(value)}")
        for i, item in enumerate(value):
            self.item._check(item, (path, i), problems)

    def build(self, value: object) -> object:
        return [self.item.build(v) for v in value] if isinstance(value, list) else value

    def _json_schema(self) -> dict:
        out = {"type": "array", "items": self.item.to_json_schema()}
        if self.min_items:
            out["minItems"] = self.min_items
        return out


class Object(Field):
    """An object with named fields. ``null`` for an optional field counts as absent
    (models write ``"caption": null`` for "no caption"); unknown keys are allowed unless
    ``extra="forbid"``."""

    def __init__(self, fields: dict | None = None, optional: tuple | list | set = (),
                 extra: str = "allow", description: str = "", cls: type | None = None):
        if extra not in ("allow", "forbid"):
            raise TypeError(f"extra must be 'allow' or 'forbid', got {extra!r}")
        self.fields = {name: as_schema(spec) for name, spec in (fields or {}).items()}
        self.optional = frozenset(optional)
        self.extra, self.description, self.cls = extra, description, cls

    @property
    def required(self) -> list:
        return [name for name in self.fields if name not in self.optional]

    def _check(self, value: object, path: tuple | None, problems: list, skip: str = "") -> None:
        if not isinstance(value, dict):
            problems.append(f"{_where(path)}: expected object, got {type_name(value)}")
            return
        for name, field in self.fields.items():
            if name not in value:
                if name not in self.optional:
                    problems.append(f"{_where(_at(path, name))}: required field is missing")
            elif not (value[name] is None and name in self.optional):
                field._check(value[name], _at(path, name), problems)
        if self.extra == "forbid":
            for key in value:
                if key not in self.fields and key != skip:
                    problems.append(f"{_where(_at(path, str(key)))}: unexpected field")

    def build(self, value: object) -> object:
        if self.cls is None or not isinstance(value, dict):
            return value
        # A null optional field is left out so that the dataclass default applies.
        return self.cls(**{name: field.build(value[name]) for name, field in self.fields.items()
                           if name in value and not (value[name] is None and name in self.optional)})

    def _json_schema(self) -> dict:
        out: dict = {"type": "object",
                     "properties": {n: f.to_json_schema() for n, f in self.fields.items()},
                     "required": self.required}
        if self.extra == "forbid":
            out["additionalProperties"] = False
        return out


class Tagged(Field):
    """Objects told apart by a discriminator key (``type``): each value has its own fields."""

    def __init__(self, key: str, variants: dict, description: str = ""):
        if not variants:
            raise TypeError("tagged() needs at least one variant")
        self.key = key
        self.variants = {tag: _as_object(spec, f"variant {tag!r}") for tag, spec in variants.items()}
        self.description = description

    def _check(self, value: object, path: tuple | None, problems: list) -> None:
        if not isinstance(value, dict):
            problems.append(f"{_where(path)}: expected object, got {type_name(value)}")
            return
        if self.key not in value:
            problems.append(f"{_where(_at(path, self.key))}: required field is missing")
            return
        tag = value[self.key]
        if not isinstance(tag, str) or tag not in self.variants:
            problems.append(f"{_where(_at(path, self.key))}: expected one of "
                            f"{list(self.variants)}, got {tag!r}")
            return
        self.variants[tag]._check(value, path, problems, skip=self.key)

    def build(self, value: object) -> object:
        variant = self.variants.get(value.get(self.key)) if isinstance(value, dict) else None
        return value if variant is None else variant.build(value)

    def _json_schema(self) -> dict:
        # The root is an object (tool parameters must be) and each variant pins the tag with a
        # one-value enum, which more providers understand than "const".
        variants = []
        for tag, obj in self.variants.items():
            schema = obj.to_json_schema()
            schema["properties"] = {self.key: {"type": "string", "enum": [tag]}, **schema["properties"]}
            schema["required"] = [self.key, *schema["required"]]
            variants.append(schema)
        return {"type": "object",
                "properties": {self.key: {"type": "string", "enum": list(self.variants)}},
                "required": [self.key], "anyOf": variants}


class OneOf(Field):
    """A value that fits at least one of several schemas."""

    def __init__(self, *options: object, description: str = ""):
        self.options = [as_schema(o) for o in options]
        self.description = description

    def _check(self, value: object, path: tuple | None, problems: list) -> None:
        found = []
        for option in self.options:
            mine: list = []
            option._check(value, path, mine)
            if not mine:
                return
            found.append(mine)
        # Report the option closest to the value (fewest problems) so messages stay specific.
        problems.extend(min(found, key=len))

    def build(self, value: object) -> object:
        for option in self.options:
            if not option.validate(value):
                return option.build(value)
        return value

    def _json_schema(self) -> dict:
        return {"anyOf": [o.to_json_schema() for o in self.options]}


def tagged(key: str, variants: dict, description: str = "") -> Tagged:
    """A discriminated union: ``tagged("type", {"heading": {"text": str, "level": int}, …})``."""
    return Tagged(key, variants, description)


def as_schema(spec: object) -> Field:
    """Build a schema from plain data or a dataclass.

    ``str``/``int``/``float``/``bool``/``None`` are scalars, ``object`` is anything, a tuple of
    scalar types is a union, ``[spec]`` is a list, ``{"key": spec, "opt?": spec}`` an object
    (a trailing ``?`` marks an optional key), a dataclass an object of its fields.

    Raises:
        TypeError: ``spec`` is not something a schema can be built from.
    """
    if isinstance(spec, Field):
        return spec
    if spec is None or spec is NoneType:
        return Scalar(NoneType)
    if isinstance(spec, type) and spec in _JSON_TYPES:
        return Scalar(spec)
    if spec is object:
        return AnyValue()
    if spec is dict:
        return Object()
    if spec is list:
        return ListOf(AnyValue())
    if isinstance(spec, tuple) and spec and all(_is_scalar_type(s) for s in spec):
        return Scalar(*(NoneType if s is None else s for s in spec))
    if isinstance(spec, tuple) and spec:
        return OneOf(*spec)
    if isinstance(spec, list) and len(spec) == 1:
        return ListOf(spec[0])
    if isinstance(spec, dict):
        return _object_from_dict(spec)
    if isinstance(spec, type) and dataclasses.is_dataclass(spec):
        from ._dataclass_schema import object_from_dataclass
        return object_from_dataclass(spec)
    raise TypeError(f"cannot build a schema from {spec!r}")


def _is_scalar_type(spec: object) -> bool:
    return spec is None or (isinstance(spec, type) and spec in _JSON_TYPES)


def _object_from_dict(spec: dict) -> Object:
    fields, optional = {}, []
    for key, value in spec.items():
        if not isinstance(key, str):
            raise TypeError(f"schema keys must be strings, got {key!r}")
        name = key[:-1] if key.endswith("?") else key
        if key.endswith("?"):
            optional.append(name)
        fields[name] = value
    return Object(fields, optional)


def _as_object(spec: object, what: str) -> Object:
    obj = as_schema(spec)
    if not isinstance(obj, Object):
        raise TypeError(f"{what} must be an object schema, got {type(obj).__name__}")
    return obj


def summarize(problems: list, limit: int = _MAX_MESSAGE_PROBLEMS) -> str:
    """Problems joined for a one-line message, the tail counted rather than listed."""
    text = "; ".join(problems[:limit])
    if len(problems) > limit:
        text += f"; and {len(problems) - limit} more problems"
    return text


def to_tool(schema: object, name: str, description: str = "") -> dict:
    """The provider-neutral tool offering ``schema`` as its parameters."""
    parameters = as_schema(schema).to_json_schema()
    return {"name": name, "description": description or as_schema(schema).description
            or f"Return the {name} result.", "parameters": parameters}


def to_response_format(schema: object, name: str) -> dict:
    """The provider-neutral ``response_format`` asking for JSON that fits ``schema``."""
    return {"type": "json_schema", "name": name, "schema": as_schema(schema).to_json_schema()}
