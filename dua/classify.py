"""Old import path of ``dua.documents.classify``, kept for callers not yet moved (the same module)."""
import sys

from .documents import classify as _moved

sys.modules[__name__] = _moved
