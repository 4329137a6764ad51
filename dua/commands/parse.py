"""`dua parse`: write, run and verify a parser for a bank statement."""
from __future__ import annotations

from ..errors import UsageError

DESCRIPTION = "write, run and verify a parser for a bank statement (not available yet in this release)."
EXAMPLES = "  python -m dua parse statement.pdf --bank mybank --expected result.csv\n"


def add_arguments(p) -> None:
    p.add_argument("rest", nargs="*", help="arguments (the command is not available yet)")


def run(args, settings) -> int:
    raise UsageError("'dua parse' is not available yet in this release", hint="See README.md for what works today.")
