"""dua.documents.pipeline and dua.documents.markdown: the pipeline, the coverage invariant, accuracy, the outputs."""
from __future__ import annotations

import glob
import json
import os
import random
import unittest

from dua.documents.pipeline import check_coverage, element_words, extract
from dua.errors import CoverageError
from dua.documents.markdown import render, to_markdown
from dua.pdf import read_document
from tests.support import FIXTURES

DOCS = os.path.join(FIXTURES, "documents")
PDFS = sorted(glob.glob(os.path.join(DOCS, "*.pdf")))
UNSURE = os.path.join(FIXTURES, "documents", "real", "supplier_review.pdf")


def truth_of(path: str) -> list:
    with open(path[:-4] + ".truth.json", encoding="utf-8") as fh:
        return json.load(fh)["blocks"]


def element_text(element: dict) -> str:
    return " ".join(element_words(element))


def score(truth: list, elements: list) -> tuple:
    """(type matches, level matches, truth blocks): each truth block takes the first unused
    element with its page and text (figures: its page), so repeated texts pair up in order."""
    unused = list(elements)
    typed = levelled = 0
    for t in truth:
        got = next((e for e in unused if e["page_number"] == t["page"] and (
            e["type"] == "figure" if t["type"] == "figure" else element_text(e) == t["text"])), None)
        if got is None:
            continue
        unused.remove(got)
        if got["type"] == t["type"]:
            typed += 1
            levelled += got.get("level") == t.get("level")
    return typed, levelled, len(truth)


class FixtureAccuracyTest(unittest.TestCase):
    def test_fixtures_exist_with_ground_truth(self):
        self.assertGreaterEqual(len(PDFS), 6)
        kinds = {t["type"] for p in PDFS for t in truth_of(p)}
        self.assertTrue({"heading", "paragraph", "list", "table", "figure", "caption", "header",
                         "footer", "page_number"} <= kinds)
        levels = {t.get("level") for p in PDFS for t in truth_of(p) if t["type"] == "heading"}
        self.assertEqual(levels, {1, 2, 3})

    def test_builtin_type_accuracy_is_at_least_90_percent(self):
        typed = levelled = total = 0
        for path in PDFS:
            with self.subTest(os.path.basename(path)):
                t, lv, n = score(truth_of(path), extract(path)["elements"])
                typed, levelled, total = typed + t, levelled + lv, total + n
        accuracy = typed / total
        print(f"\nbuilt-in classifier: type accuracy {accuracy:.1%} ({typed}/{total} blocks), "
              f"type+level {levelled / total:.1%}")
        self.assertGreaterEqual(accuracy, 0.90)

    def test_reading_order_follows_the_ground_truth(self):
        for path in PDFS:
            with self.subTest(os.path.basename(path)):
                got = [(e["page_number"], element_text(e)) for e in extract(path)["elements"]
                       if e["type"] != "figure"]
                want = [(t["page"], t["text"]) for t in truth_of(path) if t["type"] != "figure"]
                self.assertEqual(got, want)


class FixtureRegenerationTest(unittest.TestCase):
    def test_make_documents_rewrites_the_committed_fixtures_byte_for_byte(self):
        import tempfile
        from unittest import mock

        from fixtures import make_documents

        with tempfile.TemporaryDirectory() as tmp, mock.patch.object(make_documents, "OUT", tmp):
            for make in make_documents.DOCUMENTS:
                make().save()
            for name in sorted(os.listdir(tmp)):
                with self.subTest(name), open(os.path.join(tmp, name), "rb") as fresh, \
                        open(os.path.join(DOCS, name), "rb") as committed:
                    self.assertEqual(fresh.read(), committed.read())
            self.assertEqual(len(os.listdir(tmp)), 2 * len(PDFS))


