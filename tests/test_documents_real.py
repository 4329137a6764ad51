"""The real-producer report corpus (fixtures/documents_real): its truth, its scorer, and
`dua extract`'s scores on it (development side; the holdout is scored by the benchmark)."""
from __future__ import annotations

import os
import tempfile
import unittest

from dua.documents.pipeline import extract
from fixtures.documents_real import make, reports
from tests import documents_score as ds

# Floors under the development scores the built-in rules reach (see the README); a change
# that loses ground fails here.
DEV_FLOORS = {"macro_f1": 0.98, "heading_level_accuracy": 0.93, "kendall_tau": 0.99}
CLASS_FLOOR = 0.95  # the weakest class's F1 on the development side


class CorpusTest(unittest.TestCase):
    def test_corpus_has_ten_reports_forty_pages_three_producers_and_a_third_held_out(self):
        docs = ds.corpus()
        self.assertGreaterEqual(len(docs), 10)
        self.assertGreaterEqual(sum(t["pages"] for _, t in docs), 40)
        self.assertGreaterEqual(len({t["producer"] for _, t in docs}), 3)
        held = {t["name"] for _, t in docs if t["holdout"]}
        self.assertEqual(held, set(reports.HOLDOUT))
        self.assertGreaterEqual(len(held), len(docs) // 3)

    def test_every_printed_word_belongs_to_a_truth_element(self):
        for _, truth in ds.corpus():
            with self.subTest(truth["name"]):
                self.assertEqual(truth["unassigned"], [])
                classes = {e["class"] for e in truth["elements"]}
                self.assertTrue({"heading", "paragraph", "table", "page_number"} <= classes)

    def test_truth_regenerates_byte_for_byte_from_the_committed_pdfs(self):
        for pdf, truth in ds.corpus():
            with self.subTest(truth["name"]), open(pdf[:-4] + ".truth.json", encoding="utf-8") as fh:
                self.assertEqual(make.truth_json(pdf, reports.report(truth["name"])), fh.read())

    def test_a_fresh_render_gives_the_same_truth(self):
        # PDFs carry dates and ids, so the comparison is of what they print: the truth.
        # A producer counts only when it makes a PDF here (groff-base has no pdf device).
        why = []
        for name in ("harbour_report", "annual_review", "fleet_memo"):
            report = reports.report(name)
            reason = make.missing(report.producer)
            if reason is None:
                break
            why.append(f"{report.producer}: {reason}")
        else:
            self.skipTest("no producer can make a PDF here (" + "; ".join(why) + ")")
        with tempfile.TemporaryDirectory() as tmp:
            path = make.render(report, tmp)
            with open(os.path.join(make.OUT, f"{name}.truth.json"), encoding="utf-8") as fh:
                self.assertEqual(make.truth_json(path, report), fh.read())


class ScorerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        pdf, cls.truth = next((p, t) for p, t in ds.corpus() if t["name"] == "annual_review")
        cls.words = ds.truth_words(pdf)
        cls.result = extract(pdf)

    def perfect(self) -> list:
        """The truth written as predicted elements: one per truth element, one part per page."""
        out = []
        for e in self.truth["elements"]:
            words = e["text"].split()
            first, rest = e["fragments"][0], e["fragments"][1:]
            el = {"type": e["class"], "page_number": first["page"], "bbox": first["bbox"],
                  "text": " ".join(words), "level": e.get("level"),
                  "items": [{"marker": "", "text": " ".join(words)}], "rows": [words]}
            if rest:
                el["continued"] = [{"page_number": f["page"], "bbox": f["bbox"], "words": f["words"]}
                                   for f in rest]
            out.append(el)
        return out

    def test_the_truth_itself_scores_one_everywhere(self):
        f = ds.score_document(self.truth, self.words, self.perfect()).figures()
        self.assertEqual((f["macro_f1"], f["heading_level_accuracy"], f["kendall_tau"],
                          f["word_coverage"]), (1.0, 1.0, 1.0, 1.0))

    def test_a_paragraph_cut_in_two_costs_paragraph_precision(self):
        elements = self.perfect()
        i = next(i for i, e in enumerate(elements) if e["type"] == "paragraph"
                 and len(e["text"].split()) > 20 and "continued" not in e)
        words = elements[i]["text"].split()
        elements[i:i + 1] = [dict(elements[i], text=" ".join(words[:12])),
                             dict(elements[i], text=" ".join(words[12:]))]
        p, r, _ = ds.score_document(self.truth, self.words, elements).f1("paragraph")
        self.assertLess(p, 1.0)
        self.assertEqual(r, 1.0)

    def test_a_wrong_level_and_a_swapped_order_are_counted(self):
        elements = self.perfect()
        k = next(i for i, e in enumerate(elements) if e["type"] == "heading")
        elements[k] = dict(elements[k], level=elements[k]["level"] + 1)
        elements[3], elements[4] = elements[4], elements[3]
        f = ds.score_document(self.truth, self.words, elements).figures()
        self.assertLess(f["heading_level_accuracy"], 1.0)
        self.assertLess(f["kendall_tau"], 1.0)

    def test_kendall_tau_of_reversed_order_is_minus_one(self):
        self.assertEqual(ds.kendall_tau([3, 2, 1]), -1.0)


class ExtractOnCorpusTest(unittest.TestCase):
    def test_every_report_keeps_every_word(self):
        for pdf, truth in ds.corpus():
            with self.subTest(truth["name"]):
                s = ds.score_document(truth, ds.truth_words(pdf), extract(pdf)["elements"])
                self.assertEqual(s.figures()["word_coverage"], 1.0)

    def test_development_scores_stay_above_their_floors(self):
        total, _ = ds.score_corpus(holdout=False)
        figures = total.figures()
        print("\n" + ds.describe(total))
        for key, floor in DEV_FLOORS.items():
            with self.subTest(key):
                self.assertGreaterEqual(figures[key], floor)
        for kind, (_, _, f1) in figures["per_class"].items():
            with self.subTest(kind):
                self.assertGreaterEqual(f1, CLASS_FLOOR)


if __name__ == "__main__":
    unittest.main()
