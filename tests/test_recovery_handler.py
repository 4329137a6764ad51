"""Idempotency under concurrency, the in-process contract (handle_in_process, recover), backoff."""
from __future__ import annotations

import copy
import os
import random
import tempfile
import threading
import time
import unittest

from dua import errors
from dua.recovery import ErrorHandler, handle_in_process, recover
from dua.recovery.actions import backoff_delay, retry_with_backoff
from dua.recovery.store import Store
from dua.schemas import Feedback
from tests.test_recovery_agent import DB_TIMEOUT, OUTAGE


class IdempotencyTest(unittest.TestCase):
    def test_sixteen_concurrent_identical_submissions_make_one_record_and_one_set_of_actions(self):
        with tempfile.TemporaryDirectory() as tmp:
            calls = []
            slow = threading.Event()

            def notifier(event):
                calls.append(event)
                slow.wait(0.05)  # keep the first one in flight while the others arrive

            handler = ErrorHandler(Store(os.path.join(tmp, "r.sqlite3")), notifier=notifier)
            results, barrier = [], threading.Barrier(16)

            def submit():
                barrier.wait()
                results.append(handler.handle(copy.deepcopy(OUTAGE)))

            threads = [threading.Thread(target=submit) for _ in range(16)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(len(results), 16)
            self.assertEqual(sum(created for _, created in results), 1)
            self.assertEqual(len({fb["error_id"] for fb, _ in results}), 1)
            self.assertEqual(len({repr(fb) for fb, _ in results}), 1)
            self.assertEqual(handler.store.count_errors(), 1)
            self.assertEqual(len(calls), 1)
            self.assertEqual(handler.telemetry.value("dua_recovery_duplicates_total"), 15)

    def test_a_later_repeat_of_the_same_problem_is_a_new_attempt_not_a_replay(self):
        handler = ErrorHandler(clock=lambda: 0.0)
        first = handler.handle(DB_TIMEOUT)[0]
        later = copy.deepcopy(DB_TIMEOUT)
        later["timestamp"] = "2025-08-08T12:05:00Z"
        second, created = handler.handle(later)
        self.assertTrue(created)
        self.assertNotEqual(first["error_id"], second["error_id"])
        self.assertEqual(first["context"]["fingerprint"], second["context"]["fingerprint"])
        self.assertEqual(second["automated_actions"][0], "retry:2")
        self.assertEqual(len(handler.store.retries("q_456")), 2)

    def test_a_failed_handling_leaves_nothing_behind_and_the_retry_is_handled(self):
        handler = ErrorHandler()
        original = handler.store.record_event  # the last write of a run
        handler.store.record_event = lambda *a: (_ for _ in ()).throw(errors.StoreError("disk full"))
        with self.assertRaises(errors.StoreError):
            handler.handle(DB_TIMEOUT)
        self.assertEqual(handler.store.count_errors(), 0)
        self.assertEqual(handler.store.retries(), [])  # its queued retry went with it
        self.assertIsNone(handler.session("q_456"))
        handler.store.record_event = original
        feedback, created = handler.handle(DB_TIMEOUT)
        self.assertTrue(created)
        self.assertEqual(feedback["automated_actions"][0], "retry:1")  # not counted twice

    def test_an_answer_is_replayed_from_memory_only_once_committed(self):
        handler = ErrorHandler()
        with self.assertRaises(RuntimeError):
            with handler.store.transaction():  # as the service's keyed requests and batches do
                handler.handle(DB_TIMEOUT)
                raise RuntimeError("a later write of the same transaction failed")
        self.assertEqual(handler.store.count_errors(), 0)
        first, created = handler.handle(DB_TIMEOUT)
        self.assertTrue(created)  # handled afresh: the rolled-back answer was not kept
        handler.store.query("DELETE FROM errors")  # only memory can answer now
        self.assertEqual(handler.handle(DB_TIMEOUT), (first, False))


class PlanOutsideTheLockTest(unittest.TestCase):
    def test_a_decision_whose_basis_another_writer_changed_is_made_again_under_the_lock(self):
        # another connection (as another process has), and another thread on the same one
        for where in ("another connection", "the same store"):
            with self.subTest(where), tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "r.sqlite3")
                handler = ErrorHandler(Store(path))
                other = ErrorHandler(Store(path) if where == "another connection" else handler.store)
                earlier = copy.deepcopy(DB_TIMEOUT)
                earlier["timestamp"] = "2025-08-08T11:59:00Z"  # the same problem, a moment before
                open_transaction = handler.store.transaction
                raced = []

                def transaction():
                    if not raced:  # the other records its error between our plan and commit
                        raced.append(threading.Thread(target=lambda: raced.append(
                            other.handle(earlier)[0])))
                        raced[0].start()
                        raced[0].join()
                    return open_transaction()

                handler.store.transaction = transaction
                feedback, created = handler.handle(DB_TIMEOUT)
                self.assertTrue(created)
                self.assertEqual(raced[1]["automated_actions"][0], "retry:1")
                self.assertEqual(feedback["automated_actions"][0], "retry:2")  # planned as 1
                self.assertEqual(feedback["context"]["attempt"], 2)

    def test_a_duplicate_is_answered_while_another_writer_holds_the_lock(self):
        with tempfile.TemporaryDirectory() as tmp:
            handler = ErrorHandler(Store(os.path.join(tmp, "r.sqlite3")))
            first, _ = handler.handle(DB_TIMEOUT)
            answers = []
            with handler.store.transaction():  # this thread writes, and keeps the lock
                replay = threading.Thread(target=lambda: answers.append(handler.handle(DB_TIMEOUT)))
                replay.start()
                replay.join(30)
                self.assertFalse(replay.is_alive())  # it did not wait for the lock
        self.assertEqual(answers, [(first, False)])