class CoverageTest(unittest.TestCase):
    def test_every_fixture_keeps_every_word_exactly_once(self):
        for path in PDFS:
            with self.subTest(os.path.basename(path)):
                result = extract(path)
                doc = read_document(path, word_rule="reading")
                words = sorted(w.text for p in doc.pages for w in p.words)
                self.assertEqual(sorted(w for e in result["elements"] for w in element_words(e)), words)

    def test_a_dropped_word_is_a_coverage_error_naming_the_page(self):
        path = os.path.join(DOCS, "report.pdf")
        doc, elements = read_document(path, word_rule="reading"), extract(path)["elements"]
        elements[2] = dict(elements[2], text=elements[2]["text"].rsplit(" ", 1)[0])
        with self.assertRaises(CoverageError) as cm:
            check_coverage(doc, elements)
        self.assertIn("page 1", str(cm.exception))
        self.assertIn("lost", str(cm.exception))

    def test_a_doubled_word_is_a_coverage_error(self):
        path = os.path.join(DOCS, "tables.pdf")
        doc, elements = read_document(path, word_rule="reading"), extract(path)["elements"]
        elements.append(dict(elements[0]))
        with self.assertRaises(CoverageError):
            check_coverage(doc, elements)

    def test_issue_15_a_word_with_no_text_is_no_word_of_the_page(self):
        # lm-info.pdf (fonts-lmodern) maps one glyph of page 20 to "": pdfplumber makes a
        # word of it, no element can hold it, and the invariant used to fail on it.
        from unittest import mock

        from dua.documents import pipeline
        from dua.pdf import Document, Page, Word

        words = [Word("Results", 72, 120, 100, 110, "Helvetica", 10), Word("", 124, 124, 100, 110),
                 Word(" ", 130, 133, 100, 110), Word("matter.", 136, 170, 100, 110, "Helvetica", 10)]
        doc = Document("lm.pdf", [Page(1, 612, 792, words, char_count=5)])
        with mock.patch.object(pipeline, "read_bounded", lambda *a, **k: doc):
            result = extract("lm.pdf")
        self.assertEqual([w for e in result["elements"] for w in element_words(e)],
                         ["Results", "matter."])
        self.assertEqual(result["stats"]["words"], 2)

    def test_a_word_holding_a_space_counts_as_the_words_an_element_holds(self):
        from dua.pdf import Document, Page, Word

        doc = Document("x.pdf", [Page(1, 612, 792, [Word("f f", 72, 90, 100, 110)], char_count=2)])
        element = {"type": "paragraph", "page_number": 1, "bbox": [72, 100, 90, 110]}
        check_coverage(doc, [dict(element, text="f f")])
        with self.assertRaises(CoverageError):
            check_coverage(doc, [dict(element, text="f")])

    def test_a_malformed_element_is_an_internal_error_not_bad_input(self):
        from dua.documents.pipeline import DocumentState, assemble
        from dua.errors import UnexpectedError

        path = os.path.join(DOCS, "tables.pdf")
        elements = extract(path)["elements"]
        elements[0] = dict(elements[0], level="one")
        with self.assertRaises(UnexpectedError) as cm:
            assemble(DocumentState(path, document=read_document(path, word_rule="reading"),
                                  elements=elements), None)
        self.assertIn("elements[0].level", str(cm.exception))
        self.assertEqual(cm.exception.exit_code, 4)

    def test_coverage_holds_under_every_classifier_and_fault(self):
        from tests.llm_server import LLMServer, Turn, free_port
        from tests.test_classify import SEED_ERRORS, asked_ids, is_batch, llm_provider
        from tests.test_llm_classify import unsure_blocks

        rng = random.Random(8)
        faults = list(SEED_ERRORS.values())

        def chaos(request):
            # A batch answers some blocks well, some badly, omits others; retries are random too.
            if not is_batch(request):
                return Turn(text=rng.choice(faults + ['{"type": "paragraph", "text": "x"}']))
            answers = {}
            for i in asked_ids(request):
                pick = rng.random()
                if pick < 0.4:
                    answers[i] = {"type": rng.choice(["heading", "paragraph", "caption"]),
                                  "text": "?", "level": 2}
                elif pick < 0.7:
                    answers[i] = {"type": "list", "items": [{"text": "?"}]}
                elif pick < 0.9:
                    answers[i] = {"type": "table", "rows": "broken"}
            return Turn(text=json.dumps(answers))

        # The project's own reports leave the rules sure of every block (nothing is asked);
        # a real producer's report leaves some short lines to the model.
        for path in PDFS + [UNSURE]:
            doc = read_document(path, word_rule="reading")  # the words extract reads
            for mode in ("chaos", "all_broken", "down"):
                with self.subTest(os.path.basename(path), mode=mode):
                    if mode == "down":
                        waits = []  # the Error Handler's three retry delays, not slept
                        result = extract(path, provider=llm_provider(f"http://127.0.0.1:{free_port()}"),
                                         sleep=waits.append)
                        self.assertEqual(len(waits), 3 if unsure_blocks(path) else 0)
                    else:
                        handler = chaos if mode == "chaos" else (lambda r: Turn(text=faults[0]))
                        with LLMServer(handler=handler) as server:
                            result = extract(path, provider=llm_provider(server.url), batch_size=7)
                    check_coverage(doc, result["elements"])  # extract checked it too; belt and braces


class ResultSchemaTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.result = extract(os.path.join(DOCS, "figure.pdf"))

    def test_json_result_has_documented_top_level_keys(self):
        self.assertEqual(set(self.result), {"schema", "source", "pages", "elements", "stats"})
        self.assertEqual(self.result["schema"], "dua.extract/1")
        self.assertEqual(self.result["source"]["pages_read"], [1])
        self.assertEqual(set(self.result["pages"][0]), {"number", "width", "height", "words", "chars"})
        json.dumps(self.result)  # plain JSON all the way down

    def test_stats_count_types_unclassified_llm_calls_and_seconds(self):
        stats = self.result["stats"]
        self.assertEqual(sum(stats["counts"].values()), len(self.result["elements"]))
        self.assertEqual(stats["unclassified"], 0)
        self.assertEqual(stats["llm_calls"], 0)
        self.assertGreater(stats["seconds"], 0)
        self.assertEqual(stats["words"], sum(p["words"] for p in self.result["pages"]))

    def test_every_element_keeps_bbox_page_and_block_ids(self):
        for element in self.result["elements"]:
            self.assertEqual(len(element["bbox"]), 4)
            self.assertEqual(element["page_number"], 1)
            self.assertRegex(element["block_ids"][0], r"^p1-b\d+$")

    def test_figure_borrows_its_caption_as_a_reference(self):
        figure = next(e for e in self.result["elements"] if e["type"] == "figure")
        self.assertEqual(figure["caption"], "Figure 1: A gray gradient used as a test pattern.")
        self.assertEqual(element_words(figure), [])

    def test_pages_option_reads_only_those_pages(self):
        result = extract(os.path.join(DOCS, "report.pdf"), pages=[2])
        self.assertEqual({e["page_number"] for e in result["elements"]}, {2})
        self.assertEqual(result["stats"]["pages"], 1)


class ExtractEachTest(unittest.TestCase):
    """A batch of files, the next one read while this one's pages are typed."""

    PATHS = [os.path.join(DOCS, name) for name in ("figure.pdf", "tables.pdf", "report.pdf")]

    @staticmethod
    def without_timing(result: dict) -> dict:
        return dict(result, stats={k: v for k, v in result["stats"].items() if k != "seconds"})

    def test_each_file_comes_out_as_extract_reads_it_alone(self):
        from dua.documents.pipeline import extract_each

        got = list(extract_each(self.PATHS))
        self.assertEqual([path for path, _ in got], self.PATHS)
        for path, result in got:
            self.assertEqual(self.without_timing(result), self.without_timing(extract(path)))

    def test_a_file_that_cannot_be_read_is_its_own_error_and_the_batch_goes_on(self):
        import tempfile

        from dua.documents.pipeline import extract_each
        from dua.errors import DocumentNotFoundError, NotAPDFError

        with tempfile.TemporaryDirectory() as tmp:
            text = os.path.join(tmp, "notes.pdf")
            with open(text, "w") as f:
                f.write("not a PDF\n")
            paths = [self.PATHS[0], text, os.path.join(tmp, "gone.pdf"), self.PATHS[1]]
            got = [r for _, r in extract_each(paths)]
        self.assertIsInstance(got[1], NotAPDFError)
        self.assertIsInstance(got[2], DocumentNotFoundError)
        self.assertEqual(self.without_timing(got[3]), self.without_timing(extract(paths[3])))

    def test_files_ahead_are_read_while_one_is_typed_and_a_batch_left_early_stops_them(self):
        from unittest import mock

        from dua.documents import pipeline

        started = []

        def recorded(path, *args, **kwargs):
            started.append(real(path, *args, **kwargs))
            return started[-1]

        real = pipeline.start_reading
        with mock.patch.object(pipeline, "start_reading", recorded):
            batch = pipeline.extract_each(self.PATHS)
            next(batch)  # the first file typed: the others are being read already
            self.assertEqual([r.path for r in started], self.PATHS)
            batch.close()
        for reading in started[1:]:  # cancelled: no child reads for nobody
            self.assertIsNone(reading._child)
            self.assertIsNone(reading._next)

    def test_each_file_goes_to_the_reading_child_with_fewer_bytes_handed_so_far(self):
        import tempfile
        from unittest import mock

        from dua.documents import pipeline

        after = {}

        def recorded(path, *args, **kwargs):
            queued = kwargs.get("after")
            after[os.path.basename(path)] = queued and os.path.basename(queued.path)
            return real(path, *args, **kwargs)

        real = pipeline.start_reading
        with open(self.PATHS[2], "rb") as fh:
            report = fh.read()
        with tempfile.TemporaryDirectory() as tmp:
            paths = []
            for name, padding in (("a", 2 * len(report) - 100), ("b", 0), ("c", 0), ("d", 0),
                                  ("e", 0)):  # a: nearly three times as long as the others
                paths.append(os.path.join(tmp, f"{name}.pdf"))
                with open(paths[-1], "wb") as fh:
                    fh.write(report + b"%" + b"x" * padding + b"\n")
            with mock.patch.object(pipeline, "start_reading", recorded), \
                    mock.patch.object(pipeline, "_readers", return_value=2):
                got = [r for _, r in pipeline.extract_each(paths)]
        self.assertTrue(all(isinstance(r, dict) for r in got), got)
        # the long file to one child, the next three to the other, the fifth to the first
        self.assertEqual(after, {"a.pdf": None, "b.pdf": None, "c.pdf": "b.pdf",
                                 "d.pdf": "c.pdf", "e.pdf": "a.pdf"})


