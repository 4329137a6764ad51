"""Column edges against the page: cells that print nothing of their own, merged columns."""
from __future__ import annotations

import unittest

from dua.statements.table import engine
from dua.statements.verification import gutters

from ..table.test_engine import line, settings


def cheque_settings():
    s = settings(header=["date description cheque amount balance"])
    s["columns"] = [{"name": "Date", "x0": 0.0, "kind": "date"},
                    {"name": "Description", "x0": 90.0, "kind": "text"},
                    {"name": "Cheque", "x0": 250.0, "kind": "text"},
                    {"name": "Amount", "x0": 300.0, "kind": "amount"},
                    {"name": "Balance", "x0": 400.0, "kind": "amount"}]
    return s


HEAD = line(50, (40, "Date"), (100, "Description"), (260, "Cheque"), (310, "Amount"),
            (410, "Balance"))


def verdicts(page, s):
    rows, items = engine.extract([page], s)
    return gutters.apart(rows, items, s), gutters.one_column_each(rows, items, s)


# 'Rent payment for the month house and garage' runs on past the cheque column's edge
RUN_ON = (HEAD + line(65, (40, "01/02/24"), (100, "Coffee"), (320, "3.50"))
          + line(77, (40, "02/02/24"), (100, "Rent payment for the month house and garage"),
                 (320, "1.50"))
          + line(89, (40, "03/02/24"), (100, "Tea"), (320, "2.00")))


class CellsApartTest(unittest.TestCase):
    def test_text_running_on_into_an_empty_column_is_no_cell_of_its_own(self):
        # 'Rent for the month' runs past the cheque column's edge, a word space at a time
        page = RUN_ON
        found = verdicts(page, cheque_settings())[0]
        self.assertFalse(found["passed"])
        self.assertIn("'Cheque'", found["detail"])

    def test_words_the_key_left_unclaimed_running_on_from_a_cell_are_no_column(self):
        # the key's description stops at 'Rent payment': the words after it, stashed in a
        # column the output leaves out, run on a word space from it
        page = RUN_ON
        s = cheque_settings()
        s["columns"][2].update(output=False, unclaimed=True)
        found = verdicts(page, s)[0]
        self.assertFalse(found["passed"])
        self.assertIn("'Cheque'", found["detail"])
        del s["columns"][2]["unclaimed"]  # a column the key leaves out by name is its own
        self.assertTrue(verdicts(page, s)[0]["passed"])

    def test_text_run_on_over_a_column_the_heading_names_and_no_row_fills_stays_its_own(self):
        # read knowing the cheque column is empty, the run-on words stay in the
        # description: no word is read into the empty column, and the check agrees
        page = RUN_ON
        s = cheque_settings()
        s["columns"][2]["empty"] = True
        rows, _ = engine.extract([page], s)
        self.assertEqual(rows[1][0][1:3], ["Rent payment for the month house and garage", ""])
        self.assertTrue(verdicts(page, s)[0]["passed"])

    def test_a_tight_column_that_prints_cells_of_its_own_elsewhere_stands(self):
        # the same touching pair, where the cheque column opens cells after a gutter on
        # other rows: a tight table
        page = (HEAD + line(65, (40, "01/02/24"), (100, "Coffee"), (260, "10001"), (320, "3.50"))
                + line(77, (40, "02/02/24"), (100, "Rent payment for the month house and garage"),
                       (320, "1.50"))
                + line(89, (40, "03/02/24"), (100, "Tea"), (260, "10002"), (320, "2.00")))
        self.assertTrue(verdicts(page, cheque_settings())[0]["passed"])


