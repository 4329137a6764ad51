"""A date notation induced from dates as printed: which token is the day, the month, the year.

Given a column of printed dates (the answer key's, or a column's own tokens) it finds the
shape they share — numbers, words and the separators between them, in any order — and
returns a regular expression that covers it: a number's width, a separator's marks, and
for a month name the month names of every language (``months``) that spells all the
month tokens seen. It never keeps a sample's values, only their structure.
"""
from __future__ import annotations

import functools
import re

from . import months

_TOKEN = re.compile(r"\d+|[^\W\d_]+\.?|[^\w]+")
# A time printed after the date ('15 ago 2024 10:32') stays in the cell, as with the usual shapes.
_TIME = r"(?:[ T]\d{1,2}:\d{2}(?::\d{2})?(?: ?[AaPp][Mm])?)"
_TIME_END = re.compile(_TIME + "$")
_LETTERS = re.compile(r"[^\W\d_]")


@functools.lru_cache(maxsize=1)
def _index() -> tuple:
    """``(exact, full)``: form -> {(lang, month)}, and each language's full forms by month."""
    exact, full = {}, {}
    for lang, months_ in months.forms().items():
        for number, names in enumerate(months_, 1):
            for name in names:
                exact.setdefault(name, set()).add((lang, number))
                full.setdefault(lang, []).append((name, number))
    return exact, full


def month_of(token: str) -> set:
    """``{(language, month)}`` a word may name: a form, or a prefix of three letters or more
    of one (an abbreviation, a dot allowed). A language where the word fits two months
    ('čer' of červen and červenec) gives nothing."""
    word = token.lower().rstrip(".")
    if len(word) < 3:
        return set()
    exact, full = _index()
    found = set(exact.get(word, ()))
    langs = {lang for lang, _ in found}
    for lang, names in full.items():
        if lang in langs:
            continue  # an exact form wins over a prefix of another month's form
        numbers = {n for name, n in names if name.startswith(word) and len(word) >= 3}
        if len(numbers) == 1:
            found.add((lang, numbers.pop()))
    return found


def shape_of(text: str) -> tuple:
    """``(kinds, parts, seps)``: 'n' number / 'w' word per part, and the separators around."""
    kinds, parts, seps, sep = [], [], [], ""
    for tok in _TOKEN.findall(_TIME_END.sub("", text.strip())):
        if tok[0].isdigit() or _LETTERS.match(tok):
            seps.append(sep)
            kinds.append("n" if tok[0].isdigit() else "w")
            parts.append(tok)
            sep = ""
        else:
            sep += tok
    seps.append(sep)
    return tuple(kinds), parts, seps


def kinds_of(text: str) -> tuple:
    """The kind of each part of ``text``: 'n' a number, 'w' a word ('10 Mei 2023': n w n)."""
    return shape_of(text)[0]


def induce(values: list) -> dict | None:
    """The notation of dates printed as ``values``: ``{"pattern", "roles", "languages"}``,
    or None when they share no shape with a day and a month in it.

    ``roles`` names each part 'd', 'm', 'y' (or 'w' for a word beside them, a weekday).
    """
    shaped = [shape_of(v) for v in values if v and v.strip()]
    if not shaped:
        return None
    kinds = max({s[0] for s in shaped}, key=lambda k: sum(1 for s in shaped if s[0] == k))
    shaped = [s for s in shaped if s[0] == kinds]
    if len(shaped) < 0.9 * len([v for v in values if v and v.strip()]) or len(kinds) > 6:
        return None
    roles, languages, cuts = None, set(), {}
    for cuts in _cuts(kinds, shaped):
        cut = [_cut(s, cuts) for s in shaped]
        columns = [[s[1][i] for s in cut] for i in range(len(cut[0][0]))]
        glued = [all(not s[2][i] for s in cut) for i in range(len(cut[0][0]))]
        roles, languages = _roles(cut[0][0], columns, glued)
        if roles is not None:
            shaped, kinds = cut, cut[0][0]
            break
    if roles is None:
        return None
    pieces = [_sep([s[2][0] for s in shaped], True)]
    for i, kind in enumerate(kinds):
        pieces.append(_part(roles[i], columns[i], languages))
        pieces.append(_sep([s[2][i + 1] for s in shaped], i + 1 == len(kinds)))
    return {"pattern": "".join(pieces) + _TIME + "?", "roles": roles,
            "languages": sorted(languages), "cuts": cuts}


# How a run of digits of one width down the column may hold two or three parts printed
# without a separator ('Ott102025', '15122025'): the day and month two digits, the year four.
_WIDTHS = {4: ((2, 2),), 6: ((2, 4), (4, 2), (2, 2, 2)), 8: ((2, 2, 4), (4, 2, 2))}


