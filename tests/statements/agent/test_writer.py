"""The built-in writer: standalone emitted code, alignment, and the guided settings search."""
from __future__ import annotations

import ast
import copy
import dataclasses
import os
import sys
import types
import unittest

import pandas as pd

from dua.pdf import read_document
from dua.sandbox import reader_block
from dua.sandbox.policy import check_source
from dua.schemas import StatementState
from dua.statements.learning import analysis
from dua.statements.agent import agent, writer
from dua.statements.table import dataframe

from ...support import FIXTURES
from ..learning.test_analysis import rows
from ..learning.test_answer_key import frame
from ..table.test_engine import line

CARD = os.path.join(FIXTURES, "statements", "card_parens")


class BuiltinWriterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.pages = analysis.pages_from_document(read_document(os.path.join(CARD, "a.pdf")))
        cls.found = analysis.analyze_pages(cls.pages)
        cls.expected = pd.read_csv(os.path.join(CARD, "a.csv"))

    def test_emitted_parser_imports_only_allowed_modules_and_passes_the_policy(self):
        source = writer.emit_source(self.found.settings, "northwind")
        self.assertEqual(check_source(source), [])
        tree = ast.parse(source)
        block = reader_block.find(tree)
        self.assertIsNotNone(block, "the word reader is not copied verbatim")
        imported = set()
        for i, stmt in enumerate(tree.body):
            for node in ast.walk(stmt):
                where = "reader" if i in block else "parser"
                if isinstance(node, ast.Import):
                    imported.update((where, a.name.split(".")[0]) for a in node.names)
                elif isinstance(node, ast.ImportFrom):
                    imported.add((where, node.module.split(".")[0]))
        # unicodedata: CJK fonts' radicals read as the characters they stand for (pagewords)
        self.assertEqual({m for w, m in imported if w == "parser"},
                         {"__future__", "re", "unicodedata", "pandas"})
        # the reader reads with pdfminer alone (pdfplumber for the pages it falls back on)
        self.assertEqual({m for w, m in imported if w == "reader"},
                         {"io", "re", "itertools", "operator", "pdfminer", "pdfplumber"})
        self.assertIn("def parse(pdf_path", source)

    def test_emitted_parser_gives_the_same_frame_with_and_without_pypdfium2(self):
        source = writer.emit_source(writer.align(self.found.settings, self.expected), "card")
        frames = []
        for blocked in (False, True):
            saved = sys.modules.get("pypdfium2")
            if blocked:
                sys.modules["pypdfium2"] = None  # import pypdfium2 now raises ImportError
            try:
                namespace = {"__name__": "generated_parser"}
                exec(compile(source, "parser.py", "exec"), namespace)
                frames.append(namespace["parse"](os.path.join(CARD, "a.pdf")))
            finally:
                if blocked:
                    sys.modules.pop("pypdfium2")
                    if saved is not None:
                        sys.modules["pypdfium2"] = saved
        pd.testing.assert_frame_equal(frames[0], frames[1])
        pd.testing.assert_frame_equal(frames[0], self.expected, check_dtype=False)

    def test_emitted_parser_holds_no_data_from_the_sample(self):
        source = writer.emit_source(writer.align(self.found.settings, self.expected), "northwind")
        for value in self.expected["Date"].tolist() + self.expected["Description"].tolist():
            self.assertNotIn(str(value), source)
        for value in self.expected["Amount"].tolist():
            self.assertNotIn(f"{abs(value):,.2f}", source)

    def test_align_renames_and_types_columns_like_the_expected_csv(self):
        renamed = self.expected.rename(columns={"Description": "Details"})
        s = writer.align(self.found.settings, renamed)
        self.assertEqual([c["name"] for c in s["columns"]], ["Date", "Details", "Amount"])
        self.assertEqual([c["dtype"] for c in s["columns"]], ["str", "str", "float"])

    def test_search_recovers_from_damaged_settings_guided_by_diagnostics(self):
        damaged = copy.deepcopy(self.found.settings)
        damaged["parens_negative"] = False
        damaged["skip_patterns"] = [p for p in damaged["skip_patterns"] if "total" not in p]
        found = analysis.Analysis(damaged, [], [], [], 1, 1)
        w = writer.BuiltinWriter(self.pages, found, self.expected)
        draft = w.write()
        self.assertEqual(draft.in_process["status"], "passed", draft.note)
        self.assertLess(len(w.tried), writer.SEARCH_BUDGET)

    def test_search_finds_the_date_format_and_the_wrapped_lines_again(self):
        damaged = copy.deepcopy(self.found.settings)
        damaged.update(date_pattern=r"\d{4}-\d{2}-\d{2}", continuation_gap=0.0)
        damaged["columns"][1]["x0"] += 12
        w = writer.BuiltinWriter(self.pages, analysis.Analysis(damaged, [], [], [], 1, 1),
                                 self.expected)
        self.assertEqual(w.write().in_process["status"], "passed")

    def test_unsupervised_search_repairs_signs_until_the_balances_reconcile(self):
        folder = os.path.join(FIXTURES, "statements", "trailing_minus")
        pages = analysis.pages_from_document(read_document(os.path.join(folder, "a.pdf")))
        found = analysis.analyze_pages(pages)
        found.settings["trailing_minus_negative"] = False
        draft = writer.BuiltinWriter(pages, found).write()
        self.assertEqual(draft.in_process["status"], "passed", draft.in_process["summary"])
        self.assertTrue(draft.settings["trailing_minus_negative"])

    def test_write_passes_at_once_on_a_known_layout(self):
        w = writer.BuiltinWriter(self.pages, self.found, self.expected)
        draft = w.write()
        # no search: the first reading, and the same read by its amounts (dates carried)
        self.assertEqual((draft.in_process["status"], len(w.tried)), ("passed", 2))
        self.assertEqual(draft.settings["columns"][0]["name"], "Date")

    def test_refine_offers_untried_candidates_then_none(self):
        w = writer.BuiltinWriter(self.pages, self.found, self.expected, budget=3)
        w.write()
        seen = set()
        for _ in range(20):
            draft = w.refine()
            if draft is None:
                break
            self.assertNotIn(draft.code, seen)
            seen.add(draft.code)
        else:
            self.fail("refine never ran out of candidates")

    def test_no_transactions_is_a_lookup_error(self):
        w = writer.BuiltinWriter([[]], analysis.analyze_pages([[]]))
        with self.assertRaises(LookupError):
            w.write()



