"""The ways a statement's columns of numbers can move its balance."""
from __future__ import annotations

import unittest

import pandas as pd

from dua.statements.table import movements


class SignCodesTest(unittest.TestCase):
    def test_a_column_of_two_short_codes_signs_the_amounts_either_way_the_balances_say(self):
        frame = pd.DataFrame({"Amount": [10.0, 5.0, 2.0], "S/H": ["S", "H", "S"]})
        self.assertEqual(movements.drcr_column(frame), "S/H")
        options = dict(movements.movement_options(frame))
        self.assertIn([10.0, -5.0, 2.0], options.values())
        self.assertIn([-10.0, 5.0, -2.0], options.values())
        words = pd.DataFrame({"Amount": [10.0, 5.0], "Note": ["Shop", "Rent"]})
        self.assertIsNone(movements.drcr_column(words))


class SignedColumnsTest(unittest.TestCase):
    def test_a_column_of_money_out_printing_its_minus_adds_to_the_money_in(self):
        # '-$4,961.00' under Debits: subtracting it again would add it
        frame = pd.DataFrame({"Credits": [2500.0, 0.0, 1500.0], "Debits": [0.0, -4961.0, 0.0]})
        self.assertIn([2500.0, -4961.0, 1500.0],
                      dict(movements.movement_options(frame)).values())

    def test_unsigned_columns_are_never_added_together(self):
        frame = pd.DataFrame({"Credits": [2500.0, 0.0], "Debits": [0.0, 4961.0]})
        self.assertNotIn([2500.0, 4961.0], dict(movements.movement_options(frame)).values())
