"""The sqlite store: migrations, WAL, restarts, concurrent writers, the retry queue."""
from __future__ import annotations

import os
import sqlite3
import tempfile
import threading
import unittest

from dua.errors import StoreError
from dua.recovery import ErrorHandler
from dua.recovery.store import MIGRATIONS, SCHEMA_VERSION, Store
from tests.test_recovery_agent import DB_TIMEOUT, MISSING_FIELD


class StoreTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.tmp.name, "sub", "recovery.sqlite3")

    def tearDown(self):
        self.tmp.cleanup()

    def test_file_store_uses_wal_and_the_latest_schema(self):
        store = Store(self.path)
        self.assertEqual(store.query("PRAGMA journal_mode")[0][0], "wal")
        self.assertEqual(store.schema_version(), SCHEMA_VERSION)
        store.close()

    def test_an_old_schema_is_migrated_forward_keeping_its_rows(self):
        os.makedirs(os.path.dirname(self.path))
        db = sqlite3.connect(self.path)
        db.executescript(MIGRATIONS[0])
        db.execute("INSERT INTO cache VALUES ('k', '[1]', 1.0)")
        db.execute("PRAGMA user_version = 1")
        db.commit()
        db.close()
        store = Store(self.path)
        self.assertEqual(store.schema_version(), SCHEMA_VERSION)
        self.assertEqual(store.cache_get("k"), ([1], 1.0))
        store.save_key("key-1", "h", 201, "{}")  # table from migration 2
        self.assertEqual(store.find_key("key-1"), ("h", 201, "{}"))

    def test_a_newer_schema_is_refused_by_name(self):
        Store(self.path).close()
        db = sqlite3.connect(self.path)
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
        db.close()
        with self.assertRaises(StoreError) as ctx:
            Store(self.path)
        self.assertIn("newer", str(ctx.exception))

    def test_an_unwritable_location_is_a_store_error(self):
        blocker = os.path.join(self.tmp.name, "file")
        open(blocker, "w").close()
        with self.assertRaises(StoreError):
            Store(os.path.join(blocker, "db.sqlite3"))

    def test_a_restart_keeps_errors_sessions_and_the_retry_queue(self):
        first = ErrorHandler(Store(self.path), clock=lambda: 10.0)
        feedback, created = first.handle(DB_TIMEOUT)
        first.handle(MISSING_FIELD)
        first.store.close()
        second = ErrorHandler(Store(self.path))
        again, created_again = second.handle(DB_TIMEOUT)
        self.assertEqual((created, created_again), (True, False))
        self.assertEqual(again, feedback)
        self.assertEqual(second.error(feedback["error_id"])["state"], "done")
        session = second.session("q_456")
        self.assertEqual(session["context"]["scope"], "last_30_days")
        self.assertEqual(session["context"]["field_map"], {"product_id": "product_code"})
        self.assertEqual(len(session["error_ids"]), 2)
        [retry] = second.store.retries("q_456")
        self.assertEqual((retry["attempt"], retry["state"]), (1, "pending"))

    def test_due_retries_are_handed_out_once(self):
        store = Store(self.path)
        store.enqueue_retry("err_1", "q_1", 1, due=5.0)
        store.enqueue_retry("err_2", "q_1", 2, due=50.0)
        self.assertEqual([r["error_id"] for r in store.due_retries(now=10.0)], ["err_1"])
        self.assertEqual(store.due_retries(now=10.0), [])
        store.finish_retry(store.retries()[0]["id"], "done")
        self.assertEqual([r["state"] for r in store.retries()], ["done", "pending"])

    def test_concurrent_writers_on_one_file_lose_nothing(self):
        store = Store(self.path)

        def write(n: int) -> None:
            for i in range(25):
                store.cache_put(f"{n}-{i}", i)
                store.merge_session("q_shared", "agent", {f"k{n}": i})

        threads = [threading.Thread(target=write, args=(n,)) for n in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(store.query("SELECT COUNT(*) FROM cache")[0][0], 200)
        self.assertEqual(store.session("q_shared")["context"], {f"k{n}": 24 for n in range(8)})

    def test_synonyms_are_seeded_and_symmetric(self):
        store = Store()
        self.assertIn("product_code", store.synonyms("product_id"))
        self.assertIn("product_id", store.synonyms("SKU"))
        store.add_synonym("Amount", "txn_amount")
        self.assertIn("txn_amount", store.synonyms("amount"))


class BackgroundCheckpointTest(unittest.TestCase):
    def log_pages(self, path: str, checkpointed: bool) -> int:
        """Pages in the write-ahead log after one more write, with or without a round first."""
        from unittest import mock

        from dua.recovery import checkpoint

        with mock.patch.object(checkpoint, "RESTART_PAGES", 40), \
                mock.patch.object(checkpoint, "BACKSTOP_PAGES", 10 ** 6):  # no other checkpoint
            store = Store(path, checkpoint_every=3600)  # its thread sleeps: the round is ours
            for i in range(300):  # ~600 pages of log
                store.cache_put(f"k{i}", "x" * 600)
            own = sqlite3.connect(path)
            if checkpointed:
                checkpoint.checkpoint(own, store._write_lock)
            store.cache_put("after", 1)  # the first write after a complete copy restarts the log
            pages = own.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchone()[1]
            own.close()
            store.close()
        return pages

    def test_a_checkpoint_round_restarts_a_long_log_that_writes_keep_growing(self):
        with tempfile.TemporaryDirectory() as tmp:
            grown = self.log_pages(os.path.join(tmp, "a.sqlite3"), checkpointed=False)
            restarted = self.log_pages(os.path.join(tmp, "b.sqlite3"), checkpointed=True)
        self.assertGreater(grown, 300)
        self.assertLess(restarted, 40)

    def test_the_store_checkpoints_on_a_thread_of_its_own_until_closed(self):
        with tempfile.TemporaryDirectory() as tmp:
            before = set(threading.enumerate())
            store = Store(os.path.join(tmp, "r.sqlite3"), checkpoint_every=0.01)
            [thread] = [t for t in set(threading.enumerate()) - before
                        if t.name == "dua-store-checkpoint"]
            store.close()
            thread.join(10)
            self.assertFalse(thread.is_alive())


class StaleClaimTest(unittest.TestCase):
    def test_a_claim_left_pending_by_an_older_dua_is_taken_over(self):
        handler = ErrorHandler()
        from tests.test_recovery_agent import CHART

        handler.handle(CHART)
        handler.store.query("UPDATE errors SET state = 'pending', feedback = NULL")
        # A new handler over the store, as after a restart: the first one keeps its own
        # answers in memory, and an older dua's claim is found only in a store it left.
        handler = ErrorHandler(handler.store)
        feedback, created = handler.handle(CHART)
        self.assertTrue(created)
        self.assertEqual(handler.store.count_errors(), 1)
        self.assertEqual(handler.error(feedback["error_id"])["state"], "done")

    def test_an_idempotency_key_left_in_flight_by_an_older_dua_is_no_answer(self):
        store = Store()
        with store.transaction() as db:  # what dua before one-transaction requests left behind
            db.execute("INSERT INTO idempotency VALUES ('k', 'h1', 'in_flight', NULL, NULL, 0)")
        self.assertIsNone(store.find_key("k"))
        store.save_key("k", "h2", 201, '{"error_id": "e"}')
        self.assertEqual(store.find_key("k"), ("h2", 201, '{"error_id": "e"}'))


class StoreErrorTest(unittest.TestCase):
    def test_sqlite_failures_surface_as_store_errors(self):
        store = Store()
        with self.assertRaises(StoreError):
            store.query("SELECT * FROM no_such_table")
        with self.assertRaises(StoreError):
            with store.transaction() as db:
                db.execute("INSERT INTO no_such_table VALUES (1)")
        store.cache_put("still", "usable")  # the failed transaction was rolled back
        self.assertEqual(store.cache_get("still")[0], "usable")


if __name__ == "__main__":
    unittest.main()
