"""Notations learned from evidence and the key as the specification, through `dua parse`.

The statements in ``fixtures/notations/`` (``fixtures/make_notations.py``, printed by
Chromium) print dates, amounts and signs no English list reads; each is parsed with its
answer key and without one, as a user runs dua.
"""
from __future__ import annotations

import concurrent.futures
import glob
import json
import os
import re
import shutil
import tempfile
import unittest

import pandas as pd

from fixtures import make_notations
from dua.statements.notation import columndates, datenotation, months
from dua.statements.table import amounts, notation, pagewords, wordlines

from ...support import FIXTURES, run_dua

CASES = sorted(glob.glob(os.path.join(FIXTURES, "notations", "*", "a.pdf")))


def _layout(pdf: str) -> dict:
    with open(os.path.join(os.path.dirname(pdf), "layout.json"), encoding="utf-8") as f:
        return json.load(f)


def _key(pdf: str):
    return pd.read_csv(os.path.join(os.path.dirname(pdf), "a.csv"))


def _page_values(got, key, layout: dict) -> bool:
    """The rows as the page prints them: the key's columns (one the page heads and never
    fills is kept, empty), in the page's order, its labels kept out of the text (what a
    parse without the key can know)."""
    if layout.get("reverse_key"):
        key = key.iloc[::-1].reset_index(drop=True)
    if got.shape != key.shape:
        return False
    got = got.copy()
    got.columns = key.columns
    labels = {layout.get("ref_line"), layout.get("label")} - {None}
    for c in got.columns:
        if pd.api.types.is_string_dtype(got[c]):
            got[c] = got[c].map(lambda v: " ".join(t for t in v.split(" ") if t not in labels)
                                if isinstance(v, str) else v)
    return got.equals(key)


def lines_of(rows: list, pitch: float = 40.0) -> list:
    """Lines of words, one a row, each row's texts in columns ``pitch`` apart."""
    return [[(t, pitch * k, pitch * k + 0.75 * pitch, 10.0 * i, 10.0 * i + 8, 8.0)
             for k, t in enumerate(row)] for i, row in enumerate(rows)]


