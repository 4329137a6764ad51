"""The statement read in a forked copy: the very words pdf.read_document reads, and its errors."""
from __future__ import annotations

import os
import threading
import unittest

from dua import errors, pdf, words
from dua.statements import prefetch

from .support import FIXTURES

STATEMENT = os.path.join(FIXTURES, "statements", "longform_us_html", "b.pdf")
BAD = os.path.join(FIXTURES, "bad")


def _summary(doc) -> list:
    return [(p.number, p.width, p.height, p.char_count, p.reader, p.why,
             [(w.text, w.x0, w.x1, w.top, w.bottom, w.font, w.size) for w in p.words])
            for p in doc.pages]


class PrefetchTest(unittest.TestCase):
    def test_the_forked_reading_is_read_document_word_for_word(self):
        reading = prefetch.start(STATEMENT)
        doc = reading.document()
        self.assertIsNotNone(reading.pages, "no fork delivered the pages")
        self.assertEqual(_summary(pdf.read_document(STATEMENT)), _summary(doc))
        direct = words.read_pages(STATEMENT)
        self.assertEqual([dict(p, words=[list(w) for w in p["words"]]) for p in direct],
                         reading.pages)

    def test_a_bad_file_raises_what_read_document_raises(self):
        for name, error in (("truncated.pdf", errors.CorruptPDFError),
                            ("not_a_pdf.pdf", errors.NotAPDFError),
                            ("empty.pdf", errors.NotAPDFError),
                            ("encrypted.pdf", errors.EncryptedPDFError),
                            ("missing.pdf", errors.DocumentNotFoundError)):
            with self.subTest(name), self.assertRaises(error):
                prefetch.start(os.path.join(BAD, name)).document()

    def test_the_password_reaches_the_forked_reader(self):
        reading = prefetch.start(os.path.join(BAD, "encrypted.pdf"), "secret")
        doc = reading.document()
        self.assertIsNotNone(reading.pages)
        self.assertEqual(_summary(pdf.read_document(os.path.join(BAD, "encrypted.pdf"),
                                                    password="secret")), _summary(doc))

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
        reading = prefetch.start(STATEMENT)
        pid = reading._child[0]
        reading.cancel()
        with self.assertRaises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        reading.cancel()  # twice is fine


if __name__ == "__main__":
    unittest.main()
