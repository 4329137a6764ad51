"""Lenient mode's repairs: only slips whose intended JSON is unambiguous.

Trailing commas are dropped, and a Python literal (single quotes, True/False/None) is read
with ``ast.literal_eval``. A cut-off answer is never completed: it stays a decode error.
"""
from __future__ import annotations

import ast
import math
import warnings

from .parsing import loads_json

_CLOSERS = "}]"


def repair(cleaned: str, max_chars: int, max_depth: int) -> tuple | None:
    """``(data, [repair kinds])`` or None when no repair yields JSON data."""
    without = drop_trailing_commas(cleaned)
    if without != cleaned:
        try:
            return loads_json(without), ["trailing_commas"]
        except (ValueError, RecursionError):
            pass
    if len(cleaned) > max_chars or _depth(cleaned) > max_depth:
        return None
    try:
        with warnings.catch_warnings():
            # "invalid escape sequence" warnings are about the model's text, not our code.
            warnings.simplefilter("ignore")
            value = ast.literal_eval(cleaned)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    try:
        return _to_json(value), ["python_literal"]
    except ValueError:
        return None


def drop_trailing_commas(text: str) -> str:
    """``text`` without commas that directly precede ``}`` or ``]`` outside strings."""
    out = []
    quote = ""
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if quote:
            out.append(ch)
            if ch == "\\" and i + 1 < n:
                out.append(text[i + 1])
                i += 1
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
            out.append(ch)
        elif ch == ",":
            j = i + 1
            while j < n and text[j] in " \t\r\n":
                j += 1
            if j >= n or text[j] not in _CLOSERS:
                out.append(ch)
        else:
            out.append(ch)
        i += 1
    return "".join(out)


def _depth(text: str) -> int:
    # Brackets inside strings count too: an overestimate only makes the guard stricter.
    depth = deepest = 0
    for ch in text:
        if ch in "[{(":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]})":
            depth -= 1
    return deepest


def _to_json(value: object) -> object:
    """``value`` as JSON data; sets, bytes, non-string keys and infinities are not JSON."""
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError("not a finite number")
        return value
    if isinstance(value, (list, tuple)):
        return [_to_json(v) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("object keys must be strings")
        return {k: _to_json(v) for k, v in value.items()}
    raise ValueError(f"{type(value).__name__} is not JSON")

