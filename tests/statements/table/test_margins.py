"""Pages that print the table at another left margin (a statement set for both sides)."""
from __future__ import annotations

import unittest

from dua.statements.learning import analysis
from dua.statements.table import margins

from ..learning.test_analysis import rows
from .test_engine import line


def _page(dx: float, days: range) -> list:
    """A heading and rows whose date, value date and details stand a narrow gutter apart,
    every word moved ``dx`` points right."""
    heading = line(60, (40 + dx, "Date"), (96 + dx, "Value date"), (152 + dx, "Details"),
                   (320 + dx, "Amount"))
    return heading + rows(*[[(40 + dx, f"{d:02d}/09/2012"), (96 + dx, f"{d:02d}/09/2012"),
                             (152 + dx, "CARD PAYMENT SHOP"), (320 + dx, f"{d}.50")]
                            for d in days])


class PageMarginTest(unittest.TestCase):
    def test_a_page_set_further_right_keeps_the_tables_columns_apart(self):
        # page 2 ten points over: its dates cover page 1's gutters, which alone part them
        found = analysis.analyze_pages([_page(0, range(1, 13)), _page(10, range(13, 20))])
        self.assertEqual(found.column_headers, ["Date", "Value date", "Details", "Amount"])

    def test_a_page_setting_money_first_at_other_widths_keeps_the_balance_from_the_date(self):
        # money set flush right first, each row's a different width, then the date 6 pt on:
        # page 2 sets both 7 pt further left, its dates over page 1's gutter
        def page(dx, days):
            head = line(60, (45 + dx, "Withdrawals"), (135 + dx, "Balance"), (176 + dx, "Date"),
                        (260 + dx, "Details"))
            return head + rows(*[[(100 + dx - 5 * len(f"{d}.00"), f"{d}.00")] * (d % 2) + [
                (170 + dx - 5 * len(f"{d * 11}.50"), f"{d * 11}.50"),
                (176 + dx, f"{d:02d}/09/2012"), (260 + dx, "CARD PAYMENT")] for d in days])
        found = analysis.analyze_pages([page(0, range(10, 22)), page(-7, range(22, 29))])
        self.assertEqual(found.column_headers, ["Withdrawals", "Balance", "Date", "Details"])

    def test_only_a_page_whose_columns_all_moved_alike_is_moved(self):
        candidates = [(0, ln) for ln in [line(0, (40, "a"), (96, "b"))] * 3] + \
            [(1, ln) for ln in [line(0, (50, "a"), (106, "b"))] * 2] + \
            [(2, ln) for ln in [line(0, (50, "a"), (96, "b"))] * 2]
        self.assertEqual(margins.page_shifts(candidates), {1: 10.0})


if __name__ == "__main__":
    unittest.main()
