"""Running parsers in the sandbox: exact results, typed outcomes, a fresh limited process each time."""
from __future__ import annotations

import json
import os
import tempfile
import unittest

import pandas as pd

from dua import errors
from dua.sandbox import Limits, Sandbox, run_parser

from .sandbox_support import PARSERS, make_statement
from .support import FIXTURES, shared_sample

TEXT_PARSER = """import pandas as pd
import pdfplumber


def parse(pdf_path):
    with pdfplumber.open(pdf_path) as pdf:
        return pd.DataFrame({"text": [page.extract_text() for page in pdf.pages]})
"""
# Reads facts about its own process; needs the static check off (it imports os, sys, resource).
INTROSPECT = """import os, resource, sys
import pandas as pd


def parse(pdf_path):
    return pd.DataFrame({
        "cwd": [os.getcwd()], "pid": [os.getpid()], "pgid": [os.getpgid(0)],
        "isolated": [sys.flags.isolated], "env": [",".join(sorted(os.environ))],
        "as": [resource.getrlimit(resource.RLIMIT_AS)[1]],
        "cpu": [resource.getrlimit(resource.RLIMIT_CPU)[1]],
        "fsize": [resource.getrlimit(resource.RLIMIT_FSIZE)[1]],
        "nofile": [resource.getrlimit(resource.RLIMIT_NOFILE)[1]],
    })
"""
COUNTER = """import json
import pandas as pd


def parse(pdf_path):
    json.dua_runs = getattr(json, "dua_runs", 0) + 1
    print("run", json.dua_runs)
    return pd.DataFrame({"runs": [json.dua_runs]})
"""


class SandboxRunTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="dua-sandbox-test-")
        cls.sandbox = Sandbox(Limits(memory=512 << 20)).start()
        cls.pdf = make_statement(cls.path("statement.pdf"))

    @classmethod
    def tearDownClass(cls):
        cls.sandbox.close()
        cls.tmp.cleanup()

    @classmethod
    def path(cls, name: str) -> str:
        return os.path.join(cls.tmp.name, name)

    def write(self, name: str, text: str) -> str:
        with open(self.path(name), "w") as fh:
            fh.write(text)
        return self.path(name)

    def test_icici_parser_returns_exactly_the_expected_csv(self):
        pdf = shared_sample("icici", "icici_sample.pdf")
        expected = pd.read_csv(shared_sample("icici", "result.csv"))
        df = self.sandbox.run(os.path.join(PARSERS, "icici_parser.py"), pdf, timeout=30)
        self.assertTrue(df.equals(expected))
        self.assertEqual(list(expected.dtypes), list(df.dtypes))

    def test_run_parser_uses_a_shared_default_sandbox(self):
        parser = self.write("text_parser.py", TEXT_PARSER)
        df = run_parser(parser, self.pdf, timeout=30)
        self.assertIn("Salary", df["text"][0])

    def test_a_parser_saved_with_a_bom_runs_and_one_not_in_utf8_is_named(self):
        parser = self.path("bom_parser.py")
        with open(parser, "w", encoding="utf-8-sig") as fh:  # what Windows editors save
            fh.write(TEXT_PARSER)
        self.assertIn("Salary", self.sandbox.run(parser, self.pdf, timeout=30)["text"][0])
        with self.assertRaisesRegex(errors.PolicyViolationError, "is not UTF-8 text"):
            self.sandbox.run(self.pdf, self.pdf, timeout=30)  # a PDF passed as the parser

    def test_every_run_is_a_fresh_process_from_the_preloaded_server(self):
        parser = self.write("counter.py", COUNTER)
        for _ in range(3):
            self.assertEqual([1], self.sandbox.run(parser, self.pdf)["runs"].tolist())
        self.assertEqual("run 1\n", self.sandbox.last_run.output)

    def test_child_runs_isolated_in_its_own_group_cwd_and_limits(self):
        parser = self.write("introspect.py", INTROSPECT)
        row = self.sandbox.run(parser, self.pdf, timeout=7, static_check=False).iloc[0]
        self.assertTrue(os.path.basename(row["cwd"]).startswith("dua-sandbox-"))
        self.assertFalse(os.path.exists(row["cwd"]), "the working directory was not removed")
        self.assertEqual(row["pid"], row["pgid"])
        self.assertEqual(1, row["isolated"])
        self.assertNotIn("DUA_LLM_API_KEY", row["env"])
        self.assertEqual(["HOME", "LANG", "LC_ALL"], [k for k in row["env"].split(",")
                                                     if k[0] in "HL"])
        self.assertEqual((9, 0, 64), (row["cpu"], row["fsize"], row["nofile"]))
        self.assertGreater(row["as"], 512 << 20)

    def test_crash_reports_only_frames_inside_the_parser(self):
        parser = os.path.join(PARSERS, "crash_in_helper.py")
        with self.assertRaises(errors.ParserCrashedError) as caught:
            self.sandbox.run(parser, self.pdf)
        exc = caught.exception
        self.assertEqual("KeyError", exc.exception)
        self.assertEqual("'Balance'", exc.exception_message)
        lines = [f["line"] for f in exc.frames]  # 3.11 adds a <listcomp> frame on line 9
        self.assertEqual((15, 9), (lines[0], lines[-1]))
        self.assertEqual({15, 9}, set(lines))
        self.assertEqual("parse", exc.frames[0]["function"])
        self.assertIn("line 9", exc.message)
        self.assertIn("return [row[name] for row in rows]", exc.message)
        json.dumps(exc.to_payload("test"))

    def test_output_printed_before_a_crash_is_kept_on_the_error(self):
        parser = self.write("prints.py", "def parse(pdf_path):\n    print('looking at', 1)\n"
                                         "    raise RuntimeError('no table')\n")
        with self.assertRaises(errors.ParserCrashedError) as caught:
            self.sandbox.run(parser, self.pdf)
        self.assertEqual("looking at 1\n", caught.exception.output)
        self.assertIn("RuntimeError at line 3 in parse()", caught.exception.message)

    def test_a_stopped_parser_keeps_what_it_printed_on_the_timeout_error(self):
        parser = self.write("slow.py", "def parse(pdf_path):\n    print('reading page 1')\n"
                                       "    while True:\n        pass\n")
        with self.assertRaises(errors.ParserTimeoutError) as caught:
            self.sandbox.run(parser, self.pdf, timeout=0.5)
        self.assertEqual("reading page 1\n", caught.exception.output)
        self.assertEqual(0.5, caught.exception.timeout)
        self.assertIn("ran past the 0.5 s time limit", caught.exception.user_message)
        self.assertIn("--timeout", caught.exception.user_message)

    def test_system_exit_and_syntax_errors_at_run_time_are_crashes(self):
        cases = {"exit.py": ("def parse(pdf_path):\n    raise SystemExit(3)\n", "SystemExit"),
                 "syntax.py": ("def parse(pdf_path):\n    return (\n", "SyntaxError")}
        for name, (source, exc_name) in cases.items():
            with self.subTest(case=name):
                with self.assertRaises(errors.ParserCrashedError) as caught:
                    self.sandbox.run(self.write(name, source), self.pdf, static_check=False)
                self.assertEqual(exc_name, caught.exception.exception)

    def test_a_value_that_cannot_be_sent_back_is_a_bad_return_value(self):
        parser = self.write("setval.py", "import pandas as pd\n\ndef parse(pdf_path):\n"
                                         "    return pd.DataFrame({'a': [{1, 2}]})\n")
        with self.assertRaisesRegex(errors.BadReturnValueError, "column 'a'.*type set"):
            self.sandbox.run(parser, self.pdf)

    def test_static_violations_are_raised_before_anything_runs(self):
        parser = self.write("evil.py", "import os\n\ndef parse(pdf_path):\n    os.system('x')\n")
        with self.assertRaises(errors.PolicyViolationError) as caught:
            self.sandbox.run(parser, self.pdf)
        exc = caught.exception
        self.assertEqual("static", exc.stage)
        self.assertEqual([1, 4], [v.line for v in exc.violations])  # the import, then .system
        self.assertIn("evil.py was rejected by the safety policy: line 1: import of 'os'",
                      exc.message)
        self.assertEqual("PARSER_REJECTED", exc.to_payload("t")["data"]["error_code"])

    def test_bad_arguments(self):
        parser = self.write("text_parser.py", TEXT_PARSER)
        with self.assertRaises(errors.DocumentNotFoundError):
            self.sandbox.run(self.path("missing.py"), self.pdf)
        with self.assertRaises(errors.DocumentNotFoundError):
            self.sandbox.run(parser, self.path("missing.pdf"))
        for timeout in (0, -1, float("nan"), float("inf"), "5"):
            with self.subTest(timeout=timeout), self.assertRaises(ValueError):
                self.sandbox.run(parser, self.pdf, timeout=timeout)

    def test_a_closed_sandbox_starts_again_on_the_next_run(self):
        parser = self.write("text_parser.py", TEXT_PARSER)
        with Sandbox() as sandbox:
            sandbox.run(parser, self.pdf)
            first = sandbox._server
            sandbox.close()
            self.assertFalse(first.alive())
            self.assertEqual(1, len(sandbox.run(parser, self.pdf)))
        self.assertIsNone(sandbox._server)


class SandboxDocumentErrorTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="dua-sandbox-doc-")
        cls.sandbox = Sandbox().start()
        cls.parser = os.path.join(cls.tmp.name, "text_parser.py")
        with open(cls.parser, "w") as fh:
            fh.write(TEXT_PARSER)

    @classmethod
    def tearDownClass(cls):
        cls.sandbox.close()
        cls.tmp.cleanup()

    def _file(self, name: str, data: bytes) -> str:
        path = os.path.join(self.tmp.name, name)
        with open(path, "wb") as fh:
            fh.write(data)
        return path

    def test_not_a_pdf_is_refused_before_the_run(self):
        with self.assertRaises(errors.NotAPDFError):
            self.sandbox.run(self.parser, self._file("notes.pdf", b"just text\n"))

    def test_a_truncated_pdf_is_a_corrupt_pdf_error(self):
        whole = make_statement(os.path.join(self.tmp.name, "whole.pdf"))
        with open(whole, "rb") as fh:
            data = fh.read()
        with self.assertRaises(errors.CorruptPDFError):
            self.sandbox.run(self.parser, self._file("cut.pdf", data[:60]))

    def test_an_encrypted_pdf_needs_its_password(self):
        pdf = make_statement(os.path.join(self.tmp.name, "locked.pdf"), password="s3cret")
        with self.assertRaises(errors.EncryptedPDFError):
            self.sandbox.run(self.parser, pdf)
        with self.assertRaises(errors.EncryptedPDFError):
            self.sandbox.run(self.parser, pdf, password="wrong")
        df = self.sandbox.run(self.parser, pdf, password="s3cret")
        self.assertIn("Salary", df["text"][0])

    def test_a_scan_without_text_is_a_no_text_layer_error(self):
        pdf = make_statement(os.path.join(self.tmp.name, "scan.pdf"), text=False)
        empty = self._file("empty.py", b"import pandas as pd\n\ndef parse(pdf_path):\n"
                                       b"    return pd.DataFrame()\n")
        for parser in (empty, os.path.join(PARSERS, "icici_parser.py")):  # no rows; a crash
            with self.subTest(parser=os.path.basename(parser)):
                with self.assertRaisesRegex(errors.NoTextLayerError, "has no text layer: its 1 page is an image"):
                    self.sandbox.run(parser, pdf)
        # a parser that returns rows is believed: the text-layer check runs only on failure
        self.assertEqual([""], self.sandbox.run(self.parser, pdf)["text"].tolist())
    def test_the_shared_bad_fixtures_end_in_their_document_errors(self):
        bad = os.path.join(FIXTURES, "bad")
        cases = {"not_a_pdf.pdf": errors.NotAPDFError, "empty.pdf": errors.NotAPDFError,
                 "truncated.pdf": errors.CorruptPDFError,
                 "encrypted.pdf": errors.EncryptedPDFError,
                 "image_only.pdf": errors.NoTextLayerError}
        icici = os.path.join(PARSERS, "icici_parser.py")  # crashes on anything but icici
        for name, error in cases.items():
            with self.subTest(fixture=name), self.assertRaises(error):
                self.sandbox.run(icici, os.path.join(bad, name))

    def test_the_scanned_public_sample_is_a_no_text_layer_error(self):
        pdf = shared_sample("sbi_scanned", "statement.pdf")
        with self.assertRaisesRegex(errors.NoTextLayerError, "3 pages are images"):
            self.sandbox.run(os.path.join(PARSERS, "icici_parser.py"), pdf)


