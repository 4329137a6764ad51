"""The statement agent end to end: every fixture layout, the public samples, retries."""
from __future__ import annotations

import glob
import json
import os
import shutil
import tempfile
import unittest

import pandas as pd

from dua.errors import EncryptedPDFError, NoTextLayerError, UsageError, VerificationError
from dua.schemas import StatementState
from dua.statements.agent import agent, provenance
from dua.statements.agent.writer import BuiltinWriter, Draft, Writer

from ...support import FIXTURES, run_dua, shared_sample

LAYOUTS = sorted(glob.glob(os.path.join(FIXTURES, "statements", "*", "a.pdf")))
WAVE3 = sorted(glob.glob(os.path.join(FIXTURES, "wave3", "*", "a.pdf")))


class TempDirCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-agent-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def run_agent(self, pdf, bank, **kw):
        kw.setdefault("parsers_dir", os.path.join(self.tmp, "custom_parsers"))
        return agent.run_agent(pdf, bank, **kw)

    def supervised_then_reused(self, folder: str, name: str):
        """a.pdf with its key passes, with no LLM call, and the parser it saved, run by
        ``dua run`` as a user reuses it, reads b.pdf exactly; b's key, read."""
        a = self.run_agent(os.path.join(folder, "a.pdf"), name,
                           expected=os.path.join(folder, "a.csv"))
        self.assertEqual(a.final_status, "passed", a.comparison_result.get("summary"))
        self.assertEqual(a.llm_calls, 0)
        b_csv = pd.read_csv(os.path.join(folder, "b.csv"))
        reused = os.path.join(self.tmp, name + "_reused.csv")
        done = run_dua("run", a.parser_file_path, os.path.join(folder, "b.pdf"), "--out", reused,
                       "--json")
        check = json.loads(done.stdout)["files"][0]["check"] if done.stdout else {}
        # passed; or unverified where the sections' signs add up either way, and it says so,
        # its rows then kept apart from verified ones and the run exiting 1
        if check.get("status") == "unverified":
            self.assertIn("cannot tell which way", check["summary"])
            self.assertEqual(done.returncode, 1, done.stderr)
            reused = os.path.join(self.tmp, name + "_reused.unverified.csv")
        else:
            self.assertEqual(done.returncode, 0, done.stderr)
        self.assertTrue(pd.read_csv(reused).equals(b_csv),
                        f"{name}: the saved parser differs on b.pdf through dua run")
        return b_csv

    def in_every_mode(self, folder: str, name: str) -> tuple:
        """``supervised_then_reused``, then b.pdf without a key: ``(b's key, b's run)``."""
        b_csv = self.supervised_then_reused(folder, name)
        b = self.run_agent(os.path.join(folder, "b.pdf"), name + "_b",
                           out=os.path.join(self.tmp, name + "_b.csv"))
        return b_csv, b


class GraphTest(unittest.TestCase):
    def test_the_graph_has_the_seven_seed_nodes(self):
        graph = agent.build_graph().graph
        self.assertEqual(sorted(graph.nodes), sorted(
            ["analyze", "generate", "save", "execute", "compare", "refine", "finalize"]))

    def test_routes_follow_the_seed_and_the_handlers_step(self):
        s = StatementState(max_retries=3, recovery_step="refine")
        self.assertEqual(agent.route_after_execute(StatementState(execution_success=True)), "compare")
        self.assertEqual(agent.route_after_execute(s), "refine")
        # max_retries stays the hard cap, whatever the handler says
        self.assertEqual(agent.route_after_execute(
            StatementState(retry_count=3, recovery_step="refine")), "finalize")
        for step in ("ask", "stop", ""):  # the handler ended the run (or was never asked)
            self.assertEqual(agent.route_after_execute(StatementState(recovery_step=step)),
                             "finalize")
        for status, step, nxt in (("passed", "", "finalize"), ("skipped", "", "finalize"),
                                  ("unverified", "", "finalize"), ("failed", "refine", "refine"),
                                  ("failed", "ask", "finalize")):
            s = StatementState(comparison_result={"status": status}, recovery_step=step)
            self.assertEqual(agent.route_after_compare(s), nxt)
        self.assertEqual(agent.route_after_compare(StatementState(
            comparison_result={"status": "failed"}, retry_count=3, recovery_step="refine")),
            "finalize")
        self.assertEqual(agent.route_after_refine(s), "save")

    def test_a_bad_bank_name_is_a_usage_error(self):
        with self.assertRaises(UsageError):
            provenance.check_bank("../evil")


