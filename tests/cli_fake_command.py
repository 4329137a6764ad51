"""A command module registered by tests/test_cli.py to drive cli.main's error paths."""
from dua import errors

DESCRIPTION = "a command that fails the way it is told to"
EXAMPLES = "  dua fake --fail notapdf\n"


def add_arguments(p):
    p.add_argument("--fail", choices=["none", "notapdf", "bug", "interrupt", "pipe"], default="none")


def run(args, settings):
    if args.fail == "notapdf":
        raise errors.NotAPDFError("statement.txt is not a PDF")
    if args.fail == "bug":
        raise KeyError("internal")
    if args.fail == "interrupt":
        raise KeyboardInterrupt
    if args.fail == "pipe":
        raise BrokenPipeError
    print(f"provider={settings.provider}")
    return 0