class SandboxWordReaderTest(unittest.TestCase):
    """A parser holding dua's word reader gets its words, read before the guard is armed."""

    @classmethod
    def setUpClass(cls):
        from dua.sandbox import reader_block

        cls.tmp = tempfile.TemporaryDirectory(prefix="dua-sandbox-reader-")
        cls.sandbox = Sandbox().start()
        cls.block = reader_block.source()

    @classmethod
    def tearDownClass(cls):
        cls.sandbox.close()
        cls.tmp.cleanup()

    def _parser(self, call: str) -> str:
        path = os.path.join(self.tmp.name, "reader_parser.py")
        with open(path, "w") as fh:
            fh.write("import pandas as pd\n\n\n" + self.block + "\n\ndef parse(pdf_path):\n"
                     f"    pages = {call}\n"
                     '    return pd.DataFrame({"text": [w[0] for p in pages for w in p["words"]],\n'
                     '                         "reader": [p["reader"] for p in pages\n'
                     '                                    for w in p["words"]]})\n')
        return path

    def test_the_reader_hands_over_words_read_before_the_guard(self):
        pdf = make_statement(os.path.join(self.tmp.name, "statement.pdf"))
        df = self.sandbox.run(self._parser("read_pages(pdf_path)"), pdf, timeout=20)
        self.assertIn("Salary", df["text"].tolist())
        self.assertEqual({"dua"}, set(df["reader"]))

    def test_words_the_caller_read_already_are_handed_over_instead_of_read_again(self):
        from dua.pdf import words

        pdf = make_statement(os.path.join(self.tmp.name, "given.pdf"))
        parser = self._parser("read_pages(pdf_path)")
        read = words.read_pages(pdf)
        same = self.sandbox.run(parser, pdf, timeout=20, words=read)
        self.assertTrue(same.equals(self.sandbox.run(parser, pdf, timeout=20)))
        renamed = [dict(p, words=[("Wages",) + tuple(w[1:]) if w[0] == "Salary" else w
                                  for w in p["words"]]) for p in read]
        df = self.sandbox.run(parser, pdf, timeout=20, words=renamed)
        self.assertIn("Wages", df["text"].tolist())
        self.assertNotIn("Salary", df["text"].tolist())

    def test_the_reader_keeps_the_document_errors_and_takes_the_password(self):
        parser = self._parser("read_pages(pdf_path)")
        whole = make_statement(os.path.join(self.tmp.name, "whole.pdf"))
        with open(whole, "rb") as fh:
            data = fh.read()
        cut = os.path.join(self.tmp.name, "cut.pdf")
        with open(cut, "wb") as fh:
            fh.write(data[:60])
        with self.assertRaises(errors.CorruptPDFError):
            self.sandbox.run(parser, cut, timeout=20)
        locked = make_statement(os.path.join(self.tmp.name, "locked.pdf"), password="s3cret")
        with self.assertRaises(errors.EncryptedPDFError):
            self.sandbox.run(parser, locked, timeout=20)
        df = self.sandbox.run(parser, locked, timeout=20, password="s3cret")
        self.assertIn("Salary", df["text"].tolist())

    def test_the_reader_reads_no_other_file_than_the_pdf_given(self):
        parser = self._parser('read_pages(pdf_path + ".other.pdf")')
        pdf = make_statement(os.path.join(self.tmp.name, "mine.pdf"))
        make_statement(pdf + ".other.pdf")
        with self.assertRaises(errors.PolicyViolationError) as caught:
            self.sandbox.run(parser, pdf, timeout=20)
        self.assertEqual("runtime", caught.exception.stage)


if __name__ == "__main__":
    unittest.main()
