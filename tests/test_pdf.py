"""dua.pdf.read_document: which missing dependency it blames, reading without pypdfium2, and
rules, images and tables from the reader's own scan."""
from __future__ import annotations

import os
import sys
import unittest
from unittest import mock

from dua import errors
from dua.pdf import read_document, words

from .support import FIXTURES

PDF = os.path.join(FIXTURES, "statements", "plain_western", "a.pdf")


class MissingDependencyTest(unittest.TestCase):
    def _read_failing_with(self, exc: ImportError) -> errors.MissingDependencyError:
        with mock.patch.object(words, "_read_pages", side_effect=exc):
            with self.assertRaises(errors.MissingDependencyError) as caught:
                read_document(PDF)
        return caught.exception

    def test_a_missing_pdfplumber_says_pdfplumber_is_not_installed(self):
        exc = self._read_failing_with(ModuleNotFoundError("no pdfplumber", name="pdfplumber"))
        self.assertEqual("pdfplumber is not installed", exc.message)

    def test_another_missing_module_is_named_instead_of_pdfplumber(self):
        exc = self._read_failing_with(ModuleNotFoundError("no PIL", name="PIL.Image"))
        self.assertEqual("PIL is not installed (pdfplumber needs it)", exc.message)

    def test_a_missing_pypdfium2_changes_nothing_the_reader_needs_pdfminer_only(self):
        saved = sys.modules.get("pypdfium2")
        sys.modules["pypdfium2"] = None  # import pypdfium2 now raises ImportError
        try:
            doc = read_document(PDF)
        finally:
            sys.modules.pop("pypdfium2")
            if saved is not None:
                sys.modules["pypdfium2"] = saved
        self.assertTrue(doc.pages)
        self.assertEqual({"dua"}, {p.reader for p in doc.pages})


class PackageShapeTest(unittest.TestCase):
    def test_the_pdf_package_modules_import_no_circle(self):
        import ast
        import dua.pdf

        folder = os.path.dirname(dua.pdf.__file__)
        graph = {}
        for name in os.listdir(folder):
            if name.endswith(".py") and name != "__init__.py":
                with open(os.path.join(folder, name), encoding="utf-8") as fh:
                    tree = ast.parse(fh.read())
                graph[name[:-3]] = {
                    alias.name if node.module is None else node.module
                    for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level == 1
                    for alias in (node.names if node.module is None else [node])}
        self.assertGreaterEqual(len(graph), 5)
        done, stack = set(), []

        def visit(module):
            self.assertNotIn(module, stack, f"import circle: {stack + [module]}")
            if module in done or module not in graph:
                return
            stack.append(module)
            for nxt in graph[module]:
                visit(nxt)
            stack.pop()
            done.add(module)

        for module in graph:
            visit(module)


if __name__ == "__main__":
    unittest.main()


class GraphicsParityTest(unittest.TestCase):
    """What ``dua extract`` reads besides words comes from the reader's own scan: the same
    ruling lines, images, ruled tables and metadata as pdfplumber's, on every document
    fixture (the producers ``dua extract`` is measured on)."""

    def test_rules_images_tables_and_metadata_equal_pdfplumbers_on_every_document(self):
        import glob

        import pdfplumber

        from dua.pdf import document

        paths = sorted(glob.glob(os.path.join(FIXTURES, "documents", "**", "*.pdf"),
                                 recursive=True))
        self.assertGreaterEqual(len(paths), 15)  # six made here, twelve by real producers
        readers = set()
        for path in paths:
            doc = document.read_document(path, with_tables=True)
            with pdfplumber.open(path) as pdf:
                self.assertEqual(doc.metadata, dict(pdf.metadata or {}), path)
                for page in doc.pages:
                    ref = pdf.pages[page.number - 1]
                    readers.add(page.reader)
                    with self.subTest(path=os.path.basename(path), page=page.number):
                        self.assertEqual(((page.h_rules, page.v_rules, page.images), page.tables),
                                         (document._graphics(ref), document.read_tables(ref)))
                    ref.close()
        self.assertEqual(readers, {"dua"})  # none of these pages took pdfplumber's path

    def test_the_table_finder_is_asked_only_where_three_edges_run_each_way(self):
        from unittest import mock

        from pdfplumber import table

        from dua.pdf import graphics

        def page(across: int, down: int):
            paths = graphics._Paths(200)
            for i in range(across):  # rules 100 pt long, 20 pt apart, and the same down
                for word, values in ((b"m", (10, 10 + 20 * i)), (b"l", (110, 10 + 20 * i)),
                                     (b"S", ())):
                    paths.op(word, values, (1, 0, 0, 1, 0, 0))
            for i in range(down):
                for word, values in ((b"m", (10 + 50 * i, 10)), (b"l", (10 + 50 * i, 110)),
                                     (b"S", ())):
                    paths.op(word, values, (1, 0, 0, 1, 0, 0))
            return paths

        real = table.TableFinder
        with mock.patch.object(table, "TableFinder", side_effect=real) as finder:
            self.assertEqual(page(2, 3).tables(200), [])
            self.assertEqual(page(6, 2).tables(200), [])
            self.assertEqual(finder.call_count, 0)
            grid = page(3, 3).tables(200)
            self.assertEqual(finder.call_count, 1)
        self.assertEqual([(len(t.rows), len(t.rows[0].cells)) for t in grid], [(2, 2)])

