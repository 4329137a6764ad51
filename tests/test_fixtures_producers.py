"""The real-producer statements: answer keys regenerate exactly and agree with their own arithmetic."""
from __future__ import annotations

import csv
import os
import tempfile
import unittest
from unittest import mock

from fixtures import pdf_probe
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


class ProbeTest(unittest.TestCase):
    """A producer counts as installed only when it makes a PDF: tried with stand-ins for
    groff on a PATH of their own."""

    def probe_groff(self, script: str) -> str | None:
        with tempfile.TemporaryDirectory() as bin_dir:
            for tool, body in (("groff", script), ("tbl", "exit 0"), ("pic", "exit 0")):
                path = os.path.join(bin_dir, tool)
                with open(path, "w") as fh:
                    fh.write(f"#!/bin/sh\n{body}\n")
                os.chmod(path, 0o755)
            pdf_probe.cannot_make_pdf.cache_clear()
            self.addCleanup(pdf_probe.cannot_make_pdf.cache_clear)  # the real tools next time
            with mock.patch.dict(os.environ, {"PATH": bin_dir}):
                return pdf_probe.cannot_make_pdf("groff")

    def test_groff_without_its_pdf_device_does_not_count_and_says_why(self):
        # what Debian's groff-base answers: groff is there, gropdf is not
        reason = self.probe_groff("echo \"groff: fatal error: invalid device 'pdf'\" >&2; exit 3")
        self.assertIn("invalid device 'pdf'", reason)

    def test_a_tool_that_answers_something_else_than_a_pdf_does_not_count(self):
        self.assertEqual(self.probe_groff("echo 'not a PDF'"), "groff made no PDF here")

    def test_a_tool_that_makes_a_pdf_counts(self):
        self.assertIsNone(self.probe_groff("printf '%%PDF-1.4 stand-in'"))

    def test_a_tool_that_is_not_on_the_path_does_not_count(self):
        pdf_probe.cannot_make_pdf.cache_clear()
        self.addCleanup(pdf_probe.cannot_make_pdf.cache_clear)
        with tempfile.TemporaryDirectory() as empty, mock.patch.dict(os.environ, {"PATH": empty}):
            self.assertEqual(pdf_probe.cannot_make_pdf("groff"), "groff is not installed")


class RenderTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        reason = make.missing("chromium")  # asked here, not at import: it runs Chromium once
        if reason:
            raise unittest.SkipTest(f"{reason} (the PDFs are committed)")

    def test_a_layout_renders_again_with_every_printed_token_in_its_text_layer(self):
        from fixtures.producers import check

        layout = layouts.by_name("de_giro_html")
        with tempfile.TemporaryDirectory() as tmp:
            make.make(layout, root=tmp)
            for which in "ab":
                self.assertEqual(check.check(layout, which, root=tmp), [])


if __name__ == "__main__":
    unittest.main()
