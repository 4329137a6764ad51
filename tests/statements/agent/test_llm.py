"""The LLM writer against the fake server: scripted answers, refinement, fallback."""
from __future__ import annotations

import copy
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
from dua.statements.learning import analysis
from dua.statements.agent import agent, provenance, writer
from dua.statements.agent.llm_writer import LLMWriter, extract_code
from tests.llm_server import Fail, LLMServer, Turn, free_port

from ...support import FIXTURES, run_dua

FOLDER = os.path.join(FIXTURES, "statements", "card_parens")
PDF, CSV = os.path.join(FOLDER, "a.pdf"), os.path.join(FOLDER, "a.csv")
CRASH = "```python\ndef parse(pdf_path, password=None):\n    raise ValueError('no table')\n```"
CRASH2 = "```python\ndef parse(pdf_path, password=None):\n    raise KeyError('Date')\n```"


def fenced(code: str) -> str:
    return f"Here is the parser:\n```python\n{code}```\n"


def bodies(server) -> list:
    """Every request's body as sent, for checking that none went twice."""
    return [json.dumps(r.body, sort_keys=True) for r in server.requests]


class LLMRunCase(unittest.TestCase):
    """A statement run against the test server, with the answers a test scripts."""

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

    def run_with(self, url, mode="code", found=None, search=None, budget=None, retries=0, **kw):
        """A run of the agent with an LLM writer; ``found`` replaces the analysis (a wrong
        guess) and ``search`` the built-in search budget, to stand for a layout it fails on."""
        settings = Settings(provider="openai", model="coder", base_url=url, timeout=5)

        def make(ctx, state):
            provider = OpenAICompatProvider(settings, retry=RetryPolicy(max_retries=retries))
            analysed = found(ctx.analysis) if found else ctx.analysis
            builtin = writer.BuiltinWriter(ctx.pages, analysed, ctx.expected,
                                           **({} if search is None else {"budget": search}))
            return LLMWriter(settings, analysed, ctx.expected, builtin, mode=mode,
                             provider=provider, budget=budget)

        kw.setdefault("expected", CSV)
        return agent.run_agent(PDF, "card", parsers_dir=self.tmp, settings=settings,
                               make_writer=make, **kw)

    def user_text(self, request) -> str:
        return request.body["messages"][-1]["content"]


class LLMWriterTest(LLMRunCase):

    def test_good_code_at_once_passes_with_one_llm_call(self):
        with LLMServer([Turn(text=fenced(self.good), usage=(900, 700))]) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual((state.final_status, state.llm_calls, state.tokens), ("passed", 1, 1600))
        self.assertEqual(state.writer, "llm-code")
        with open(state.parser_file_path, encoding="utf-8") as fh:  # saved with its provenance
            saved = fh.read()
        self.assertRegex(saved.split("\n", 2)[1], r"^# written by dua \S+ \(dua parse, llm-code writer\)")
        self.assertIn("\n# verdict: passed\n", saved)
        self.assertEqual(provenance.strip_header(saved), extract_code(fenced(self.good))[0])
        prompt = self.user_text(server.requests[0])
        for fact in ("'Amount': float64", "parse(pdf_path", "Rows as the guessed columns split them",
                     "never import dua"):
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
        script = [Turn(text=fenced(self.wrong_dtype)), Turn(text=CRASH), Turn(text=CRASH2)]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", max_retries=2)
        self.assertEqual((state.final_status, state.retry_count, server.count), ("failed", 2, 3))
        with open(state.parser_file_path, encoding="utf-8") as fh:
            saved = fh.read()
        self.assertEqual(provenance.strip_header(saved), extract_code(fenced(self.wrong_dtype))[0])
        self.assertIn("\n# verdict: failed\n", saved)
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

    def test_refine_history_is_the_answer_then_the_feedback_on_it(self):
        script = [Turn(text="```python\ndef parse(pdf_path:\n    return 1\n```"),
                  Turn(text=fenced(self.wrong_dtype)), Turn(text=fenced(self.good))]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual(state.final_status, "passed")
        messages = server.requests[2].body["messages"]
        self.assertEqual([m["role"] for m in messages], ["system", "user", "assistant", "user"])
        self.assertEqual(messages[2]["content"], fenced(self.wrong_dtype))  # the answer judged
        self.assertIn("has dtype", messages[3]["content"])
        self.assertEqual(len(set(bodies(server))), server.count)

    def test_code_prompt_labels_the_analysis_as_guesses_and_shows_x_positions(self):
        with LLMServer([Turn(text=fenced(self.good))]) as server:
            self.run_with(server.url + "/v1")
        prompt = self.user_text(server.requests[0])
        self.assertIn("GUESSED", prompt)
        self.assertNotIn("Transactions start with a date matching", prompt)
        self.assertRegex(prompt, r"\|0 +\|\d+")  # the x ruler over the fixed-pitch lines
        self.assertRegex(prompt, r"'Date' x=\d+-\d+")
        self.assertEqual(server.requests[0].body["max_tokens"], 4096)

    def test_the_same_module_answered_again_is_not_run_again_and_the_builtin_takes_over(self):
        script = [Turn(text=fenced(self.wrong_dtype)), Turn(text=fenced(self.wrong_dtype))]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1")
        self.assertEqual((state.final_status, state.writer, server.count), ("passed", "builtin", 2))
        self.assertIn("RepeatedRequestError", state.fallback_reason)
        self.assertEqual([a["writer"] for a in state.attempts], ["llm-code", "builtin"])


