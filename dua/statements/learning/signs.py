"""How the answer key signs the amounts, learned from where they are printed: the words
printed beside an amount ('S', 'H', 'Dr'), each column's own convention (unmarked amounts
money out, parentheses, a trailing minus), and sections whose titles sign their rows.
"""
from __future__ import annotations

import collections

from ..table import engine, notation, sections, wordlines
from . import evidence


def sign_words(settings: dict, pages: list, rows: list, expected, kinds: list) -> None:
    """Words such as 'S' and 'H' that print an amount's sign beside it, from the key's signs."""
    signs = [[None if k != "amount" or not evidence.value(v) else (-1 if v < 0 else 1)
              for k, v in zip(kinds, expected.iloc[i].tolist())] for i in range(len(expected))]
    words = notation.sign_words(lambda r: pages[r.page].lines[r.line], rows, kinds, signs)
    if words:  # a sign word beside every amount also looked like a currency code
        settings["currency_codes"] = [c for c in settings["currency_codes"]
                                      if c.lower().rstrip(".") not in words]
        settings["sign_marks"] = sorted(words)
        settings["drcr_signs"] = dict(settings.get("drcr_signs", {}), **words)


def attach_marks(pages: list, rows: list, kinds: list, learned=()) -> None:
    """A Dr/Cr or sign printed as a word of its own right beside an amount is part of it."""
    for row in rows:
        line = pages[row.page].lines[row.line]
        claimed = {id(w) for ws in row.cells.values() for w in ws}
        for c, words in list(row.cells.items()):
            if kinds[c] != "amount":
                continue
            i = next(i for i, w in enumerate(line) if w is words[-1])
            nxt = line[i + 1] if i + 1 < len(line) else None
            size = words[-1][4] - words[-1][3]
            if nxt and id(nxt) not in claimed and nxt[0].lower().rstrip(".") in (
                    evidence.MARKS | set(learned)) \
                    and nxt[1] - words[-1][2] < 1.5 * size:
                row.cells[c] = words + [nxt]
                claimed.add(id(nxt))


def column_signs(settings: dict, rows: list, expected, kinds: list) -> None:
    """Each amount column's sign convention, from its printed markers and expected signs."""
    tally = collections.defaultdict(collections.Counter)
    for row in rows:
        for c, words in row.cells.items():
            if kinds[c] != "amount":
                continue
            text = " ".join(w[0] for w in words)
            value = evidence.value(expected.iloc[row.index, c])
            if value:
                tally[c][(_marker(text, settings), value < 0)] += 1
    for c, seen in tally.items():
        col = next(col for col in settings["columns"] if col["name"] == str(expected.columns[c]))
        flip = seen[("", True)] > seen[("", False)]  # unmarked amounts print money out
        if flip:
            col["sign"] = -1
        neg = {m: seen[(m, True ^ flip)] > seen[(m, False ^ flip)]
               for m in ("()", "trail-", "dr", "cr", *settings.get("sign_marks", ()))
               if seen[(m, True)] + seen[(m, False)]}
        if "()" in neg:
            settings["parens_negative"] = neg["()"]
        if "trail-" in neg:
            settings["trailing_minus_negative"] = neg["trail-"]
        if "dr" in neg or "cr" in neg or set(neg) & set(settings.get("sign_marks", ())):
            col["drcr_signs"] = {"dr": -1 if neg.get("dr", True) else 1,
                                 "cr": -1 if neg.get("cr", False) else 1}
            for m in settings.get("sign_marks", ()):  # a learned word this column never shows
                col["drcr_signs"][m] = (-1 if neg[m] else 1) if m in neg \
                    else settings["drcr_signs"][m]


