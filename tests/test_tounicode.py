"""dua.pdf.tounicode: ToUnicode CMaps read to the very map pdfminer's CMapParser makes, and
left to pdfminer wherever that reading is in doubt."""
from __future__ import annotations

import io
import logging
import unittest

from dua.pdf import tounicode

HEAD = (b"/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        b"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        b"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n")
TAIL = b"endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"


def miner_codes(data: bytes) -> dict:
    from pdfminer.cmapdb import CMapParser, FileUnicodeMap

    umap = FileUnicodeMap()
    CMapParser(umap, io.BytesIO(data)).run()
    return umap.cid2unichr


def fast_codes(data: bytes):
    tounicode._CMAP_MAPS.clear()  # each case read afresh, not from the kept maps
    return tounicode._cmap_codes(data)


class AgreesWithPdfminerTest(unittest.TestCase):
    def setUp(self):
        logging.disable(logging.WARNING)  # pdfminer warns of the malformed entries
        self.addCleanup(logging.disable, logging.NOTSET)

    def agrees(self, body: bytes, whole: bool = False) -> dict:
        data = body if whole else HEAD + body + TAIL
        got = fast_codes(data)
        self.assertIsNotNone(got, "read, not left to pdfminer")
        self.assertEqual(got, miner_codes(data))
        return got

    def test_bfchar_one_byte_codes(self):
        got = self.agrees(b"1 begincodespacerange <00> <FF> endcodespacerange\n"
                          b"3 beginbfchar\n<01> <0041>\n<02><00660069>\n<0A> <D835DC00>\nendbfchar\n")
        self.assertEqual(got, {1: "A", 2: "fi", 10: "\U0001d400"})

    def test_bfrange_counts_up_and_reads_arrays(self):
        got = self.agrees(b"2 beginbfrange\n<20> <22> <0041>\n<30> <32> [<0061> <00660066> <0063>]\n"
                          b"endbfrange\n")
        self.assertEqual(got[0x21], "B")
        self.assertEqual(got[0x31], "ff")

    def test_multibyte_codespace_and_codes(self):
        self.agrees(b"1 begincodespacerange <0000> <FFFF> endcodespacerange\n"
                    b"2 beginbfchar <0102> <4E00> <FFFF> <0030> endbfchar\n"
                    b"1 beginbfrange <0200> <02FF> <00410000> endbfrange\n")

    def test_a_range_wraps_within_its_last_bytes(self):
        self.agrees(b"1 beginbfrange <10> <14> <00FE> endbfrange\n"
                    b"1 beginbfrange <40> <43> <0041FFFE> endbfrange\n")

    def test_later_entries_win_but_a_no_break_space_keeps_a_space(self):
        got = self.agrees(b"2 beginbfchar <01> <0020> <02> <0041> endbfchar\n"
                          b"2 beginbfchar <01> <00A0> <02> <00A0> endbfchar\n")
        self.assertEqual(got, {1: " ", 2: "\u00a0"})

    def test_malformed_entries_are_skipped_as_pdfminer_skips_them(self):
        self.agrees(b"3 beginbfrange <01> <0002> <0041> (ab) <05> <0041> <08> <09> <0061> endbfrange\n"
                    b"2 beginbfchar 12 <0041> <03> endbfchar\n"
                    b"1 beginbfrange <10> <12> [<0041>] endbfrange\n")

    def test_comments_literal_strings_and_sections_split_into_tokens(self):
        self.agrees(b"% a comment\n2 beginbfchar <01> <0041> % between\n<02> (\x00B) endbfchar\n"
                    b"1 beginbfrange\n<03> <04> <0043>\n% inside\nendbfrange\n")

    def test_nothing_after_endcmap_counts(self):
        self.agrees(HEAD + b"1 beginbfchar <01> <0041> endbfchar\nendcmap\n"
                    b"1 beginbfchar <02> <0042> endbfchar\n", whole=True)

    def test_a_keyword_the_stream_ends_in_still_acts(self):
        got = self.agrees(HEAD + b"1 beginbfchar <01> <0041> endbfchar", whole=True)
        self.assertEqual(got, {1: "A"})

    def test_a_section_after_endcmap_leaves_its_strings_to_one_after_begincmap(self):
        self.agrees(HEAD + b"endcmap 1 beginbfchar <01> <0041> endbfchar\n"
                    b"begincmap <05> <0045> endbfchar <06> <0046> endbfchar\n" + TAIL, whole=True)

    def test_a_map_without_begincmap(self):
        self.agrees(b"2 beginbfchar <01> <0041> <02> <0042> endbfchar\n", whole=True)


