"""`dua run`: reuse a generated parser on more statements."""
from __future__ import annotations

from ..errors import UsageError

DESCRIPTION = "reuse a generated parser on more statements (not available yet in this release)."
EXAMPLES = "  python -m dua run custom_parsers/mybank_parser.py more.pdf --out-dir out/\n"


def add_arguments(p) -> None:
    p.add_argument("rest", nargs="*", help="arguments (the command is not available yet)")


def run(args, settings) -> int:
    raise UsageError("'dua run' is not available yet in this release", hint="See README.md for what works today.")
