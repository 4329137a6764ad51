"""The typeset-producer document corpus (fixtures/documents/typeset, issue 32): six PDF
producers from one model, its truth, and ``dua extract``'s scores on the development side
and on the third set aside before any tuning."""
from __future__ import annotations

import os
import tempfile
import unittest

from fixtures.documents_real import make, typeset
from tests import documents_score as ds

# Issue 32's bar, held on both sides.
BAR = {"macro_f1": 0.93, "heading_level_accuracy": 0.95, "word_coverage": 1.0}
CLASS_BAR = 0.85


def _producer(pdf_path: str) -> str:
    """The PDF's producer, without its version ("pdfTeX", "ReportLab", "Skia/PDF", ...)."""
    import pdfplumber

    with pdfplumber.open(pdf_path) as pdf:
        return str(pdf.metadata.get("Producer", "")).split("-")[0].split()[0]


class TypesetCorpusTest(unittest.TestCase):
    def test_six_producers_and_every_third_document_set_aside(self):
        docs = ds.corpus(root=ds.TYPESET)
        self.assertEqual(len(docs), len(typeset.names()))
        self.assertGreaterEqual(len({_producer(pdf) for pdf, _ in docs}), 6)
        held = sorted(t["name"] for _, t in docs if t["holdout"])
        self.assertEqual(held, sorted(typeset.names()[2::3]))
        self.assertGreaterEqual(len(held), len(docs) // 3)

    def test_every_printed_word_belongs_to_a_truth_element(self):
        for _, truth in ds.corpus(root=ds.TYPESET):
            with self.subTest(truth["name"]):
                self.assertEqual(truth["unassigned"], [])
                classes = {e["class"] for e in truth["elements"]}
                self.assertTrue({"heading", "paragraph", "list", "table", "page_number"} <= classes)

    def test_truth_regenerates_byte_for_byte_from_the_committed_pdfs(self):
        for pdf, truth in ds.corpus(root=ds.TYPESET):
            with self.subTest(truth["name"]), open(pdf[:-4] + ".truth.json", encoding="utf-8") as fh:
                self.assertEqual(make.truth_json(pdf, typeset.report(truth["name"]), "typeset"),
                                 fh.read())

    def test_a_fresh_render_gives_the_same_truth(self):
        # PDFs may carry dates and ids, so the comparison is of what they print: the truth.
        why = []
        for name in ("survey_100", "memo_102", "brief_103", "plan_106"):
            report = typeset.report(name)
            reason = make.missing(report.producer)
            if reason is None:
                break
            why.append(f"{report.producer}: {reason}")
        else:
            self.skipTest("no producer can make a PDF here (" + "; ".join(why) + ")")
        with tempfile.TemporaryDirectory() as tmp:
            path = make.render(report, tmp)
            with open(os.path.join(make.TYPESET_OUT, f"{name}.truth.json"), encoding="utf-8") as fh:
                self.assertEqual(make.truth_json(path, report, "typeset"), fh.read())


class ExtractOnTypesetTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.sides = {side: ds.score_corpus(holdout, root=ds.TYPESET)[0]
                     for side, holdout in (("development", False), ("set aside", True))}

    def test_both_sides_meet_the_bar(self):
        for side, total in self.sides.items():
            figures = total.figures()
            print(f"\n{side}\n" + ds.describe(total))
            for key, bar in BAR.items():
                with self.subTest(side=side, figure=key):
                    self.assertGreaterEqual(figures[key], bar)
            for kind, (_, _, f1) in figures["per_class"].items():
                with self.subTest(side=side, kind=kind):
                    self.assertGreaterEqual(f1, CLASS_BAR)


if __name__ == "__main__":
    unittest.main()
