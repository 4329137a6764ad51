"""A table whose parts print the heading with some columns left out (a card's purchases
under a purchase date, the payments and fees without it), and the key that says so."""
from __future__ import annotations

import unittest

import pandas as pd

from dua.statements.learning import evidence
from dua.statements.table import engine

from .test_engine import line, settings


def _columns() -> dict:
    return settings(
        columns=[{"name": "Purchase date", "x0": 0.0, "kind": "text"},
                 {"name": "Booked", "x0": 95.0, "kind": "date"},
                 {"name": "Details", "x0": 150.0, "kind": "text"},
                 {"name": "Amount", "x0": 300.0, "kind": "amount"}],
        date_column=1, header=["booked details amount"])


# the payments' heading (learned as the table's), the card's with its purchase date, and
# the fees' again: one table in three parts
PAGE = (line(50, (100, "Booked"), (160, "Details"), (310, "Amount"))
        + line(62, (100, "07/10/25"), (160, "Payment"), (310, "206.85"))
        + line(80, (40, "Purchase date"), (100, "Booked"), (160, "Details"), (310, "Amount"))
        + line(92, (40, "05/10/25"), (100, "06/10/25"), (160, "Coop"), (310, "30.30"))
        + line(104, (40, "06/10/25"), (100, "07/10/25"), (160, "Cinema"), (310, "19.90"))
        + line(122, (160, "Various"))
        + line(134, (100, "Booked"), (160, "Details"), (310, "Amount"))
        + line(146, (100, "23/10/25"), (160, "Rounding"), (310, "0.02")))


class HeadingPartsTest(unittest.TestCase):
    def test_a_heading_naming_every_column_goes_on_with_a_table_learned_from_a_part(self):
        rows = engine.extract([PAGE], _columns())[0]
        self.assertEqual([r[0][2] for r in rows], ["Payment", "Coop", "Cinema", "Rounding"])

    def test_another_tables_heading_still_ends_it(self):
        other = PAGE[:6] + line(80, (40, "Date"), (100, "Rate"), (160, "Balance"),
                                (310, "Interest")) + line(92, (40, "05/10/25"), (100, "06/10/25"),
                                                          (160, "1.5%"), (310, "30.30"))
        rows = engine.extract([other], _columns())[0]
        self.assertEqual([r[0][2] for r in rows], ["Payment"])

    def test_the_rows_date_is_the_first_date_the_key_gives_its_first_row(self):
        # a date printed once a day prints the first row's; a column blank there is one a
        # part of the table leaves out
        key = pd.DataFrame({"Purchase date": [None, "05/10/25"], "Booked": ["07/10/25", "06/10/25"],
                            "Details": ["Payment", "Coop"], "Amount": [206.85, 30.3]})
        self.assertEqual(evidence.roles(key), ["text", "date", "text", "amount"])
        key.loc[0, "Purchase date"] = "07/10/25"
        self.assertEqual(evidence.roles(key), ["date", "text", "text", "amount"])


if __name__ == "__main__":
    unittest.main()
