"""Wave 3 of the real-producer statements: answer keys regenerate exactly, reconcile, and every
printed token is in the committed PDFs' text layers, read as each layout.json says."""
from __future__ import annotations

import collections
import csv
import json
import os
import unittest

from fixtures.producers import check, layouts, layouts_wave2, layouts_wave3, make, model, pager3

WAVE = layouts_wave3.WAVE3
EARLIER_PRODUCERS = {l.producer for l in layouts.LAYOUTS + layouts_wave2.WAVE2}


def _folder(layout) -> str:
    return os.path.join(make.WAVE3_ROOT, layout.name)


def _rows(layout, which: str) -> list:
    with open(os.path.join(_folder(layout), f"{which}.csv"), newline="", encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def _cents(text: str) -> int:
    return round(float(text) * 100) if text else 0


class AnswerKeyTest(unittest.TestCase):
    def test_csv_and_layout_json_regenerate_byte_for_byte(self):
        self.assertTrue(WAVE)
        for layout in WAVE:
            pages = {w: make.page_count(os.path.join(_folder(layout), f"{w}.pdf")) for w in "ab"}
            for name, data in make.answer_files(layout, pages).items():
                with self.subTest(layout=layout.name, file=name):
                    with open(os.path.join(_folder(layout), name), "rb") as fh:
                        self.assertEqual(fh.read(), data,
                                         f"run {make.REGENERATE} --wave 3 --csv-only")

    def test_the_committed_pdfs_have_the_pages_pager3_planned(self):
        for layout in WAVE:
            for which in "ab":
                planned = len(pager3.paginate(model.build(layout, which)))
                pdf = os.path.join(_folder(layout), f"{which}.pdf")
                with self.subTest(layout=layout.name, which=which):
                    self.assertEqual(make.page_count(pdf), planned)
                    self.assertGreaterEqual(planned, 2)

    def test_every_statement_reconciles_to_the_cent_from_its_csv(self):
        for layout in WAVE:
            with open(os.path.join(_folder(layout), "layout.json"), encoding="utf-8") as fh:
                facts = json.load(fh)["statements"]
            names = {c.role: c.name for c in layout.columns}
            for which in "ab":
                balance = _cents(repr(facts[which]["opening_balance"]))
                with self.subTest(layout=layout.name, which=which):
                    for row in _rows(layout, which):
                        if "amount" in names or "amount_section" in names:
                            balance += _cents(row[names.get("amount") or names["amount_section"]])
                        else:  # a debit column already negative when the page prints its minus
                            debit = _cents(row[names["debit"]])
                            balance += _cents(row[names["credit"]]) - abs(debit)
                        if "balance" in names:
                            self.assertEqual(balance, _cents(row[names["balance"]]), row)
                    self.assertEqual(balance, _cents(repr(facts[which]["closing_balance"])))

    def test_section_signed_amounts_are_negative_in_their_debit_section_only(self):
        for layout in (l for l in WAVE if l.col("amount_section")):
            printed = model.build(layout, "a")
            name = layout.col("amount_section").name
            values = [float(r[name]) for r in _rows(layout, "a")]
            credits = sum(t.cents > 0 for t in printed.txns)
            with self.subTest(layout=layout.name):
                self.assertTrue(all(v > 0 for v in values[:credits]))
                self.assertTrue(all(v < 0 for v in values[credits:]))
                self.assertTrue(credits and values[credits:])


class WaveTest(unittest.TestCase):
    def test_nine_to_twelve_layouts_from_at_least_four_producers_no_earlier_wave_used(self):
        self.assertTrue(9 <= len(WAVE) <= 12)
        producers = {l.producer for l in WAVE}
        self.assertGreaterEqual(len(producers), 4)
        self.assertFalse(producers & EARLIER_PRODUCERS)
        earlier = {l.name for l in layouts.LAYOUTS + layouts_wave2.WAVE2}
        self.assertFalse({l.name for l in WAVE} & earlier)

    def test_every_third_layout_is_set_aside(self):
        self.assertEqual(layouts_wave3.HOLDOUT3, tuple(l.name for l in WAVE[2::3]))
        self.assertGreaterEqual(3 * len(layouts_wave3.HOLDOUT3), len(WAVE) - 2)

    def test_a_and_b_differ_by_fifteen_to_thirty_five_percent_of_rows(self):
        for layout in WAVE:
            a, b = layout.rows
            with self.subTest(layout=layout.name):
                self.assertTrue(0.15 <= abs(b - a) / a <= 0.35, layout.rows)

    def test_a_and_b_differ_in_holder_period_and_opening_balance(self):
        for layout in WAVE:
            a, b = model.build(layout, "a"), model.build(layout, "b")
            with self.subTest(layout=layout.name):
                self.assertNotEqual(a.holder, b.holder)
                self.assertNotEqual(a.period, b.period)
                self.assertNotEqual(a.opening, b.opening)

    def test_a_terms_page_interrupts_a_description_where_the_layout_inserts_one(self):
        inserted = [l for l in WAVE if l.insert_page_after]
        self.assertTrue(inserted)
        for layout in inserted:
            for which in "ab":
                pages = pager3.paginate(model.build(layout, which))
                after = pages[layout.insert_page_after + 1].rows
                body = [r for r in after if r.label != "brought"]
                with self.subTest(layout=layout.name, which=which):
                    self.assertEqual(pages[layout.insert_page_after].kind, "terms")
                    self.assertEqual(body[0].kind, "cont")


class TextLayerTest(unittest.TestCase):
    """Read with pdfplumber (dua's own dependency), as each layout.json's ``reading`` says."""

    def test_every_printed_token_is_in_the_text_layer(self):
        for layout in WAVE:
            for which in "ab":
                with self.subTest(layout=layout.name, which=which):
                    self.assertEqual(check.check(layout, which), [])

    def test_every_text_cell_of_the_answer_key_is_printed_word_for_word(self):
        for layout in WAVE:
            reading = layouts_wave3.reading(layout)
            money = {c.name for c in layout.columns if c.numeric}
            for which in "ab":
                have = check.pdf_tokens(os.path.join(_folder(layout), f"{which}.pdf"), **reading)
                cells = [(key, cell) for row in _rows(layout, which) for key, cell in row.items()
                         if key not in money]
                if layout.date_grouped:  # a group's date is printed once over its rows
                    dates = list(dict.fromkeys(c for c in cells if c[0] == "Date"))
                    cells = [c for c in cells if c[0] != "Date"] + dates
                want = collections.Counter(tok for _, cell in cells for tok in cell.split())
                with self.subTest(layout=layout.name, which=which):
                    self.assertEqual({t: n for t, n in want.items() if have[t] < n}, {})

    def test_layouts_without_space_glyphs_print_none_and_merge_under_default_reading(self):
        import pdfplumber  # dua's own dependency

        for layout in (l for l in WAVE if not l.space_glyphs):
            path = os.path.join(_folder(layout), "a.pdf")
            with pdfplumber.open(path) as pdf:
                chars = [c["text"] for page in pdf.pages for c in page.chars]
            default = check.pdf_tokens(path)  # x_tolerance=3 glues words 2-3 pt apart
            want = check.printed_tokens(model.build(layout, "a"))
            with self.subTest(layout=layout.name):
                self.assertNotIn(" ", chars)
                self.assertTrue([t for t, n in want.items() if default[t] < n])
                self.assertEqual(check.check(layout, "a"), [])

    def test_watermarks_are_text_glyphs_far_larger_than_the_table(self):
        import pdfplumber

        for layout in (l for l in WAVE if l.watermark):
            with pdfplumber.open(os.path.join(_folder(layout), "a.pdf")) as pdf:
                big = "".join(c["text"] for c in pdf.pages[0].chars if c["size"] > 20)
            with self.subTest(layout=layout.name):
                self.assertEqual(big, layout.watermark)

    def test_a_detached_sign_is_a_word_of_its_own(self):
        for layout in (l for l in WAVE if l.detached_sign):
            words = check.pdf_tokens(os.path.join(_folder(layout), "a.pdf"),
                                     **layouts_wave3.reading(layout))
            negatives = sum(float(v) < 0 for r in _rows(layout, "a") for k, v in r.items()
                            if v and k in {c.name for c in layout.columns if c.numeric})
            with self.subTest(layout=layout.name):
                self.assertGreater(negatives, 0)
                self.assertGreaterEqual(words["-"], negatives)


if __name__ == "__main__":
    unittest.main()