class NotationStatementsTest(unittest.TestCase):
    """Every statement, with its key and without, parsed once for the whole class."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="dua-notations-")
        jobs = [(pdf, mode) for pdf in CASES for mode in ("key", "alone")]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            cls.runs = dict(zip(jobs, pool.map(lambda job: cls._parse(*job), jobs)))
            cls.reused = dict(zip(CASES, pool.map(cls._reuse, CASES)))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, True)

    @classmethod
    def _parse(cls, pdf: str, mode: str) -> tuple:
        name = os.path.basename(os.path.dirname(pdf)) + "_" + mode
        out = os.path.join(cls.tmp, name + ".csv")
        args = ["parse", pdf, "--bank", name, "--out", out, "--json", "--quiet",
                "--parsers-dir", os.path.join(cls.tmp, "parsers")]
        if mode == "key":
            args += ["--expected", os.path.join(os.path.dirname(pdf), "a.csv")]
        done = run_dua(*args, cwd=cls.tmp)
        report = json.loads(done.stdout) if done.stdout.strip() else {}
        got = pd.read_csv(out) if os.path.exists(out) else None
        return done, report, got

    @classmethod
    def _reuse(cls, pdf: str) -> tuple:
        """The parser written with a's key run by `dua run` on b, months later."""
        parser = cls.runs[(pdf, "key")][1].get("parser_path") or "missing.py"
        out = os.path.join(cls.tmp, os.path.basename(os.path.dirname(pdf)) + "_b.csv")
        done = run_dua("run", os.path.join(cls.tmp, parser), pdf.replace("a.pdf", "b.pdf"),
                       "--out", out, "--quiet", cwd=cls.tmp)
        # rows whose checks did not pass are written beside --out under their verdict's name
        kept = [p for p in (out,) + tuple(out[:-4] + f".{v}.csv" for v in
                                          ("failed", "unverified", "unchecked"))
                if os.path.exists(p)]
        return done, pd.read_csv(kept[0]) if kept else None

    def test_the_parser_written_with_a_key_reads_the_banks_next_statement_exactly(self):
        # b prints months a never does: the notation learned is the language's, not a's dates
        for pdf in CASES:
            with self.subTest(pdf=pdf):
                done, got = self.reused[pdf]
                self.assertTrue(got.equals(pd.read_csv(pdf.replace("a.pdf", "b.csv"))))
                # dua run checks b's rows without a key: an Af/Bij column's two words sign
                # the amounts the one way the printed balances follow from each other
                self.assertEqual(done.returncode, 0, done.stderr[-800:])

    def test_there_are_ten_statements_in_nine_languages_with_a_third_set_aside(self):
        layouts = [_layout(p) for p in CASES]
        self.assertEqual(len(layouts), 10)
        self.assertGreaterEqual(len({x["lang"] for x in layouts}), 9)
        self.assertEqual(sum(x["set_aside"] for x in layouts), 3)

    def test_with_its_key_every_statement_is_read_exactly(self):
        for pdf in CASES:
            with self.subTest(pdf=pdf):
                done, report, got = self.runs[(pdf, "key")]
                self.assertEqual(done.returncode, 0, done.stderr[-800:])
                self.assertEqual((report["status"], report["llm_calls"]), ("passed", 0))
                self.assertTrue(got.equals(_key(pdf)))

    def test_without_a_key_no_statement_passes_with_rows_the_page_does_not_print(self):
        for pdf in CASES:
            with self.subTest(pdf=pdf):
                done, report, got = self.runs[(pdf, "alone")]
                if report.get("status") == "passed":
                    self.assertTrue(_page_values(got, _key(pdf), _layout(pdf)))

    def test_without_a_key_a_statement_whose_page_tells_its_signs_passes(self):
        # Sign words only a key can teach (S/H, a D/C column's words) leave the direction
        # of every amount open: a global flip reconciles as well, so those may not pass.
        told = [p for p in CASES if _layout(p).get("sign") != "sh"
                and "dc" not in [k for _, k in _layout(p)["columns"]]]
        self.assertGreaterEqual(len(told), 8)
        for pdf in told:
            with self.subTest(pdf=pdf):
                done, report, got = self.runs[(pdf, "alone")]
                self.assertEqual((done.returncode, report.get("status")), (0, "passed"),
                                 done.stderr[-800:])
                self.assertTrue(_page_values(got, _key(pdf), _layout(pdf)))

    def test_a_newest_first_key_is_matched_and_the_report_says_it_is_reversed(self):
        reversed_ = [p for p in CASES if _layout(p).get("reverse_key")]
        self.assertGreaterEqual(len(reversed_), 2)
        for pdf in reversed_:
            with self.subTest(pdf=pdf):
                report = self.runs[(pdf, "key")][1]
                self.assertTrue(any("reverse of the page's order" in n for n in report["notes"]))
        ordered = [p for p in CASES if not _layout(p).get("reverse_key")]
        for pdf in ordered:
            self.assertFalse(any("reverse" in n for n in self.runs[(pdf, "key")][1]["notes"]))

    def test_a_column_blank_on_every_row_of_the_key_is_kept_in_its_place(self):
        blank = [p for p in CASES if "blank" in [k for _, k in _layout(p)["columns"]]]
        self.assertGreaterEqual(len(blank), 2)
        for pdf in blank:
            with self.subTest(pdf=pdf):
                done, report, got = self.runs[(pdf, "key")]
                names = [n for n, k in _layout(pdf)["columns"] if k == "blank"]
                self.assertEqual(list(got.columns), list(_key(pdf).columns))
                self.assertTrue(got[names].isna().all().all())
                self.assertTrue(any(repr(names[0]) in n and "empty" in n for n in report["notes"]))

    def test_a_label_printed_beside_every_value_is_learned_and_dropped(self):
        labelled = [p for p in CASES if _layout(p).get("ref_line")]
        self.assertTrue(labelled)
        for pdf in labelled:
            label = _layout(pdf)["ref_line"]
            done, report, got = self.runs[(pdf, "key")]
            self.assertTrue(any(repr(label) in n and "label" in n for n in report["notes"]))
            self.assertFalse(got.astype(str).apply(lambda s: s.str.contains(label)).any().any())
            alone = self.runs[(pdf, "alone")][2]  # as printed where no key says otherwise
            self.assertTrue(alone.astype(str).apply(lambda s: s.str.contains(label)).any().any())


