"""dua, the Document Understanding Agent: PDFs to exact, verified data.

``import dua`` stays light: pandas, pdfplumber, urllib.request, sqlite3 and
subprocess load only inside the functions that need them.
"""
from __future__ import annotations

import logging as _logging

from .config import Settings
from .errors import (
    DocumentError,
    DuaError,
    GeneratedCodeError,
    NoTextLayerError,
    ResponseError,
    StructuredOutputError,
    TransportError,
    VerificationError,
    payload_from_exception,
)

__version__ = "0.1.0"

__all__ = (
    "DocumentError",
    "DuaError",
    "GeneratedCodeError",
    "NoTextLayerError",
    "ResponseError",
    "Settings",
    "StructuredOutputError",
    "TransportError",
    "VerificationError",
    "__version__",
    "payload_from_exception",
)

# The library never configures logging; only the CLI does (requests' rule).
_logging.getLogger(__name__).addHandler(_logging.NullHandler())
