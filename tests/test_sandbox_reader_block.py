"""The word reader copied into parsers: the policy lets exactly that copy use pdfium."""
from __future__ import annotations

import ast
import unittest

from dua.sandbox import check_source, reader_block

HEAD = "import pandas as pd\n\n\n"
PARSE = '''

def parse(pdf_path):
    pages = read_pages(pdf_path)
    return pd.DataFrame({"text": [w[0] for p in pages for w in p["words"]]})
'''


def _parser(block: str, extra: str = "") -> str:
    return HEAD + block + extra + PARSE


def _reasons(violations: list) -> str:
    return " | ".join(str(v) for v in violations)


class ReaderBlockTest(unittest.TestCase):
    def test_the_block_holds_no_docstring_future_or_relative_import(self):
        tree = ast.parse(reader_block.source())
        self.assertIsInstance(tree.body[0], ast.FunctionDef)
        self.assertEqual("read_pages", tree.body[0].name)
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                self.assertEqual(0, node.level)
                self.assertNotEqual("__future__", node.module)

    def test_the_engine_and_the_reader_share_no_top_level_name(self):
        # both are copied into one parser module: a shared name would be rebound, and the
        # policy would refuse every parser the writer saves
        from dua.statements.agent import writer

        engine = set()
        for stmt in ast.parse(writer.engine_body()).body:
            if isinstance(stmt, (ast.FunctionDef, ast.ClassDef)):
                engine.add(stmt.name)
            elif isinstance(stmt, ast.Assign):
                engine.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
        reader = reader_block.private_names() | {reader_block.PUBLIC}
        self.assertEqual(set(), engine & reader)

    def test_a_parser_holding_the_verbatim_reader_passes(self):
        self.assertEqual([], check_source(_parser(reader_block.source())))

    def test_a_copy_changed_in_one_line_is_refused(self):
        block = reader_block.source().replace("data = fh.read()", "data = fh.read(); pdfium = 1",
                                              1)
        violations = check_source(_parser(block))
        self.assertTrue(any("pdfium" in v.reason for v in violations), _reasons(violations))
        self.assertTrue(any("'open'" in v.reason for v in violations), _reasons(violations))

    def test_finding_by_text_agrees_with_finding_by_syntax_tree(self):
        block = reader_block.source()
        second = [s.name for s in ast.parse(block).body if isinstance(s, ast.FunctionDef)][1]
        decorated = block.replace(f"\ndef {second}(", f"\n@staticmethod\ndef {second}(", 1)
        changed = block.replace("data = fh.read()", "data = fh.read(); pdfium = 1", 1)
        self.assertNotIn(block, (decorated, changed))
        for name, text, found in (("verbatim", block, True), ("decorated", decorated, False),
                                  ("crlf", block.replace("\n", "\r\n"), True),
                                  ("a changed line", changed, False)):
            with self.subTest(name):
                source = _parser(text)
                tree = ast.parse(source)
                self.assertEqual(reader_block.find(tree), reader_block.find(tree, source))
                self.assertEqual(found, reader_block.find(tree, source) is not None)

    def test_the_reader_is_refused_when_not_at_the_top_level(self):
        indented = "".join("    " + line if line.strip() else line
                           for line in reader_block.source().splitlines(True))
        self.assertNotEqual([], check_source(_parser("class Hidden:\n" + indented)))

    def test_overriding_a_private_reader_name_is_refused(self):
        for extra in ("\ndef _words(chars):\n    return []\n",
                      "\n_LIGATURES = {}\n",
                      "\ndef parse2(pdf_path):\n    return _plumber_pages(pdf_path, None, None, '', None)\n",
                      "\ndef parse3(x):\n    return x._usual_size\n"):
            with self.subTest(extra=extra.strip()):
                violations = check_source(_parser(reader_block.source(), extra))
                self.assertTrue(any("word reader" in v.reason for v in violations),
                                _reasons(violations))

    def test_rebinding_read_pages_outside_the_reader_is_refused(self):
        extra = "\ndef read_pages(pdf_path, password=None, pages=None):\n    return []\n"
        violations = check_source(_parser(reader_block.source(), extra))
        self.assertIn("'read_pages' belongs to dua's word reader", _reasons(violations))

    def test_pdfium_spelled_anywhere_outside_the_reader_is_refused(self):
        for body in ("import pypdfium2", "from pdfplumber.display import pypdfium2 as p",
                     "import pdfplumber.display as d\n    d.pypdfium2.raw",
                     "import pdfplumber.display as d\n    getattr(d, 'pypdfium2')",
                     "'{0.pypdfium2}'.format(pdf_path)", "dict(pypdfium2=1)",
                     "def f(pdfium):\n        pass"):
            with self.subTest(body=body):
                source = HEAD + "def parse(pdf_path):\n    " + body + "\n"
                violations = check_source(source)
                self.assertTrue(any("pdfium" in v.reason for v in violations),
                                _reasons(violations))

    def test_getattr_passed_on_instead_of_called_is_refused(self):
        for body in ("g = getattr\n    return g(pd, 'x' + 'y')",
                     "return list(map(getattr, [pd], ['x']))",
                     "import operator\n    f = operator.attrgetter\n    return f('x')"):
            with self.subTest(body=body):
                violations = check_source(HEAD + "def parse(pdf_path):\n    " + body + "\n")
                self.assertIn("may only be called directly", _reasons(violations))


if __name__ == "__main__":
    unittest.main()