def _cuts(kinds: tuple, shaped: list):
    """``{part index: widths}`` to try: none first, then each way to cut the glued runs. A
    run of four may be a year alone ('Nov 2025'): it is cut only where it touches a word
    ('Nov1725'). A run one digit shorter on some rows ('Okt.825' beside 'Aug.1425') holds an
    unpadded day before a year of fixed width: the day is what the year leaves (None)."""
    yield {}
    parts = [s[1] for s in shaped]
    for i, k in enumerate(kinds):
        widths = {len(p[i]) for p in parts}
        touches = all(not s[2][i] and i for s in shaped)
        if k != "n" or not (min(widths) > 4 or touches):
            continue
        if len(widths) == 1 and min(widths) in _WIDTHS:
            for cut in _WIDTHS[min(widths)]:
                yield {i: cut}
        elif touches and len(widths) == 2 and min(widths) in (3, 5):
            yield {i: (None, min(widths) - 1)}


def _cut(shape: tuple, cuts: dict) -> tuple:
    """A shape with its glued runs cut into parts, no separator between them."""
    if not cuts:
        return shape
    kinds, parts, seps = [], [], [shape[2][0]]
    for i, (kind, part) in enumerate(zip(shape[0], shape[1])):
        pieces, at = [], 0
        widths = cuts.get(i, (len(part),))
        for width in (len(part) - sum(w for w in widths if w) if w is None else w
                      for w in widths):
            pieces.append(part[at:at + width])
            at += width
        kinds += [kind] * len(pieces)
        parts += pieces
        seps += [""] * (len(pieces) - 1) + [shape[2][i + 1]]
    return tuple(kinds), parts, seps


def head_pattern(values: list) -> str | None:
    """The shapes of the first lines of dates a narrow cell wraps ('november', 'MAR 07',
    '11 June'; a cell wraps some dates after the month, others after the day): each number
    by its width, each word a month of the languages that spell them all, the separators
    as seen. None when a word names no month: a first line alone is no date, so only a
    month or a number may stand for it."""
    groups: dict = {}
    for shape in (shape_of(v) for v in values if v and v.strip()):
        groups.setdefault(shape[0], []).append(shape)
    found = [_head_of(kinds, shaped) for kinds, shaped in groups.items()]
    if not found or None in found:
        return None
    # a longer month wraps sooner: where '11 June' heads a date, '22' over 'September'
    # may head the next statement's
    shorter = [_head_of(kinds[:n], [(s[0][:n], s[1][:n], s[2][:n] + [""]) for s in shaped])
               for kinds, shaped in groups.items() for n in range(1, len(kinds))]
    found += [p for p in shorter if p and p not in found]
    return found[0] if len(found) == 1 else "|".join(f"(?:{p})" for p in found)


def _head_of(kinds: tuple, shaped: list) -> str | None:
    """The pattern of first lines of one shape."""
    if not kinds or len(kinds) > 3:
        return None
    pieces = [_sep([s[2][0] for s in shaped], True)]
    for i, kind in enumerate(kinds):
        col = [s[1][i] for s in shaped]
        languages = _languages(col) if kind == "w" else set()
        if kind == "w" and not languages:
            return None
        pieces.append(month_pattern(languages) if languages else _part("d", col, set()))
        pieces.append(_sep([s[2][i + 1] for s in shaped], i + 1 == len(kinds)))
    return "".join(pieces)


def _by_the_days(free: list, columns: list) -> dict:
    """``{part: role}`` for three numbers none of which is a year by its size ('24-7-4'):
    the days change down a statement more often than its months, and its year hardly at
    all, so the part that takes the most values is the day; and a year is printed first
    or last, never between the day and the month. Empty where no one part takes the most
    values (too few rows to tell)."""
    counts = [len(set(columns[i])) for i in free]
    if counts.count(max(counts)) != 1:
        return {}
    day = counts.index(max(counts))
    order = {0: "dmy", 1: "mdy", 2: "ymd"}[day]
    roles = dict(zip(free, order))
    month = next(i for i, r in roles.items() if r == "m")
    if not (1 <= min(int(t) for t in columns[month]) and max(int(t) for t in columns[month]) <= 12
            and 1 <= min(int(t) for t in columns[free[day]])
            and max(int(t) for t in columns[free[day]]) <= 31):
        return {}
    return roles