class FixtureLayoutsTest(TempDirCase):
    def test_every_layout_supervised_reuse_and_unsupervised(self):
        self.assertGreaterEqual(len(LAYOUTS), 8)
        for a_pdf in LAYOUTS:
            folder = os.path.dirname(a_pdf)
            name = os.path.basename(folder)
            with self.subTest(layout=name):
                b_csv, b = self.in_every_mode(folder, name)
                self.assertEqual(b.final_status, "passed", b.comparison_result.get("summary"))
                self.assertTrue(pd.read_csv(b.output_csv_path).equals(b_csv))


class Wave3LayoutsTest(TempDirCase):
    """Wave 3 (fixtures/wave3, producers no earlier layout used): exact with the key, the
    saved parser exact on b.pdf, and b.pdf without a key right; its verdict ``passed``, or
    ``unverified`` where its sections' signs add up either way and it says so."""

    def test_every_wave3_layout_supervised_reused_and_unsupervised(self):
        self.assertGreaterEqual(len(WAVE3), 9)
        for a_pdf in WAVE3:
            folder = os.path.dirname(a_pdf)
            name = os.path.basename(folder)
            with self.subTest(layout=name):
                b_csv, b = self.in_every_mode(folder, name)
                got = pd.read_csv(os.path.join(self.tmp, name + "_b.csv" if b.final_status
                                               != "failed" else name + "_b.partial.csv"))
                self.assertTrue(got.set_axis(b_csv.columns, axis=1).equals(b_csv), name)
                if b.final_status != "passed":
                    self.assertEqual(b.final_status, "unverified")
                    self.assertIn("cannot tell which way", b.comparison_result["summary"])


class PublicSamplesTest(TempDirCase):
    def test_icici_passes_on_the_builtin_writer_with_no_llm_calls(self):
        pdf = shared_sample("icici", "icici_sample.pdf")
        state = self.run_agent(pdf, "icici", expected=shared_sample("icici", "result.csv"))
        self.assertEqual((state.final_status, state.llm_calls, state.rows), ("passed", 0, 100))
        self.assertTrue(os.path.exists(state.parser_file_path))

    def test_monopoly_scan_with_ocr_layer_reproduces_its_expected_csv(self):
        pdf = shared_sample("monopoly_example", "statement.pdf")
        state = self.run_agent(pdf, "monopoly",
                               expected=shared_sample("monopoly_example", "expected.csv"))
        self.assertEqual(state.final_status, "passed", state.comparison_result.get("summary"))
        self.assertEqual(state.rows, 52)

    def test_image_only_statement_raises_no_text_layer(self):
        with self.assertRaises(NoTextLayerError) as caught:
            self.run_agent(shared_sample("sbi_scanned", "statement.pdf"), "sbi")
        self.assertEqual(caught.exception.exit_code, 3)


class NoTableTest(TempDirCase):
    def test_a_pdf_without_transactions_is_a_verification_error(self):
        from fixtures.pdfwriter import PDF

        pdf = PDF()
        pdf.add_page().text(40, 60, "Dear customer, your statement is attached separately.")
        path = os.path.join(self.tmp, "letter.pdf")
        with open(path, "wb") as fh:
            fh.write(pdf.to_bytes())
        with self.assertRaises(VerificationError) as caught:
            self.run_agent(path, "letter")
        self.assertIn("No transaction table", str(caught.exception))
        self.assertEqual(caught.exception.exit_code, 1)


