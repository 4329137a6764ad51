"""The document pipeline of ``dua extract`` (seed 000): blocks -> typed elements.

``blocks`` (layout), ``rules`` (the built-in classifier), ``classify`` (the classification
graph, rules or LLM), ``pipeline`` (load -> blocks -> classify -> assemble, and the
no-word-lost invariant), ``markdown`` and ``schema`` (what an LLM classifier must answer).
Importing this package loads none of them: pdfplumber comes with ``extract``'s first call.
"""
from __future__ import annotations

__all__ = ("extract", "to_markdown")

_LAZY = {"extract": ".pipeline", "to_markdown": ".markdown"}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value
