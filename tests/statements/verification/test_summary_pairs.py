"""A summary under a table with no balance column: the total of each column of money, and
the opening and closing balances their net leads between, each accounted for."""
from __future__ import annotations

import unittest

from dua.statements.learning import analysis
from dua.statements.table import dataframe
from dua.statements.verification import verify

from ..table.test_engine import line, settings


def _statement(closing: str) -> tuple:
    cols = settings(columns=[{"name": "Date", "x0": 0.0, "kind": "date"},
                             {"name": "Description", "x0": 90.0, "kind": "text"},
                             {"name": "Debit", "x0": 280.0, "kind": "amount"},
                             {"name": "Credit", "x0": 360.0, "kind": "amount"}],
                    header=["date description debit credit"],
                    skip_patterns=list(analysis.SKIP_PATTERNS))  # as the layout gives them
    page = (line(50, (40, "Date"), (100, "Description"), (300, "Debit"), (380, "Credit"))
            + line(62, (40, "01/02/24"), (100, "Coffee"), (300, "3.50"))
            + line(74, (40, "02/02/24"), (100, "Salary"), (380, "500.00"))
            + line(86, (40, "03/02/24"), (100, "Rent"), (300, "200.00"))
            + line(110, (40, "Opening balance"), (180, "Total debits"), (300, "Total credits"),
                   (380, "Closing balance"))
            + line(122, (40, "1,000.00"), (180, "203.50"), (300, "500.00"), (380, closing)))
    return page, cols


class SummaryPairsTest(unittest.TestCase):
    def test_the_balances_the_proven_net_leads_between_are_accounted_for(self):
        page, cols = _statement("1,296.50")
        result = verify.intrinsic(dataframe.build_frame([page], cols), [page], cols)
        self.assertEqual(result["status"], "passed", result["summary"])

    def test_a_closing_balance_the_net_does_not_reach_is_left_unaccounted(self):
        page, cols = _statement("1,296.60")
        result = verify.intrinsic(dataframe.build_frame([page], cols), [page], cols)
        self.assertNotEqual(result["status"], "passed")
        self.assertIn("1,296.60", str(result["diagnostics"]["unaccounted"]))


if __name__ == "__main__":
    unittest.main()
