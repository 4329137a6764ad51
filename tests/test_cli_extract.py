"""`python -m dua extract` as a user runs it: outputs, options, bad input, public samples."""
from __future__ import annotations

import json
import os
import shutil
import tempfile
import unittest

from dua.commands.extract import parse_pages
from dua.documents.pipeline import element_words, extract
from dua.errors import UsageError
from dua.pdf import read_document
from fixtures.pdfwriter import PDF, gradient
from tests.support import FIXTURES, run_dua, shared_sample

DOCS = os.path.join(FIXTURES, "documents")
REPORT = os.path.join(DOCS, "report.pdf")
# A real producer's report: the rules leave some short lines to the model (the project's
# own reports leave none, so no request would be sent).
UNSURE = os.path.join(FIXTURES, "documents", "real", "supplier_review.pdf")


class ExtractCommandTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dua-extract-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_json_on_stdout_with_progress_per_page_on_stderr(self):
        proc = run_dua("extract", REPORT)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        result = json.loads(proc.stdout)
        self.assertEqual(result["stats"]["pages"], 2)
        self.assertIn("page 1/2 read", proc.stderr)
        self.assertIn("page 2/2 read", proc.stderr)
        self.assertIn("0 unclassified", proc.stderr)

    def test_markdown_to_a_file_with_pages_and_quiet(self):
        out = os.path.join(self.tmp, "report.md")
        proc = run_dua("extract", REPORT, "--format", "markdown", "--out", out, "--pages", "2", "-q")
        self.assertEqual((proc.returncode, proc.stdout, proc.stderr), (0, "", ""))
        with open(out, encoding="utf-8") as fh:
            md = fh.read()
        self.assertTrue(md.startswith("<!-- page 2 -->"))
        self.assertIn("# Results\n", md)  # levels come from the pages read
        self.assertNotIn("# Annual Report", md)

    def test_bad_pages_option_is_a_usage_error(self):
        proc = run_dua("extract", REPORT, "--pages", "3-1")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("--pages", proc.stderr)

    def test_pages_beyond_the_file_are_said_and_the_others_read(self):
        messages = []
        result = extract(REPORT, pages=[2, 3, 5], on_progress=messages.append)
        self.assertEqual(result["source"]["pages_read"], [2])
        self.assertIn("warning: --pages asks for page(s) 3, 5, but the file has 2 page(s); "
                      "read the others", messages)

    def test_an_unusable_out_is_refused_before_any_page_is_read(self):
        blocker = os.path.join(self.tmp, "a_file")
        with open(blocker, "w") as fh:
            fh.write("x")
        for out, says in ((os.path.join(blocker, "x.json"), "is a file, not a folder"),
                          (self.tmp, "is a folder, not a file")):
            proc = run_dua("extract", REPORT, "--out", out)
            self.assertEqual(proc.returncode, 2, proc.stderr)
            self.assertIn(says, proc.stderr)
            self.assertNotIn("page 1/2 read", proc.stderr)  # refused before the work

    def test_out_in_a_new_folder_is_made_when_mkdir_says_so(self):
        out = os.path.join(self.tmp, "new", "report.json")
        refused = run_dua("extract", REPORT, "--out", out, "-q")
        self.assertEqual(refused.returncode, 2, refused.stderr)  # a typo grows no folders
        self.assertFalse(os.path.exists(os.path.dirname(out)))
        proc = run_dua("extract", REPORT, "--out", out, "-q", "--mkdir")
        self.assertEqual(proc.returncode, 0, proc.stderr)
        with open(out) as fh:
            self.assertEqual(json.load(fh)["stats"]["pages"], 2)

    def test_out_naming_the_input_pdf_is_refused_and_the_pdf_kept(self):
        pdf = os.path.join(self.tmp, "self.pdf")
        shutil.copyfile(REPORT, pdf)
        proc = run_dua("extract", pdf, "--out", os.path.join(self.tmp, ".", "self.pdf"))
        self.assertEqual(proc.returncode, 2, proc.stderr)
        self.assertIn("is an input of this run", proc.stderr)
        with open(pdf, "rb") as fh, open(REPORT, "rb") as original:
            self.assertEqual(fh.read(), original.read())

    def test_a_huge_page_range_is_refused_and_a_large_one_parsed_at_once(self):
        import time

        with self.assertRaisesRegex(UsageError, "goes past page 100,000"):
            parse_pages("1-99999999999")
        started = time.perf_counter()
        self.assertEqual(len(parse_pages("1-100000,5,7-9")), 100000)
        self.assertLess(time.perf_counter() - started, 1.0)

    def test_many_missing_pages_are_warned_about_as_spans(self):
        messages = []
        extract(REPORT, pages=[1, 4, 5, 6, 9], on_progress=messages.append)
        self.assertIn("warning: --pages asks for page(s) 4-6, 9, but the file has 2 page(s); "
                      "read the others", messages)

    def test_parse_pages(self):
        self.assertEqual(parse_pages("1-3,5,2"), [1, 2, 3, 5])
        self.assertIsNone(parse_pages(None))
        for bad in ("0", "a", "2-1", "1-"):
            with self.assertRaises(UsageError, msg=bad):
                parse_pages(bad)

    def test_llm_provider_flags_classify_through_the_server(self):
        from tests.llm_server import LLMServer, Turn
        from tests.test_classify import asked_ids

        def handler(request):
            return Turn(text=json.dumps({i: {"type": "paragraph", "text": "t"}
                                         for i in asked_ids(request)}))

        with LLMServer(handler=handler) as server:
            proc = run_dua("extract", UNSURE, "-q", "--provider", "openai", "--base-url",
                           server.url + "/v1", "--model", "m", env={"DUA_LLM_API_KEY": "k"})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        stats = json.loads(proc.stdout)["stats"]
        self.assertEqual((stats["classifier"], stats["llm_calls"], stats["unclassified"]),
                         ("llm", 1, 0))