class InProcessContractTest(unittest.TestCase):
    def test_handle_in_process_is_fast_and_writes_no_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            cwd = os.getcwd()
            os.chdir(tmp)
            try:
                payload = errors.NoTextLayerError("no text").to_payload("dua_parse")
                handle_in_process(payload)  # the first call builds the in-memory store
                started = time.perf_counter()
                feedback = handle_in_process(payload)
                elapsed = time.perf_counter() - started
            finally:
                os.chdir(cwd)
            self.assertEqual(os.listdir(tmp), [])
        self.assertLess(elapsed, 0.05)
        self.assertEqual(feedback["next_action"], "await_user")

    def test_handle_in_process_never_raises_on_bad_payloads(self):
        for bad in (None, "text", 42, [], {"agent_id": 3}, {"data": {"error_type": "nope"}}):
            with self.subTest(payload=bad):
                fb = handle_in_process(bad)
                Feedback.from_dict(fb)  # still a valid feedback object
                self.assertEqual((fb["error_type"], fb["next_action"]),
                                 ("validation_error", "await_user"))
                self.assertIn("Malformed error payload", fb["user_message"])

    def test_handle_in_process_answers_even_when_the_handler_breaks(self):
        handler = ErrorHandler()
        handler.store.prior = None  # not callable: the graph fails inside
        fb = handle_in_process(OUTAGE, handler)
        self.assertEqual(fb["next_action"], "escalate")
        self.assertIn("error handler itself failed", fb["user_message"])

    def test_recover_returns_a_feedback_that_moves_from_retry_to_fallback(self):
        store = Store()
        actions = [recover(errors.LLMTimeoutError("timed out"), "statement_agent", "q_r1",
                           store=store).automated_actions for _ in range(4)]
        self.assertEqual(actions, [["retry:1"], ["retry:2"], ["retry:3"], ["fallback:builtin"]])

    def test_recover_wraps_foreign_exceptions_and_escalates(self):
        fb = recover(KeyError("Balance"), "extract_pipeline", "q_r2", store=Store())
        self.assertIsInstance(fb, Feedback)
        self.assertEqual(fb.next_action, "escalate")
        self.assertEqual(fb.context["error_code"], "UNEXPECTED_ERROR")

    def test_recover_keeps_the_callers_context(self):
        fb = recover(errors.VerificationError("2 rows do not reconcile"), "statement_agent",
                     "q_r3", context={"bank": "icici", "attempt": 1}, store=Store())
        self.assertEqual(fb.automated_actions, ["refine:1"])
        self.assertEqual(fb.context["session"]["bank"], "icici")