class MarkdownTest(unittest.TestCase):
    def test_markdown_renders_each_element_type(self):
        md = to_markdown(extract(os.path.join(DOCS, "tables.pdf")))
        self.assertIn("# Quarterly Figures\n", md)
        self.assertIn("## Regional Split\n", md)
        self.assertIn("| Quarter | Revenue | Costs | Margin |\n|---|---|---|---|\n| Q1 | 1,200 |", md)
        self.assertIn("*Table 1: Revenue and costs by quarter, in thousands.*", md)
        self.assertIn("<!-- page_number: 1 -->", md)
        lists = to_markdown(extract(os.path.join(DOCS, "report.pdf")))
        self.assertIn("- Statements from four banks", lists)
        self.assertIn("1. Read the words of every page", lists)
        figure = to_markdown(extract(os.path.join(DOCS, "figure.pdf")))
        self.assertIn("![Figure 1: A gray gradient used as a test pattern.](#figure-p1", figure)

    def test_text_that_would_start_a_list_or_heading_is_escaped_the_commonmark_way(self):
        def para(text):
            return render({"type": "paragraph", "text": text, "bbox": [0, 0, 1, 1],
                           "page_number": 1, "block_ids": ["p1-b1"]})

        self.assertEqual(para("2024. A good year"), "2024\\. A good year")
        self.assertEqual(para("3) three"), "3\\) three")
        self.assertEqual(para("# not a heading"), "\\# not a heading")
        self.assertEqual(para("Plain words"), "Plain words")

    def test_list_markers_other_than_bullets_and_numbers_are_kept(self):
        items = [{"marker": m, "text": "item"} for m in ("\u2022", "-", "2)", "(a)", "(1)", "iv)", "b.")]
        md = render({"type": "list", "items": items, "bbox": [0, 0, 1, 1], "page_number": 1,
                     "block_ids": ["p1-b1"]})
        self.assertEqual(md.splitlines(), ["- item", "- item", "2. item", "- (a) item",
                                           "- (1) item", "- iv) item", "- b. item"])

    def test_a_nested_item_is_set_in_under_the_one_before(self):
        items = [{"marker": "1.", "text": "one"}, {"marker": "a)", "text": "way", "level": 2},
                 {"marker": "\u2022", "text": "deeper", "level": 3}, {"marker": "2.", "text": "two"}]
        md = render({"type": "list", "items": items, "bbox": [0, 0, 1, 1], "page_number": 1,
                     "block_ids": ["p1-b1"]})
        self.assertEqual(md.splitlines(), ["1. one", "    - a) way", "        - deeper", "2. two"])

    def test_unclassified_block_stays_as_text_under_a_comment_naming_the_error(self):
        element = {"id": "p1-b2", "type": "unclassified_text_block", "text": "# kept words",
                   "bbox": [0, 0, 1, 1], "page_number": 1, "lines": [], "metadata": {},
                   "annotations": {"classification_error": {"error_type": "JSONDecodeError"}}}
        md = to_markdown({"elements": [element]})
        self.assertIn("<!-- unclassified_text_block p1-b2: JSONDecodeError -->\n\\# kept words", md)


if __name__ == "__main__":
    unittest.main()
