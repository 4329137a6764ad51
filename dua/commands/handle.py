"""`dua handle`: run the Error Handler once on an error payload."""
from __future__ import annotations

from ..errors import UsageError

DESCRIPTION = "run the Error Handler once on an error payload (not available yet in this release)."
EXAMPLES = "  python -m dua handle payload.json\n"


def add_arguments(p) -> None:
    p.add_argument("rest", nargs="*", help="arguments (the command is not available yet)")


def run(args, settings) -> int:
    raise UsageError("'dua handle' is not available yet in this release", hint="See README.md for what works today.")
