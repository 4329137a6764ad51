"""Old import path of ``dua.documents.pipeline``, kept for callers not yet moved (the same module)."""
import sys

from .documents import pipeline as _moved

sys.modules[__name__] = _moved
