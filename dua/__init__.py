"""dua, the Document Understanding Agent: PDFs to exact, verified data.

``import dua`` stays light: pandas, pdfplumber, urllib.request, sqlite3 and
subprocess load only inside the functions that need them.
"""
from __future__ import annotations

import logging as _logging

from ._lazy import lazy_getattr
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
    "extract",
    "extract_each",
    "handle_in_process",
    "normalize",
    "parse_statement",
    "payload_from_exception",
    "run_batch",
    "run_parser",
)

# Entry functions whose modules pull in pandas, pdfplumber or sqlite3: loaded on first use.
_LAZY = {
    "extract": (".documents.pipeline", "extract"),
    "extract_each": (".documents.pipeline", "extract_each"),
    "handle_in_process": (".recovery", "handle_in_process"),
    "normalize": (".statements.output.normalize", "normalize_statement"),
    "parse_statement": (".statements.agent.agent", "run_agent"),
    "run_batch": (".batch", "run"),
    "run_parser": (".sandbox", "run_parser"),
}


__getattr__ = lazy_getattr(__name__, _LAZY)

# The library never configures logging; only the CLI does (requests' rule).
_logging.getLogger(__name__).addHandler(_logging.NullHandler())
