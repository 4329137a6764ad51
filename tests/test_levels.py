"""dua.documents.levels: heading levels from the document's numbering first, its sizes second."""
from __future__ import annotations

import unittest

from dua.documents.levels import HeadingLevels, depth


def levels(headings: list) -> list:
    sizes = sorted({s for _, s in headings}, reverse=True)
    ranks = HeadingLevels(headings, lambda size: sizes.index(size) + 1)
    return [ranks.level(text, size) for text, size in headings]


class LevelsTest(unittest.TestCase):
    def test_the_depth_of_a_number_is_its_depth(self):
        self.assertEqual([depth(t) for t in ("2 Methods", "2.3. Results", "1.1.1 Fine", "Notes")],
                         [1, 2, 3, None])

    def test_numbering_orders_headings_set_in_one_size(self):
        self.assertEqual(levels([("1 Scope", 10.0), ("1.1 Terms", 10.0), ("2 Use", 10.0)]),
                         [1, 2, 1])

    def test_a_title_before_the_numbering_stands_above_it(self):
        self.assertEqual(levels([("Annual report", 20.0), ("1 Scope", 14.0), ("1.1 Terms", 12.0)]),
                         [1, 2, 3])

    def test_a_chapter_set_larger_and_unnumbered_stays_above_its_numbered_sections(self):
        # the KOMA-Script guide: the chapter's number is printed in the running header only,
        # and a part, set larger still, first comes after the numbering began
        got = levels([("The Guide", 24.8), ("Contents", 14.3), ("Introduction", 14.3),
                      ("1.1. Preliminary Note", 12.0), ("Part I.", 17.2),
                      ("Calculating the Page Layout", 14.3), ("2.1. Fundamentals", 12.0)])
        self.assertEqual(got, [1, 3, 3, 4, 2, 3, 4])

    def test_an_unnumbered_heading_after_the_numbering_stands_beside_its_first_depth(self):
        got = levels([("Annual inventory", 18.0), ("1. Regional supply", 10.0),
                       ("1.1. Throughput", 10.0), ("Median service", 12.0)])
        self.assertEqual(got, [1, 2, 3, 2])

    def test_without_numbering_sizes_rank_the_headings(self):
        self.assertEqual(levels([("Title", 20.0), ("Part", 14.0), ("Sub", 12.0)]), [1, 2, 3])


if __name__ == "__main__":
    unittest.main()