def wrong_dates(found):
    """The analysis with a date pattern no row matches and no answer-key evidence."""
    found = copy.copy(found)
    found.settings = dict(found.settings, date_pattern=r"\d{4}-\d{2}-\d{2}")
    found.learned = None
    return found


class SettingsPatchTest(LLMRunCase):
    """Settings mode: the model sends a patch; the best verified candidate wins."""

    def test_a_patch_fixing_the_date_pattern_passes_in_one_request(self):
        patch = {"date_pattern": r"\d{2}/\d{2}/\d{2}"}
        with LLMServer([Turn(text=json.dumps(patch), usage=(800, 20))]) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0)
        self.assertEqual((state.final_status, state.llm_calls, state.tokens, server.count),
                         ("passed", 1, 820, 1))
        self.assertEqual(state.writer_settings["date_pattern"], patch["date_pattern"])
        body = server.requests[0].body
        self.assertEqual((body["max_tokens"], body["response_format"]), (600, {"type": "json_object"}))
        prompt = self.user_text(server.requests[0])
        self.assertIn("0 rows: no line's date cell matched the date pattern", prompt)
        self.assertIn("'02/08/24 ATM WDL Austin 222806 50.44' -> date cell '02/08/24'", prompt)
        self.assertIn("GUESSED", prompt)
        self.assertIn('"decimal"', prompt)

    def test_a_harmful_patch_loses_to_the_builtin_candidate(self):
        patch = {"decimal": ",", "parens_negative": False}
        with LLMServer([Turn(text=json.dumps(patch))]) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=40)
        self.assertEqual(state.final_status, "passed")  # the built-in search found it anyway
        self.assertEqual(state.writer_settings["decimal"], ".")
        self.assertTrue(state.writer_settings["parens_negative"])

    def test_a_verified_builtin_candidate_means_no_request_at_all(self):
        with LLMServer([]) as server:
            state = self.run_with(server.url + "/v1", mode="settings")
        self.assertEqual((state.final_status, state.llm_calls, server.count), ("passed", 0, 0))
        self.assertIn("the LLM was not asked", state.attempts[0]["note"])

    def test_a_patch_that_changes_nothing_changes_the_question_once_then_ends(self):
        script = [Turn(text="{}"), Turn(text="{}"), Turn(text="{}")]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0,
                                  max_retries=2)
        # The whole patch question, then the narrower one (a regex for the date cells shown);
        # nothing new in either: never asked again, whatever refinements are left.
        self.assertEqual(server.count, 2)
        self.assertEqual(state.final_status, "failed")
        self.assertEqual(len(set(bodies(server))), server.count)
        narrow = self.user_text(server.requests[1])
        self.assertIn("These are the date cells", narrow)
        self.assertIn("'02/08/24'", narrow)
        self.assertNotIn("Description", narrow)  # no description cell shown as a date

    def test_the_narrower_question_answered_well_passes(self):
        script = [Turn(text="{}"), Turn(text=json.dumps({"date_pattern": r"\d{2}/\d{2}/\d{2}"}))]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0)
        self.assertEqual((state.final_status, server.count), ("passed", 2))
        self.assertEqual(state.writer_settings["date_pattern"], r"\d{2}/\d{2}/\d{2}")

    def test_a_patch_that_echoes_every_guessed_setting_is_nothing_new(self):
        # What a small real model did on a statement without --expected: every guessed key
        # sent back at its guessed value.
        base = wrong_dates(self.found).settings
        echo = {"date_pattern": base["date_pattern"], "decimal": base.get("decimal", "."),
                "columns": [{"name": c["name"], "x0": round(c["x0"]), "kind": c["kind"]}
                            for c in base["columns"]],  # at the whole points the prompt shows
                "date_column": base["date_column"], "skip_patterns_add": [],
                "parens_negative": base.get("parens_negative", True)}
        script = [Turn(text=json.dumps(echo))] * 3
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0,
                                  max_retries=2, expected=None)
        # Nothing new in it: the narrower question once (echoed too), then never again.
        self.assertEqual(server.count, 2)
        self.assertIn("These are the date cells", self.user_text(server.requests[1]))
        self.assertEqual(state.final_status, "failed")
        self.assertIn("repeated settings already tried", state.attempts[0]["note"])

    def test_the_run_budget_spent_sends_no_request_and_falls_back(self):
        with LLMServer([Turn(text="{}")]) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0,
                                  budget=0)
        self.assertEqual((server.count, state.llm_calls, state.writer), (0, 0, "builtin"))
        self.assertIn("LLMBudgetSpentError", state.fallback_reason)
        # Not a failure to ask the Error Handler about: no request was sent.
        self.assertNotIn("generate_llm", [r["node"] for r in state.recovery])

    def test_calls_and_tokens_count_every_http_request_and_the_servers_usage(self):
        patch = {"date_pattern": r"\d{2}/\d{2}/\d{2}"}
        script = [Fail("server"), Turn(text=json.dumps(patch), usage=(700, 30))]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0,
                                  retries=1)
        self.assertEqual((server.count, state.llm_calls, state.tokens), (2, 2, 730))
        self.assertEqual(state.final_status, "passed")

    def test_a_schema_miss_is_fed_back_as_a_new_turn_not_resent(self):
        patch = {"date_pattern": r"\d{2}/\d{2}/\d{2}"}
        script = [Turn(text='{"decimal": "comma"}'), Turn(text=json.dumps(patch))]
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0)
        self.assertEqual((state.final_status, server.count), ("passed", 2))
        roles = [m["role"] for m in server.requests[1].body["messages"]]
        self.assertEqual(roles, ["system", "user", "assistant", "user"])
        self.assertEqual(len(set(bodies(server))), server.count)

    def test_answers_that_never_fit_the_schema_fall_back_without_an_identical_retry(self):
        script = [Turn(text='{"decimal": "comma"}'), Turn(text='{"decimal": "dot"}'),
                  Turn(text='{"decimal": "point"}')]  # a third answer is there to be refused
        with LLMServer(script) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates,
                                  search=0)
        # Two requests: the answer, then the answer with its validation error fed back.
        self.assertEqual(server.count, 2)
        self.assertEqual(len(set(bodies(server))), server.count)
        (record,) = [r for r in state.recovery if r["node"] == "generate_llm"]
        self.assertEqual((record["error_code"], record["step"]),
                         ("STRUCTURED_OUTPUT_INVALID", "fallback"))
        self.assertEqual(state.writer, "builtin")
        # JSON mode was on: no advice to use it, and no "retry" advice either.
        advice = record["user_message"] + " ".join(record["recovery_suggestions"])
        self.assertNotIn("JSON mode", advice)
        self.assertNotIn("retrying", advice)
        self.assertEqual(record["recovery_suggestions"],
                         ["Try a stronger model", "Use --provider builtin (no LLM)"])
        self.assertIn("after it was told what was wrong", record["user_message"])

    def test_columns_beyond_the_page_edge_are_refused_and_the_reason_told(self):
        bad = {"columns": [{"name": "Date", "x0": 0, "kind": "date"},
                           {"name": "Description", "x0": 90, "kind": "text"},
                           {"name": "Amount", "x0": 2400, "kind": "amount"}]}
        good = {"date_pattern": r"\d{2}/\d{2}/\d{2}"}
        with LLMServer([Turn(text=json.dumps(bad)), Turn(text=json.dumps(good))]) as server:
            state = self.run_with(server.url + "/v1", mode="settings", found=wrong_dates, search=0)
        self.assertEqual((state.final_status, server.count), ("passed", 2))
        self.assertIn("Your last patch was refused: every x0 must lie on the page (0 to 557)",
                      self.user_text(server.requests[1]))


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
