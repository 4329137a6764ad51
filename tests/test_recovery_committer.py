"""Group commit of the service: jobs answered once their batch is committed, and a failing job
never takes another's writes with it, nor lets them be acknowledged when it cannot."""
from __future__ import annotations

import os
import tempfile
import threading
import unittest

from dua.errors import PayloadValidationError, StoreError
from dua.recovery.committer import Committer
from dua.recovery.store import Store


def _insert(store: Store, key: str):
    def job():
        store.cache_put(key, {"v": key})
        return key
    return job


class CommitterTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.store = Store(os.path.join(self.tmp.name, "r.sqlite3"))
        self.committer = Committer(self.store)

    def tearDown(self):
        self.committer.stop()
        self.store.close()
        self.tmp.cleanup()

    def test_each_job_is_answered_once_committed_and_readable_elsewhere(self):
        reader = Store(os.path.join(self.tmp.name, "r.sqlite3"))  # as another process would
        results, failures = [], []

        def client(n: int) -> None:
            try:
                key = self.committer.run(_insert(self.store, f"k{n}"))
                # Acknowledged: another connection sees it at once.
                results.append(reader.cache_get(key) is not None)
            except Exception as exc:  # reported below
                failures.append(exc)

        threads = [threading.Thread(target=client, args=(n,)) for n in range(40)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        reader.close()
        self.assertEqual(failures, [])
        self.assertEqual(results, [True] * 40)

    def test_a_job_refused_before_writing_leaves_the_others_alone(self):
        def refused():
            raise PayloadValidationError(["data.query_id: unknown query 'q'"])

        with self.assertRaises(PayloadValidationError):
            self.committer.run(refused)
        self.assertEqual(self.committer.run(_insert(self.store, "after")), "after")
        self.assertIsNotNone(self.store.cache_get("after"))

    def test_a_job_failing_after_writing_rolls_its_batch_back_and_acknowledges_none(self):
        gate, entered = threading.Event(), threading.Event()

        def first():  # holds the writer so that the next jobs queue up as one batch
            entered.set()
            gate.wait(10)
            return self.store.cache_put("first", 1)

        def broken():
            self.store.cache_put("broken", 1)
            raise RuntimeError("bug after a write")

        outcomes = {}

        def submit(name, job):
            try:
                self.committer.run(job)
                outcomes[name] = "ok"
            except Exception as exc:  # recorded for the assertions
                outcomes[name] = type(exc).__name__

        holder = threading.Thread(target=submit, args=("first", first))
        holder.start()
        entered.wait(10)
        queued = [threading.Thread(target=submit, args=(name, job)) for name, job in
                  (("before", _insert(self.store, "before")), ("broken", broken),
                   ("after", _insert(self.store, "after")))]
        for t in queued:
            t.start()
        while self.committer._jobs.qsize() < 3:  # all three wait for the next batch
            threading.Event().wait(0.01)
        gate.set()
        for t in [holder] + queued:
            t.join(10)
        self.assertEqual(outcomes, {"first": "ok", "before": StoreError.__name__,
                                    "broken": "RuntimeError", "after": StoreError.__name__})
        self.assertIsNotNone(self.store.cache_get("first"))
        for key in ("before", "broken", "after"):
            self.assertIsNone(self.store.cache_get(key))


if __name__ == "__main__":
    unittest.main()
