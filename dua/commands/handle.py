"""`dua handle`: run the Error Handler once on an error payload and print the feedback."""
from __future__ import annotations

import json
import sys

from ..errors import EXIT_OK, PayloadValidationError, UsageError

DESCRIPTION = (
    "run the Error Handler once on a seed-004 error payload (a JSON file, or - for stdin) and\n"
    "print its feedback object: canonical error_type, root cause, user_message,\n"
    "recovery_suggestions, automated_actions and next_action. Works offline; nothing is\n"
    "written unless --db is given."
)
EXAMPLE_PAYLOAD = ('{"agent_id": "query_engine", "timestamp": "2025-08-08T12:01:00Z", '
                   '"status": "error", "data": {"error_type": "query_error", '
                   '"error_code": "DB_TIMEOUT", "message": "Query timed out during a large '
                   'aggregation", "context": {"date_range_days": 730}, "query_id": "q_456"}}')
EXAMPLES = ("  python -m dua handle payload.json\n"
            f"  echo '{EXAMPLE_PAYLOAD}' | python -m dua handle -\n"
            "  python -m dua handle payload.json --db ~/.local/state/dua/recovery.sqlite3\n")


def add_arguments(p) -> None:
    p.add_argument("payload", help="the error payload: a JSON file, or - to read stdin")
    p.add_argument("--db", metavar="PATH",
                   help="sqlite store to use and keep (default: in memory, nothing written)")


def check_store(db: str, inputs: tuple = ()) -> None:
    """--db is a database file (sqlite also keeps DB-wal and DB-shm beside it): a stream or a
    folder is refused before anything is written, and so is one of the command's inputs.

    Raises:
        UsageError
    """
    from .. import outputs  # lazy: keeps the command module light

    if db != ":memory:":
        outputs.check_file(db, "--db", streams=False)
        outputs.check_not_an_input(db, "--db", inputs)


def _read(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        with open(source, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise UsageError(f"Cannot read the payload file {source}: {exc.strerror or exc}",
                         hint="Pass a readable JSON file, or - to read stdin.") from None
    except UnicodeDecodeError:
        raise PayloadValidationError([f"{source}: not UTF-8 text"]) from None


def _parse(text: str, source: str) -> object:
    name = "stdin" if source == "-" else source  # problems name where the payload came from
    if not text.strip():
        raise PayloadValidationError([f"{name}: empty; expected a JSON object"])
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise PayloadValidationError([f"{name}: not valid JSON ({exc})"]) from None
    except RecursionError:
        raise PayloadValidationError([f"{name}: JSON nested too deeply"]) from None


def run(args, settings) -> int:
    if args.db:
        check_store(args.db, (args.payload,))
    raw = _parse(_read(args.payload), args.payload)
    from ..recovery import ErrorHandler, Store  # lazy: keeps the command module light

    handler = ErrorHandler(Store(args.db) if args.db else None)
    feedback, _ = handler.handle(raw, strict=True)
    print(json.dumps(feedback, indent=None if args.json else 2))
    queued = any(str(a).startswith("retry:") for a in feedback.get("automated_actions", []))
    if queued and not args.db and not args.quiet:
        # The reply says a retry is queued; in memory that queue ends with this command.
        print("dua handle: the retry was queued in memory and is gone when this command ends; "
              "pass --db FILE to keep the queue for your pipeline's drain_retries", file=sys.stderr)
    return EXIT_OK
