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