class LeftToPdfminerTest(unittest.TestCase):
    def test_what_it_does_not_follow_to_the_letter_is_in_doubt(self):
        for body in (b"/Adobe-Japan1-UCS2 usecmap\n",  # another CMap's codes
                     b"1 beginbfchar <01> (a\\)b) endbfchar\n",  # an escape
                     b"1 beginbfchar <01> <00 41> endbfchar\n",  # blanks inside a hex string
                     b"1 beginbfchar <01> <041> endbfchar\n",  # an odd digit
                     b"1 beginbfrange <01> <02> [/A /B] endbfrange\n",  # glyph names
                     b"1 beginbfrange <01> <02> /A endbfrange\n",
                     b"<< /A >> def\n",  # pdfminer raises on a dictionary of odd length
                     b"[ beginbfchar <01> <0041> endbfchar ]\n",  # a section inside an array
                     b"1 begincidchar <01> 5 endcidchar\n",
                     b"/N#41me 1 def\n", b"1.5 def\n"):
            with self.subTest(body=body):
                self.assertIsNone(fast_codes(HEAD + body + TAIL))

    def test_a_font_whose_map_is_in_doubt_gets_pdfminer_s_map(self):
        from pdfminer.pdfinterp import PDFResourceManager
        from pdfminer.pdftypes import PDFStream
        from pdfminer.psparser import LIT

        from dua.pdf.fonts import _miner_font

        data = HEAD + b"1 beginbfchar <01> <0041> endbfchar\n/X#20 1 def\n" + TAIL
        spec = {"Type": LIT("Font"), "Subtype": LIT("Type1"), "BaseFont": LIT("Helvetica"),
                "ToUnicode": PDFStream({}, data)}
        tounicode._CMAP_MAPS.clear()
        font = _miner_font(PDFResourceManager(), None, spec)
        self.assertIsNone(tounicode._CMAP_MAPS[data])
        self.assertEqual(font.to_unichr(1), "A")


class FontsReadTheFastMapTest(unittest.TestCase):
    def test_a_font_reads_the_same_text_for_every_code_as_pdfminer_s(self):
        from pdfminer.pdfinterp import PDFResourceManager
        from pdfminer.pdftypes import PDFStream
        from pdfminer.psparser import LIT

        from dua.pdf.fonts import _miner_font

        data = HEAD + (b"2 beginbfchar <01> <0041> <02> <00660069> endbfchar\n"
                       b"1 beginbfrange <40> <45> <0061> endbfrange\n") + TAIL
        for kind in ("Type1", "TrueType"):
            spec = {"Type": LIT("Font"), "Subtype": LIT(kind), "BaseFont": LIT("Helvetica"),
                    "ToUnicode": PDFStream({}, data)}
            tounicode._CMAP_MAPS.clear()
            ours = _miner_font(PDFResourceManager(), None, spec)
            theirs = PDFResourceManager().get_font(None, spec)
            self.assertIsNotNone(tounicode._CMAP_MAPS[data], "read by tounicode")
            for code in range(256):
                self.assertEqual(_text(ours, code), _text(theirs, code), (kind, code))

    def test_identical_streams_are_read_once(self):
        data = HEAD + b"1 beginbfchar <01> <0041> endbfchar\n" + TAIL
        first = fast_codes(data)
        self.assertIs(tounicode._cmap_codes(bytes(bytearray(data))), first)


def _text(font, code):
    from pdfminer.pdffont import PDFUnicodeNotDefined

    try:
        return font.to_unichr(code)
    except PDFUnicodeNotDefined:
        return None


if __name__ == "__main__":
    unittest.main()
