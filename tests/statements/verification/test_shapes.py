"""A column's shared shape against its cells: text read across the edge into a value date."""
from __future__ import annotations

import unittest

from dua.statements.table import engine
from dua.statements.verification import shapes

from ..table.test_engine import line, settings

COLUMNS = [{"name": "Date", "x0": 0.0, "kind": "date"},
           {"name": "Details", "x0": 90.0, "kind": "text"},
           {"name": "Value Date", "x0": 250.0, "kind": "text"},
           {"name": "Amount", "x0": 320.0, "kind": "amount"}]
TEXTS = ["Coffee", "Rent", "Tea", "Salary", "Fuel", "Cake"] * 2


def verdict(last_details: str, last_value: str = "08/02", value: str = "08/02"):
    s = settings(header=["date details value date amount"], columns=COLUMNS,
                 date_pattern=r"\d{2}/\d{2}")
    page = line(50, (40, "Date"), (100, "Details"), (260, "Value Date"), (330, "Amount"))
    for n, text in enumerate(TEXTS + [last_details]):
        page += line(65 + 12 * n, (40, f"{n + 1:02d}/02"), (100, text),
                     (260, last_value if n == len(TEXTS) else value),
                     (330, f"{n + 1}.50"))
    return shapes.check(*engine.extract([page], s), s)


class CellsInShapeTest(unittest.TestCase):
    def test_a_word_beside_a_value_date_on_the_side_of_the_text_leaves_the_rows_unverified(self):
        found = verdict("Card purchase for the", "month 08/02")
        self.assertIsNone(found["passed"])
        self.assertIn("'month'", found["detail"])
        self.assertIn("'Value Date'", found["detail"])

    def test_cells_of_the_columns_shape_pass(self):
        found = verdict("Card purchase for the month")
        self.assertTrue(found["passed"])
        self.assertIn("'Value Date'", found["detail"])

    def test_a_column_of_words_of_letters_has_no_shape_to_keep(self):
        found = verdict("Card purchase for the", "month AB", "AB")
        self.assertTrue(found["passed"])
        self.assertNotIn("'Value Date'", found["detail"])

    def test_a_wrapped_dates_cell_given_a_line_it_does_not_own_is_out_of_shape(self):
        # 'nov.' over '09' in a narrow cell; the next page's heading tier 'Date' read as
        # the last row's third line
        columns = [{"name": "Txn", "x0": 0.0, "kind": "date"},
                   {"name": "Details", "x0": 90.0, "kind": "text"},
                   {"name": "Amount", "x0": 300.0, "kind": "amount"}]
        rows = [[[f"nov. {d:02d}", "Shop", "1.00"], [], 1, []] for d in range(1, 11)]
        rows[-1][0][0] = "nov. 10 Date"
        found = shapes.check(rows, [], {"columns": columns})
        self.assertIsNone(found["passed"])
        self.assertIn("'Date'", found["detail"])

    def test_shapes_are_runs_of_letters_and_digits(self):
        self.assertEqual(shapes.shape("18/02"), "9/9")
        self.assertEqual(shapes.shape("LM46926509"), "a9")
        self.assertEqual(shapes.shape("SET.-18-2023"), "a.-9-9")
