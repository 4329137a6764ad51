"""The real-producer statements: answer keys regenerate exactly and agree with their own arithmetic."""
from __future__ import annotations

import csv
import os
import tempfile
import unittest

from fixtures.producers import layouts, layouts_ligatures, layouts_wave2, make, model, notation

FOLDER = make.STATEMENTS


class AnswerKeyTest(unittest.TestCase):
    def test_csv_and_layout_json_regenerate_byte_for_byte(self):
        for layout in make.ALL:
            folder = os.path.join(FOLDER, layout.name)
            pages = {w: make.page_count(os.path.join(folder, f"{w}.pdf")) for w in "ab"}
            for name, data in make.answer_files(layout, pages).items():
                with self.subTest(layout=layout.name, file=name):
                    with open(os.path.join(folder, name), "rb") as fh:
                        self.assertEqual(fh.read(), data, f"run {make.REGENERATE} --csv-only")

    def test_the_corpus_has_sixteen_layouts_from_five_producers_with_a_third_set_aside(self):
        self.assertGreaterEqual(len(layouts.LAYOUTS), 16)
        self.assertGreaterEqual(len({make.RENDERERS[l.producer] for l in layouts.LAYOUTS}), 5)
        self.assertTrue(set(layouts.HOLDOUT) <= {l.name for l in layouts.LAYOUTS})
        self.assertGreaterEqual(3 * len(layouts.HOLDOUT), len(layouts.LAYOUTS))

    def test_the_second_wave_is_nine_new_layouts_from_five_producers_with_three_set_aside(self):
        wave = {l.name for l in layouts_wave2.WAVE2}
        self.assertEqual(len(wave), 9)
        self.assertFalse(wave & {l.name for l in layouts.LAYOUTS})
        self.assertGreaterEqual(len({l.producer for l in layouts_wave2.WAVE2}), 5)
        self.assertEqual(len(set(layouts_wave2.HOLDOUT2)), 3)
        self.assertTrue(set(layouts_wave2.HOLDOUT2) <= wave)

    def test_a_and_b_of_the_second_wave_differ_in_holder_period_and_opening_balance(self):
        for layout in layouts_wave2.WAVE2:
            a, b = model.build(layout, "a"), model.build(layout, "b")
            with self.subTest(layout=layout.name):
                self.assertNotEqual(a.holder, b.holder)
                self.assertNotEqual(a.period, b.period)
                self.assertNotEqual(a.opening, b.opening)

    def test_b_differs_from_a_by_twenty_to_thirty_five_percent_of_rows(self):
        for layout in make.ALL:
            a, b = layout.rows
            with self.subTest(layout=layout.name):
                self.assertTrue(0.2 <= abs(b - a) / a <= 0.35, layout.rows)

    def test_every_expected_csv_reconciles_in_integer_cents(self):
        for layout in make.ALL:
            for which in "ab":
                printed = model.build(layout, which)
                with self.subTest(layout=layout.name, which=which):
                    balance = printed.opening
                    for t in printed.txns:
                        balance += t.cents
                        if layout.kind == "bank":
                            self.assertEqual(balance, t.balance)
                    self.assertEqual(balance, printed.closing if layout.kind == "bank"
                                     else printed.opening + sum(t.cents for t in printed.txns))

    def test_the_answer_key_names_the_statements_own_headings(self):
        layout = layouts.by_name("wrapped_heads_html")
        with open(os.path.join(FOLDER, layout.name, "a.csv"), newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh))
        self.assertIn("Withdrawal Amt.", header)
        self.assertIn("Deposit Amount (INR)", header)
        grouped = layouts.by_name("grouped_days_html")
        self.assertEqual(model.expected_csv(model.build(grouped, "a")).split(b",")[0], b"Date")


class NotationTest(unittest.TestCase):
    def test_every_notation_prints_the_same_cents(self):
        cases = {"western": "1,234,567.89", "european": "1.234.567,89", "space": "1 234 567.89",
                 "thin": "1\u2009234\u2009567.89", "indian": "12,34,567.89", "plain": "1234567.89",
                 "space_comma": "1 234 567,89"}
        for number, text in cases.items():
            self.assertEqual(notation.digits(-123456789, number), text)


class LigatureStatementTest(unittest.TestCase):
    """Issue 24: descriptions printed with ligature glyphs, read back whole by pdfplumber."""

    def test_every_printed_token_is_in_pdfplumbers_text_layer(self):
        from fixtures.producers import check

        for layout in layouts_ligatures.LIGATURES:
            for which in "ab":
                with self.subTest(layout=layout.name, which=which):
                    self.assertEqual(check.check(layout, which), [])

    def test_the_descriptions_really_print_ligature_glyphs(self):
        import pdfplumber

        for layout in layouts_ligatures.LIGATURES:
            for which in "ab":
                path = os.path.join(FOLDER, layout.name, f"{which}.pdf")
                with pdfplumber.open(path) as pdf:
                    glyphs = {c["text"] for page in pdf.pages for c in page.chars}
                with self.subTest(layout=layout.name, which=which):
                    # ff, fi, fl and ffl: DejaVu Serif has no ffi glyph
                    self.assertLessEqual({"\ufb00", "\ufb01", "\ufb02", "\ufb04"}, glyphs)


@unittest.skipIf(make.missing("chromium"), "Chromium is not installed: the PDFs are committed")
class RenderTest(unittest.TestCase):
    def test_a_layout_renders_again_with_every_printed_token_in_its_text_layer(self):
        from fixtures.producers import check

        layout = layouts.by_name("de_giro_html")
        with tempfile.TemporaryDirectory() as tmp:
            make.make(layout, root=tmp)
            for which in "ab":
                self.assertEqual(check.check(layout, which, root=tmp), [])


if __name__ == "__main__":
    unittest.main()
