"""Reading in a bounded child: read_document's very words and errors, a budget of seconds and
memory that holds whatever the PDF libraries do, and no child left behind.

A child is forked only while no other thread runs; the test runner's earlier tests leave
threads behind, so the cases about the forked child run in a fresh interpreter of their own
(the others exercise the fresh-interpreter child, which is what a threaded caller gets).
"""
from __future__ import annotations

import dataclasses
import json
import os
import signal
import subprocess
import sys
import threading
import time
import unittest

from dua import errors, pdf
from dua.pdf import child

from .support import FIXTURES, REPO

STATEMENT = os.path.join(FIXTURES, "statements", "longform_us_html", "b.pdf")
BAD = os.path.join(FIXTURES, "bad")
LOOPS = os.path.join(BAD, "operator_flood.pdf")  # minutes of pdfminer, in little memory


def _summary(doc) -> list:
    return [(p.number, p.width, p.height, p.char_count, p.reader, p.why,
             [(w.text, w.x0, w.x1, w.top, w.bottom, w.font, w.size) for w in p.words])
            for p in doc.pages]


def _whole_words(doc) -> list:
    """Every element of every word, as the pipe carries it (tuples as lists)."""
    return json.loads(json.dumps([dataclasses.astuple(w) for p in doc.pages for w in p.words]))


def _graphics(doc) -> list:
    return [(p.number, p.h_rules, p.v_rules, p.images,
             [(t.bbox, t.rows) for t in p.tables]) for p in doc.pages]


def _in_fresh_interpreter(code: str, *args: str) -> dict:
    """Run ``code`` with ``args`` (which prints one JSON object) where no other thread runs."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"the fresh interpreter failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


_COMPARE = """
import json, sys, threading
from dua import pdf
from dua.pdf import words
from tests.test_pdf_bounded import _summary
path, password = (sys.argv[1:] + [None])[:2]
reading = pdf.start_reading(path, password)
forked = threading.active_count() == 1 and reading._child.proc is None
doc = reading.document()
direct = words.read_pages(path, password)
print(json.dumps({
    "forked": forked,
    "as_read_document": _summary(pdf.read_document(path, password)) == _summary(doc),
    # the child's pages cross a pipe as JSON, where every tuple becomes a list
    "as_read_pages": json.loads(json.dumps(direct)) == reading.pages,
    "page_count": doc.page_count}))
"""

_REUSED = """
import json, os, sys
from dua import errors, pdf
from dua.pdf import child
from tests.test_pdf_bounded import _graphics, _summary
first, second, bad = sys.argv[1:]
pids = []
def read(path):
    reading = pdf.start_reading(path, graphics=True, word_rule="reading")
    pids.append(reading._child.pid)
    return reading.document()
docs = [read(first), read(second)]
try:
    read(bad)
except errors.DocumentError:
    pass
idle_after_failure = list(child._idle)
read(first)
waiting = child._idle[0][1].pid
child.end_idle()
print(json.dumps({"pids": [pids[0] == pids[1], pids[2] == pids[1], pids[3] == pids[2]],
                  "as_read_document": [
                      (_summary(d), _graphics(d)) == (_summary(here), _graphics(here))
                      for d, here in zip(docs, [pdf.read_document(p, with_tables=True,
                                                word_rule="reading") for p in (first, second)])],
                  "idle_after_failure": idle_after_failure,
                  "waiting_alive_after_end": os.path.exists(f"/proc/{waiting}")}))
"""


_QUEUED = """
import json, os, sys
from dua import errors, pdf
from dua.pdf import child
from tests.test_pdf_bounded import _graphics, _summary
first, second, bad = sys.argv[1:]
def alone(path):
    here = pdf.read_document(path, with_tables=True, word_rule="reading")
    return [_summary(here), _graphics(here)]
def got(reading):
    try:
        doc = reading.document()
    except errors.DocumentError as exc:
        return type(exc).__name__
    return [_summary(doc), _graphics(doc)]
