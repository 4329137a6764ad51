"""The checks a scan's rows need beside the arithmetic (``verification.scanned``): its dates
and its pages, on hand-made rows."""
from __future__ import annotations

import unittest


class DatesCheckTest(unittest.TestCase):
    """A scan's dates, which no balance checks: each a calendar day, a date column in order."""

    def check(self, **columns):
        import pandas as pd

        from dua.statements.verification.scanned import dates_check

        return dates_check(pd.DataFrame(columns))

    def test_a_day_no_calendar_has_fails_naming_its_row(self):
        got = self.check(Date=["01-09-2024", "11-09-2024", "41-09-2024"], Amount=[1.0, 2.0, 3.0])
        self.assertFalse(got["passed"])
        self.assertIn("row 2's Date '41-09-2024' is no calendar date", got["detail"])

    def test_a_date_out_of_order_fails_and_either_order_passes(self):
        self.assertFalse(self.check(Date=["01/09/24", "17/09/24", "11/09/24"])["passed"])
        self.assertTrue(self.check(Date=["30 Aug 2024", "02 Aug 2024", "01 Aug 2024"])["passed"])
        self.assertTrue(self.check(Date=["01/08/24", "02/08/24", None],
                                   Value=["02/08/24", "01/08/24", "03/08/24"])["passed"])

    def test_a_date_column_in_order_is_enough_and_every_date_must_be_a_day(self):
        # a card's transaction dates beside the posting dates the rows are listed by
        posted = ["SEP 15", "SEP 18", "SEP 19", "SEP 20"]
        self.assertTrue(self.check(Made=["SEP 14", "SEP 18", "SEP 16", "SEP 19"],
                                   Posted=posted)["passed"])
        got = self.check(Made=["SEP 14", "SEP 31", "SEP 18", "SEP 19"], Posted=posted)
        self.assertIn("'SEP 31' is no calendar date", got["detail"])
        got = self.check(Made=["SEP 14", "SEP 19", "SEP 18"], Posted=["SEP 15", "SEP 21", "SEP 20"])
        self.assertIn("row 2's Made 'SEP 18' breaks the order", got["detail"])

    def test_a_page_printing_the_rows_dates_that_no_row_came_from_fails(self):
        import pandas as pd

        from dua.statements.verification.scanned import pages_check

        frame = pd.DataFrame({"Date": ["01-Jan-2026", "02-Jan-2026"], "Amount": [1.0, 2.0]})
        dated = [f"{d:02d}-Feb-2026" for d in range(1, 6)]
        answer = {"pages": [1, 2], "texts": {"1": ["01-Jan-2026", "02-Jan-2026"],
                                             "2": ["Balance"] + dated}}
        got = pages_check(frame, {"accounting": {"pages": [1]}}, answer)
        self.assertFalse(got["passed"])
        self.assertIn("page 2 prints 5 dates", got["detail"])
        self.assertTrue(pages_check(frame, {"accounting": {"pages": [1, 2]}}, answer)["passed"])
        answer["texts"]["2"] = dated[:2]  # a summary's period, not rows
        self.assertTrue(pages_check(frame, {"accounting": {"pages": [1]}}, answer)["passed"])

    def test_rows_without_dates_are_not_judged(self):
        self.assertIsNone(self.check(Description=["rent", "salary"]))

    def test_the_dates_may_start_again_under_each_title_of_a_group_of_rows(self):
        # deposits, then withdrawals, each listed by date under its own title
        title = "a section's title (it signs its rows)"
        ledger = {"accounting": {
            "rows": [{"row": n, "parts": [{"page": 1, "box": [40, 100 + 20 * n, 60, 110 + 20 * n]}]}
                     for n in range(5)],
            "furniture": [{"page": 1, "box": [40, 90, 90, 98], "text": "DEPOSITS", "reason": title},
                          {"page": 1, "box": [40, 131, 90, 139], "text": "OTHER DEBITS",
                           "reason": title}]}}
        got = self.dates(["12/30", "12/31", "12/13", "12/16", "12/20"], ledger)
        self.assertTrue(got["passed"], got)
        self.assertIn("under each of its 2 titles", got["detail"])
        untitled = {"accounting": {"rows": ledger["accounting"]["rows"]}}
        self.assertFalse(self.dates(["12/30", "12/31", "12/13", "12/16", "12/20"],
                                    untitled)["passed"])
        # a date out of order inside a group still fails, as does an order turned round
        got = self.dates(["12/30", "12/31", "12/13", "12/19", "12/16"], ledger)
        self.assertIn("row 4's Date '12/16' breaks the order", got["detail"])
        self.assertFalse(self.dates(["12/31", "12/30", "12/13", "12/16", "12/20"],
                                    ledger)["passed"])

    def dates(self, dates, ledger):
        import pandas as pd

        from dua.statements.verification.scanned import dates_check

        return dates_check(pd.DataFrame({"Date": dates}), ledger)
