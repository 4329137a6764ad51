"""`dua extract`: turn a PDF into typed elements."""
from __future__ import annotations

from ..errors import UsageError

DESCRIPTION = "turn a PDF into typed elements (not available yet in this release)."
EXAMPLES = "  python -m dua extract report.pdf --format markdown\n"


def add_arguments(p) -> None:
    p.add_argument("rest", nargs="*", help="arguments (the command is not available yet)")


def run(args, settings) -> int:
    raise UsageError("'dua extract' is not available yet in this release", hint="See README.md for what works today.")