class SectionsTest(unittest.TestCase):
    def test_an_unsigned_reading_no_figure_sums_is_tried_with_its_sections_signed(self):
        # the rows unsigned add up to nothing printed (unverified, every word accounted
        # for); signed by their sections they lead from the opening balance to the closing
        def head(top):
            return line(top, (40, "Date"), (100, "Description"), (310, "Amount"))

        page = (line(8, (100, "Opening balance"), (320, "1,000.00"))
                + line(18, (100, "Closing balance"), (320, "1,050.00")) + head(50)
                + line(62, (40, "Deposits"))
                + rows([(40, "01/02/24"), (100, "Salary"), (320, "100.00")],
                       [(40, "02/02/24"), (100, "Refund"), (320, "10.00")], top=74)
                + line(98, (40, "Withdrawals"))
                + rows([(40, "02/02/24"), (100, "Rent"), (320, "40.00")],
                       [(40, "03/02/24"), (100, "Coffee"), (320, "20.00")], top=110))
        draft = writer.BuiltinWriter([page], analysis.analyze_pages([page])).write()
        self.assertEqual(draft.in_process["status"], "passed", draft.in_process["summary"])
        self.assertEqual(draft.settings["sections"], [["deposits", 1], ["withdrawals", -1]])


    def test_without_a_key_the_search_tries_signs_before_fewer_rows(self):
        # no count to aim at: a reading that leaves rows out is no step towards one
        found = analysis.analyze_pages([self.page()])
        result = {"mode": "intrinsic", "status": "failed",
                  "diagnostics": {"row_count": {"got": 4}}}
        first = writer.mutations(found.settings, result, found)[0]
        changed = {k for k in first if first[k] != found.settings.get(k)}
        self.assertEqual(changed, {"parens_negative"})

    def page(self) -> list:
        def head(top):
            return line(top, (40, "Date"), (100, "Description"), (310, "Amount"))

        return (line(8, (100, "Opening balance"), (320, "1,000.00"))
                + line(18, (100, "Closing balance"), (320, "1,050.00")) + head(50)
                + rows([(40, "01/02/24"), (100, "Salary"), (320, "100.00")],
                       [(40, "02/02/24"), (100, "Rent"), (320, "50.00")], top=65))


