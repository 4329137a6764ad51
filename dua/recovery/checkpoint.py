"""Background WAL checkpoints for a file store under steady writes (``dua serve``).

sqlite's automatic checkpoint runs on the committing thread and holds the write lock through
its fsyncs (measured: p99 15 ms per request, every other writer queued behind it). Here a
thread of its own copies the log into the database instead, and restarts the log now and then.
"""
from __future__ import annotations

import threading
from typing import Any

# The log restarts past RESTART_PAGES (~128 MiB): writers pause for that (two fsyncs: 10-50 ms
# on a busy disk), so it had better be rare, about once per 2,500 errors recorded. Requests
# checkpoint only past BACKSTOP_PAGES, should this thread fall behind.
RESTART_PAGES = 32_000
RESTART_LEFT = 256  # few enough pages left to copy while writers pause
BACKSTOP_PAGES = 3 * RESTART_PAGES


def run(db: Any, write_lock: Any, every: float, stopping: threading.Event,
        errors: tuple) -> None:
    """Checkpoint every ``every`` seconds until ``stopping``; ``db`` is this thread's own."""
    try:
        while not stopping.wait(every):
            try:
                checkpoint(db, write_lock)
            except errors:  # busy or transient: the next round catches up
                pass
    finally:
        db.close()


def checkpoint(db: Any, write_lock: Any) -> None:
    """One round. PASSIVE copies the log into the database while writers go on, fsyncs
    included; but under steady writes it never quite catches up, and sqlite restarts the log
    only at a write that finds it all copied. So, once the log is long, each further pass copies
    what came during the last (fewer pages each time), and writers pause for the last one."""
    _, logged, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
    if logged < RESTART_PAGES:
        return
    for _ in range(4):
        before = logged
        _, logged, _ = db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
        if logged - before <= RESTART_LEFT:
            break
    with write_lock:
        db.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()
