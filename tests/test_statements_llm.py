"""The LLM writer against the fake server: scripted answers, refinement, fallback."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import unittest

import pandas as pd

from dua.config import Settings
from dua.llm.openai_compat import OpenAICompatProvider
from dua.llm.transport import RetryPolicy
from dua.pdf import read_document
from dua.statements import agent, analysis, writer
from dua.statements.llm_writer import LLMWriter, extract_code
from tests.llm_server import LLMServer, Turn, free_port

from .support import FIXTURES, run_dua

FOLDER = os.path.join(FIXTURES, "statements", "card_parens")
PDF, CSV = os.path.join(FOLDER, "a.pdf"), os.path.join(FOLDER, "a.csv")
CRASH = "```python\ndef parse(pdf_path, password=None):\n    raise ValueError('no table')\n```"


def fenced(code: str) -> str:
    return f"Here is the parser:\n```python\n{code}```\n"


class LLMWriterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        pages = analysis.pages_from_document(read_document(PDF))
        cls.found = analysis.analyze_pages(pages)
        cls.good = writer.emit_source(writer.align(cls.found.settings, pd.read_csv(CSV)), "card")
        cls.wrong_dtype = cls.good.replace("'dtype': 'float'", "'dtype': 'str'")
        assert cls.wrong_dtype != cls.good

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="dua-llm-")
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def run_with(self, url, mode="code", **kw):
        settings = Settings(provider="openai", model="coder", base_url=url, timeout=5)

        def make(ctx, state):
            provider = OpenAICompatProvider(settings, retry=RetryPolicy(max_retries=0))
            builtin = writer.BuiltinWriter(ctx.pages, ctx.analysis, ctx.expected)
            return LLMWriter(settings, ctx.analysis, ctx.expected, builtin, mode=mode,
                             provider=provider)

        kw.setdefault("expected", CSV)
        return agent.run_agent(PDF, "card", parsers_dir=self.tmp, settings=settings,
                               make_writer=make, **kw)

    def user_text(self, request) -> str:
        return request.body["messages"][-1]["content"]

    def test_good_code_at_once_passes_with_one_llm_call(self):
        with LLMServer([Turn(text=fenced(self.good), usage=(900, 700))]) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual((state.final_status, state.llm_calls, state.tokens), ("passed", 1, 1600))
        self.assertEqual(state.writer, "llm-code")
        prompt = self.user_text(server.requests[0])
        for fact in ("'Amount': float64", "parse(pdf_path", "Sample rows", "never import dua"):
            self.assertIn(fact, prompt)

    def test_a_syntax_error_is_sent_back_and_the_next_answer_passes(self):
        script = [Turn(text="```python\ndef parse(pdf_path:\n    return 1\n```"),
                  Turn(text=fenced(self.good))]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual((state.final_status, state.llm_calls, state.retry_count), ("passed", 2, 0))
        # Python 3.9 places this error on line 2, later versions on line 1.
        self.assertRegex(self.user_text(server.requests[1]), r"syntax error at line [12]\b")

    def test_wrong_dtypes_put_the_diagnostics_in_the_refine_prompt(self):
        with LLMServer([Turn(text=fenced(self.wrong_dtype)), Turn(text=fenced(self.good))]) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual((state.final_status, state.retry_count), ("passed", 1))
        refine = self.user_text(server.requests[1])
        # pandas 3 names a text column "str", pandas 2 "object".
        self.assertRegex(refine, r"column 'Amount' has dtype (str|object), expected float64")
        self.assertEqual([a["outcome"] for a in state.attempts], ["failed", "passed"])

    def test_code_reading_the_expected_csv_is_rejected_and_refined(self):
        cheat = f"import pandas as pd\n\ndef parse(pdf_path, password=None):\n    return pd.read_csv({CSV!r})\n"
        with LLMServer([Turn(text=fenced(cheat)), Turn(text=fenced(self.good))]) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual(state.final_status, "passed")
        self.assertEqual(state.attempts[0]["error"], "PolicyViolationError")
        self.assertIn("safety policy", self.user_text(server.requests[1]))

    def test_retries_exhausted_fail_and_keep_the_best_attempt(self):
        script = [Turn(text=fenced(self.wrong_dtype)), Turn(text=CRASH), Turn(text=CRASH)]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", max_retries=2)
        self.assertEqual((state.final_status, state.retry_count, server.count), ("failed", 2, 3))
        with open(state.parser_file_path, encoding="utf-8") as fh:
            self.assertEqual(fh.read(), extract_code(fenced(self.wrong_dtype))[0])
        self.assertIn("kept attempt 1", state.errors[-1])
        self.assertIn("ValueError at line 2 in parse()", self.user_text(server.requests[2]))
        self.assertEqual(len(pd.read_csv(state.output_csv_path)), len(pd.read_csv(CSV)))

    def test_llm_down_falls_back_to_the_builtin_writer(self):
        sleeps = []  # the Error Handler's delays, recorded instead of waited
        state = self.run_with(f"http://127.0.0.1:{free_port()}/v1", sleep=sleeps.append)
        self.assertEqual((state.final_status, state.writer), ("passed", "builtin"))
        self.assertEqual([r["step"] for r in state.recovery], ["retry"] * 3 + ["fallback"])
        self.assertEqual(len(sleeps), 3)
        self.assertIn("LLMConnectionError", state.fallback_reason)
        self.assertIn("fell back to the built-in writer", state.fallback_reason)

    def test_answers_without_code_exhaust_the_llm_and_fall_back(self):
        with LLMServer([Turn(text="I cannot see the PDF."), Turn(text="Sorry.")]) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual((state.final_status, state.writer, state.llm_calls), ("passed", "builtin", 2))
        self.assertIn("UnusableAnswerError", state.fallback_reason)
        (record,) = state.recovery  # no point asking again: the handler says fall back at once
        self.assertEqual((record["error_code"], record["step"]), ("LLM_UNUSABLE_PARSER", "fallback"))

    def test_settings_mode_answers_json_and_the_engine_emits_the_code(self):
        s = self.found.settings
        answer = {"columns": [{"name": c["name"], "x0": c["x0"], "kind": c["kind"]} for c in s["columns"]],
                  "date_column": s["date_column"], "date_pattern": s["date_pattern"],
                  "require_header": s["require_header"], "skip_patterns": s["skip_patterns"],
                  "parens_negative": False, "trailing_minus_negative": True, "dr_negative": True}
        fixed = dict(answer, parens_negative=True)
        with LLMServer([Turn(text=json.dumps(answer)), Turn(text=json.dumps(fixed))]) as server:
            state = self.run_with(server.url + "/v1", mode="settings")
        self.assertEqual((state.final_status, state.llm_calls, state.writer),
                         ("passed", 2, "llm-settings"))
        self.assertEqual(server.requests[0].body["response_format"], {"type": "json_object"})
        self.assertIn("expected", self.user_text(server.requests[1]))
        self.assertTrue(state.writer_settings["parens_negative"])


class CliLLMTest(unittest.TestCase):
    def test_dua_parse_with_an_openai_compatible_server(self):
        tmp = tempfile.mkdtemp(prefix="dua-llm-cli-")
        self.addCleanup(shutil.rmtree, tmp, True)
        pages = analysis.pages_from_document(read_document(PDF))
        good = writer.emit_source(writer.align(analysis.analyze_pages(pages).settings,
                                               pd.read_csv(CSV)), "card")
        with LLMServer([Turn(text=fenced(good))]) as server:
            done = run_dua("parse", PDF, "--bank", "card", "--expected", CSV, "--provider", "openai",
                           "--base-url", server.url + "/v1", "--model", "coder", "--parsers-dir", tmp,
                           "--json", "--quiet", cwd=tmp)
        self.assertEqual(done.returncode, 0, done.stderr)
        report = json.loads(done.stdout)
        self.assertEqual((report["status"], report["llm_calls"], report["writer"]),
                         ("passed", 1, "llm-code"))


class ExtractCodeTest(unittest.TestCase):
    def test_the_block_with_parse_wins_and_bad_answers_name_the_problem(self):
        text = "```python\nx = 1\n```\nand\n```python\ndef parse(p):\n    return p\n```"
        self.assertIn("def parse", extract_code(text)[0])
        self.assertIn("no ```python code block", extract_code("I cannot see the PDF.")[1])
        self.assertEqual(extract_code("```python\nx = 1\n```")[1],
                         "Your module does not define parse(pdf_path).")
        self.assertIn("syntax error", extract_code("```python\ndef (\n```")[1])


if __name__ == "__main__":
    unittest.main()
