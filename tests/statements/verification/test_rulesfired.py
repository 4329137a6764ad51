"""The reading rules a statement's settings switch on, each said with its evidence."""
from __future__ import annotations

import unittest

from dua.statements.verification import rulesfired

from ..table.test_engine import settings


class FiredTest(unittest.TestCase):
    def test_only_the_rules_the_settings_switch_on_are_said(self):
        plain = rulesfired.fired(settings())
        self.assertEqual(plain, ["a row's wrapped lines are read under its first line, up to "
                                 "14.0 pt from the line before"])

    def test_each_rule_names_its_column_and_what_switched_it_on(self):
        s = settings(continuation="above", wrapped_columns=[0], carry_columns=[3],
                     anchor="amount", sections=[["money out", -1]])
        s["columns"][1]["labels"] = ["Ref:"]
        said = "\n".join(rulesfired.fired(s))
        for words in ("over its date line", "'Date' wraps in a narrow cell",
                      "'Balance' is printed on a day's first row only",
                      "'Ref:' printed before every value is a label",
                      "printed once, on a day's first row: a row without one",
                      "the section titled 'money out' are money out"):
            self.assertIn(words, said)

    def test_a_page_without_space_glyphs_is_said_to_cut_words_at_small_gaps(self):
        words = [[("Coffee", 0, 20, 0, 8, "F", 8.0)], [("Tea", 0, 10, 0, 8, "F", 8.0)]]
        said = rulesfired.fired(settings(), words, [6, 40])
        self.assertIn("words cut at gaps of 0.1 em on page(s) 1", said[0])
        self.assertIn("only at a space's width (0.2 em) on page(s) 2", said[1])


if __name__ == "__main__":
    unittest.main()