def section_signs(settings: dict, words_by_page: list, rows: list, expected,
                   kinds: list, pages: list) -> None:
    """Sections whose unmarked amounts the answer key signs differently (credits above,
    debits below, all printed unsigned) sign those amounts by the section they stand in.
    The titles the layout finds come first, then those no row of the key claims: where
    the first are the accounts' titles, each signing both ways, the others may be the
    sections that sign."""
    said = {wordlines.normalize(str(v)) for c, k in enumerate(kinds) if k == "text"
            for v in expected.iloc[:, c].dropna()}
    for starts in (None, "unclaimed"):
        if starts is None:
            found = sections.guess(words_by_page, settings)
        else:
            starts = [t for t in sections.unclaimed(pages, rows, settings) if t[2] not in said]
            found = [[t, 1] for t in dict.fromkeys(t for _, _, t in starts)]
        if len(found) >= 2 and _signed_by(found, starts, settings, words_by_page, rows,
                                           expected, kinds):
            return


def _signed_by(found: list, starts, settings: dict, words_by_page: list, rows: list,
               expected, kinds: list) -> bool:
    """Whether the sections titled ``found`` sign some amount column's unmarked amounts
    apart in the key (then the column is signed by them), each column judged alone."""
    where = sections.of_lines(words_by_page, settings, starts)
    signed = False
    for c, kind in enumerate(kinds):
        per = collections.defaultdict(collections.Counter)
        for row in rows:
            value = evidence.value(expected.iloc[row.index, c])
            if kind == "amount" and c in row.cells and value and _marker(
                    " ".join(w[0] for w in row.cells[c]), settings) == "":
                per[where.get((row.page, row.line))][value < 0] += 1
        if any(n[True] and n[False] for t, n in per.items() if t is not None):
            continue  # a section whose amounts go both ways signs none of them
        negative = {t: n[True] > n[False] for t, n in per.items() if t is not None}
        if len(set(negative.values())) < 2:
            continue  # every section signs alike: the column's own convention says it
        col = next(col for col in settings["columns"] if col["name"] == str(expected.columns[c]))
        col.pop("sign", None)
        col["section_signed"] = True
        order = starts if starts is not None else sections.titles(words_by_page, settings)
        heads = _page_headers(negative, order)  # their rows are the title's before them
        quiet = heads | _signing_nothing(negative, [t for t in order if t[2] not in heads],
                                         rows)
        settings["sections"] = [[t, -1 if negative.get(t) else 1] for t, _ in found
                                if t not in quiet]
        signed = True
    return signed


def _page_headers(negative: dict, starts: list) -> set:
    """Titles that only ever stand at the head of a page right after a title with no row
    of its own on the page before ('Money out' at a page's foot, the bank's name over the
    next page's heading): the section is the first title's, and takes the sign of the rows
    under the second, which is the page's header. ``negative`` gains the first's sign."""
    heads: dict = {}
    for (p, _, before), (q, _, title) in zip(starts, starts[1:]):
        stands_in = q > p and before not in negative and title in negative
        if stands_in:
            negative[before] = negative[title]
        heads[title] = heads.get(title, True) and stands_in
    return {t for t, only in heads.items() if only}


def _signing_nothing(negative: dict, starts: list, rows: list) -> set:
    """Titles that never decide a sign: wherever they stand they title no row, or rows
    signed as the rows before them (a running header over the next page's heading, between
    two pages of money in; a heading's lower tier over each page's rows). The key shows no
    section starting there, and taken for one it would sign the next statement's rows on
    that page by the page before's section, whatever theirs is. A title the key signs no
    row under says nothing either way, and stays."""
    at = sorted((r.page, r.line) for r in rows)
    deciding, last = set(), None
    for n, (p, k, title) in enumerate(starts):
        end = starts[n + 1][:2] if n + 1 < len(starts) else (float("inf"),)
        if title in negative and any((p, k) < pos < end for pos in at):
            if negative[title] != last:
                deciding.add(title)
            last = negative[title]
    return {t for _, _, t in starts if t in negative} - deciding


def _marker(text: str, settings: dict) -> str:
    mark = engine.amount_marker(text, settings)
    return "trail-" if mark == "-" and text.rstrip().endswith("-") else mark