class LoneMarkerSearchTest(unittest.TestCase):
    def test_a_lone_cr_the_summary_proves_money_in_is_read_as_money_in(self):
        # 'Cr' on the salary alone, bare debits, no balance column: read as a card's
        # credits, 1,000 leads nowhere; as money in, to 1,050, the totals right after it
        page = (line(10, (40, "Opening"), (100, "1,000.00"), (160, "In"), (200, "100.00"),
                     (250, "Out"), (300, "50.00"), (350, "Closing"), (420, "1,050.00"))
                + line(50, (40, "Date"), (100, "Description"), (310, "Amount"))
                + rows([(40, "01/02/24"), (100, "Salary"), (320, "100.00 Cr")],
                       [(40, "02/02/24"), (100, "Rent"), (320, "30.00")],
                       [(40, "03/02/24"), (100, "Coffee"), (320, "20.00")], top=65))
        draft = writer.BuiltinWriter([page], analysis.analyze_pages([page])).write()
        self.assertEqual(draft.in_process["status"], "passed", draft.in_process["summary"])
        frame = dataframe.build_frame([page], draft.settings)
        self.assertEqual(frame["Amount"].tolist(), [100.0, -30.0, -20.0])


class CodedAmountsTest(unittest.TestCase):
    def page(self, opening: str, closing: str) -> list:
        # 'K' and 'D' after each amount, no balance column
        return (line(10, (40, "Opening balance"), (260, opening))
                + line(22, (40, "Closing balance"), (260, closing))
                + line(50, (40, "Date"), (120, "Details"), (260, "Amount"))
                + rows([(40, "01/08/2024"), (120, "Salary"), (260, "20.00 K")],
                       [(40, "02/08/2024"), (120, "Rent"), (260, "5.00 D")],
                       [(40, "03/08/2024"), (120, "Bus"), (260, "2.50 D")],
                       [(40, "04/08/2024"), (120, "Refund"), (260, "1.00 K")]))

    def test_two_codes_sign_the_amounts_the_way_they_lead_from_the_balance_printed_first(self):
        # opening + net = closing, and closing - net = opening: the codes sign the amounts
        # (nothing they say is lost), and the balance printed first is the one they lead from
        for closing, k in (("113.50", 1), ("86.50", -1)):
            with self.subTest(closing=closing):
                page = self.page("100.00", closing)
                draft = writer.BuiltinWriter([page], analysis.analyze_pages([page])).write()
                result = draft.in_process
                self.assertEqual(result["status"], "passed", result["summary"])
                self.assertIn(f"they lead from the printed 100.0 to the {float(closing)} "
                              "printed after it", result["summary"])
                frame = dataframe.build_frame([page], draft.settings)
                self.assertEqual([v > 0 for v in frame["Amount"]], [k > 0, k < 0, k < 0, k > 0])

    def test_two_codes_whose_balances_print_in_either_order_leave_the_way_unproven(self):
        page = self.page("100.00", "113.50") + line(34, (40, "Balance"), (260, "100.00"))
        draft = writer.BuiltinWriter([page], analysis.analyze_pages([page])).write()
        self.assertEqual(draft.in_process["status"], "unverified", draft.in_process["summary"])
        self.assertIn("their codes 'd' and 'k' read the other way, add up as well",
                      draft.in_process["summary"])

    def test_the_balances_printed_day_by_day_tell_the_search_which_code_is_money_out(self):
        for out, daily in (("d", ("120.00", "112.50", "113.50")),
                           ("k", ("80.00", "87.50", "86.50"))):
            with self.subTest(money_out=out):
                page = self.page("100.00", daily[-1]) + line(
                    140, (40, "Date"), (120, "Daily"), (260, "Balance")) + rows(
                    [(40, "01/08/2024"), (260, daily[0])], [(40, "03/08/2024"), (260, daily[1])],
                    [(40, "04/08/2024"), (260, daily[2])], top=152)
                draft = writer.BuiltinWriter([page], analysis.analyze_pages([page])).write()
                self.assertEqual(draft.in_process["status"], "passed", draft.in_process["summary"])
                self.assertEqual(draft.settings["drcr_signs"][out], -1)


