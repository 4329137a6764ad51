"""dua.batch: many PDFs through one parser, safely, on any executor, resumable."""
from __future__ import annotations

import concurrent.futures as cf
import os
import shutil
import signal
import tempfile
import threading
import time
import unittest
from unittest import mock

from dua import batch, errors
from dua.batch import checks
from fixtures.pdfwriter import PDF
from tests.support import FIXTURES

STATEMENTS = os.path.join(FIXTURES, "statements", "plain_western")
PARSER = os.path.join(FIXTURES, "parsers_batch", "plain_western_parser.py")
BAD = os.path.join(FIXTURES, "bad")

# The fixture parser, plus a trap: it never returns on a PDF whose first page says HANG.
_HANG_TAIL = '''

_parse_statement = parse


def parse(pdf_path):
    with pdfplumber.open(pdf_path) as pdf:
        first = pdf.pages[0].extract_text() or ""
    if "HANG" in first:
        while True:
            pass
    return _parse_statement(pdf_path)
'''


def run_unchecked(*args, **kwargs) -> batch.BatchResult:
    """``batch.run`` without the rows' checks: the fixture parser is hand-written, so its
    rows could not be checked and would be written apart (<name>.unchecked.csv); these tests
    are about converting, resuming and failing, not about verdicts."""
    return batch.run(*args, check_rows=False, **kwargs)


def expected(which: str):
    import pandas as pd  # lazy: keeps test discovery fast

    return pd.read_csv(os.path.join(STATEMENTS, f"{which}.csv"))


def read_csv(path: str):
    import pandas as pd  # lazy: keeps test discovery fast

    return pd.read_csv(path)


def make_workspace(test: unittest.TestCase) -> str:
    tmp = tempfile.mkdtemp(prefix="dua-batch-")
    test.addCleanup(shutil.rmtree, tmp, True)
    return tmp


def make_hang_files(folder: str) -> tuple:
    """(a parser that hangs on one kind of PDF, that PDF)."""
    parser = os.path.join(folder, "hanging_parser.py")
    with open(PARSER, encoding="utf-8") as fh:
        source = fh.read()
    with open(parser, "w", encoding="utf-8") as fh:
        fh.write(source + _HANG_TAIL)
    pdf = PDF()
    pdf.add_page().text(72, 72, "HANG: this statement makes the parser loop forever")
    pdf.save(os.path.join(folder, "hang.pdf"))
    return parser, os.path.join(folder, "hang.pdf")


