"""Names a package exports but loads on first use (PEP 562), so that ``import dua`` stays light."""
from __future__ import annotations


def lazy_getattr(package: str, names: dict):
    """A module ``__getattr__`` for ``package``: ``names`` maps an exported name to its
    module (relative to the package), or to ``(module, attribute)`` when they differ."""

    def __getattr__(name: str):
        if name not in names:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        import importlib
        import sys

        target = names[name]
        module, attr = target if isinstance(target, tuple) else (target, name)
        value = getattr(importlib.import_module(module, package), attr)
        setattr(sys.modules[package], name, value)  # the next lookup is a plain attribute
        return value

    return __getattr__
