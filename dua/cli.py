"""The command line: a registry of subcommands, one exit-code table, one error path.

``python -m dua --help`` imports no command module; a command's module is imported
only when that command runs (or its own ``--help`` is asked for).
"""
from __future__ import annotations

import importlib
import json
import sys
from typing import Sequence

from . import errors
from .config import PROVIDERS, Settings

# name -> (one-line summary, module under dua.commands or a dotted module path)
COMMANDS = {
    "parse": ("write, run and verify a parser for a bank statement", "parse"),
    "run": ("reuse a generated parser on more statements (no agent, no LLM)", "run"),
    "check": ("check rows from anywhere against the statement they came from", "check"),
    "extract": ("turn a PDF into typed elements (headings, tables, …)", "extract"),
    "ocr": ("write a scanned PDF again with a text layer (tesseract)", "ocr"),
    "serve": ("run the Error Handler as an HTTP service", "serve"),
    "handle": ("run the Error Handler once on an error payload", "handle"),
}

EXIT_CODES = (
    (errors.EXIT_OK, "success (the result is verified; dua run: every file's rows passed)"),
    (errors.EXIT_NOT_VERIFIED, "ran, but the result is not verified (dua run: some file's rows "
                               "did not pass)"),
    (errors.EXIT_USAGE, "usage error (bad flags, or the command is not available)"),
    (errors.EXIT_BAD_INPUT, "bad input (not a PDF, encrypted, no text layer, bad payload)"),
    (errors.EXIT_FAILURE, "LLM or system failure, or an output cut short (a pipe's reader left)"),
    (errors.EXIT_INTERRUPTED, "interrupted (Ctrl-C)"),
)

ENVIRONMENT = """\
environment (flags win over these):
  DUA_LLM_PROVIDER   builtin (default: no LLM, no network) | openai | gemini
  DUA_LLM_BASE_URL   server URL, e.g. http://127.0.0.1:11434/v1 for Ollama
  DUA_LLM_MODEL      model name
  DUA_LLM_API_KEY    API key (never printed)
  DUA_LLM_TIMEOUT    seconds to wait for the LLM server's next bytes (default 60;
                     one call, retries included, takes at most 5x that)
  DUA_LLM_BUDGET     the run's total LLM seconds, retries and waits included (default
                     10x DUA_LLM_TIMEOUT); then the built-in engine finishes the run
  DUA_HOME           state directory (default ~/.local/state/dua)
"""


def _epilog() -> str:
    codes = "\n".join(f"  {code:<4} {text}" for code, text in EXIT_CODES)
    return f"exit codes:\n{codes}\n\n{ENVIRONMENT}"


def _command_module(name: str):
    module = COMMANDS[name][1]
    return importlib.import_module(module if "." in module else f"{__package__}.commands.{module}")


