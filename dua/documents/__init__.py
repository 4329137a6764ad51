"""The document pipeline of ``dua extract`` (seed 000): blocks -> typed elements.

``blocks`` (layout), ``rules`` (the built-in classifier), ``classify`` (the classification
graph, rules or LLM), ``pipeline`` (load -> blocks -> classify -> assemble, and the
no-word-lost invariant), ``markdown`` and ``schema`` (what an LLM classifier must answer).
Importing this package loads none of them: pdfplumber comes with ``extract``'s first call.
"""
from __future__ import annotations

from .._lazy import lazy_getattr

__all__ = ("extract", "extract_each", "to_markdown")

_LAZY = {"extract": ".pipeline", "extract_each": ".pipeline", "to_markdown": ".markdown"}


__getattr__ = lazy_getattr(__name__, _LAZY)