class RefineTest(unittest.TestCase):
    """Refinement on hand-made words: only a parser better than every one written."""

    PAGE = (line(50, (40, "Date"), (100, "Details"), (320, "Amount"))
            + rows(*[[(40, f"0{d}/02/25"), (100, "Shop"), (320, f"({d}.25)")]
                     for d in range(1, 5)], top=65)
            + line(120, (100, "Total"), (320, "10.00")))
    KEY = frame([[f"0{d}/02/25", "Shop", -d - 0.25] for d in range(1, 5)],
                ["Date", "Details", "Amount"])

    def test_refine_offers_only_a_parser_better_than_every_one_written_then_none(self):
        damaged = copy.deepcopy(analysis.analyze_pages([self.PAGE]).settings)
        damaged.update(parens_negative=False, skip_patterns=[], date_pattern=r"\d{4}-\d{2}-\d{2}")
        w = writer.BuiltinWriter([self.PAGE], analysis.Analysis(damaged, [], [], [], 1, 1),
                                 self.KEY, budget=2)
        written = [w.write().in_process["distance"]]
        for _ in range(20):
            draft = w.refine()
            if draft is None:
                break
            self.assertLess(draft.in_process["distance"], min(written))
            written.append(draft.in_process["distance"])
        else:
            self.fail("refine never ran out of better parsers")
        self.assertGreater(len(written), 1, "the search found no better parser to offer")

    def test_after_a_parser_that_passes_there_is_nothing_to_refine(self):
        found = analysis.analyze_pages([self.PAGE], self.KEY)
        w = writer.BuiltinWriter([self.PAGE], found, self.KEY)
        self.assertEqual(w.write().in_process["status"], "passed")
        self.assertGreater(len(w.tried), 1)  # other parsers were tried: none is better
        self.assertIsNone(w.refine())

    def test_a_writer_with_nothing_better_ends_the_run(self):
        wrong = self.KEY.assign(Amount=[9.0, 9.0, 9.0, 9.0])  # no reading of the page gives it
        found = analysis.analyze_pages([self.PAGE], wrong)
        w = writer.BuiltinWriter([self.PAGE], found, wrong)
        w.write()
        state = StatementState(target_bank="shop")
        ctx = agent.AgentContext(analysis=found, writer=w,
                                 recovery=types.SimpleNamespace(records=[]))
        after = dataclasses.replace(state, **agent.refine(state, ctx))
        self.assertEqual(after.retry_count, 0)
        self.assertEqual(agent.route_after_refine(after), "finalize")
        self.assertEqual(agent.route_after_refine(state), "save")


if __name__ == "__main__":
    unittest.main()


class DatePrintedOnceTest(unittest.TestCase):
    def test_a_parser_from_rows_each_dated_reads_a_day_whose_date_is_printed_once(self):
        # the key's statement dates every row; the next prints a day's date on its first row
        heading = line(40, (40, "Date"), (120, "Details"), (330, "Amount"))
        learned = heading + rows([(40, "01/02/24"), (120, "Rent"), (330, "10.00")],
                                 [(40, "03/02/24"), (120, "Coffee"), (330, "3.50")],
                                 [(40, "05/02/24"), (120, "Bus"), (330, "1.50")], top=52)
        key = frame([["01/02/24", "Rent", 10.0], ["03/02/24", "Coffee", 3.5],
                     ["05/02/24", "Bus", 1.5]], ["Date", "Details", "Amount"])
        draft = writer.BuiltinWriter([learned], analysis.analyze_pages([learned], key),
                                     key).write()
        self.assertTrue(dataframe.build_frame([learned], draft.settings).equals(key))
        following = heading + rows([(40, "07/03/24"), (120, "Rent"), (330, "10.00")],
                                   [(120, "Tea"), (330, "2.50")],
                                   [(40, "09/03/24"), (120, "Bus"), (330, "1.50")], top=52)
        got = dataframe.build_frame([following], draft.settings)
        self.assertEqual(got["Date"].tolist(), ["07/03/24", "07/03/24", "09/03/24"])
        self.assertEqual(got["Amount"].tolist(), [10.0, 2.5, 1.5])
