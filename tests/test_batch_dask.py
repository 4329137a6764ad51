"""dua.batch on a real Dask cluster: a LocalCluster of 2 worker processes on loopback, reached
through ``Client.get_executor()``, gives the single-process outputs byte for byte, reports a bad
file with its typed error, and a re-run resumes.

dask[distributed] is the test-only extra (``pip install -e '.[dask]'``, as .ci/run does); without
it this test fails rather than skips, so that CI can never pass without running it.
"""
from __future__ import annotations

import concurrent.futures as cf
import os
import tempfile
import unittest

from dua import batch, errors
from tests.test_batch import BAD, PARSER, STATEMENTS, make_workspace, run_unchecked

PDFS = [os.path.join(STATEMENTS, "a.pdf"), os.path.join(BAD, "truncated.pdf"),
        os.path.join(STATEMENTS, "b.pdf")]


def read_bytes(path: str) -> bytes:
    with open(path, "rb") as fh:
        return fh.read()


def _executing(dask_worker) -> list:
    """The keys of the tasks a Dask worker is running now (run on each worker)."""
    return sorted(str(ts.key) for ts in dask_worker.state.executing)


class DaskClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        try:
            import logging

            import dask
            from dask.distributed import Client, LocalCluster
        except ImportError as exc:
            raise AssertionError("dask.distributed is not installed; the test extra is: "
                                 "python -m pip install -e '.[dask]'") from exc
        # The scheduler and each worker keep a scratch folder (dask-scratch-space) in temp
        # unless told where: here, in one the test removes.
        cls.scratch = tempfile.TemporaryDirectory(prefix="dua-dask-")
        cls.config = dask.config.set({"temporary-directory": cls.scratch.name})
        cls.cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                   host="127.0.0.1", dashboard_address=None,
                                   silence_logs=logging.ERROR)
        cls.client = Client(cls.cluster)

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        cls.config.__exit__(None, None, None)
        cls.scratch.cleanup()

    def tearDown(self):
        # A task still running when its test ends writes into a workspace already removed
        # (a batch's CSV and stamp in the temporary folder, found only by the suite's
        # leftovers check, and only when the task lost the race): no test may leave one.
        executing = self.client.run(_executing)
        self.assertEqual({w: keys for w, keys in executing.items() if keys}, {},
                         "tasks of this test still run on the cluster after it ended")

    def run_on_dask(self, out_dir: str) -> batch.BatchResult:
        return run_unchecked(PARSER, PDFS, executor=self.client.get_executor(), out_dir=out_dir)

    def test_a_task_left_running_is_what_the_end_of_test_check_finds(self):
        # the race of issue 31: a future let go while its task runs; the task goes on (Dask
        # cannot stop a running function) and stays in the worker's executing set, which
        # tearDown reads, so a test that leaves one fails there, not at the suite's end
        import time

        future = self.client.submit(time.sleep, 2.0, pure=False)
        deadline = time.monotonic() + 30
        while future.status == "pending" and not any(self.client.run(_executing).values()):
            self.assertLess(time.monotonic(), deadline, "the task never started")
            time.sleep(0.05)
        del future  # released, as a test's local futures are when it returns
        time.sleep(0.2)
        self.assertTrue(any(self.client.run(_executing).values()))
        while any(self.client.run(_executing).values()):  # then let it end, for tearDown
            self.assertLess(time.monotonic(), deadline, "the task never ended")
            time.sleep(0.05)

    def test_the_cluster_has_two_worker_processes_apart_from_this_one(self):
        pids = set(self.client.run(os.getpid).values())
        self.assertEqual(len(pids), 2)
        self.assertNotIn(os.getpid(), pids)

    def test_outputs_equal_the_single_process_run_and_the_bad_file_has_its_typed_error(self):
        tmp = make_workspace(self)
        with cf.ThreadPoolExecutor(1) as pool:
            single = run_unchecked(PARSER, PDFS, executor=pool, out_dir=os.path.join(tmp, "single"))
        on_dask = self.run_on_dask(os.path.join(tmp, "dask"))
        self.assertEqual([r.status for r in on_dask.results], ["converted", "failed", "converted"])
        for here, there in zip(single.results, on_dask.results):
            with self.subTest(pdf=os.path.basename(here.pdf_path)):
                self.assertEqual((there.status, there.rows), (here.status, here.rows))
                if there.output_path:
                    self.assertEqual(read_bytes(there.output_path), read_bytes(here.output_path))
        bad = on_dask.results[1]
        self.assertIsInstance(bad.error, errors.CorruptPDFError)
        self.assertEqual(bad.to_dict()["error"]["error_code"], "PDF_CORRUPT")
        self.assertTrue(bad.feedback["user_message"])
        self.assertEqual(on_dask.exit_code(), errors.CorruptPDFError.exit_code)

    def test_a_rerun_skips_what_is_done_and_converts_only_what_is_missing(self):
        tmp = make_workspace(self)
        out = os.path.join(tmp, "out")
        first = self.run_on_dask(out)
        a, b = (read_bytes(os.path.join(out, name)) for name in ("a.csv", "b.csv"))
        for path in ("b.csv", os.path.join(".dua", "b.csv.json")):  # as if killed before b
            os.remove(os.path.join(out, path))
        again = self.run_on_dask(out)
        self.assertEqual([r.status for r in again.results], ["skipped", "failed", "converted"])
        self.assertEqual(again.results[0].rows, first.results[0].rows)
        self.assertIsInstance(again.results[1].error, errors.CorruptPDFError)
        self.assertEqual(read_bytes(os.path.join(out, "a.csv")), a)
        self.assertEqual(read_bytes(os.path.join(out, "b.csv")), b)

    def test_a_rerun_is_new_work_to_dask_not_the_first_runs_cached_result(self):
        # Dask keys a pure function's call by its arguments: the same tasks twice would
        # share a key, and a rerun started while the first run's results are still held
        # would get them back without converting anything
        from dask.base import tokenize

        tmp = make_workspace(self)
        first, again = (batch.plan(PARSER, PDFS, os.path.join(tmp, "out")) for _ in range(2))
        self.assertNotEqual([tokenize(t) for t in first], [tokenize(t) for t in again])
        held = [self.client.submit(batch.convert, t) for t in first]
        rerun = [self.client.submit(batch.convert, t) for t in again]
        self.assertTrue(all(f.key != g.key for f, g in zip(held, rerun)))
        self.assertEqual([r["status"] for r in self.client.gather(rerun)],
                         ["converted", "failed", "converted"])
        # the held tasks write into the workspace too: waited for here, or one still running
        # writes its CSV after the workspace is removed (tearDown would say so)
        self.assertEqual([r["status"] for r in self.client.gather(held)],
                         ["converted", "failed", "converted"])


if __name__ == "__main__":
    unittest.main()
