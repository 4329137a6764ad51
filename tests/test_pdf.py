"""dua.pdf.read_document: which missing dependency it blames, and reading without pypdfium2."""
from __future__ import annotations

import os
import sys
import unittest
from unittest import mock

from dua import errors, words
from dua.pdf import read_document

from .support import FIXTURES

PDF = os.path.join(FIXTURES, "statements", "plain_western", "a.pdf")


class MissingDependencyTest(unittest.TestCase):
    def _read_failing_with(self, exc: ImportError) -> errors.MissingDependencyError:
        with mock.patch.object(words, "read_pages", side_effect=exc):
            with self.assertRaises(errors.MissingDependencyError) as caught:
                read_document(PDF)
        return caught.exception

    def test_a_missing_pdfplumber_says_pdfplumber_is_not_installed(self):
        exc = self._read_failing_with(ModuleNotFoundError("no pdfplumber", name="pdfplumber"))
        self.assertEqual("pdfplumber is not installed", exc.message)

    def test_another_missing_module_is_named_instead_of_pdfplumber(self):
        exc = self._read_failing_with(ModuleNotFoundError("no PIL", name="PIL.Image"))
        self.assertEqual("PIL is not installed (pdfplumber needs it)", exc.message)

    def test_a_missing_pypdfium2_means_pdfplumber_reads_every_page(self):
        saved = sys.modules.get("pypdfium2")
        sys.modules["pypdfium2"] = None  # import pypdfium2 now raises ImportError
        try:
            doc = read_document(PDF)
        finally:
            sys.modules.pop("pypdfium2")
            if saved is not None:
                sys.modules["pypdfium2"] = saved
        self.assertTrue(doc.pages)
        self.assertEqual({"pdfplumber"}, {p.reader for p in doc.pages})
        self.assertIn("not installed", doc.pages[0].why)


if __name__ == "__main__":
    unittest.main()