def build_parser(command: str | None = None):
    """The argparse parser; only ``command``'s module is imported to add its arguments."""
    import argparse  # lazy: keeps import dua fast

    parser = argparse.ArgumentParser(
        prog="dua",
        description="dua reads PDFs (bank statements above all) and turns them into exact, "
        "verified data. Every command works offline on the built-in engine; an LLM is optional.",
        epilog=_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    from . import __version__

    parser.add_argument("--version", action="version", version=f"dua {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (summary, _) in COMMANDS.items():
        if name != command:
            sub.add_parser(name, help=summary, description=summary)
            continue
        module = _command_module(name)
        p = sub.add_parser(
            name,
            help=summary,
            description=module.DESCRIPTION,
            epilog=f"examples:\n{module.EXAMPLES}\n{_epilog()}",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
        module.add_arguments(p)
        add_common_options(p)
    return parser


def add_common_options(p) -> None:
    g = p.add_argument_group("output")
    g.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    g.add_argument("--quiet", "-q", action="store_true", help="no progress on stderr (a failure, and the verdict of a non-zero exit, are "
                   "still printed)")
    g.add_argument("--debug", action="store_true", help="show tracebacks, and the PDF "
                   "libraries' own warnings")
    g.add_argument("--mkdir", action="store_true", help="create an output's missing folders "
                   "(by default a missing folder is refused: exit 2)")


def add_llm_options(p) -> None:
    """LLM flags shared by the commands that can use one (flags win over DUA_LLM_*)."""
    g = p.add_argument_group("LLM (optional; default: the built-in engine, no network)")
    g.add_argument("--provider", choices=PROVIDERS, help="LLM provider (DUA_LLM_PROVIDER)")
    g.add_argument("--base-url", help="server URL (DUA_LLM_BASE_URL)")
    g.add_argument("--model", help="model name (DUA_LLM_MODEL)")
    g.add_argument("--llm-timeout", type=float, metavar="S",
                   help="seconds to wait for the LLM server's next bytes (DUA_LLM_TIMEOUT)")
    g.add_argument("--llm-budget", type=float, metavar="S",
                   help="the run's total LLM seconds, every retry and wait included; once "
                        "spent, the built-in engine finishes the run (DUA_LLM_BUDGET; default "
                        "10x --llm-timeout)")


def add_row_options(p) -> None:
    """How rows are written, shared by the commands that write them."""
    g = p.add_argument_group("rows")
    g.add_argument("--normalize", action="store_true",
                   help="one schema for every bank: date (ISO 8601), description, amount (signed: "
                   "money in positive, money out and card purchases negative), balance, currency, "
                   "account, page, row; the statement's own columns follow")
    g.add_argument("--format", dest="row_format", choices=("csv", "jsonl", "ofx", "qif"),
                   default="csv", help="how the rows are written (default: csv); ofx and qif "
                   "write normalised rows")


def add_read_options(p) -> None:
    """The read budget, shared by the commands that read PDFs."""
    g = p.add_argument_group("reading")
    g.add_argument("--read-timeout", type=float, metavar="S",
                   help="seconds allowed to read each PDF; a file that takes longer (one that "
                   "loops, or is far too large) ends in exit 3, or its line of a batch report "
                   "(default: 30 plus 1 a page, at most 600)")


def read_budget(args):
    """The ``dua.pdf.ReadBudget`` that ``--read-timeout`` asks for.

    Raises:
        UsageError: not a number of seconds in (0, 86400]
    """
    from .pdf import ReadBudget  # lazy: --help imports no reader

    seconds = getattr(args, "read_timeout", None)
    if seconds is not None and not 0 < seconds <= 86400:
        raise errors.UsageError(f"--read-timeout must be seconds in (0, 86400], got {seconds:g}",
                                hint="Pass --read-timeout 120, say, or leave it to the default.")
    return ReadBudget(seconds)


def settings_from_args(args, environ=None) -> Settings:
    return Settings.from_env(
        environ,
        provider=getattr(args, "provider", None),
        base_url=getattr(args, "base_url", None),
        model=getattr(args, "model", None),
        timeout=getattr(args, "llm_timeout", None),
        llm_budget=getattr(args, "llm_budget", None),
        home=getattr(args, "home", None),
    )


def check_llm(args, settings: Settings) -> None:
    """An LLM asked for without a model is refused before any work (the provider would
    only say so at its first call, after the PDF was read).

    Raises:
        UsageError
    """
    if hasattr(args, "provider") and settings.uses_llm and not settings.model:
        raise errors.UsageError(f"--provider {settings.provider} needs a model",
                                hint="Set --model or DUA_LLM_MODEL.")


def _find_command(argv: Sequence[str]) -> str | None:
    for token in argv:
        if token == "--":
            return None
        if not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return its exit code (see EXIT_CODES).

    Run as the program (``argv`` None: nothing of ours runs after it), it freezes the
    garbage collector's objects, so that the interpreter's exit skips walking them.
    """
    code = _main(list(sys.argv[1:] if argv is None else argv))
    if argv is None:  # run as the program (no caller goes on running): exit fast
        _skip_final_collection()
    return code


def _skip_final_collection() -> None:
    """Freeze every object into the permanent generation, where the garbage collections
    at interpreter exit never walk: over what pandas and the PDF libraries made, those
    walks cost a tenth of a second for nothing (the memory is the system's again anyway)."""
    import gc  # lazy: only the program's exit needs it

    gc.freeze()


def _main(argv: list) -> int:
    command = _find_command(argv)
    try:
        parser = build_parser(command)
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse: --help, --version, usage errors
        return exc.code if isinstance(exc.code, int) else errors.EXIT_USAGE
    if not args.command:
        parser.print_help(sys.stderr)
        return errors.EXIT_USAGE
    if not getattr(args, "debug", False):
        _quiet_libraries()
    try:
        settings = settings_from_args(args)
        check_llm(args, settings)
        return int(_command_module(args.command).run(args, settings))
    except KeyboardInterrupt:
        print("dua: interrupted", file=sys.stderr)
        return errors.EXIT_INTERRUPTED
    except BrokenPipeError:
        _silence_stdout()
        return errors.EXIT_OK
    except errors.DuaError as exc:
        return report_error(exc, args)
    except Exception as exc:  # a bug: one clear line, the traceback only with --debug
        return report_error(exc, args)


def _quiet_libraries() -> None:
    """The PDF libraries' own warnings (pdfminer's 'Could not get FontBBox' and the like,
    which reach stderr through logging's last-resort handler) say nothing a user can act
    on: they are kept for --debug. The reading's child process inherits the levels."""
    import logging  # lazy: only a quiet run needs it

    for name in ("pdfminer", "pdfplumber", "pypdfium2"):
        logging.getLogger(name).setLevel(logging.ERROR)


def report_error(exc: BaseException, args) -> int:
    """Print one clear line on stderr (and the feedback object with --json)."""
    debug = getattr(args, "debug", False)
    if debug:
        import traceback  # lazy

        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
    feedback = feedback_for(exc, agent_id=f"dua_{args.command}")
    if getattr(args, "json", False):
        try:
            print(json.dumps({"status": "error", "feedback": feedback}, indent=2))
        except BrokenPipeError:
            _silence_stdout()
    message = feedback["user_message"]
    print(f"dua {args.command}: {message}", file=sys.stderr)
    for suggestion in feedback.get("recovery_suggestions", []):
        if _adds_to(message, suggestion):
            print(f"  try: {suggestion}", file=sys.stderr)
    if not isinstance(exc, errors.DuaError) and not debug:
        print("dua: this is a bug; re-run with --debug for the traceback", file=sys.stderr)
    return exc.exit_code if isinstance(exc, errors.DuaError) else errors.EXIT_FAILURE


def _adds_to(message: str, suggestion: str) -> bool:
    """False when the message already says it ("Fix x: …" after a message listing "x: …")."""
    rest = suggestion.split(" ", 1)[-1].rstrip(".")
    return suggestion.rstrip(".") not in message and rest not in message


def feedback_for(exc: BaseException, agent_id: str) -> dict:
    """Seed 004's feedback object for a failure, from the in-process Error Handler."""
    attached = getattr(exc, "feedback", None)
    if isinstance(attached, dict):  # an agent already asked the handler: don't ask twice
        return attached
    payload = errors.payload_from_exception(exc, agent_id)
    try:
        from .recovery import handle_in_process  # lazy: only on the error path
    except ImportError:
        handle_in_process = None
    if handle_in_process is not None:
        return handle_in_process(payload)
    data = payload["data"]
    message = exc.user_message if isinstance(exc, errors.DuaError) else data["message"]
    return {
        "error_type": data["error_type"],
        "error_code": data["error_code"],
        "error_source": agent_id,
        "user_message": message,
        "recovery_suggestions": [],
        "automated_actions": [],
        "context_preserved": True,
        "query_id": data["query_id"],
        "timestamp": payload["timestamp"],
        "next_action": "await_user" if data["error_type"] == "input_error" else "escalate",
    }


def _silence_stdout() -> None:
    # json.tool's trick: point stdout at devnull so the interpreter's flush at exit is quiet.
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