class EncryptedTest(TempDirCase):
    pdf = os.path.join(FIXTURES, "bad", "encrypted.pdf")

    def test_the_password_reaches_both_the_analysis_and_the_generated_parser(self):
        state = self.run_agent(self.pdf, "locked", password="secret",
                               expected=os.path.join(FIXTURES, "bad", "encrypted.csv"))
        self.assertEqual(state.final_status, "passed", state.comparison_result.get("summary"))

    def test_no_password_is_an_encrypted_pdf_error(self):
        with self.assertRaises(EncryptedPDFError):
            self.run_agent(self.pdf, "locked")


class _FlakyWriter(Writer):
    """Crashing code first, then whatever the built-in writer says."""

    name = "flaky"

    def __init__(self, builtin, bad_first=1):
        self.builtin, self.bad = builtin, bad_first

    def write(self, state):
        return self._next(state)

    def refine(self, state):
        return self._next(state)

    def _next(self, state):
        if self.bad > 0:
            self.bad -= 1
            return Draft("import pandas\n\ndef parse(pdf_path, password=None):\n"
                         "    raise ValueError('cannot find the table')\n", note="broken")
        return self.builtin.write(state)


class RetryTest(TempDirCase):
    pdf = os.path.join(FIXTURES, "statements", "card_parens", "a.pdf")
    csv = os.path.join(FIXTURES, "statements", "card_parens", "a.csv")

    def flaky(self, bad):
        return lambda ctx, state: _FlakyWriter(BuiltinWriter(ctx.pages, ctx.analysis, ctx.expected), bad)

    def test_a_crashing_parser_is_refined_until_it_passes(self):
        events = []
        state = self.run_agent(self.pdf, "card", expected=self.csv, make_writer=self.flaky(1),
                               on_event=events.append)
        self.assertEqual(state.final_status, "passed")
        self.assertEqual(state.retry_count, 1)
        self.assertEqual([a["outcome"] for a in state.attempts], ["execution_failed", "passed"])
        self.assertIn("refine", [e.node for e in events])

    def test_retries_exhausted_end_failed_with_the_errors_kept(self):
        state = self.run_agent(self.pdf, "card", expected=self.csv, make_writer=self.flaky(9),
                               max_retries=2)
        self.assertEqual((state.final_status, state.retry_count), ("failed", 2))
        self.assertEqual(len(state.attempts), 3)
        self.assertTrue(all("cannot find the table" in e for e in state.errors))

    def test_an_interrupted_run_resumes_from_its_checkpoint(self):
        path = os.path.join(self.tmp, "ckpt.json")

        def stop_at_execute(event):
            if event.node == "execute":
                raise KeyboardInterrupt

        with self.assertRaises(KeyboardInterrupt):
            self.run_agent(self.pdf, "card", expected=self.csv, checkpoint=path,
                           on_event=stop_at_execute)
        with open(path, encoding="utf-8") as fh:
            self.assertEqual(json.load(fh)["next"], "execute")
        nodes = []
        state = agent.resume_agent(path, parsers_dir=os.path.join(self.tmp, "custom_parsers"),
                                   on_event=lambda e: nodes.append(e.node))
        self.assertEqual(state.final_status, "passed")
        self.assertEqual(nodes, ["execute", "compare", "finalize"])

    def test_checkpoints_hold_the_state_without_the_dataframe(self):
        path = os.path.join(self.tmp, "ckpt.json")
        self.run_agent(self.pdf, "card", expected=self.csv, checkpoint=path)
        with open(path, encoding="utf-8") as fh:
            saved = json.load(fh)
        self.assertEqual(saved["next"], "__end__")
        self.assertNotIn("generated_df", saved["state"])
        self.assertEqual(StatementState.from_dict(saved["state"]).final_status, "passed")


if __name__ == "__main__":
    unittest.main()
