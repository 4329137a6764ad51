"""`dua serve`: run the Error Handler as an HTTP service."""
from __future__ import annotations

import sys

from ..errors import EXIT_OK, UsageError

DESCRIPTION = (
    "run the Error Handler as an HTTP service: POST /v1/errors (seed 004's error payload; 201\n"
    "new, 200 duplicate; Idempotency-Key supported), GET /v1/errors/{error_id}, GET|PUT\n"
    "/v1/sessions/{query_id}, GET /healthz, GET /metrics (Prometheus). Errors are\n"
    "application/problem+json. Bound to loopback by default; stops gracefully on SIGTERM."
)
EXAMPLES = ("  python -m dua serve\n"
            "  python -m dua serve --port 9000 --db /var/lib/dua/recovery.sqlite3 --token s3cret\n"
            "  curl -s -X POST -H 'Content-Type: application/json' -d @payload.json "
            "http://127.0.0.1:8765/v1/errors\n")


def add_arguments(p) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8765, help="port (default 8765; 0 picks a free one)")
    p.add_argument("--db", metavar="PATH", help="sqlite store (default DUA_HOME/recovery.sqlite3)")
    p.add_argument("--token", help="require 'Authorization: Bearer TOKEN' (except /healthz)")
    p.add_argument("--max-body", type=int, default=1 << 20, metavar="BYTES",
                   help="largest accepted request body (default 1 MiB)")


def run(args, settings) -> int:
    import logging  # lazy: keeps the command module light

    from ..recovery import ErrorHandler, Store
    from ..recovery.server import make_server, serve_until_signalled

    if not 0 <= args.port <= 65535:
        raise UsageError(f"--port must be between 0 and 65535, got {args.port}")
    if args.token is not None and not args.token.strip():
        # Often an unset variable (--token "$TOKEN"): serving without auth would be a surprise.
        raise UsageError("--token is empty", hint="Pass a non-empty token, or leave --token out.")
    if args.max_body < 1:
        raise UsageError(f"--max-body must be positive, got {args.max_body}")
    if args.db:
        from .handle import check_store  # lazy: keeps the command module light

        check_store(args.db)
    # Checkpoints in the background: a request never waits on their fsyncs.
    store = Store(args.db, checkpoint_every=0.25) if args.db else \
        Store.for_home(settings.home, checkpoint_every=0.25)
    db = store.path or ":memory:"
    try:
        server = make_server(ErrorHandler(store), args.host, args.port, args.token, args.max_body)
    except OSError as exc:
        raise UsageError(f"Cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
                         hint=_bind_hint(exc)) from None
    listener = None
    if not args.quiet:
        # One JSON line per handled error on stderr (the telemetry log). Only once serving:
        # a failure to start is one error line, not the log of the handler explaining it.
        listener = _log_in_background(logging.DEBUG if args.debug else logging.INFO)
    host, port = server.server_address[:2]
    if not args.token and host not in ("127.0.0.1", "::1", "localhost"):
        print(f"dua serve: warning: listening on {host} without --token; anyone who can reach "
              "this port can submit errors", file=sys.stderr)
    print(f"dua serve: listening on http://{host}:{port} (store {db})", file=sys.stderr, flush=True)
    if args.json:
        # The one JSON object --json promises: where to send requests (--port 0 picks any port).
        import json  # lazy: keeps the command module light

        print(json.dumps({"url": f"http://{host}:{port}", "host": host, "port": port,
                          "store": db}), flush=True)
    try:
        serve_until_signalled(server)
    finally:
        store.close()
        if listener is not None:
            listener.stop()  # writes out what is still queued
    print("dua serve: stopped", file=sys.stderr, flush=True)
    return EXIT_OK


def _log_in_background(level: int):
    """Log lines go to stderr from a thread of their own: a request only queues its line,
    and never waits on a slow terminal or pipe."""
    import logging  # lazy: keeps the command module light
    import logging.handlers
    import queue

    lines: queue.SimpleQueue = queue.SimpleQueue()
    # The queue carries finished lines (QueueHandler formats before queueing).
    logging.basicConfig(level=level, format="%(message)s",
                        handlers=[logging.handlers.QueueHandler(lines)])
    listener = logging.handlers.QueueListener(lines, logging.StreamHandler())
    listener.start()
    return listener


def _bind_hint(exc: OSError) -> str:
    import errno  # lazy: keeps the command module light

    if exc.errno == errno.EADDRINUSE:
        return "Pick another --port, or stop the process using it."
    if exc.errno == errno.EACCES:
        return "Ports below 1024 need privileges; pick a --port above 1024."
    return "Pass --host an address of this machine (127.0.0.1 by default)."
