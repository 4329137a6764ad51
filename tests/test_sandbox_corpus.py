"""Every adversarial parser in fixtures/parsers ends in its own error and leaves no trace."""
from __future__ import annotations

import os
import tempfile
import unittest

from dua import errors
from dua.sandbox import Limits, Sandbox

from .sandbox_support import Victim, corpus

MiB = 1 << 20
LEGIT = """import pandas as pd
import pdfplumber


def parse(pdf_path):
    with pdfplumber.open(pdf_path) as pdf:
        return pd.DataFrame({"text": [page.extract_text() for page in pdf.pages]})
"""


class AdversarialCorpusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.victim = Victim()
        cls.built = tempfile.TemporaryDirectory(prefix="dua-attacks-")  # reader-carrying attacks
        cls.sandbox = Sandbox(Limits(memory=256 * MiB, output_kill=1 * MiB)).start()
        cls.server_pid = cls.sandbox._server.pid
        cls.legit = os.path.join(cls.victim.dir + "-parser.py")
        with open(cls.legit, "w") as fh:
            fh.write(LEGIT)

    @classmethod
    def tearDownClass(cls):
        cls.sandbox.close()
        cls.victim.close()
        cls.built.cleanup()
        os.remove(cls.legit)

    def test_corpus_has_at_least_fifteen_attacks_each_with_a_header(self):
        found = corpus(self.built.name)
        self.assertGreaterEqual(len(found), 15)
        for path, fields in found:
            with self.subTest(parser=os.path.basename(path)):
                self.assertEqual({"attack", "expect", "expect-unchecked"}, set(fields))

    def test_each_attack_ends_in_its_error_and_leaves_no_trace(self):
        self._run_corpus(static_check=True, field="expect")

    def test_each_attack_is_stopped_at_run_time_without_the_static_check(self):
        self._run_corpus(static_check=False, field="expect-unchecked")

    def test_legit_parser_still_runs_in_the_same_server_after_the_attacks(self):
        # named to sort last: the attacks above ran in this very server
        df = self.sandbox.run(self.legit, self.victim.pdf, timeout=10)
        self.assertEqual(["text"], list(df.columns))
        self.assertIn("Salary", df["text"][0])
        self.assertEqual(self.server_pid, self.sandbox._server.pid)

    def _run_corpus(self, static_check: bool, field: str) -> None:
        for path, fields in corpus(self.built.name):
            name, _, stage = fields[field].partition(" ")
            with self.subTest(parser=os.path.basename(path), static_check=static_check):
                before = self.victim.snapshot()
                with self.assertRaises(errors.GeneratedCodeError) as caught:
                    self.sandbox.run(path, self.victim.pdf, timeout=2.0, static_check=static_check)
                exc = caught.exception
                self.assertEqual(name, type(exc).__name__, exc.message)
                if stage:
                    self.assertEqual(stage, exc.stage, exc.message)
                    self.assertTrue(exc.violations, exc.message)
                self.assertEqual(before, self.victim.snapshot(), "the attack left a trace")
                self.assertEqual(0, self.victim.connections(), "the attack made a connection")
                self.assertTrue(self.sandbox._server.alive(), "the sandbox server died")
                self.assertEqual(self.server_pid, self.sandbox._server.pid)


if __name__ == "__main__":
    unittest.main()
