"""Cells a line's words make: a figure whose groups a gutter parts, a label a line goes on,
a sign code beside a wrapped line."""
from __future__ import annotations

import unittest

from dua.statements.table import columns, dataframe, engine, segments, wordlines

from .test_engine import line, settings


def cell(text, x0, x1, top):
    return (text, float(x0), float(x1), float(top), top + 8.0)

MONEY = [{"name": "Details", "x0": 0.0, "kind": "text"},
         {"name": "Paid in", "x0": 415.0, "kind": "amount"},
         {"name": "Paid out", "x0": 467.0, "kind": "amount"},
         {"name": "Balance", "x0": 512.0, "kind": "amount"}]


class GroupedFigureTest(unittest.TestCase):
    def test_a_figures_first_group_over_the_gutter_goes_with_the_rest(self):
        # '3 683,91' set flush right under 'Paid out': its '3' stands left of the gutter
        words = [cell("Bill", 300, 320, 10), cell("3", 461, 467, 10),
                 cell("683,91", 469, 501, 10), cell("32", 510, 520, 10),
                 cell("700,52", 523, 552, 10)]
        cells = wordlines.split_cells(words, MONEY, 0.8, {"decimal": ","})
        self.assertEqual(cells[:2], ["Bill", ""])
        self.assertEqual(engine.parse_amount(cells[2], {"decimal": ","}), 3683.91)

    def test_two_figures_of_two_columns_stay_apart(self):
        words = [cell("18", 446, 457, 10), cell("36", 510, 520, 10), cell("384,43", 523, 552, 10)]
        cells = wordlines.split_cells(words, MONEY, 0.8, {"decimal": ","})
        self.assertEqual(cells, ["", "18", "", "36 384,43"])


class LabelGoesOnTest(unittest.TestCase):
    def test_a_label_goes_on_past_a_balance_printed_in_groups(self):
        label = [cell("Balance", 213, 250, 71), cell("brought", 252, 288, 71),
                 cell("1", 497, 502, 71), cell("126", 505, 521, 71), cell("579,34", 523, 552, 71)]
        patterns = [r"^\W*(brought|carried)\s+forward\b"]
        self.assertEqual(wordlines.label_goes_on(label, "forward", patterns), "brought forward")


class LabelAfterFiguresTest(unittest.TestCase):
    def test_a_total_printed_after_its_figures_is_labelled_no_transaction(self):
        s = settings(columns=[{"name": "Debit", "x0": 0.0, "kind": "amount"},
                              {"name": "Credit", "x0": 150.0, "kind": "amount"},
                              {"name": "Date", "x0": 300.0, "kind": "date"},
                              {"name": "Details", "x0": 380.0, "kind": "text"}],
                     date_column=2, anchor="amount", require_header=False)
        line_ = line(100, (71, "133,738.32"), (152, "211,821.22"), (383, "Total"))
        item = engine._item(line_, s, {"in_table": True, "sections": {}, "sign": 1,
                                       "kinds": ["amount", "amount", "date", "text"]})
        self.assertEqual(item[0], "furniture")
        self.assertIn("'Total'", item[5])


class CodesBesideMoneyTest(unittest.TestCase):
    def test_a_column_of_sign_codes_does_not_read_on_into_the_next_column(self):
        # '286.05' 'S' then a reference a little over a letter's width on: the codes are
        # the amounts', the references a column of their own
        lines = [[cell(f"{n}86.05", 83, 109, 10 * n), cell("SH"[n % 2], 111, 117, 10 * n),
                  cell(f"SJ1726010{n}", 123, 170, 10 * n)] for n in range(1, 5)]
        found = segments.find_segments(lines)
        self.assertEqual(len(segments.join_word_rivers(found, lines)), 3)


class WrappedSignTest(unittest.TestCase):
    def test_a_sign_code_under_an_amount_is_its_rows_where_descriptions_stand_above(self):
        # the amount wrapped onto a second line ('37' over '224.09', joined on the first)
        # puts its 'Dr' further under the row than the rows' own lines stand apart
        s = settings(continuation="above", columns=[
            {"name": "Date", "x0": 0.0, "kind": "date"},
            {"name": "Description", "x0": 90.0, "kind": "text", "empty": True},
            {"name": "Amount", "x0": 300.0, "kind": "amount"}], header=["date description amount"])
        page = line(50, (40, "Date"), (100, "Description"), (320, "Amount"))
        for n, top in enumerate((70.0, 120.0)):
            page += (line(top, (100, f"Shop {n}")) + line(top + 12, (40, f"0{n + 1}/02/24"),
                                                            (330, "37 224.09"))
                     + line(top + 32, (345, "Dr")))
        frame = dataframe.build_frame([page], s)
        self.assertEqual(frame["Amount"].tolist(), [-37224.09, -37224.09])
        self.assertEqual(frame["Description"].tolist(), ["Shop 0", "Shop 1"])

    def test_a_sign_code_beside_a_wrapped_description_lets_it_go_on(self):
        s = settings(drcr_signs={"s": -1, "h": 1})
        item = ["text", 70.0, [], "instalment as agreed S",
                line(70, (100, "instalment as agreed")) + [cell("S", 330, 335, 70)], ""]
        self.assertTrue(engine.continues(item, s))
        item[4] = line(70, (100, "instalment as agreed")) + [cell("12.00", 330, 355, 70)]
        self.assertFalse(engine.continues(item, s))


if __name__ == "__main__":
    unittest.main()
