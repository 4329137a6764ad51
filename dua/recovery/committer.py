"""Group commit for ``dua serve``: the writes of requests that arrive together commit together.

One thread runs every write job of the service. It takes the jobs queued while it was busy as
one batch: BEGIN, each job, then one COMMIT for all. A job is answered (its ``done`` called,
or its ``run`` returning) only after that COMMIT: nothing is acknowledged that a SIGKILL could
still take away, and when the COMMIT fails, no job of the batch is acknowledged. A job that
raises before writing anything (a refused payload) gets its exception and the batch goes on;
one that raises after writing rolls the whole batch back, and every job of it is answered 503,
to be retried.

Why: a commit costs about as much as deciding an error (measured in process: about 600 us of
CPU per new error committed one at a time, 480 us eight to a commit; under 16 clients, batches
of 6-8, 710-870 us of server CPU per new error where a lock and a commit each took 940-1,030),
and every sqlite call hands the GIL to another thread (hence no savepoint per job: two
statements more each). The queue is also first come, first served, where a lock lets late
arrivals overtake threads that have waited longest.
"""
from __future__ import annotations

import logging
import queue
import threading
from typing import Any, Callable

from ..errors import StoreError

MAX_BATCH = 32  # bounds how long the first job of a batch waits for the others


class _Job:
    __slots__ = ("fn", "done")

    def __init__(self, fn: Callable[[], Any], done: Callable[[Any, Exception | None], None]):
        self.fn, self.done = fn, done


class Committer:
    """Runs write jobs on a thread of its own, committing each batch of them at once."""

    def __init__(self, store: Any, max_batch: int = MAX_BATCH):
        self.store = store
        self.max_batch = max_batch
        self._jobs: queue.SimpleQueue = queue.SimpleQueue()
        self._stopped = False
        self._thread = threading.Thread(target=self._work, name="dua-committer", daemon=True)
        self._thread.start()

    def submit(self, fn: Callable[[], Any],
               done: Callable[[Any, Exception | None], None]) -> None:
        """Queue ``fn()`` for the store's transaction; ``done(result, None)`` once that has
        committed, or ``done(None, error)``: what ``fn`` raised (its writes undone), or a
        StoreError when the commit failed (nothing of the batch was recorded). ``done`` runs on
        the committer's thread: keep it quick (hand the answer over).
        """
        if self._stopped:  # nobody would run it: fail now rather than never
            done(None, StoreError("The service is stopping; nothing was recorded"))
            return
        self._jobs.put(_Job(fn, done))

    def run(self, fn: Callable[[], Any]) -> Any:
        """``fn()`` inside the store's transaction; its result once that has committed.

        Raises:
            Exception: what ``fn`` raised (its writes undone), or StoreError when the commit
                failed (nothing of the batch was recorded).
        """
        answered, answer = threading.Lock(), []
        answered.acquire()

        def done(result: Any, error: Exception | None) -> None:
            answer[:] = [result, error]
            answered.release()

        self.submit(fn, done)
        answered.acquire()
        if answer[1] is not None:
            raise answer[1]
        return answer[0]

    def stop(self, timeout: float = 10.0) -> None:
        """Finish the jobs already queued, then end the thread."""
        self._stopped = True
        self._jobs.put(None)
        self._thread.join(timeout)

    def _work(self) -> None:
        stopping = False
        while not stopping:
            job = self._jobs.get()
            if job is None:
                return
            batch = [job]
            while len(batch) < self.max_batch:
                try:
                    job = self._jobs.get_nowait()
                except queue.Empty:
                    break
                if job is None:
                    stopping = True
                    break
                batch.append(job)
            self._commit(batch)

    def _commit(self, batch: list) -> None:
        results: list = [(None, None)] * len(batch)
        try:
            with self.store.transaction() as db:
                for n, job in enumerate(batch):
                    changes = db.total_changes  # an attribute: no statement, no GIL hand-off
                    try:
                        results[n] = (job.fn(), None)
                    except Exception as exc:
                        results[n] = (None, exc)
                        if db.total_changes != changes:  # it wrote: only a rollback undoes it
                            raise _Wrote(exc) from exc
        except Exception as exc:  # BEGIN or COMMIT failed, or a job wrote and failed
            cause = exc.args[0] if isinstance(exc, _Wrote) else exc
            # Those that failed keep their own error; one exception each, raised by their callers.
            results = [(None, error or StoreError(f"Store write failed, nothing recorded: {cause}"))
                       for _, error in results]
        finally:
            for job, (result, error) in zip(batch, results):
                try:
                    job.done(result, error)
                except Exception:  # one caller's hand-over must not leave the others unanswered
                    logging.getLogger(__name__).exception("answering a committed job failed")


class _Wrote(Exception):
    """A job failed after writing: the batch's transaction is rolled back."""
