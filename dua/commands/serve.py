"""`dua serve`: run the Error Handler as an HTTP service."""
from __future__ import annotations

from ..errors import UsageError

DESCRIPTION = "run the Error Handler as an HTTP service (not available yet in this release)."
EXAMPLES = "  python -m dua serve --port 8765\n"


def add_arguments(p) -> None:
    p.add_argument("rest", nargs="*", help="arguments (the command is not available yet)")


def run(args, settings) -> int:
    raise UsageError("'dua serve' is not available yet in this release", hint="See README.md for what works today.")
