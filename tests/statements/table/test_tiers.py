"""A two-tier heading on hand-made words: a second tier that names each row's second line,
told apart from a heading merely wrapped in its cells."""
from __future__ import annotations

import unittest

from dua.statements.table import tiers

from .test_engine import HEADER, line, row, settings


def statement(second_line):
    """Four rows, each followed 10 pt below by ``second_line(i)``'s words."""
    words = []
    for i in range(4):
        top = 70 + 25 * i
        words += row(top, f"0{i + 1}/02/24", "Shop", "1.00", f"{99 - i}.00")
        words += line(top + 10, *second_line(i))
    return words


class SecondLineTest(unittest.TestCase):
    def test_a_line_under_the_second_tiers_names_after_nearly_every_row_is_a_second_tier(self):
        lower = line(58, (40, "Value"), (100, "Reference"))
        page = HEADER + lower + statement(lambda i: [(40, f"0{i + 2}/02/24"), (100, f"REF{i}")])
        self.assertEqual(tiers.second_line([page], settings(), [HEADER, lower]),
                         [{"name": "Value", "x0": 0.0, "kind": "text"},
                          {"name": "Reference", "x0": 90.0, "kind": "text"}])

    def test_a_heading_wrapped_in_its_cells_over_wrapped_descriptions_is_no_second_tier(self):
        lower = line(58, (100, "details"))  # 'Description details': one cell on two lines
        page = HEADER + lower + statement(lambda i: [(100, "Card purchase")])
        self.assertIsNone(tiers.second_line([page], settings(), [HEADER, lower]))

    def test_a_name_no_second_line_fills_makes_it_a_wrapped_heading_not_a_tier(self):
        # 'Txn' over 'Date', 'Closing' over 'Balance': each row's date wraps its year under it
        lower = line(58, (40, "Date"), (420, "Balance"))
        page = HEADER + lower + statement(lambda i: [(40, "24")])
        self.assertIsNone(tiers.second_line([page], settings(), [HEADER, lower]))

    def test_a_second_line_under_first_tier_columns_no_lower_name_heads_is_no_tier(self):
        # 'Posting' over 'Date': each row's year wraps under its date, and its reference
        # under the column beside it, which no name of the lower line stands under
        lower = line(58, (40, "Date"))
        page = HEADER + lower + statement(lambda i: [(40, "24"), (100, f"REF{i}")])
        self.assertIsNone(tiers.second_line([page], settings(), [HEADER, lower]))

    def test_a_second_line_after_too_few_rows_is_no_second_tier(self):
        lower = line(58, (40, "Value"), (100, "Reference"))
        page = HEADER + lower + statement(
            lambda i: [(40, "03/02/24"), (100, "REF1")] if i == 1 else [(100, "Card purchase")])
        self.assertIsNone(tiers.second_line([page], settings(), [HEADER, lower]))


if __name__ == "__main__":
    unittest.main()
