"""Old import path of ``dua.documents.rules``, kept for callers not yet moved (the same module)."""
import sys

from .documents import rules as _moved

sys.modules[__name__] = _moved