class LinesInColumnsTest(unittest.TestCase):
    def test_a_description_running_on_under_the_balance_stays_the_rows(self):
        # the wrapped line's words run on, a word space apart, past the balance column's
        # edge: the reading keeps them in the description, and so does the check
        s = settings()
        page = (line(50, (40, "Date"), (100, "Description"), (310, "Amount"), (420, "Balance"))
                + line(65, (40, "01/02/24"), (100, "Coffee"), (320, "3.50"), (420, "96.50"))
                + line(77, (40, "02/02/24"), (100, "Rent"), (320, "1.50"), (420, "95.00"))
                + line(87, (100, "reference ABC123 payment towards the loan for the month "
                                 "including taxes"))
                + line(99, (40, "03/02/24"), (100, "Tea"), (320, "2.00"), (420, "93.00")))
        rows, items = engine.extract([page], s)
        self.assertIn("including", rows[1][0][1])
        self.assertTrue(gutters.bands(rows, items, s)["passed"])


class OneColumnEachTest(unittest.TestCase):
    HEAD = line(50, (40, "Date"), (100, "Value"), (150, "Reference"), (210, "Description"),
                (310, "Amount"))

    @staticmethod
    def merged():
        """'Value' and 'Reference' read as one column."""
        s = settings(header=["date value reference description amount"])
        s["columns"] = [{"name": "Date", "x0": 0.0, "kind": "date"},
                        {"name": "Value Reference", "x0": 90.0, "kind": "text"},
                        {"name": "Description", "x0": 200.0, "kind": "text"},
                        {"name": "Amount", "x0": 300.0, "kind": "amount"}]
        return s

    def page(self, refs):
        page = list(self.HEAD)
        for k, ref in enumerate(refs):
            cells = [(40, f"0{k + 1}/02/24"), (100, "02/02")] + ([(150, ref)] if ref else [])
            page += line(65 + 12 * k, *cells, (210, "Coffee"), (320, "3.50"))
        return page

    def test_a_word_starting_under_a_heading_word_on_every_row_is_a_column_merged(self):
        s, page = self.merged(), self.page(("AB1", "CD22", "EF333"))
        found = verdicts(page, s)[1]
        self.assertFalse(found["passed"])
        self.assertIn("'Reference'", found["detail"])
        # read apart, each heading word over its own column, nothing is merged
        s["columns"][1:2] = [{"name": "Value", "x0": 90.0, "kind": "text"},
                             {"name": "Reference", "x0": 140.0, "kind": "text"}]
        self.assertTrue(verdicts(page, s)[1]["passed"])

    def test_two_heading_names_drawn_one_over_the_other_leave_the_columns_undecided(self):
        # 'Memo' over nothing set too close to 'Money': printed 'MemoMoney', 'M' 1.2 pt over
        # the 'o'; which columns the heading names, no row tells
        from ..table.test_engine import word

        s = settings(header=["date description memomoney"])
        s["columns"] = [{"name": "Date", "x0": 0.0, "kind": "date"},
                        {"name": "Description", "x0": 90.0, "kind": "text"},
                        {"name": "MemoMoney", "x0": 280.0, "kind": "amount"}]
        memo = word("Memo", 290, 50)
        head = line(50, (40, "Date"), (100, "Description"))
        head += [memo, word("Money", memo[2] - 1.2, 50)]
        page = head + line(65, (40, "01/02/24"), (100, "Coffee"), (320, "3.50"))
        found = verdicts(page, s)[1]
        self.assertIsNone(found["passed"])
        self.assertIn("'Memo' drawn over 'Money'", found["detail"])
        touching = head[:-1] + [word("Money", memo[2], 50)]  # a word space of none: one name
        page = touching + line(65, (40, "01/02/24"), (100, "Coffee"), (320, "3.50"))
        self.assertTrue(verdicts(page, s)[1]["passed"])

    def test_a_names_first_word_ending_before_every_cell_leaves_the_columns_undecided(self):
        # 'Memo Reference' over references set from x 175: 'Memo' (150-170) over no row's
        # words may name a column no row fills, read into 'Reference'
        s = self.merged()
        s["columns"][1]["name"] = "Memo Reference"
        head = line(50, (40, "Date"), (150, "Memo Reference"), (255, "Description"),
                    (320, "Amount"))
        rows = [w for k, ref in enumerate(("AB1234", "CD2345", "EF3456")) for w in line(
            65 + 12 * k, (40, f"0{k + 1}/02/24"), (175, ref), (260, "Coffee"), (320, "3.50"))]
        s["columns"][1:3] = [{"name": "Memo Reference", "x0": 140.0, "kind": "text"},
                             {"name": "Description", "x0": 250.0, "kind": "text"}]
        found = verdicts(head + rows, s)[1]
        self.assertIsNone(found["passed"])
        self.assertIn("'Memo' ends before every cell of 'Memo Reference'", found["detail"])
        # the references starting under 'Memo', the name is theirs
        rows = [(w[0], w[1] - 20, w[2] - 20) + w[3:] if w[1] == 175 else w for w in rows]
        self.assertTrue(verdicts(head + rows, s)[1]["passed"])

    def test_one_name_twice_on_the_headings_second_line_leaves_the_columns_undecided(self):
        # 'Value Date' and 'Txn Date' wrapped onto two lines, read as two tiers whose
        # second line's 'Date' fields take each date's year (s298005 235)
        s = self.merged()
        page = self.page(["AB1", "CD22", "EF333"])
        s["second_line"] = [{"name": "Date", "x0": 0.0, "kind": "text"},
                            {"name": "Date", "x0": 90.0, "kind": "text"}]
        found = verdicts(page, s)[1]
        self.assertIsNone(found["passed"])
        self.assertIn("second line names 'Date' under more than one column", found["detail"])
        s["second_line"][1]["name"] = "Reference"  # a second tier of fields of their own
        self.assertIsNotNone(verdicts(page, s)[1]["passed"])

    def test_a_column_whose_values_start_a_point_or_two_before_its_name_is_merged_too(self):
        # the heading's cells padded apart from the values': 'Reference' at 150, refs at 148.2
        page = list(self.HEAD)
        for k, ref in enumerate(("AB1", "CD22", "EF333")):
            page += line(65 + 12 * k, (40, f"0{k + 1}/02/24"), (100, "02/02"), (148.2, ref),
                         (210, "Coffee"), (320, "3.50"))
        found = verdicts(page, self.merged())[1]
        self.assertFalse(found["passed"])
        self.assertIn("'Reference'", found["detail"])

    def test_a_column_printed_on_some_rows_only_read_into_its_neighbour_is_merged(self):
        # references on three rows of six: the rows whose cell reaches under 'Reference'
        # all start a word there; the others print nothing that far right
        found = verdicts(self.page(("AB1", "", "CD22", "", "EF333", "")), self.merged())[1]
        self.assertFalse(found["passed"])
        self.assertIn("3 of the 3 rows", found["detail"])

    def test_a_column_merged_on_the_headings_page_is_merged_where_later_pages_set_it_apart(self):
        # the next page sets the columns narrower: its references start 7 pt before the
        # heading's 'Reference', and outnumber the first page's rows
        s = self.merged()
        s["header_once"] = True
        later = [w for k in range(6) for w in line(
            30 + 12 * k, (40, f"1{k}/02/24"), (100, "02/02"), (143, "GH4444"), (203, "Tea"),
            (320, "1.50"))]
        rows, items = engine.extract([self.page(("AB1", "CD22", "EF333")), later], s)
        self.assertEqual(len(rows), 9)
        found = gutters.one_column_each(rows, items, s)
        self.assertFalse(found["passed"])
        self.assertIn("3 of the 3 rows", found["detail"])

    def test_a_second_word_of_one_columns_name_is_no_column_of_its_own(self):
        # 'Posting Date': 'Date' a word space after 'Posting', over each date's month
        s = settings(header=["posting date description amount"],
                     date_pattern=r"\d{2} [A-Z][a-z]{2} \d{4}")
        s["columns"] = s["columns"][:3]
        head = line(50, (15, "Posting"), (53, "Date"), (120, "Description"), (310, "Amount"))
        page = head + [w for k in range(3) for w in line(
            65 + 12 * k, (40, f"1{k} Mar 2024"), (120, "Coffee"), (320, "3.50"))]
        self.assertEqual(len(engine.extract([page], s)[0]), 3)
        self.assertTrue(verdicts(page, s)[1]["passed"])


if __name__ == "__main__":
    unittest.main()