def _roles(kinds: tuple, columns: list, glued: list) -> tuple:
    """Each part's role: a month word or a number marked by 年月日; the rest by their ranges.
    ``glued[i]``: part ``i`` touches the part before it on every date."""
    roles, languages = [None] * len(kinds), set()
    for i, (kind, col) in enumerate(zip(kinds, columns)):
        if kind != "w":
            continue
        marks = {months.CJK_MARKS.get(t) for t in col}
        if len(marks) == 1 and None not in marks and i > 0 and kinds[i - 1] == "n":
            roles[i], roles[i - 1] = "mark", marks.pop()
            continue
        langs = _languages(col)
        if not langs and _ordinal(i, kinds, col, glued):
            roles[i] = "o"
            continue
        if langs and "m" not in roles:
            roles[i], languages = "m", langs
        elif len({t.lower() for t in col}) == 1 or "m" in roles:
            roles[i] = "w"  # a fixed word ('den') or a weekday beside the date
        else:
            return None, set()
    numbers = [i for i, k in enumerate(kinds) if k == "n" and roles[i] is None]
    for i in numbers:
        ints = [int(t) for t in columns[i]]
        if len(columns[i][0]) == 4 or max(ints) > 31:
            roles[i] = "y"
    free = [i for i in numbers if roles[i] is None]
    if len(free) == 3 and "y" not in roles:
        by_days = _by_the_days(free, columns)
        for i, role in by_days.items():
            roles[i] = role
        free = [i for i in free if i not in by_days]
    for role in ("m", "d"):
        if role in roles:
            continue
        fits = [i for i in free if max(int(t) for t in columns[i]) <= (12 if role == "m" else 31)
                and min(int(t) for t in columns[i]) >= 1]
        if not fits:
            return None, set()
        # A year printed first puts the month before the day; otherwise the day comes first.
        pick = fits[0] if role == "m" and roles[:1] == ["y"] else fits[-1] if role == "m" else fits[0]
        roles[pick] = role
        free.remove(pick)
    if len(free) == 1 and "y" not in roles and len(columns[free[0]][0]) == 2:
        roles[free.pop()] = "y"  # a day and a month found, the number left is a short year
    if free or "d" not in roles or "m" not in roles or roles.count("y") > 1:
        return None, set()
    return roles, languages


def _ordinal(i: int, kinds: tuple, col: list, glued: list) -> bool:
    """Whether part ``i`` is an ordinal's ending ('12th', '1st', '1er'): letters glued to
    the number before them on every date, too short to be a month's name (so the ending
    of any other day reads too: a key of the 4th to the 20th shows only 'th')."""
    return bool(i) and kinds[i - 1] == "n" and glued[i] and max(len(t) for t in col) <= 2


def _languages(col: list) -> set:
    """The languages in which every word of ``col`` names a month (all of them, tokens
    being ambiguous across languages, so the pattern covers each language's months)."""
    common = None
    for token in set(col):
        langs = {lang for lang, _ in month_of(token)}
        common = langs if common is None else common & langs
        if not common:
            return set()
    return common or set()


def _part(role: str, col: list, languages: set) -> str:
    if role == "mark":
        return "(?:%s)" % "|".join(sorted({re.escape(t) for t in col}))
    if role == "m" and languages:
        return month_pattern(languages)
    if role == "w":
        return r"[^\W\d_]+\.?" if len({t.lower() for t in col}) > 1 else re.escape(col[0])
    if role == "o":
        return r"[^\W\d_]{1,2}"
    lo, hi = min(len(t) for t in col), max(len(t) for t in col)
    if role in ("d", "m") and (lo == 1 or not any(t.startswith("0") for t in col)):
        lo, hi = 1, 2  # a day or month printed unpadded (none seen below ten is no proof)
    return r"\d{%d}" % lo if lo == hi else r"\d{%d,%d}" % (lo, hi)


def _sep(seen: list, edge: bool) -> str:
    """A separator as seen: spaces of any width, marks as printed; an edge's may be absent."""
    alts = []
    for s in sorted(set(seen)):
        marks = r"\s*".join(re.escape(c) for c in s.strip())
        alts.append(r"\s*" + marks + r"\s*" if marks else r"\s*")
    alts = list(dict.fromkeys(alts))
    if edge:
        alts = [a for a in alts if a != r"\s*"]
        return "(?:%s)?" % "|".join(alts) if alts else ""
    return alts[0] if len(alts) == 1 else "(?:%s)" % "|".join(alts)


@functools.lru_cache(maxsize=64)
def _month_alternatives(language: str) -> tuple:
    out = []
    for names in months.forms()[language]:
        for name in names:
            head, tail = name[:3], name[3:]
            optional = ""
            for ch in reversed(tail):  # any prefix of three letters or more
                optional = "(?:%s%s)?" % (re.escape(ch), optional)
            out.append(re.escape(head) + optional)
    return tuple(out)


def month_pattern(languages) -> str:
    """Any month of ``languages``, full or abbreviated, with or without a dot."""
    alts = sorted({a for lang in sorted(languages) for a in _month_alternatives(lang)},
                  key=lambda a: (-len(a), a))
    return "(?:%s)\\.?" % "|".join(alts)


def order_keys(values: list, notation: dict) -> list | None:
    """``(year, month, day)`` of each date printed in ``notation`` (year 0 when none is
    printed), or None when one does not read."""
    out = []
    for text in values:
        kinds, parts, _ = _cut(shape_of(text), notation.get("cuts", {}))
        if len(parts) != len(notation["roles"]):
            return None
        got = {}
        for role, part in zip(notation["roles"], parts):
            if role == "m" and not part[0].isdigit():
                numbers = {n for lang, n in month_of(part) if lang in notation["languages"]}
                if len(numbers) != 1:
                    return None
                got["m"] = numbers.pop()
            elif role in ("d", "m", "y"):
                got[role] = int(part)
        out.append((got.get("y", 0), got["m"], got["d"]))
    return out
