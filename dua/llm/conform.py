"""Fitting a model's answer to what a schema can take, when the answer clearly names it.

Small models answer in their own words: ``{"type": "heading level 3"}`` where the schema has
a ``heading`` variant with a ``level`` field, ``"Page Number"`` for ``page_number``, ``"3"``
for an integer. ``conform`` maps such a value to the schema before validation, using only
what the schema itself says (its variant names, its enum members, its field names, and the
values an integer field's description names, "1 = title"), never a list of phrasings. An
answer that names two things, or anything the schema does not know, is left as it is for
validation to reject (and the caller to feed back).
"""
from __future__ import annotations

import re

from .schema import ListOf, Object, Scalar, Tagged

_WORDS = re.compile(r"[^\W\d_]+|\d+")  # "heading_level3" -> heading, level, 3
_NAMED_VALUE = re.compile(r"(\d+)\s*=\s*([^\W\d_]+)")  # "1 = title" in a field's description


def conform(value: object, field: object) -> tuple:
    """``(value, notes)``: ``value`` mapped to what ``field`` can take, and one note per
    mapping made (``"p1-b3.type: 'heading level 3' -> heading, level 3"``); ``value`` itself
    is never changed in place."""
    notes: list = []
    return _conform(value, field, "", notes), notes


def _conform(value: object, field: object, path: str, notes: list) -> object:
    if isinstance(field, Tagged):
        return _tagged(value, field, path, notes)
    if isinstance(field, Object):
        value = _keyed(value, field, path, notes)
        if not isinstance(value, dict):
            return value
        return {k: _conform(v, field.fields[k], _join(path, k), notes) if k in field.fields else v
                for k, v in value.items()}
    if isinstance(field, ListOf) and isinstance(value, list):
        return [_conform(v, field.item, f"{path}[{i}]", notes) for i, v in enumerate(value)]
    if isinstance(field, Scalar):
        return _scalar(value, field, path, notes)
    return value


def _join(path: str, key: object) -> str:
    return f"{path}.{key}" if path else str(key)


def _words(text: str) -> list:
    return _WORDS.findall(text.lower())


def _scalar(value: object, field: Scalar, path: str, notes: list) -> object:
    """An enum member written in another case or with other separators; an integer written
    as a string ("3", "level 3" for a field named level) or as an integral float."""
    if field.accepts(value) and (field.enum is None or value in field.enum):
        return value
    out = value
    if isinstance(value, str) and field.enum is not None:
        same = [m for m in field.enum if isinstance(m, str) and _words(m) == _words(value)]
        out = same[0] if len(same) == 1 else value
    elif field.types == (int,):
        if isinstance(value, float) and value.is_integer():
            out = int(value)
        elif isinstance(value, str):
            # "3", or "level 3" for a field named level: one number and the field's own name
            name = _words(path.rsplit(".", 1)[-1])
            rest = [w for w in _words(value) if w not in name]
            if len(rest) == 1 and rest[0].isdigit():
                out = int(rest[0])
    if out is not value:
        notes.append(f"{path or '<root>'}: {value!r} -> {out!r}")
    return out


def _keyed(value: object, field: Object, path: str, notes: list) -> object:
    """A list of objects for an object keyed by names: ``[{"id": "a", …}, {"id": "b", …}]``
    for ``{"a": …, "b": …}``, when one key of every item holds exactly the field names."""
    if not isinstance(value, list) or not value or not field.fields:
        return value
    if not all(isinstance(item, dict) for item in value):
        return value
    for key in value[0]:
        names = [item.get(key) for item in value]
        if all(isinstance(n, str) and n in field.fields for n in names) and \
                len(set(names)) == len(names):
            notes.append(f"{path or '<root>'}: a list keyed by {key!r} -> an object")
            return {item[key]: {k: v for k, v in item.items() if k != key} for item in value}
    return value


def _tagged(value: object, field: Tagged, path: str, notes: list) -> object:
    if not isinstance(value, dict) or not isinstance(value.get(field.key), str):
        return value
    tag = value[field.key]
    if tag not in field.variants:
        named = _named_variant(tag, field)
        if named is None:
            return value
        name, extra = named
        if any(k in value and value[k] is not None and _conform(value[k], field.variants[name]
                                                                .fields[k], "", []) != v
               for k, v in extra.items()):
            return value  # the answer's own field says otherwise: not clear which it means
        value = {**value, field.key: name, **extra}
        said = ", ".join([name] + [f"{k} {v}" for k, v in extra.items()])
        notes.append(f"{_join(path, field.key)}: {tag!r} -> {said}")
    variant = field.variants[value[field.key]]
    return {k: _conform(v, variant.fields[k], _join(path, k), notes)
            if k in variant.fields and k != field.key else v for k, v in value.items()}


def _integer_field(variant: Object) -> tuple:
    """``(name, {word: value})`` of the variant's one integer field, or ``(None, {})``."""
    ints = [(n, f) for n, f in variant.fields.items()
            if isinstance(f, Scalar) and f.types == (int,)]
    if len(ints) != 1:
        return None, {}
    name, field = ints[0]
    return name, {w: int(n) for n, w in _NAMED_VALUE.findall(field.description.lower())}


def _named_variant(tag: str, field: Tagged) -> tuple | None:
    """``(variant name, {integer field: value})`` when ``tag`` clearly names exactly one
    variant, and at most one value of its integer field; None otherwise."""
    words = _words(tag)
    found = set()
    for name, variant in field.variants.items():
        reading = _reading(words, _words(name), variant)
        if reading is not None:
            found.add((name, tuple(sorted(reading.items()))))
    if len(found) != 1:
        return None
    name, extra = found.pop()
    return name, dict(extra)


def _reading(words: list, name: list, variant: Object) -> dict | None:
    """The integer field's value when ``words`` name this variant: its name's words in a run
    ("heading level 3"), a prefix of its name glued to a number ("h3"), or a value its
    integer field's description names ("title"); every other word must be that field's name
    or its value. None when the words do not (only) name this variant."""
    field, named_values = _integer_field(variant)
    rest = None
    for i in range(len(words) - len(name) + 1):
        if words[i:i + len(name)] == name:
            rest = words[:i] + words[i + len(name):]
            break
    if rest is None and field and len(words) >= 2 and words[1].isdigit() and \
            name[0].startswith(words[0]) and not words[0].isdigit():
        rest = words[1:]  # "h3": an abbreviation, only for a variant with an integer field
    if rest is None and field and any(w in named_values for w in words):
        rest = words
    if rest is None:
        return None
    values = set()
    for word in rest:
        if word.isdigit():
            values.add(int(word))
        elif word in named_values:
            values.add(named_values[word])
        elif field is None or word not in _words(field):
            return None  # a word this variant does not know: the answer means something else
    if len(values) > 1 or (values and field is None):
        return None
    return {field: values.pop()} if values else {}
