"""--llm-budget / DUA_LLM_BUDGET: one total LLM deadline per run, for parse and extract."""
from __future__ import annotations

import json
import os
import unittest

from dua.config import Settings
from dua.errors import UsageError
from dua.statements.agent.llm_writer import LLMWriter
from tests.llm_server import LLMServer, Turn

from .support import FIXTURES, run_dua

REPORT = os.path.join(FIXTURES, "documents", "real", "supplier_review.pdf")


class BudgetSettingsTest(unittest.TestCase):
    def test_the_flag_wins_over_the_variable_and_both_are_seconds(self):
        env = {"DUA_LLM_BUDGET": "90"}
        self.assertEqual(Settings.from_env(env).llm_budget, 90.0)
        self.assertEqual(Settings.from_env(env, llm_budget=12).llm_budget, 12.0)
        self.assertIsNone(Settings.from_env({}).llm_budget)

    def test_a_budget_that_is_not_a_positive_number_names_the_flag(self):
        for raw in ("soon", "0", "-5"):
            with self.subTest(raw=raw), self.assertRaises(UsageError) as caught:
                Settings.from_env({"DUA_LLM_BUDGET": raw})
            self.assertEqual(caught.exception.hint, "Set --llm-budget or DUA_LLM_BUDGET.")

    def test_the_llm_writer_takes_the_budget_else_ten_timeouts(self):
        given = Settings(provider="openai", model="m", base_url="http://127.0.0.1:9/v1",
                         timeout=4, llm_budget=25)
        default = Settings(provider="openai", model="m", base_url="http://127.0.0.1:9/v1",
                           timeout=4)
        for settings, seconds in ((given, 25), (default, 40)):
            writer = LLMWriter(settings, None, None, None, mode="settings")
            self.assertEqual(writer.provider.seconds, seconds)


class BudgetCliTest(unittest.TestCase):
    def test_extract_with_a_spent_budget_sends_nothing_and_the_rules_finish(self):
        with LLMServer([Turn(text="{}")]) as server:
            done = run_dua("extract", REPORT, "--provider", "openai", "--base-url",
                           server.url + "/v1", "--model", "m", "--llm-budget", "1e-9", "--json",
                           "--quiet")
        self.assertEqual(done.returncode, 0, done.stderr)
        stats = json.loads(done.stdout)["stats"]
        self.assertEqual((server.count, stats["llm_calls"]), (0, 0))
        self.assertEqual(stats["llm_down"]["error_code"], "LLM_BUDGET_SPENT")

    def test_parse_and_extract_list_the_flag(self):
        for command in ("parse", "extract"):
            with self.subTest(command=command):
                done = run_dua(command, "--help")
                self.assertIn("--llm-budget S", done.stdout)
                self.assertIn("DUA_LLM_BUDGET", done.stdout)

    def test_a_bad_budget_is_a_usage_error_naming_the_flag(self):
        done = run_dua("extract", REPORT, "--provider", "openai", "--model", "m",
                       "--llm-budget", "-3")
        self.assertEqual(done.returncode, 2, done.stderr)
        self.assertIn("--llm-budget", done.stderr)


if __name__ == "__main__":
    unittest.main()
