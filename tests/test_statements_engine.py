"""The parsing engine on hand-made words: amounts in every form, lines, rows, skips."""
from __future__ import annotations

import unittest

from dua.statements import dataframe, engine

SETTINGS = {"parens_negative": True, "trailing_minus_negative": True,
            "drcr_signs": {"dr": -1, "cr": 1}}


def word(text, x0, top, width=None, height=8.0):
    return (text, x0, x0 + (width or 5.0 * len(text)), top, top + height)


def line(top, *cells):
    """Words at the given x positions on one line: line(10, (40, '01/02/24'), (100, 'Coffee'))."""
    out = []
    for x, text in cells:
        for part in text.split(" "):
            out.append(word(part, x, top))
            x += 5.0 * len(part) + 3.0
    return out


def settings(**changes):
    s = {
        "columns": [{"name": "Date", "x0": 0.0, "kind": "date"},
                    {"name": "Description", "x0": 90.0, "kind": "text"},
                    {"name": "Amount", "x0": 300.0, "kind": "amount"},
                    {"name": "Balance", "x0": 400.0, "kind": "amount"}],
        "date_column": 0, "date_pattern": r"\d{2}/\d{2}/\d{2}",
        "header": ["date description amount balance"], "require_header": True,
        "line_tolerance": 3.0, "glue_gap": 0.8, "continuation_gap": 14.0,
        "skip_patterns": [r"^\s*total\b", r"\bpage\s+\d+\s+of\s+\d+\b"],
        "anchor_needs_amount": True, **SETTINGS,
    }
    s.update(changes)
    return s


HEADER = line(50, (40, "Date"), (100, "Description"), (310, "Amount"), (410, "Balance"))


class AmountParsingTest(unittest.TestCase):
    def test_every_printed_form_becomes_a_signed_float(self):
        cases = {
            "1,234.56": 1234.56, "1,00,102.03": 100102.03, "(12.00)": -12.0, "12.00-": -12.0,
            "-12.00": -12.0, "12.00 Dr": -12.0, "12.00 Cr": 12.0, "12.00DR": -12.0,
            "$1,234.56": 1234.56, "-$1,234.56": -1234.56, "£12.00 Dr": -12.0,
            "Rs. 1,23,456.78": 123456.78, "S$22,058.11": 22058.11, "1234.5": 1234.5, "500": 500.0,
        }
        for text, value in cases.items():
            with self.subTest(text=text):
                self.assertEqual(engine.parse_amount(text, SETTINGS), value)

    def test_words_that_are_not_amounts_return_none(self):
        for text in ("Coffee", "01/02/24", "(12.00", "12.00)", "", "ABC 12.00"):
            with self.subTest(text=text):
                self.assertIsNone(engine.parse_amount(text, SETTINGS))

    def test_sign_rules_come_from_the_settings(self):
        plain = {"parens_negative": False, "trailing_minus_negative": False,
                 "drcr_signs": {"dr": 1, "cr": 1}}
        for text in ("(12.00)", "12.00-", "12.00 Dr"):
            self.assertEqual(engine.parse_amount(text, plain), 12.0)

    def test_bare_integers_do_not_look_like_money(self):
        self.assertFalse(engine.looks_like_amount("2024"))
        self.assertTrue(engine.looks_like_amount("2,024"))
        self.assertTrue(engine.looks_like_amount("20.24"))


class LinesTest(unittest.TestCase):
    def test_words_within_the_tolerance_share_a_line(self):
        words = [word("b", 50, 11.5), word("a", 10, 10), word("c", 10, 20)]
        lines = engine.group_lines(words, 3.0)
        self.assertEqual([[w[0] for w in ln] for ln in lines], [["a", "b"], ["c"]])

    def test_ocr_fragments_are_glued_and_spaced_words_are_not(self):
        words = [("IN", 10, 20, 0, 8), ("TERNET", 20.1, 50, 0, 8), ("BANKING", 52.5, 90, 0, 8)]
        self.assertEqual(engine.join_words(words, 0.8), "INTERNET BANKING")


class PageRowsTest(unittest.TestCase):
    def page(self):
        return (line(20, (40, "Statement of account")) + HEADER
                + line(65, (40, "01/02/24"), (100, "Coffee shop"), (320, "3.50"), (420, "96.50"))
                + line(75, (100, "Main Street branch"))
                + line(90, (40, "02/02/24"), (100, "Refund"), (320, "(1.50)"), (420, "98.00"))
                + line(105, (100, "Total"), (320, "2.00"))
                + line(700, (300, "Page 1 of 1")))

    def test_rows_join_continuations_and_skip_furniture(self):
        frame = dataframe.build_frame([self.page()], settings())
        self.assertEqual(list(frame.columns), ["Date", "Description", "Amount", "Balance"])
        self.assertEqual(frame["Description"].tolist(), ["Coffee shop Main Street branch", "Refund"])
        self.assertEqual(frame["Amount"].tolist(), [3.5, -1.5])
        self.assertEqual(str(frame["Amount"].dtype), "float64")

    def test_lines_above_the_header_are_ignored_when_the_header_is_required(self):
        page = line(32, (40, "01/01/24"), (100, "Summary"), (320, "9.99")) + self.page()
        self.assertEqual(len(dataframe.build_frame([page], settings())), 2)
        self.assertEqual(len(dataframe.build_frame([page], settings(require_header=False))), 3)

    def test_a_header_printed_once_opens_the_table_for_the_later_pages(self):
        page2 = line(40, (40, "03/02/24"), (100, "Bakery"), (320, "2.00"), (420, "96.00"))
        every_page = dataframe.build_frame([self.page(), page2], settings())
        once = dataframe.build_frame([self.page(), page2], settings(header_once=True))
        self.assertEqual((len(every_page), len(once)), (2, 3))
        self.assertEqual(once["Description"].tolist()[-1], "Bakery")

    def test_a_far_line_is_not_a_continuation(self):
        frame = dataframe.build_frame([self.page()], settings(continuation_gap=5.0))
        self.assertEqual(frame["Description"].tolist(), ["Coffee shop", "Refund"])

    def test_an_empty_statement_gives_an_empty_frame_with_the_columns(self):
        frame = dataframe.build_frame([HEADER], settings())
        self.assertEqual((len(frame), list(frame.columns)[0]), (0, "Date"))

    def test_columns_marked_not_output_are_dropped(self):
        s = settings()
        s["columns"][3]["output"] = False
        self.assertEqual(list(dataframe.build_frame([self.page()], s).columns),
                         ["Date", "Description", "Amount"])


if __name__ == "__main__":
    unittest.main()