class DisagreementTest(unittest.TestCase):
    def test_the_message_names_the_row_column_the_keys_value_and_what_the_page_prints(self):
        pdf = next(p for p in CASES if "debit" in [k for _, k in _layout(p)["columns"]])
        key = _key(pdf)
        column = next(n for n, k in _layout(pdf)["columns"] if k == "debit")
        row = int(key[column].notna().idxmax())
        printed = float(key.at[row, column])
        wrong = round(printed + 0.01, 2)
        key.at[row, column] = wrong
        tmp = tempfile.mkdtemp(prefix="dua-disagree-")
        self.addCleanup(shutil.rmtree, tmp, True)
        key.to_csv(os.path.join(tmp, "key.csv"), index=False)
        done = run_dua("parse", pdf, "--bank", "x", "--expected", os.path.join(tmp, "key.csv"),
                       "--parsers-dir", os.path.join(tmp, "p"), cwd=tmp)
        self.assertEqual(done.returncode, 1, done.stderr[-800:])
        line = next(ln for ln in done.stdout.splitlines() if "equals_expected" in ln)
        self.assertIn(f"row {row} column {column!r}: the key says {wrong!r}", line)
        self.assertRegex(line, r"the page prints '[\d.,\u202f\u00a0' ]+' there \(read as "
                         + re.escape(repr(printed)) + r"\)")


class NotationFixturesTest(unittest.TestCase):
    def test_the_answer_keys_regenerate_byte_for_byte(self):
        for case in make_notations.CASES:
            with self.subTest(case=case["name"]):
                for name, seed, later in (("a", 0, 0), ("b", 1, 150)):
                    _, key = make_notations.statement(case, sum(map(ord, case["name"])) + seed,
                                                      later)
                    path = os.path.join(make_notations.HERE, case["name"], name + ".csv")
                    with open(path, encoding="utf-8") as f:
                        self.assertEqual(make_notations.key_csv(case, key), f.read())

    def test_the_set_aside_third_is_every_third_case(self):
        self.assertEqual(make_notations.SET_ASIDE,
                         tuple(c["name"] for c in make_notations.CASES[2::3]))