class QuietTest(unittest.TestCase):
    def test_the_pdf_libraries_warnings_are_heard_only_under_debug(self):
        import contextlib
        import io
        import logging

        from dua import cli

        logger = logging.getLogger("pdfminer")
        self.addCleanup(logger.setLevel, logger.level)
        tmp = tempfile.mkdtemp(prefix="dua-quiet-")
        self.addCleanup(shutil.rmtree, tmp, True)
        for quiet, heard in (((), False), (("-q",), False), (("--debug",), True)):
            logger.setLevel(logging.NOTSET)
            err = io.StringIO()
            with contextlib.redirect_stderr(err):
                code = cli.main(["extract", REPORT, "--out", os.path.join(tmp, "r.json"), *quiet])
                # what pdfminer logs about a font with no bounding box, as on real PDFs
                logging.getLogger("pdfminer.pdffont").warning("Could not get FontBBox")
            self.assertEqual(code, 0)
            self.assertEqual("FontBBox" in err.getvalue(), heard, err.getvalue())


class ExtractRecoveryCommandTest(unittest.TestCase):
    """The Error Handler's decisions reach the user: progress lines on stderr, stats.recovery."""

    def run_llm(self, handler, *extra: str):
        from tests.llm_server import LLMServer

        with LLMServer(handler=handler) as server:
            proc = run_dua("extract", UNSURE, "--provider", "openai", "--base-url",
                           server.url + "/v1", "--model", "m", *extra, env={"DUA_LLM_API_KEY": "k"})
        self.assertEqual(proc.returncode, 0, proc.stderr)
        return json.loads(proc.stdout)["stats"], proc.stderr, server.count

    def test_rate_limited_batch_is_retried_as_the_handler_says(self):
        from tests.llm_server import Fail
        from tests.test_node_recovery import failing

        # The command gives the transport one retry of its own (2 requests), then the handler's;
        # llm_calls counts every HTTP request, the transport's retry included.
        stats, stderr, requests = self.run_llm(failing(2, Fail("rate_limit", retry_after=0.01)))
        self.assertEqual((requests, stats["llm_calls"], stats["llm_down"]), (3, 3, None))
        (record,) = stats["recovery"]
        self.assertEqual((record["step"], record["automated_actions"], record["delay_s"]),
                         ("retry", ["retry:1"], 0.01))
        self.assertIn(f"dua extract: classify_llm failed (LLM_RATE_LIMITED): "
                      f"{record['user_message']} (waiting 0.01s)\n", stderr)
        self.assertIn("LLM batch 1/1 classified", stderr)

    def test_bad_key_falls_back_to_rules_and_says_how_to_fix_it(self):
        from tests.llm_server import Fail

        stats, stderr, requests = self.run_llm(lambda request: Fail("auth"))
        self.assertEqual((requests, stats["classifier"], stats["unclassified"]), (1, "llm", 0))
        self.assertEqual(stats["recovery"][0]["automated_actions"], ["fallback:builtin"])
        self.assertEqual(stats["llm_down"]["user_message"], stats["recovery"][0]["user_message"])
        self.assertIn("The language model cannot be used: HTTP 401", stderr)
        self.assertIn("Set a valid key in DUA_LLM_API_KEY.", stderr)
        self.assertIn("dua extract:   try: Use --provider builtin (no LLM)\n", stderr)
        self.assertIn("1 LLM call(s) (then the built-in rules)", stderr)

    def test_quiet_keeps_the_decisions_in_the_json_only(self):
        from tests.llm_server import Fail

        stats, stderr, _ = self.run_llm(lambda request: Fail("auth"), "-q")
        self.assertEqual(stderr, "")
        self.assertEqual(stats["recovery"][0]["step"], "fallback")