class MixedBatchTest(unittest.TestCase):
    """Good statements, a corrupt PDF, an image-only PDF and a timeout, in one batch."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dua-batch-")
        cls.parser, hang = make_hang_files(cls.tmp)
        cls.pdfs = [os.path.join(STATEMENTS, "a.pdf"), os.path.join(BAD, "truncated.pdf"),
                    os.path.join(STATEMENTS, "b.pdf"), os.path.join(BAD, "image_only.pdf"), hang,
                    os.path.join(BAD, "encrypted.pdf")]
        cls.seen = []
        cls.result = run_unchecked(cls.parser, cls.pdfs, out_dir=os.path.join(cls.tmp, "out"),
                               on_progress=cls.seen.append, timeout=6.0, workers=2)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    def by_name(self, name: str):
        return next(r for r in self.result.results if os.path.basename(r.pdf_path) == name)

    def test_every_good_file_is_converted_exactly(self):
        for which in "ab":
            with self.subTest(statement=which):
                r = self.by_name(f"{which}.pdf")
                self.assertEqual(r.status, "converted", r.feedback)
                self.assertTrue(read_csv(r.output_path).equals(expected(which)))
                self.assertEqual(r.rows, len(expected(which)))

    def test_every_bad_file_is_reported_with_its_typed_error(self):
        cases = {"truncated.pdf": errors.CorruptPDFError, "image_only.pdf": errors.NoTextLayerError,
                 "hang.pdf": errors.ParserTimeoutError, "encrypted.pdf": errors.EncryptedPDFError}
        for name, cls in cases.items():
            with self.subTest(file=name):
                r = self.by_name(name)
                self.assertEqual(r.status, "failed")
                self.assertIsInstance(r.error, cls)
                self.assertIsNone(r.output_path)
                self.assertTrue(r.feedback["user_message"])
                self.assertEqual(r.feedback["error_type"], cls.error_type)
                self.assertEqual(r.to_dict()["error"]["error_code"], cls.error_code)

    def test_the_batch_completes_with_results_in_input_order(self):
        self.assertEqual([r.pdf_path for r in self.result.results], self.pdfs)
        self.assertFalse(self.result.ok)
        self.assertEqual(self.result.exit_code(), errors.EXIT_FAILURE)  # a parser timed out
        self.assertEqual(self.result.total()["failed"], 4)

    def test_progress_is_reported_once_per_file_up_to_the_total(self):
        self.assertEqual([p.done for p in self.seen], list(range(1, len(self.pdfs) + 1)))
        self.assertEqual(self.seen[-1].errors, 4)
        self.assertEqual(self.seen[-1].rows, len(expected("a")) + len(expected("b")))
        self.assertIn("6/6 files", self.seen[-1].line())

    def test_report_is_json_ready_with_a_total(self):
        import json

        doc = json.loads(json.dumps(self.result.to_dict()))
        self.assertEqual(len(doc["files"]), len(self.pdfs))
        self.assertEqual(doc["total"]["converted"], 2)
        self.assertEqual(doc["files"][1]["error"]["error_code"], "PDF_CORRUPT")

    def test_no_temporary_file_is_left_behind(self):
        out = set(os.listdir(os.path.join(self.tmp, "out"))) - {".dua"}  # .dua: the stamps
        self.assertEqual(sorted(out), ["a.csv", "b.csv"])
        stamps = os.listdir(os.path.join(self.tmp, "out", ".dua"))
        self.assertEqual(sorted(stamps), ["a.csv.json", "b.csv.json"])


class ResumeTest(unittest.TestCase):
    def test_interrupted_batch_resumed_produces_the_same_outputs(self):
        tmp = make_workspace(self)
        pdfs = [os.path.join(STATEMENTS, "a.pdf"), os.path.join(STATEMENTS, "b.pdf"),
                os.path.join(BAD, "encrypted.pdf")]
        full = os.path.join(tmp, "full")
        run_unchecked(PARSER, pdfs, out_dir=full, workers=1, password="secret")

        def interrupt(progress):
            raise KeyboardInterrupt

        part = os.path.join(tmp, "part")
        pool = cf.ThreadPoolExecutor(1)
        with self.assertRaises(KeyboardInterrupt):
            run_unchecked(PARSER, pdfs, executor=pool, out_dir=part, on_progress=interrupt,
                      password="secret")
        pool.shutdown(wait=True)  # let a file already running finish, as a real worker would
        left = sorted(set(os.listdir(part)) - {".dua"})  # .dua: the stamps
        self.assertLess(len(left), 3)  # the interruption stopped the batch short
        for name in left:  # and whatever is there is whole
            self.assertTrue(name.endswith(".csv"), name)
            with open(os.path.join(full, name), "rb") as f1, open(os.path.join(part, name), "rb") as f2:
                self.assertEqual(f1.read(), f2.read(), name)
        resumed = run_unchecked(PARSER, pdfs, out_dir=part, workers=1, password="secret")
        self.assertTrue(resumed.ok)
        self.assertEqual(resumed.total()["skipped"], len(left))
        self.assertEqual(resumed.total()["converted"], 3 - len(left))
        for name in ("a.csv", "b.csv", "encrypted.csv"):
            with open(os.path.join(full, name), "rb") as f1, open(os.path.join(part, name), "rb") as f2:
                self.assertEqual(f1.read(), f2.read(), name)

    def test_a_killed_worker_fails_its_files_and_a_rerun_completes_them(self):
        tmp = make_workspace(self)
        parser = os.path.join(tmp, "slow_parser.py")
        with open(PARSER) as src, open(parser, "w") as dst:  # slow enough to be killed mid-file
            dst.write(src.read().replace("def parse(pdf_path):", "def parse(pdf_path):\n    time.sleep(0.5)")
                      .replace("import re", "import re\nimport time"))
        pdfs = []
        for i in range(4):
            pdfs.append(os.path.join(tmp, f"s{i}.pdf"))
            shutil.copy(os.path.join(STATEMENTS, "a.pdf"), pdfs[-1])
        out = os.path.join(tmp, "out")
        # The killed worker cannot remove the sandbox folder of the file it was running: its
        # temporary files go in the workspace (forked workers inherit tempdir, spawned TMPDIR).
        temp = os.path.join(tmp, "temp")
        os.mkdir(temp)
        for patch in (mock.patch.object(tempfile, "tempdir", temp),
                      mock.patch.dict(os.environ, {"TMPDIR": temp})):
            patch.start()
            self.addCleanup(patch.stop)
        pool = cf.ProcessPoolExecutor(1)
        self.addCleanup(pool.shutdown)

        def kill_worker(progress):
            if progress.done == 1:
                for pid in list(pool._processes):  # what the OOM killer would do
                    os.kill(pid, signal.SIGKILL)

        first = run_unchecked(parser, pdfs, executor=pool, out_dir=out, on_progress=kill_worker)
        crashed = [r for r in first.results if r.status == "failed"]
        self.assertTrue(crashed)
        self.assertTrue(all(isinstance(r.error, errors.ParserCrashedError) for r in crashed))
        self.assertTrue(all(r.feedback["user_message"] for r in crashed))
        again = run_unchecked(parser, pdfs, out_dir=out, workers=2)
        self.assertTrue(again.ok)
        self.assertEqual(again.total()["skipped"], 4 - len(crashed))
        for i in range(4):
            self.assertTrue(read_csv(os.path.join(out, f"s{i}.csv")).equals(expected("a")))

    def test_an_output_older_than_its_parser_is_converted_again(self):
        tmp = make_workspace(self)
        parser = os.path.join(tmp, "parser.py")
        shutil.copy(PARSER, parser)
        pdf = os.path.join(STATEMENTS, "a.pdf")
        out = os.path.join(tmp, "out", "a.csv")
        os.makedirs(os.path.dirname(out))
        with open(out, "w") as fh:
            fh.write("stale\n")
        os.utime(out, (time.time() - 3600, time.time() - 3600))
        result = run_unchecked(parser, [pdf], out_dir=os.path.dirname(out), workers=1)
        self.assertEqual(result.results[0].status, "converted")
        self.assertTrue(read_csv(out).equals(expected("a")))

    def test_an_output_made_by_another_parser_is_converted_again(self):
        tmp = make_workspace(self)
        pdf, out = os.path.join(STATEMENTS, "a.pdf"), os.path.join(tmp, "out")
        first = os.path.join(tmp, "first_parser.py")
        with open(PARSER, encoding="utf-8") as src, open(first, "w", encoding="utf-8") as dst:
            dst.write(src.read().replace("def parse(pdf_path):",
                                         "def parse(pdf_path):\n    return _table(pdf_path).head(2)\n\n\n"
                                         "def _table(pdf_path):"))
        os.utime(first, (time.time() - 3600, time.time() - 3600))  # older than any output
        self.assertEqual(len(read_csv(run_unchecked(first, [pdf], out_dir=out, workers=1)
                                      .results[0].output_path)), 2)
        second = os.path.join(tmp, "second_parser.py")
        shutil.copy(PARSER, second)
        os.utime(second, (time.time() - 3600, time.time() - 3600))  # older too: mtimes cannot tell
        result = run_unchecked(second, [pdf], out_dir=out, workers=1)
        self.assertEqual(result.results[0].status, "converted")
        self.assertTrue(read_csv(os.path.join(out, "a.csv")).equals(expected("a")))

    def test_a_replaced_pdf_is_converted_again_and_an_untouched_one_is_skipped(self):
        tmp = make_workspace(self)
        pdf, out = os.path.join(tmp, "s.pdf"), os.path.join(tmp, "out")
        shutil.copy(os.path.join(STATEMENTS, "a.pdf"), pdf)
        run_unchecked(PARSER, [pdf], out_dir=out, workers=1)
        again = run_unchecked(PARSER, [pdf], out_dir=out, workers=1)
        self.assertEqual((again.results[0].status, again.results[0].rows),
                         ("skipped", len(expected("a"))))
        shutil.copy(os.path.join(STATEMENTS, "b.pdf"), pdf)
        replaced = run_unchecked(PARSER, [pdf], out_dir=out, workers=1)
        self.assertEqual(replaced.results[0].status, "converted")
        self.assertTrue(read_csv(os.path.join(out, "s.csv")).equals(expected("b")))

    def test_an_output_folder_under_a_file_is_a_usage_error_before_any_file_runs(self):
        tmp = make_workspace(self)
        blocker = os.path.join(tmp, "file")
        with open(blocker, "w") as fh:
            fh.write("x")
        with self.assertRaisesRegex(errors.UsageError, "is a file, not a folder"):
            run_unchecked(PARSER, [os.path.join(STATEMENTS, "a.pdf")], out_dir=os.path.join(blocker, "out"))


class InterruptDeferredTest(unittest.TestCase):
    def test_ctrl_c_during_an_output_and_its_stamp_takes_effect_after_both(self):
        from dua.batch.worker import _interrupt_deferred

        # as in a terminal, even when the tests run in the background with SIGINT ignored
        self.addCleanup(signal.signal, signal.SIGINT,
                        signal.signal(signal.SIGINT, signal.default_int_handler))
        done = []
        with self.assertRaises(KeyboardInterrupt):
            with _interrupt_deferred():
                done.append("csv")
                signal.raise_signal(signal.SIGINT)  # Ctrl-C between the two writes
                done.append("stamp")
        self.assertEqual(done, ["csv", "stamp"])
        self.assertIs(signal.getsignal(signal.SIGINT), signal.default_int_handler)


class PoolInterruptTest(unittest.TestCase):
    def setUp(self):
        # as in a terminal, even when the tests run in the background with SIGINT ignored
        self.addCleanup(signal.signal, signal.SIGINT,
                        signal.signal(signal.SIGINT, signal.default_int_handler))

    def test_a_pool_worker_that_took_ctrl_c_starts_no_further_file(self):
        from dua.batch import worker

        task = batch.plan(PARSER, [os.path.join(STATEMENTS, "a.pdf")])[0]
        self.addCleanup(worker._INTERRUPTED.clear)
        # Ctrl-C while a file runs: it unwinds (its sandbox's folder is removed)
        with mock.patch.object(worker, "convert", side_effect=lambda task: worker._interrupted(
                signal.SIGINT, None)), self.assertRaises(KeyboardInterrupt):
            worker.convert_in_pool(task)
        worker._interrupted(signal.SIGINT, None)  # again, idle: no traceback, the flag only
        with mock.patch.object(worker, "convert") as convert:
            with self.assertRaises(KeyboardInterrupt) as caught:
                worker.convert_in_pool(task)  # the file it had taken off the queue
        convert.assert_not_called()
        self.assertIn("before " + task.pdf_path, str(caught.exception))

    def test_ctrl_c_taken_by_another_thread_ends_the_wait_for_results_at_once(self):
        from dua.batch.runner import _as_completed

        never = cf.Future()  # no result within the test, unless the wait outlives it
        late = threading.Timer(5.0, never.set_result, args=(None,))
        late.start()
        self.addCleanup(late.cancel)
        # the kernel may hand a process's signal to any of its threads: here, a pool's thread
        ctrl_c = threading.Timer(0.3, lambda: signal.pthread_kill(threading.get_ident(),
                                                                  signal.SIGINT))
        ctrl_c.start()
        started = time.monotonic()
        with self.assertRaises(KeyboardInterrupt):
            list(_as_completed([never]))
        self.assertLess(time.monotonic() - started, 2.0)
        self.assertFalse(never.done())


class OutputPathsTest(unittest.TestCase):
    def test_twenty_thousand_pdfs_get_distinct_outputs_in_well_under_two_seconds(self):
        pdfs = [f"/in/folder{i % 4}/statement{i // 4}.pdf" for i in range(20000)]  # stems collide
        started = time.monotonic()
        paths = batch.output_paths(pdfs, "out")
        self.assertLess(time.monotonic() - started, 2.0)  # one pass, not a count per file
        self.assertEqual(len(set(paths.values())), len(pdfs))


class EmptyResultTest(unittest.TestCase):
    def test_a_parser_finding_no_transaction_fails_the_file_unless_empty_is_allowed(self):
        tmp = make_workspace(self)
        other = os.path.join(FIXTURES, "statements", "ruled_grid", "b.pdf")  # another layout
        pdfs = [os.path.join(STATEMENTS, "a.pdf"), other]
        result = run_unchecked(PARSER, pdfs, out_dir=os.path.join(tmp, "out"), workers=1)
        good, empty = result.results
        self.assertEqual(good.status, "converted")
        self.assertEqual(empty.status, "failed")
        self.assertIsInstance(empty.error, errors.VerificationError)
        self.assertIn("found no transaction", empty.feedback["user_message"])
        self.assertEqual(result.exit_code(), errors.EXIT_NOT_VERIFIED)
        self.assertEqual(sorted(os.listdir(os.path.join(tmp, "out"))), [".dua", "a.csv"])
        allowed = run_unchecked(PARSER, [other], out_dir=os.path.join(tmp, "out"), workers=1,
                            allow_empty=True)
        self.assertEqual((allowed.results[0].status, allowed.results[0].rows), ("converted", 0))


class VerdictNameTest(unittest.TestCase):
    def test_rows_not_checked_go_apart_and_a_csv_dua_did_not_stamp_is_left_alone(self):
        tmp = make_workspace(self)
        out = os.path.join(tmp, "out")
        os.makedirs(out)
        with open(os.path.join(out, "a.csv"), "w") as fh:  # the user's own file, not dua's
            fh.write("mine\n")
        result = batch.run(PARSER, [os.path.join(STATEMENTS, "a.pdf")], out_dir=out, workers=1)
        r = result.results[0]
        self.assertEqual((r.status, r.check_status), ("converted", "not checked"))
        self.assertEqual(r.output_path, os.path.join(out, "a.unchecked.csv"))
        self.assertTrue(read_csv(r.output_path).equals(expected("a")))
        with open(os.path.join(out, "a.csv")) as fh:
            self.assertEqual(fh.read(), "mine\n")
        self.assertEqual(result.exit_code(), errors.EXIT_NOT_VERIFIED)
        self.assertEqual(result.not_passed, [r])

    def test_verdict_names_sit_beside_the_planned_output(self):
        self.assertEqual(batch.verdict_path(os.path.join("out", "jan.csv"), "unverified"),
                         os.path.join("out", "jan.unverified.csv"))
        self.assertEqual(batch.verdict_path("jan.csv", "not checked"), "jan.unchecked.csv")
        self.assertEqual(batch.verdict_path("jan.csv", "passed"), "jan.csv")
        self.assertEqual(batch.verdict_path("jan.csv", None), "jan.csv")


class ExecutorTest(unittest.TestCase):
    def test_a_custom_executor_is_honoured(self):
        class CountingPool(cf.ThreadPoolExecutor):
            submitted = 0

            def submit(self, fn, *args, **kwargs):
                CountingPool.submitted += 1
                return super().submit(fn, *args, **kwargs)

        tmp = make_workspace(self)
        pdfs = [os.path.join(STATEMENTS, "a.pdf"), os.path.join(STATEMENTS, "b.pdf")]
        with CountingPool(max_workers=2) as pool:
            result = run_unchecked(PARSER, pdfs, executor=pool, out_dir=tmp)
            self.assertFalse(pool._shutdown)  # the caller's executor stays the caller's
        self.assertEqual(CountingPool.submitted, 2)
        self.assertTrue(result.ok)
        self.assertTrue(read_csv(os.path.join(tmp, "b.csv")).equals(expected("b")))

    def test_without_out_dir_each_result_carries_its_frame(self):
        with cf.ThreadPoolExecutor(1) as pool:
            result = run_unchecked(PARSER, [os.path.join(STATEMENTS, "a.pdf")], executor=pool)
        self.assertIsNone(result.results[0].output_path)
        self.assertTrue(result.results[0].frame.equals(expected("a")))


class RowsCheckTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-batch-check-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def parser(self, text: str) -> str:
        path = os.path.join(self.tmp, "bank_parser.py")
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return path

    def test_a_parser_not_written_by_the_engine_is_not_checked_and_says_why(self):
        check = checks.rows_check(self.parser("def parse(pdf_path):\n    pass\n"), None, [])
        self.assertEqual(check["status"], "not checked")
        self.assertIn("no SETTINGS", check["summary"])

    def test_a_fault_in_the_check_leaves_the_file_converted_and_names_the_fault(self):
        parser = self.parser("SETTINGS = {'columns': []}\n")
        with mock.patch("dua.statements.verification.verify.on_words",
                        side_effect=RuntimeError("boom")):
            check = checks.rows_check(parser, None, [{"words": []}])
        self.assertEqual(check["status"], "not checked")
        self.assertIn("RuntimeError: boom", check["summary"])


class PlanningTest(unittest.TestCase):
    def test_colliding_names_get_distinct_outputs(self):
        paths = batch.output_paths(["x/jan.pdf", "y/jan.pdf", "z/feb.pdf"], "out")
        self.assertEqual(len(set(paths.values())), 3)
        self.assertEqual(paths["z/feb.pdf"], os.path.join("out", "feb.csv"))
        self.assertTrue(paths["x/jan.pdf"].startswith(os.path.join("out", "jan-")))

    def test_a_missing_parser_fails_before_the_batch(self):
        with self.assertRaises(errors.UsageError):
            batch.run("/nonexistent/parser.py", [os.path.join(STATEMENTS, "a.pdf")])

    def test_a_parser_the_policy_rejects_fails_before_the_batch(self):
        tmp = make_workspace(self)
        parser = os.path.join(tmp, "evil_parser.py")
        with open(parser, "w") as fh:
            fh.write("import os\n\ndef parse(pdf_path):\n    os.system('true')\n")
        with self.assertRaises(errors.PolicyViolationError):
            batch.run(parser, [os.path.join(STATEMENTS, "a.pdf")], out_dir=tmp)
        self.assertEqual(os.listdir(tmp), ["evil_parser.py"])

    def test_misuse_is_a_plain_type_or_value_error(self):
        with self.assertRaises(TypeError):
            batch.run(PARSER, os.path.join(STATEMENTS, "a.pdf"))
        with self.assertRaises(ValueError):
            batch.run(PARSER, [os.path.join(STATEMENTS, "a.pdf")], timeout=0)

    def test_atomic_write_leaves_nothing_when_writing_fails(self):
        tmp = make_workspace(self)

        class Exploding:
            def to_csv(self, fh, index=False):
                fh.write("Date,Description\n01-08-2024,half")
                raise OSError("disk full")

        with self.assertRaises(OSError):
            batch.write_csv_atomically(Exploding(), os.path.join(tmp, "a.csv"))
        self.assertEqual(os.listdir(tmp), [])

    def test_importing_the_batch_modules_loads_nothing_heavy(self):
        from tests.test_import import loaded_after

        self.assertEqual(loaded_after("import dua.batch, dua.batch.worker, dua.batch.runner, "
                                      "dua.commands.run"), [])

    def test_progress_line_names_done_total_rows_errors_rate_and_eta(self):
        line = batch.Progress(3, 10, 1234, 1, 2.0, 3).line()
        self.assertEqual(line, "3/10 files, 1,234 rows, 1 error, 1.50 files/s, ETA 5s")
        self.assertIn("ETA ?", batch.Progress(0, 10, 0, 0, 0.0, 0).line())


if __name__ == "__main__":
    unittest.main()