class DateNotationTest(unittest.TestCase):
    SAMPLES = (  # printed dates and the (year, month, day) each means
        (["15 ago 2024", "3 sep 2024", "28 dic 2024"], [(2024, 8, 15), (2024, 9, 3), (2024, 12, 28)]),
        (["3 janv. 2025", "14 FÉVR. 2025", "2 mai 2025"], [(2025, 1, 3), (2025, 2, 14), (2025, 5, 2)]),
        (["02.Mai", "15.Juni", "01.Dez."], [(0, 5, 2), (0, 6, 15), (0, 12, 1)]),
        (["2024年12月16日", "2025年1月3日"], [(2024, 12, 16), (2025, 1, 3)]),
        (["2024년 12월 16일"], [(2024, 12, 16)]),
        (["15 авг. 2024", "2 СЕНТЯБРЯ 2024"], [(2024, 8, 15), (2024, 9, 2)]),
        (["5 paź 2024", "12 lis 2024"], [(2024, 10, 5), (2024, 11, 12)]),
        (["1 Eki 2024", "3 Kas 2024"], [(2024, 10, 1), (2024, 11, 3)]),
        (["07/15/2024", "07/16/2024"], [(2024, 7, 15), (2024, 7, 16)]),
        (["2024.12.16"], [(2024, 12, 16)]),
        (["15 ago 2024 10:32", "3 sep 2024 9:05"], [(2024, 8, 15), (2024, 9, 3)]),
        (["03 Авг 23", "17 Апр 25"], [(23, 8, 3), (25, 4, 17)]),  # a day, a month: the rest a year
        # a short year first, a one-digit day last: the part that changes most is the day
        (["24-7-4", "24-7-6", "24-7-18", "24-8-2"], [(24, 7, 4), (24, 7, 6), (24, 7, 18), (24, 8, 2)]),
        (["23/6/14", "23/6/15", "23/1/7"], [(23, 6, 14), (23, 6, 15), (23, 1, 7)]),
        (["08/01/24", "08/05/24", "08/11/24"], [(24, 8, 1), (24, 8, 5), (24, 8, 11)]),
    )

    def test_any_order_separator_language_and_script_is_induced_and_read(self):
        for values, meant in self.SAMPLES:
            with self.subTest(values=values):
                found = datenotation.induce(values)
                for v in values:
                    self.assertRegex(v, re.compile("^(?:%s)$" % found["pattern"], re.IGNORECASE))
                self.assertEqual(datenotation.order_keys(values, found), meant)

    def test_a_keys_numeric_days_and_months_are_dates_only_when_they_run_in_order(self):
        from dua.statements.learning import evidence

        self.assertIsNotNone(evidence.date_notation(["21-07", "22-07", "25-07", "01-08"]))
        self.assertIsNone(evidence.date_notation(["21-07", "03-02", "25-07", "01-03"]))
        self.assertIsNone(evidence.date_notation(["21-07", "21-07"]))

    def test_without_a_key_day_and_month_alone_are_dates_only_when_many_run_in_order(self):
        from dua.statements.table import wordlines

        def lines(dates):
            return [wordlines.group_lines([(d, 40, 60, 10 * i, 10 * i + 8, 8.0),
                                        ("12.50", 300, 330, 10 * i, 10 * i + 8, 8.0)], 3.0)[0]
                    for i, d in enumerate(dates, 1)]
        has_money = lambda ln: True  # noqa: E731
        self.assertIsNotNone(columndates.from_lines(lines(["7-9", "8-9", "12-9", "3-10"]), has_money))
        self.assertIsNone(columndates.from_lines(lines(["7-9", "8-9"]), has_money))
        self.assertIsNone(columndates.from_lines(lines(["7-9", "3-2", "12-9", "1-1"]), has_money))

    def test_the_pattern_covers_the_languages_months_not_only_the_ones_seen(self):
        found = datenotation.induce(["15 ago 2024", "3 sep 2024"])
        self.assertIn("es", found["languages"])
        pattern = re.compile("^(?:%s)$" % found["pattern"], re.IGNORECASE)
        self.assertRegex("1 ENERO 2025", pattern)
        self.assertNotRegex("1 janvier 2025", pattern)

    def test_a_days_ordinal_ending_is_learned_so_any_days_ending_reads(self):
        # UK banks print '12th Feb': a key of the 4th to the 20th shows only 'th'
        for values, meant, unseen in (
                (["4th Feb 2022", "12th Feb 2022"], [(2022, 2, 4), (2022, 2, 12)], "21st Mar 2022"),
                (["Jan 20th", "Jan 23rd"], [(0, 1, 20), (0, 1, 23)], "Feb 1st"),
                (["1er mars", "1er avril"], [(0, 3, 1), (0, 4, 1)], "1er mai")):
            with self.subTest(values=values):
                found = datenotation.induce(values)
                pattern = re.compile("^(?:%s)$" % found["pattern"], re.IGNORECASE)
                self.assertRegex(unseen, pattern)
                self.assertEqual(datenotation.order_keys(values, found), meant)

    def test_without_a_key_days_with_their_ordinal_endings_are_a_date_column(self):
        def lines(texts):
            return [[(t, 0.0, 10.0, 10.0 * i, 10.0 * i + 8, 8.0)] for i, t in enumerate(texts)]

        found = columndates.from_lines(lines(["12th Feb", "15th Feb", "1st Mar", "2nd Mar"]),
                                       lambda line: True)
        self.assertRegex("23rd Mar", re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_words_and_numbers_that_are_no_date_give_no_notation(self):
        for values in (["12.50", "3.75"], ["Transfer to X", "ATM"], ["REF 1234", "REF 99"]):
            self.assertIsNone(datenotation.induce(values), values)

    def test_the_month_names_are_data_for_at_least_fifteen_languages_in_two_scripts(self):
        forms = months.forms()
        self.assertGreaterEqual(len(forms), 15)
        self.assertTrue(all(len(m) == 12 for m in forms.values()))
        scripts = {"cyrillic" if re.search("[а-я]", m[0][0]) else "latin" for m in forms.values()}
        self.assertEqual(scripts, {"cyrillic", "latin"})

    def test_without_a_key_a_column_is_a_date_column_when_its_dates_run_in_order(self):
        def lines(texts):
            return [[(t, 0.0, 10.0, 10.0 * i, 10.0 * i + 8, 8.0)] for i, t in enumerate(texts)]

        money = lambda line: True  # noqa: E731
        ordered = ["15 ago 2024", "3 sep 2024", "28 oct 2024", "2 nov 2024"]
        self.assertIsNotNone(columndates.from_lines(lines(ordered), money))
        shuffled = ["15 ago 2024", "28 oct 2024", "3 sep 2024", "2 nov 2024"]
        self.assertIsNone(columndates.from_lines(lines(shuffled), money))

    def test_without_a_key_the_date_is_found_behind_an_amount_that_reads_as_a_day_and_month(self):
        # Money printed first ('5.26 H 15dic.2025'): the amount is the line's first
        # date-like run, and only the runs that keep one shape in order are the dates.
        rows = [("5.26", "15dic.2025"), ("17.78", "17dic.2025"), ("3.53", "02ene.2026"),
                ("1.04", "09ene.2026")]
        found = columndates.from_lines(lines_of(rows), lambda line: True)
        self.assertRegex("15dic.2025", re.compile("^(?:%s)$" % found, re.IGNORECASE))
        self.assertNotRegex("5.26", re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_without_a_key_a_month_first_date_keeps_its_short_year(self):
        def lines(texts):
            return [[(t, 0.0, 60.0, 10.0 * i, 10.0 * i + 8, 8.0)] for i, t in enumerate(texts)]

        found = columndates.from_lines(lines(["NOVEMBRE 17 24", "NOVEMBRE 19 24", "DÉCEMBRE 2 24"]),
                                        lambda line: True)
        self.assertRegex("DÉCEMBRE 14 24", re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_without_a_key_a_number_after_the_date_lends_it_no_year(self):
        # a balance printed right after a date with no year ('jun.-11 10.455,66', s418050
        # 028): its first digits are no short year of the date
        rows = [("jun.-11", "10.455,66"), ("jun.-12", "10.459,57"), ("jun.-14", "10.473,58"),
                ("jun.-17", "9.944,21")]
        found = columndates.from_lines(lines_of(rows, 80.0), lambda line: True)
        self.assertRegex("jun.-27", re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_a_second_accounts_dates_may_start_again_but_dates_in_no_order_are_no_column(self):
        first = [(2024, 3, d) for d in (1, 2, 4, 7, 9, 12, 15, 20, 28)]
        second = [(2024, 3, d) for d in (2, 3, 8, 11, 16, 22, 25, 29)]
        self.assertTrue(columndates.in_order(first + second))
        shuffled = [(2024, 3, d) for d in (9, 2, 15, 4, 28, 1, 20, 7, 12, 3, 22, 8, 29, 11, 25, 16)]
        self.assertFalse(columndates.in_order(shuffled))

    def test_without_a_key_two_dates_side_by_side_are_two_not_a_day_month_and_year(self):
        # '04 Février 06 Février': the next date's day is no year of the first one
        self.assert_read_as_dates([("04 Février", "06 Février"), ("04 Février", "04 Février"),
                                   ("06 Février", "06 Février"), ("08 Février", "11 Février"),
                                   ("12 Février", "12 Février"), ("15 Février", "17 Février")],
                                  "20 Mars")

    def test_without_a_key_a_short_year_followed_by_a_whole_date_stays_the_dates_year(self):
        # value dates a day or two off the booking order, then the booking date printed once
        # a day: '06 février 25 06 février 25' is two whole dates, no day taken from the next
        value = (6, 8, 9, 10, 12, 13, 11, 12, 13, 15, 16, 17, 20, 18, 19, 18, 23)
        booked = {0: 6, 1: 7, 2: 9, 4: 10, 5: 11, 8: 12, 9: 14, 10: 16, 12: 18, 16: 21}
        self.assert_read_as_dates([(f"{d:02d} février 25",) + ((f"{booked[i]:02d} février 25",)
                                                               if i in booked else ())
                                   for i, d in enumerate(value)], "20 mars 25")

    def test_without_a_key_a_short_year_before_a_description_stays_the_dates_year(self):
        # two accounts, the second's dates two years earlier: read without its year the
        # column would run on in order, but 'Transfer' is no month, so '25' is no day
        self.assert_read_as_dates([(f"{d:02d} FEV. 25", "Transfer") for d in (2, 3, 4, 7, 9)]
                                  + [(f"{d:02d} MAI. 23", "Salary") for d in (14, 15, 16, 19)],
                                  "20 MAI. 23")

    def test_without_a_key_no_date_starts_in_an_amounts_decimals(self):
        # money first: '4.317,51 июл. 18 2025' reads '51 июл. 18' as well as the date
        self.assert_read_as_dates([("4.317,51", "июл. 18 2025"), ("31.627,66", "июл. 19 2025"),
                                   ("29.602,43", "июл. 22 2025"), ("103.216,54", "июл. 23 2025")],
                                  "авг. 01 2025")

    def assert_read_as_dates(self, rows: list, other: str) -> None:
        """Two words a line, at x 40 and 100: the notation found reads ``other`` too."""
        lines = [[(t, x, x + 40, 10.0 * i, 10.0 * i + 8, 8.0) for t, x in zip(row, (40, 100))]
                 for i, row in enumerate(rows)]
        found = columndates.from_lines(lines, lambda line: True)
        self.assertRegex(other, re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_without_a_key_a_short_year_first_with_unpadded_days_is_found(self):
        texts = ["24-7-18", "24-7-19", "24-7-22", "24-7-31", "24-8-3", "24-8-6"]
        lines = [[(t, 40.0, 80.0, 10.0 * i, 10.0 * i + 8, 8.0)] for i, t in enumerate(texts)]
        found = columndates.from_lines(lines, lambda line: True)
        self.assertRegex("24-9-1", re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_without_a_key_dates_marked_with_kangxi_radicals_are_found(self):
        lines = [[(f"2023年6\u2f49{d}\u2f47", 40.0, 100.0, 10.0 * i, 10.0 * i + 8, 8.0)]
                 for i, d in enumerate((21, 25, 27, 30))]
        self.assertIsNotNone(columndates.from_lines(lines, lambda line: True))

    def test_without_a_key_each_column_of_dates_is_judged_on_its_own(self):
        # The booking date printed once per day, the value date on every row: read down the
        # lines together they run back and forth; each column alone runs in order.
        rows = [("Nov. 19 24", "Nov. 19 24"), ("Nov. 20 24", "Nov. 22 24"), ("", "Nov. 25 24"),
                ("Nov. 23 24", "Nov. 25 24"), ("", "Nov. 28 24"), ("Nov. 26 24", "Nov. 27 24")]
        lines = [[(t, x, x + 40, 10.0 * i, 10.0 * i + 8, 8.0) for t, x in zip(row, (40, 100)) if t]
                 for i, row in enumerate(rows)]
        found = columndates.from_lines(lines, lambda line: True)
        self.assertRegex("Dic. 02 24", re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_first_lines_of_wrapped_dates_of_two_shapes_both_start_a_date(self):
        # a narrow cell wraps '11 set' over '2023', and '13' over 'nov' over '2023'
        found = datenotation.head_pattern(["11 set", "12 set", "13", "14"])
        for head in ("15 set", "16"):
            self.assertRegex(head, re.compile("^(?:%s)$" % found, re.IGNORECASE))
        self.assertIsNone(datenotation.head_pattern(["11 set", "Total"]))

    def test_a_longer_month_wraps_sooner_so_a_first_lines_first_part_heads_a_date_too(self):
        # learned where '11 June' headed each date; '22' over 'September' heads the next
        found = datenotation.head_pattern(["11 June", "12 June"])
        self.assertRegex("22", re.compile("^(?:%s)$" % found, re.IGNORECASE))
        self.assertNotRegex("Coffee", re.compile("^(?:%s)$" % found, re.IGNORECASE))

    def test_numbers_glued_into_one_run_are_cut_where_their_widths_say(self):
        found = datenotation.induce(["Ott102025", "Ott282025", "Nov032025"])
        self.assertEqual(found["roles"], ["m", "d", "y"])
        self.assertEqual(datenotation.order_keys(["Ott282025", "Nov032025"], found),
                         [(2025, 10, 28), (2025, 11, 3)])
        glued = datenotation.induce(["15122025", "30122025", "02012026"])
        self.assertEqual(datenotation.order_keys(["02012026"], glued), [(2026, 1, 2)])
        # A run a digit shorter on some rows holds an unpadded day before its year
        found = datenotation.induce(["Ott92025", "Ott102025"])
        self.assertEqual(datenotation.order_keys(["Ott92025", "Ott102025"], found),
                         [(2025, 10, 9), (2025, 10, 10)])
        found = datenotation.induce(["Aug.1425", "Okt.825", "Aug.1625"])
        self.assertEqual(datenotation.order_keys(["Okt.825"], found), [(25, 10, 8)])
        # runs of widths further apart, or touching no word, say nothing of where to cut
        self.assertIsNone(datenotation.induce(["Ott92025", "Ott1020256"]))
        self.assertIsNone(datenotation.induce(["1 92025", "1 102025"]))
        # Four digits touching the month are a day and a short year; set apart, a year alone.
        found = datenotation.induce(["Nov1725", "Dec0125"])
        self.assertEqual(datenotation.order_keys(["Dec0125"], found), [(25, 12, 1)])
        self.assertIsNone(datenotation.induce(["Nov 2025", "Dec 2025"]))

    def test_an_ambiguous_month_word_is_read_in_the_languages_of_its_column(self):
        # 'mar' is March in most languages, November (marraskuu) in Finnish: alone it reads
        # either way; beside 'ago' (August in Spanish, Italian, Portuguese) it is March.
        alone = datenotation.induce(["1 mar 2024", "9 mar 2024"])
        self.assertIn("fi", alone["languages"])
        self.assertIsNone(datenotation.order_keys(["1 mar 2024"], alone))
        found = datenotation.induce(["1 mar 2024", "15 ago 2024"])
        self.assertNotIn("fi", found["languages"])
        self.assertEqual(datenotation.order_keys(["1 mar 2024"], found), [(2024, 3, 1)])


class NumberNotationTest(unittest.TestCase):
    def test_soll_and_haben_sign_words_are_read_once_learned(self):
        settings = {"decimal": ",", "sign_marks": ["h", "s"],
                    "drcr_signs": {"dr": -1, "cr": 1, "s": -1, "h": 1}}
        self.assertEqual(amounts.parse_amount("1.234,56 S", settings), -1234.56)
        self.assertEqual(amounts.parse_amount("1.234,56 H", settings), 1234.56)
        self.assertIsNone(amounts.parse_amount("1.234,56 S", {"decimal": ","}))

    def test_grouping_by_narrow_and_no_break_spaces_apostrophes_and_indian_lakhs(self):
        for text, decimal, value in (("1\u202f234,56", ",", 1234.56), ("1\u00a0234,56", ",", 1234.56),
                                     ("1'234.56", ".", 1234.56), ("1,23,456.78", ".", 123456.78),
                                     ("(1 234,56)", ",", -1234.56), ("1.234,56-", ",", -1234.56)):
            self.assertEqual(amounts.parse_amount(text, {"decimal": decimal}), value, text)


class LoneMarkerTest(unittest.TestCase):
    """A column that marks one way alone ('Cr') and leaves the other bare: the running
    balance says which way each goes."""

    def columns(self):
        return [{"name": "Amount", "kind": "amount", "drcr_signs": {"dr": -1, "cr": -1}},
                {"name": "Balance", "kind": "amount"}]

    def test_a_banks_lone_cr_that_raises_the_balance_is_money_in(self):
        cols = self.columns()
        notation.one_sided_ways([["100.00 Cr", "30.00", "20.00 Cr", "5.00", "1.00"],
                                 ["1,100.00", "1,070.00", "1,090.00", "1,085.00", "1,084.00"]],
                                cols, {"decimal": "."})
        self.assertEqual(cols[0]["sign"], -1)  # Cr parses negative, then the column turns

    def test_a_cards_lone_cr_that_lowers_the_balance_owed_stays_negative(self):
        cols = self.columns()
        notation.one_sided_ways([["100.00", "30.00 Cr", "20.00", "5.00 Cr", "1.00"],
                                 ["1,100.00", "1,070.00", "1,090.00", "1,085.00", "1,086.00"]],
                                cols, {"decimal": "."})
        self.assertEqual(cols[0]["sign"], 1)

    def test_balances_that_follow_neither_way_leave_the_guess(self):
        cols = self.columns()
        notation.one_sided_ways([["100.00 Cr", "30.00", "20.00 Cr"], ["7.00", "9.00", "3.00"]],
                                cols, {"decimal": "."})
        self.assertNotIn("sign", cols[0])


class ScriptTest(unittest.TestCase):
    def test_kangxi_radicals_a_cjk_font_maps_read_as_the_characters_they_stand_for(self):
        word = ("2024年8\u2f491\u2f47", 0.0, 40.0, 0.0, 8.0, "F", 8.0, ())
        kept, _ = pagewords.page_words([word], {})
        self.assertEqual(kept[0][0], "2024年8月1日")

    def test_a_heading_in_cyrillic_or_cjk_is_recognised_by_its_letters(self):
        self.assertEqual(wordlines.normalize("Дата  Описание"), "дата описание")
        self.assertEqual(wordlines.normalize("交易日期 摘要"), "交易日期 摘要")


if __name__ == "__main__":
    unittest.main()
