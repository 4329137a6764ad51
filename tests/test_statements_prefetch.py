"""The statement read in a forked copy: the very words pdf.read_document reads, and its errors.

A copy is forked only while no other thread runs; the test runner's earlier tests leave
threads behind, so the forking cases run in a fresh interpreter of their own.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import unittest

from dua import errors, pdf
from dua.statements import prefetch

from .support import FIXTURES, REPO

STATEMENT = os.path.join(FIXTURES, "statements", "longform_us_html", "b.pdf")
BAD = os.path.join(FIXTURES, "bad")


def _summary(doc) -> list:
    return [(p.number, p.width, p.height, p.char_count, p.reader, p.why,
             [(w.text, w.x0, w.x1, w.top, w.bottom, w.font, w.size) for w in p.words])
            for p in doc.pages]


def _in_fresh_interpreter(code: str, *args: str) -> dict:
    """Run ``code`` with ``args`` (which prints one JSON object) where no other thread runs."""
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=REPO, timeout=120)
    if proc.returncode != 0:
        raise AssertionError(f"the fresh interpreter failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


_COMPARE = """
import json, sys
from dua import pdf
from dua.pdf import words
from dua.statements import prefetch
from tests.test_statements_prefetch import _summary
path, password = (sys.argv[1:] + [None])[:2]
reading = prefetch.start(path, password)
doc = reading.document()
direct = words.read_pages(path, password)
print(json.dumps({
    "forked": reading.pages is not None,
    "as_read_document": _summary(pdf.read_document(path, password)) == _summary(doc),
    "as_read_pages": json.loads(json.dumps(direct)) == reading.pages}))
"""


class PrefetchTest(unittest.TestCase):
    def compare(self, *args: str) -> dict:
        return _in_fresh_interpreter(_COMPARE, *args)

    def test_the_forked_reading_is_read_document_word_for_word(self):
        self.assertEqual(self.compare(STATEMENT),
                         {"forked": True, "as_read_document": True, "as_read_pages": True})

    def test_a_bad_file_raises_what_read_document_raises(self):
        for name, error in (("truncated.pdf", errors.CorruptPDFError),
                            ("not_a_pdf.pdf", errors.NotAPDFError),
                            ("empty.pdf", errors.NotAPDFError),
                            ("encrypted.pdf", errors.EncryptedPDFError),
                            ("missing.pdf", errors.DocumentNotFoundError)):
            with self.subTest(name), self.assertRaises(error):
                prefetch.start(os.path.join(BAD, name)).document()

    def test_the_password_reaches_the_forked_reader(self):
        self.assertEqual(self.compare(os.path.join(BAD, "encrypted.pdf"), "secret"),
                         {"forked": True, "as_read_document": True, "as_read_pages": True})

    def test_no_fork_while_another_thread_runs(self):
        stop = threading.Event()
        other = threading.Thread(target=stop.wait)
        other.start()
        try:
            reading = prefetch.start(STATEMENT)
            doc = reading.document()
        finally:
            stop.set()
            other.join()
        self.assertIsNone(reading.pages)
        self.assertEqual(_summary(pdf.read_document(STATEMENT)), _summary(doc))

    def test_a_cancelled_reading_leaves_no_child_behind(self):
        found = _in_fresh_interpreter("""
import json, os, sys
from dua.statements import prefetch
reading = prefetch.start(sys.argv[1])
pid = reading._child[0]
reading.cancel()
try:
    os.waitpid(pid, os.WNOHANG)
    left = True
except ChildProcessError:
    left = False
reading.cancel()  # twice is fine
print(json.dumps({"child_left": left}))
""", STATEMENT)
        self.assertEqual(found, {"child_left": False})


if __name__ == "__main__":
    unittest.main()