def start(path, after=None):
    return pdf.start_reading(path, graphics=True, word_rule="reading", after=after)
out = {}
a = start(first); b = start(second, after=a)
pid = a._child.pid
out["in_order"] = [got(a) == alone(first), b._child.pid == pid, got(b) == alone(second)]
a = start(first); b = start(second, after=a)
out["queued_collected_first"] = [got(b) == alone(second), got(a) == alone(first)]
a = start(bad); b = start(second, after=a)
out["after_a_failure"] = [got(a), b._child is None, got(b) == alone(second)]
a = start(first); b = start(second, after=a)
a.cancel()
out["after_a_cancel"] = got(b) == alone(second)
a = start(first); b = start(second, after=a)
b.cancel()
out["dropped"] = [got(a) == alone(first), child._idle == [], got(start(second)) == alone(second)]
a = start(first); b = start(second, after=a); c = start(first, after=b)
pid = a._child.pid
out["three_in_a_row"] = [got(a) == alone(first), got(b) == alone(second),
                         c._child.pid == pid, got(c) == alone(first)]
a = start(first); b = start(second, after=a); c = start(first, after=b)
b.cancel()
out["middle_cancelled"] = [got(a) == alone(first), c._after is None, got(c) == alone(first)]
child.end_idle()
print(json.dumps(out))
"""


class BoundedReadTest(unittest.TestCase):
    def test_the_forked_reading_is_read_document_word_for_word(self):
        self.assertEqual(_in_fresh_interpreter(_COMPARE, STATEMENT),
                         {"forked": True, "as_read_document": True, "as_read_pages": True,
                          "page_count": pdf.read_document(STATEMENT).page_count})

    def test_a_child_that_read_well_reads_the_next_file_and_a_failure_ends_it(self):
        documents = os.path.join(FIXTURES, "documents")
        found = _in_fresh_interpreter(_REUSED, os.path.join(documents, "tables.pdf"),
                                      os.path.join(documents, "figure.pdf"),
                                      os.path.join(BAD, "page_tree_flood.pdf"))
        self.assertEqual(found, {"pids": [True, True, False], "as_read_document": [True, True],
                                 "idle_after_failure": [], "waiting_alive_after_end": False})

    def test_a_reading_queued_after_another_is_read_by_its_child_next_or_by_its_own(self):
        documents = os.path.join(FIXTURES, "documents")
        found = _in_fresh_interpreter(_QUEUED, os.path.join(documents, "tables.pdf"),
                                      os.path.join(documents, "figure.pdf"),
                                      os.path.join(BAD, "page_tree_flood.pdf"))
        self.assertEqual(found, {
            "in_order": [True, True, True],  # the first's child went on to the second
            "queued_collected_first": [True, True],  # out of turn: a child of its own
            "after_a_failure": ["CorruptPDFError", True, True],
            "after_a_cancel": True,
            # a child never waits for the next reading with a request nobody collects
            "dropped": [True, True, True],
            "three_in_a_row": [True, True, True, True],
            "middle_cancelled": [True, True, True]})

    @unittest.skipUnless(sys.platform.startswith("linux"), "pipe sizes are set on Linux only")
    def test_a_forked_childs_answer_pipe_holds_a_whole_answer_of_a_megabyte(self):
        found = _in_fresh_interpreter(
            "import fcntl, json, sys\nfrom dua import pdf\n"
            "reading = pdf.start_reading(sys.argv[1])\n"
            "size = fcntl.fcntl(reading._child.fd, getattr(fcntl, 'F_GETPIPE_SZ', 1032))\n"
            "reading.document()\nprint(json.dumps({'size': size}))", STATEMENT)
        with open("/proc/sys/fs/pipe-max-size") as fh:
            allowed = int(fh.read())
        self.assertGreaterEqual(found["size"], min(1 << 20, allowed))

    def test_with_threads_running_a_fresh_interpreter_reads_the_same_words(self):
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            reading = pdf.start_reading(STATEMENT)
            spawned = reading._child.proc is not None
            doc = reading.document()
        finally:
            stop.set()
            other.join()
        self.assertTrue(spawned)
        self.assertEqual(_summary(pdf.read_document(STATEMENT)), _summary(doc))

    def test_lines_images_tables_and_metadata_come_back_as_read_document_reads_them(self):
        for name in ("tables.pdf", "figure.pdf"):
            path = os.path.join(FIXTURES, "documents", name)
            with self.subTest(name):
                here = pdf.read_document(path, with_tables=True)
                there = pdf.read_bounded(path, graphics=True)
                self.assertEqual(_summary(here), _summary(there))
                self.assertEqual(_graphics(here), _graphics(there))
                self.assertTrue(any(p.h_rules or p.images for p in there.pages))
                self.assertEqual({k: str(v) for k, v in here.metadata.items()},
                                 {k: str(v) for k, v in there.metadata.items()})

    def test_a_word_keeps_its_runs_and_its_text_in_the_order_drawn_through_the_child(self):
        import tempfile

        from .test_words import _one_page_pdf

        # glyphs of no width stacked: x sorts them "badc", they were drawn "abcd"; then a
        # word whose halves stand 1.5 pt apart: two runs
        content = (b"BT /F9 1 Tf 1 0 0 1 100 100 Tm [(a) 10 (b) -20 (c) 10 (d)] TJ ET "
                   b"BT /F1 10 Tf 1 0 0 1 20 40 Tm [(ab) -150 (cd)] TJ ET")
        with tempfile.NamedTemporaryFile(suffix=".pdf", delete=False) as fh:
            fh.write(_one_page_pdf(content, 500))
        self.addCleanup(os.unlink, fh.name)
        here = _whole_words(pdf.read_document(fh.name))
        self.assertEqual([(w[0], len(w[7]), w[8]) for w in here],
                         [("badc", 0, "abcd"), ("abcd", 2, "")])
        for graphics in (False, True):
            with self.subTest(graphics=graphics):
                self.assertEqual(_whole_words(pdf.read_bounded(fh.name, graphics=graphics)), here)

    def test_a_bad_file_raises_what_read_document_raises(self):
        for name, error in (("truncated.pdf", errors.CorruptPDFError),
                            ("not_a_pdf.pdf", errors.NotAPDFError),
                            ("empty.pdf", errors.NotAPDFError),
                            ("encrypted.pdf", errors.EncryptedPDFError),
                            ("no_pages.pdf", errors.NoPagesError),
                            ("missing.pdf", errors.DocumentNotFoundError)):
            with self.subTest(name), self.assertRaises(error) as caught:
                pdf.read_bounded(os.path.join(BAD, name))
            with self.subTest(name, where="in process"), self.assertRaises(error) as direct:
                pdf.read_document(os.path.join(BAD, name))
            self.assertEqual(str(caught.exception), str(direct.exception))

    def test_the_password_reaches_the_child(self):
        doc = pdf.read_bounded(os.path.join(BAD, "encrypted.pdf"), "secret")
        self.assertIn("Closing", {w.text for p in doc.pages for w in p.words})

    def test_a_reader_that_never_finishes_is_stopped_at_its_budget_and_says_where(self):
        started = time.monotonic()
        with self.assertRaises(errors.PDFReadTimeoutError) as caught:
            pdf.read_bounded(LOOPS, budget=pdf.ReadBudget(seconds=1.5))
        self.assertLess(time.monotonic() - started, 1.5 + 2.0)
        message = str(caught.exception)
        self.assertIn("could not be read in 1.5 s", message)
        self.assertIn("far too many objects", message)  # the stack says pdfminer drew
        self.assertEqual(caught.exception.exit_code, errors.EXIT_BAD_INPUT)

    def test_forms_that_draw_each_other_end_at_the_memory_budget(self):
        with self.assertRaises(errors.PDFMemoryLimitError) as caught:  # pdfium draws them all
            pdf.read_bounded(os.path.join(BAD, "forms_loop.pdf"),
                             budget=pdf.ReadBudget(seconds=60, memory=256 << 20))
        self.assertIn("256 MB of memory", str(caught.exception))

    def test_a_deflate_bomb_past_the_memory_budget_is_a_memory_error(self):
        budget = pdf.ReadBudget(memory=160 << 20)
        source = os.path.join(FIXTURES, "statements", "printout_enscript", "a.pdf")
        self.assertTrue(pdf.read_bounded(source, budget=budget).pages)  # the budget reads it
        with self.assertRaises(errors.PDFMemoryLimitError) as caught:
            pdf.read_bounded(os.path.join(BAD, "deflate_bomb.pdf"), budget=budget)
        self.assertIn("160 MB of memory", str(caught.exception))
        self.assertEqual(caught.exception.exit_code, errors.EXIT_BAD_INPUT)

    def test_an_appended_20_mb_deflate_bomb_reads_as_the_statement(self):
        source = os.path.join(FIXTURES, "statements", "printout_enscript", "a.pdf")
        bombed = pdf.read_bounded(os.path.join(BAD, "deflate_bomb_appended.pdf"))
        self.assertEqual(_summary(pdf.read_bounded(source)), _summary(bombed))

    def test_a_child_that_dies_is_a_typed_error_with_how_it_died(self):
        reading = pdf.start_reading(LOOPS, budget=pdf.ReadBudget(seconds=30))
        time.sleep(0.3)
        os.kill(reading._child.pid, signal.SIGSEGV)
        with self.assertRaises(errors.CorruptPDFError) as caught:
            reading.document()
        self.assertIn("killed by SIGSEGV", str(caught.exception))

    def test_a_cancelled_reading_leaves_no_child(self):
        reading = pdf.start_reading(LOOPS)
        pid = reading._child.pid
        reading.cancel()
        reading.cancel()  # twice is fine
        self.assertFalse(_alive(pid))


class RequestLinesTest(unittest.TestCase):
    def test_requests_waiting_together_on_the_inbox_are_read_one_at_a_time(self):
        read_end, write_end = os.pipe()
        try:  # a batch's files queued on a busy child arrive in one read
            os.write(write_end, b'{"path": "a.pdf"}\n{"path": "b.pdf"}\n{"path": ')
            pending = bytearray()
            self.assertEqual(child._next_request(read_end, pending), {"path": "a.pdf"})
            self.assertEqual(child._next_request(read_end, pending), {"path": "b.pdf"})
            os.write(write_end, b'"c.pdf"}\n')
            os.close(write_end)
            write_end = None
            self.assertEqual(child._next_request(read_end, pending), {"path": "c.pdf"})
            self.assertIsNone(child._next_request(read_end, pending))
        finally:
            os.close(read_end)
            if write_end is not None:
                os.close(write_end)


class LateCollectionTest(unittest.TestCase):
    def test_an_answer_sent_in_time_and_collected_after_the_deadline_still_counts(self):
        # a file read ahead of its turn: its child answered, the parent came back late
        read_end, write_end = os.pipe()
        try:
            os.write(write_end, b'{"count": 1}\n{"pages": []}\n')
            late = child.Child(os.getpid(), read_end)
            past = time.monotonic() - 1.0
            self.assertEqual(late.next_message(past), {"count": 1})
            self.assertEqual(late.next_message(past), {"pages": []})
            self.assertIsNone(late.next_message(past))  # nothing more sent: out of time
        finally:
            os.close(read_end)
            os.close(write_end)


class PageTreeTest(unittest.TestCase):
    def test_a_file_whose_xref_is_one_byte_off_is_read_from_pdfiums_repair(self):
        source = pdf.read_bounded(os.path.join(FIXTURES, "statements", "troff_tbl", "a.pdf"))
        doc = pdf.read_bounded(os.path.join(BAD, "shifted_xref.pdf"))
        self.assertEqual([[w.text for w in p.words] for p in source.pages],
                         [[w.text for w in p.words] for p in doc.pages])
        self.assertIn("pdfium's repair", doc.pages[0].why)

    def test_a_broken_page_tree_with_no_text_reads_as_blank_pages(self):
        doc = pdf.read_bounded(os.path.join(BAD, "shifted_image_only.pdf"))
        self.assertEqual((len(doc.pages), doc.char_count, doc.pages[0].reader), (2, 0, "pdfium"))
        with self.assertRaises(errors.NoTextLayerError):
            pdf.require_text_layer(doc)

    def test_a_page_tree_of_2000_catalogs_is_a_damaged_file(self):
        with self.assertRaises(errors.CorruptPDFError) as caught:
            pdf.read_bounded(os.path.join(BAD, "page_tree_flood.pdf"))
        self.assertIn("page tree is broken", str(caught.exception))

    def test_a_valid_file_with_no_pages_says_so(self):
        with self.assertRaises(errors.NoPagesError) as caught:
            pdf.read_bounded(os.path.join(BAD, "no_pages.pdf"))
        self.assertIn("has no pages: its page tree is empty or broken", str(caught.exception))

    def test_information_nested_5000_deep_still_reads(self):
        doc = pdf.read_bounded(os.path.join(BAD, "deep_nesting.pdf"), graphics=True)
        self.assertGreater(doc.char_count, 0)


class BudgetTest(unittest.TestCase):
    def test_the_default_budget_grows_with_the_pages_up_to_its_cap(self):
        budget = pdf.ReadBudget()
        self.assertEqual(budget.limit(None), 30.0)
        self.assertEqual(budget.limit(4), 34.0)
        self.assertEqual(budget.limit(100_000), 600.0)
        self.assertEqual(pdf.ReadBudget(seconds=5).limit(1000), 5)


class ChildCollectorTest(unittest.TestCase):
    def test_a_reading_child_collects_cycles_seldom_and_leaves_what_it_started_with_out(self):
        # in an interpreter of its own: the thresholds are the whole process's
        code = ("import gc, json, os, sys; from dua.pdf import child; "
                "child._begin(os.dup(1), {'parent': os.getppid()}); "
                "print(json.dumps([gc.get_threshold(), gc.get_freeze_count()]))")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             cwd=REPO, check=True).stdout
        thresholds, frozen = json.loads(out.splitlines()[-1])
        self.assertEqual(tuple(thresholds), child._COLLECT_AT)
        self.assertGreater(thresholds[0], 700)  # pdfminer's objects outlive a default pass
        self.assertGreater(frozen, 0)


class ChildErrorTest(unittest.TestCase):
    def test_a_foreign_error_inside_a_pdf_library_is_a_damaged_file(self):
        exc = _raised_from(os.path.join("site-packages", "pdfminer", "layout.py"))
        typed = child._translate(exc, "x.pdf")
        self.assertIsInstance(typed, errors.CorruptPDFError)
        self.assertIn("pdfminer failed on it (ZeroDivisionError", typed.message)

    def test_a_foreign_error_inside_dua_is_a_bug_that_names_where(self):
        exc = _raised_from(os.path.join("dua", "pdf", "chars.py"))
        typed = child._translate(exc, "x.pdf")
        self.assertIsInstance(typed, errors.UnexpectedError)
        self.assertIn("at dua/pdf/chars.py:1 in <module>", typed.message)

    def test_recursion_and_memory_errors_are_typed_as_the_file(self):
        self.assertIsInstance(child._translate(RecursionError("deep"), "x.pdf"),
                              errors.CorruptPDFError)
        self.assertIsInstance(child._translate(MemoryError(), "x.pdf"),
                              errors.PDFMemoryLimitError)


def _raised_from(filename: str) -> BaseException:
    try:
        exec(compile("1 / 0", os.path.join(os.sep, "x", filename), "exec"))
    except ZeroDivisionError as exc:
        return exc
    raise AssertionError("no exception")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


if __name__ == "__main__":
    unittest.main()