class BadInputTest(unittest.TestCase):
    """Every bad input is one clear line on stderr and exit code 3."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dua-bad-")
        with open(REPORT, "rb") as fh:
            pdf = fh.read()
        cls.files = {"not_a_pdf.pdf": b"hello, I am text\n", "empty.pdf": b"",
                     "truncated.pdf": pdf[: len(pdf) // 2]}
        secret = PDF()
        secret.add_page().text(72, 100, "Secret words")
        cls.files["encrypted.pdf"] = secret.to_bytes(password="s3cret")
        scan = PDF()
        scan.add_page().image(0, 0, 612, 792, gradient())
        cls.files["scan.pdf"] = scan.to_bytes()
        blank = PDF()
        blank.add_page()
        cls.files["blank.pdf"] = blank.to_bytes()
        gap = PDF()
        gap.add_page().text(72, 100, "Before the gap")
        gap.add_page()
        gap.add_page().text(72, 100, "After the gap")
        cls.files["gap.pdf"] = gap.to_bytes()
        for name, data in cls.files.items():
            with open(os.path.join(cls.tmp, name), "wb") as fh:
                fh.write(data)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def assert_bad_input(self, name: str, *extra: str, says: str) -> None:
        proc = run_dua("extract", os.path.join(self.tmp, name), *extra)
        self.assertEqual(proc.returncode, 3, proc.stderr)
        self.assertEqual(proc.stdout, "")
        self.assertIn(says, proc.stderr)
        self.assertNotIn("Traceback", proc.stderr)

    def test_not_a_pdf(self):
        self.assert_bad_input("not_a_pdf.pdf", says="not a PDF")

    def test_empty_file(self):
        self.assert_bad_input("empty.pdf", says="empty")

    def test_truncated_pdf(self):
        self.assert_bad_input("truncated.pdf", says="damaged or truncated")

    def test_missing_file(self):
        self.assert_bad_input("nowhere.pdf", says="No such file")

    def test_encrypted_without_password(self):
        self.assert_bad_input("encrypted.pdf", says="needs a password")

    def test_encrypted_with_wrong_password(self):
        self.assert_bad_input("encrypted.pdf", "--password", "nope", says="password is wrong")

    def test_encrypted_with_right_password_extracts(self):
        result = extract(os.path.join(self.tmp, "encrypted.pdf"), password="s3cret")
        self.assertEqual(result["elements"][0]["text"], "Secret words")

    def test_no_text_layer_suggests_ocr(self):
        self.assert_bad_input("scan.pdf", says="ocrmypdf")

    def test_a_single_blank_page_is_said_in_the_singular(self):
        self.assert_bad_input("blank.pdf", says="its 1 page is an image or blank, with no characters")

    def test_an_empty_page_between_text_pages_is_listed_with_no_words(self):
        result = extract(os.path.join(self.tmp, "gap.pdf"))
        self.assertEqual([(p["number"], p["words"]) for p in result["pages"]], [(1, 3), (2, 0), (3, 3)])
        self.assertEqual([e["text"] for e in result["elements"]], ["Before the gap", "After the gap"])


class PublicSampleTest(unittest.TestCase):
    """The shared samples (read in place, never copied): nothing lost, or a clear refusal."""

    def assert_nothing_lost(self, path: str) -> dict:
        result = extract(path)
        words = sorted(w.text for p in read_document(path, word_rule="reading").pages
                       for w in p.words)
        self.assertEqual(sorted(w for e in result["elements"] for w in element_words(e)), words)
        self.assertGreater(len(words), 100)
        return result

    def test_icici_statement_is_extracted_with_nothing_lost(self):
        result = self.assert_nothing_lost(shared_sample("icici", "icici_sample.pdf"))
        self.assertIn("table", result["stats"]["counts"])

    def test_monopoly_statement_is_extracted_with_nothing_lost(self):
        result = self.assert_nothing_lost(shared_sample("monopoly_example", "statement.pdf"))
        # Running footers and "PAGE n OF 4" on all four pages; column headers are not headings.
        self.assertEqual((result["stats"]["counts"]["footer"], result["stats"]["counts"]["page_number"]),
                         (4, 4))
        headings = [e["text"] for e in result["elements"] if e["type"] == "heading"]
        self.assertNotIn("DESCRIPTION", headings)

    def test_scanned_statement_without_text_layer_exits_3(self):
        proc = run_dua("extract", shared_sample("sbi_scanned", "statement.pdf"), "-q",
                       "--ocr", "never")  # with OCR (tesseract), see tests.test_ocr
        self.assertEqual(proc.returncode, 3)
        self.assertIn("no text layer", proc.stderr)
        self.assertIn("ocrmypdf", proc.stderr)


if __name__ == "__main__":
    unittest.main()