class BackoffTest(unittest.TestCase):
    def test_delays_grow_exponentially_with_bounded_jitter(self):
        rng = random.Random(1)
        for attempt, ceiling in ((1, 0.5), (2, 1.0), (3, 2.0), (10, 30.0)):
            delay = backoff_delay(attempt, rng=rng)
            self.assertTrue(ceiling / 2 <= delay <= ceiling, (attempt, delay))

    def test_retry_with_backoff_sleeps_between_retryable_failures_only(self):
        slept, calls = [], []

        def flaky():
            calls.append(1)
            if len(calls) < 3:
                raise errors.ServerError("502")
            return "ok"

        self.assertEqual(retry_with_backoff(flaky, 5, sleep=slept.append, rng=random.Random(0)), "ok")
        self.assertEqual(len(slept), 2)
        self.assertTrue(0.25 <= slept[0] <= 0.5 and 0.5 <= slept[1] <= 1.0, slept)
        with self.assertRaises(errors.AuthenticationError):
            retry_with_backoff(lambda: (_ for _ in ()).throw(errors.AuthenticationError("401")),
                               5, sleep=slept.append)
        self.assertEqual(len(slept), 2)  # not retryable: no sleep

    def test_retry_with_backoff_honours_retry_after(self):
        slept = []
        attempts = iter([errors.RateLimitError("429", retry_after=7.0), None])

        def once():
            exc = next(attempts)
            if exc:
                raise exc
            return 1

        retry_with_backoff(once, 3, sleep=slept.append)
        self.assertEqual(slept, [7.0])


if __name__ == "__main__":
    unittest.main()


class RetryQueueTest(unittest.TestCase):
    def test_due_retries_run_and_failures_come_back_later_until_dead(self):
        from dua.recovery.actions import drain_retries

        now = [100.0]
        store = Store()
        handler = ErrorHandler(store, clock=lambda: now[0], rng=random.Random(3))
        handler.handle(DB_TIMEOUT)
        self.assertEqual(drain_retries(store, lambda item: None, clock=lambda: now[0]),
                         {"done": 0, "requeued": 0, "dead": 0})  # not due yet
        now[0] += 1.0

        def failing(item):
            raise errors.StoreError("still down")

        self.assertEqual(drain_retries(store, failing, clock=lambda: now[0], rng=random.Random(3),
                                       max_attempts=2), {"done": 0, "requeued": 1, "dead": 0})
        queued = store.retries("q_456")[-1]
        self.assertEqual(queued["attempt"], 2)
        self.assertTrue(now[0] + 0.5 <= queued["due"] <= now[0] + 1.0, queued)
        now[0] += 1.0
        self.assertEqual(drain_retries(store, failing, clock=lambda: now[0], max_attempts=2),
                         {"done": 0, "requeued": 0, "dead": 1})
        self.assertEqual([r["state"] for r in store.retries("q_456")], ["failed", "dead"])

    def test_a_successful_retry_is_marked_done(self):
        from dua.recovery.actions import drain_retries

        store = Store()
        store.enqueue_retry("err_1", "q_9", 1, due=0.0)
        seen = []
        self.assertEqual(drain_retries(store, seen.append, clock=lambda: 1.0)["done"], 1)
        self.assertEqual((seen[0]["error_id"], store.retries("q_9")[0]["state"]), ("err_1", "done"))


class AttemptBudgetTest(unittest.TestCase):
    def test_failures_of_one_code_share_a_budget_even_when_messages_differ(self):
        store = Store()
        actions = [recover(errors.ParserCrashedError(f"KeyError: '{col}'"), "statement_agent",
                           "q_b1", store=store).automated_actions
                   for col in ("Balance", "Date", "Amount", "Narration")]
        self.assertEqual(actions, [["refine:1"], ["refine:2"], ["refine:3"], []])
        other = recover(errors.ParserCrashedError("KeyError: 'Balance'"), "statement_agent",
                        "q_b2", store=store)
        self.assertEqual(other.automated_actions, ["refine:1"])  # another run, a fresh budget


class LightImportTest(unittest.TestCase):
    def test_importing_the_recovery_package_loads_no_server_or_database_module(self):
        import subprocess
        import sys

        from tests.support import REPO

        code = ("import sys, dua.recovery, dua.commands.serve, dua.commands.handle; "
                "print(sorted(m for m in ('sqlite3', 'http.server', 'socketserver', 'difflib') "
                "if m in sys.modules))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              cwd=REPO, check=True)
        self.assertEqual(done.stdout.strip(), "[]")


class NextStepTest(unittest.TestCase):
    def test_each_feedback_maps_to_one_step_for_dua_agents(self):
        from dua.recovery import next_step

        store = Store()
        cases = [
            (errors.RateLimitError("429", retry_after=1.5), ("retry", 1.5)),
            (errors.ParserCrashedError("boom"), ("refine", 0.0)),
            (errors.AuthenticationError("401"), ("fallback", 0.0)),
            (errors.NoTextLayerError("scan"), ("ask", 0.0)),
            (errors.StepLimitError("loop"), ("stop", 0.0)),
        ]
        for exc, expected in cases:
            with self.subTest(exc=type(exc).__name__):
                fb = recover(exc, "statement_agent", "q_steps", store=store)
                self.assertEqual(next_step(fb), expected)
