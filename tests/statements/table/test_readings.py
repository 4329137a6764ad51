"""The engine's last readings: settings that read the same share one, others never do."""
from __future__ import annotations

import unittest

from dua.statements.table import engine

from .test_engine import HEADER, line, settings


def page():
    return (HEADER + line(65, (40, "01/02/24"), (100, "Coffee shop"), (320, "3.50"), (420, "96.50"))
            + line(75, (100, "Main Street branch"))
            + line(90, (40, "02/02/24"), (100, "Refund"), (320, "(1.50)"), (420, "98.00")))


def fresh(pages, s):
    return engine._extract(pages, s)  # no reading kept: what the settings read on their own


class ReadingKeyTest(unittest.TestCase):
    def setUp(self):
        engine._READ.clear()
        self.pages = [page()]

    def test_settings_that_read_the_same_share_one_reading_with_the_same_rows(self):
        first = settings(header=["date description amount balance", "inr"])
        same = settings(header=["inr", "date description amount balance", "inr"], sections=[],
                        columns=[dict(reversed(list(c.items()))) for c in first["columns"]])
        kept = engine.extract(self.pages, first)
        self.assertIs(engine.extract(self.pages, same), kept)
        self.assertEqual(kept, fresh(self.pages, same))

    def test_settings_that_read_differently_never_share_a_reading(self):
        kept = engine.extract(self.pages, settings())
        for other in (settings(continuation_gap=5.0), settings(header=["inr"]),
                      settings(sections=[["refund", -1]]), settings(require_header=False)):
            with self.subTest(other=other):
                got = engine.extract(self.pages, other)
                self.assertIsNot(got, kept)
                self.assertEqual(got, fresh(self.pages, other))

    def test_a_list_and_a_tuple_are_kept_apart(self):
        kept = engine.extract(self.pages, settings(skip_patterns=[r"^\s*total\b"]))
        self.assertIsNot(engine.extract(self.pages, settings(skip_patterns=(r"^\s*total\b",))),
                         kept)


if __name__ == "__main__":
    unittest.main()
