"""Parser writers: the interface, the code emitter, and the built-in (no network) writer.

A writer turns the analysis into a ``Draft`` (parser source plus the settings it bakes
in) and, given a failure, into a better one. The built-in writer searches the engine's
settings in-process on the words read once, guided by the comparison's diagnostics;
only the candidate it believes correct is emitted as code.
"""
from __future__ import annotations

import abc
import copy
import dataclasses
import difflib
import json
import os
import pprint
import re
import time

from ..learning import analysis, evidence
from ..table import dataframe, engine, sections, wordlines
from ..verification import verify
from . import signvariants
from .signvariants import copy_with as _with

# The engine's modules (the table stage's) in the order they are copied into a parser (each
# needs the ones before).
ENGINE_SOURCES = tuple(os.path.join(os.path.dirname(os.path.abspath(engine.__file__)), name)
                       for name in ("amounts.py", "pagewords.py", "wordlines.py", "datewraps.py",
                                    "faces.py", "pagebreaks.py", "engine.py", "dataframe.py"))
SEARCH_BUDGET = 80
SEARCH_SECONDS = 30.0

_PARSE_FN = '''

SETTINGS = {settings}


def parse(pdf_path, password=None):
    """The transactions of one {bank} statement as a pandas DataFrame."""
    read = read_pages(pdf_path, password)
    pages, _ = statement_pages([page["words"] for page in read], SETTINGS,
                               [page["chars"] for page in read])
    return build_frame(pages, SETTINGS)
'''


@dataclasses.dataclass
class Draft:
    """One attempt's parser: its source, the settings behind it (None for free code), a note."""

    code: str
    settings: dict | None = None
    note: str = ""
    llm_calls: int = 0
    tokens: int = 0
    in_process: dict | None = None  # the writer's own verdict before the real run


class Writer(abc.ABC):
    """The writer interface: ``write`` a first parser, ``refine`` one after a failure.

    ``refine`` returns None when the writer has nothing better to offer.
    """

    name = "writer"

    @abc.abstractmethod
    def write(self, state) -> Draft:
        """The first parser for the statement in ``state``."""

    @abc.abstractmethod
    def refine(self, state) -> Draft | None:
        """A better parser given the failure recorded in ``state``, or None."""


def engine_body() -> str:
    """The engine's modules as one block, without docstrings, ``__future__`` lines or
    relative imports."""
    from ...sandbox.reader_block import module_text  # lazy: only emitting a parser needs it

    return "\n\n\n".join(module_text(path) for path in ENGINE_SOURCES)


def emit_source(settings: dict, bank: str) -> str:
    """A complete standalone parser module: the engine, the word reader, ``SETTINGS``, ``parse``."""
    doc = (f'"""Parser for {bank} statements, written by dua\'s built-in writer.\n\n'
           "Standalone: it imports only pdfplumber, pandas (with the PDF libraries pdfplumber\n"
           "installs) and the standard library, so it can be copied anywhere.\n"
           "``parse(pdf_path)`` returns the transactions as a pandas DataFrame.\n"
           '"""\n')
    literal = pprint.pformat(settings, width=96, sort_dicts=False)
    return (doc + "from __future__ import annotations\n\n" + engine_body() + "\n\n\n"
            + reader_body() + _PARSE_FN.format(settings=literal, bank=bank))


def reader_body() -> str:
    """dua's word reader, copied verbatim: the sandbox recognises it by this exact source."""
    from ...sandbox import reader_block  # lazy: only emitting a parser needs it

    return reader_block.source()


def align(settings: dict, expected) -> dict:
    """Settings renamed and typed to match the expected CSV's columns."""
    s = copy.deepcopy(settings)
    cols, names = s["columns"], [str(c) for c in expected.columns]
    if len(cols) == len(names):
        pairs = list(zip(cols, names))
    else:
        pairs = _match_by_name(cols, names)
    for col in cols:
        col["output"] = False
    for col, name in pairs:
        col.update(name=name, output=True)
        col["dtype"] = evidence.dtype_of(expected[name])
    return s


def _match_by_name(cols: list, names: list) -> list:
    pairs, used = [], set()
    for name in names:
        scores = [(difflib.SequenceMatcher(None, wordlines.normalize(c["name"]),
                                           wordlines.normalize(name)).ratio(), i)
                  for i, c in enumerate(cols) if i not in used]
        if scores:
            score, i = max(scores)
            if score >= 0.5:
                used.add(i)
                pairs.append((cols[i], name))
    return sorted(pairs, key=lambda p: cols.index(p[0]))


def _rank(entry: tuple) -> tuple:
    """Nearest first; of two at one distance, the one that passed (an unverified reading
    with every word accounted for stands at 0 too)."""
    return entry[0], entry[2]["status"] != "passed"


def _key(settings: dict) -> str:
    return json.dumps(settings, sort_keys=True)


class BuiltinWriter(Writer):
    """Deterministic writer: settings search on cached words, then code from the engine."""

    name = "builtin"

    def __init__(self, pages: list, found: analysis.Analysis, expected=None,
                 budget: int = SEARCH_BUDGET, apart: list | None = None):
        self.pages, self.found, self.expected, self.budget = pages, found, expected, budget
        self.apart = apart  # the words pagewords set apart, for the accounting
        self.tried: dict = {}  # settings key -> (distance, settings, result)
        self.origin = "the page layout"
        self.emitted: set = set()

    def evaluate(self, settings: dict) -> dict:
        """Run the engine in-process on the cached words and verify the frame."""
        key = _key(settings)
        if key in self.tried:
            return self.tried[key][2]
        try:
            extraction = engine.extract(self.pages, settings)
            frame = dataframe.frame_of(extraction[0], settings)
        except (KeyError, ValueError, TypeError, IndexError, re.error) as exc:
            result = {"status": "failed", "distance": 10 ** 9, "summary": f"engine error: {exc}",
                      "diagnostics": {}}
        else:
            result = (verify.compare(frame, self.expected) if self.expected is not None
                      else verify.intrinsic(frame, self.pages, settings, self.apart, extraction))
        self.tried[key] = (result["distance"], settings, result)
        return result

    def write(self, state=None) -> Draft:
        if not self.found.settings:
            raise LookupError("no transaction-looking lines (a date followed by an amount) were found")
        starts = [self.found.settings]
        if self.expected is not None:
            # The answer key's evidence and the layout's own guess both start; the better
            # verified one is searched from.
            starts = [s for s in (self.found.learned, self.found.settings) if s]
            starts = [s if s is self.found.learned else align(s, self.expected) for s in starts]
        for start in starts:
            self.evaluate(start)
        best = min((self.tried[_key(s)] for s in starts), key=_rank)[1]
        self.origin = ("the answer key's evidence" if best is self.found.learned
                       else "the page layout")
        self._search(best)
        self._signs_both_ways()
        self._as_without_the_key()
        return self._emit(self._carrying_dates(self._best()), state)

    def _as_without_the_key(self) -> None:
        """Where the search the key guides reads the key's statement other than the key,
        what a search without the key would keep is one more candidate: the key then judges
        it like any other (a section's sign the statement's own figures decide, where the
        rows the key's distance ranks first sign it another way)."""
        if self.expected is None or self._best()[0] == 0:
            return
        keyless = BuiltinWriter(self.pages, self.found, None, self.budget, self.apart)
        keyless._search(self.found.settings)
        keyless._signs_both_ways()
        before = self._best()[0]
        if self.evaluate(keyless._best()[1])["distance"] < before:
            self.origin = "a search without the key"

    def refine(self, state=None) -> Draft | None:
        """A candidate the search found better than every parser emitted so far, or None
        when it has none: the same rows again would fail again, word for word."""
        self._search(self._best()[1], extra=self.budget // 2)
        floor = min(self.tried[k][0] for k in self.emitted) if self.emitted else 10 ** 9
        ranked = sorted(self.tried.values(), key=_rank)
        for entry in ranked:
            if _key(entry[1]) not in self.emitted and entry[0] < floor:
                return self._emit(entry, state)
        return None

    def _best(self) -> tuple:
        return min(self.tried.values(), key=_rank)

    def _signs_both_ways(self) -> None:
        """Without a key, rows whose every word is accounted for but whose arithmetic
        proves nothing may be signed by a guess the statement's figures decide (a
        section's sign, two codes'): each other way is tried, the first that passes kept."""
        distance, settings, result = self._best()
        if self.expected is not None or result["status"] != "unverified" or distance:
            return
        flipped = sections.flipped(settings, self.found.sections)
        for candidate in signvariants.variants(settings, result) + flipped:
            if self.evaluate(candidate)["status"] == "passed":
                return

    def _carrying_dates(self, entry: tuple) -> tuple:
        """Where the key's rows each print their date, the same rows read by their amounts,
        a row without a date taking the date above: the parser then also reads the
        statements that print a day's date once, on its first row. Kept only where it reads
        the key's statement exactly as well."""
        distance, settings, result = entry
        if self.expected is None or distance or settings.get("anchor") or \
                settings.get("date_groups") or settings.get("second_line"):
            return entry
        general = _with(settings, anchor="amount", date_fill="carry")
        found = self.evaluate(general)
        same = found["distance"] == 0 and found["status"] == result["status"]
        return (0, general, found) if same else entry

    def _emit(self, entry: tuple, state) -> Draft:
        distance, settings, result = entry
        self.emitted.add(_key(settings))
        bank = getattr(state, "target_bank", "") or "bank"
        first = result["summary"].splitlines()[0] if result["summary"] else ""
        note = (f"settings search from {self.origin}: {len(self.tried)} candidates evaluated "
                "in-process; "
                f"best {result['status']} ({first})")
        return Draft(emit_source(settings, bank), settings, note, in_process=result)

    def _search(self, start: dict, extra: int = 0) -> None:
        """First-improvement hill climb over the mutations the diagnostics suggest.

        Bounded by an evaluation budget and by SEARCH_SECONDS, since each evaluation
        re-runs the engine over every cached page.
        """
        limit, deadline = self.budget + extra, time.perf_counter() + SEARCH_SECONDS
        self.evaluate(start)
        best, evaluated = self.tried[_key(start)], 0
        while best[0] > 0:
            for candidate in mutations(best[1], best[2], self.found):
                if evaluated >= limit or time.perf_counter() > deadline:
                    return
                if _key(candidate) in self.tried:
                    continue
                evaluated += 1
                result = self.evaluate(candidate)
                if result["distance"] < best[0]:
                    best = (result["distance"], candidate, result)
                    break
            else:
                return  # no mutation helps: a local optimum


def mutations(settings: dict, result: dict, found: analysis.Analysis) -> list:
    """Candidate settings worth trying next, the diagnostics' suggestions first."""
    diag = result.get("diagnostics") or {}
    kinds = {c["name"]: c["kind"] for c in settings["columns"]}
    out = []
    rc = diag.get("row_count") or {}
    # a count to aim at comes with a key only: without one, no number of rows is wrong
    if "expected" in rc and rc["got"] > rc["expected"]:
        out += _fewer_rows(settings, diag)
    elif "expected" in rc and rc["got"] < rc["expected"]:
        out += _more_rows(settings)
        out += [_with(settings, date_pattern=p) for p in analysis.DATE_PATTERNS]
    touched = {kinds.get(d["column"]) for d in diag.get("first_differences", [])}
    if "amount" in touched or result.get("mode") == "intrinsic":
        out += signvariants.variants(settings, result) + \
            sections.flipped(settings, found.sections)
    if "text" in touched or "date" in touched:
        out += [_with(settings, glue_gap=g) for g in (0.3, 1.5, 2.5, -1.0)]
        measured = found.settings.get("continuation_gap") or 12.0
        out += [_with(settings, continuation_gap=round(measured * f, 2)) for f in (1, 0, 1.5, 2.5)]
        out += [_with(settings, continuation=m) for m in ("nearest", "below", "above")]
    if "date" in touched:
        out += [_with(settings, date_fill=f) for f in ("blank", "carry")]
        out += [_with(settings, date_pattern=p) for p in analysis.DATE_PATTERNS]
    out += _boundary_variants(settings, {d["column"] for d in diag.get("first_differences", [])})
    for name in diag.get("dtype_differences", {}):
        out += _dtype_variants(settings, name)
    out += _more_rows(settings) + _fewer_rows(settings, diag) + \
        signvariants.variants(settings, result)
    return out


def _fewer_rows(settings: dict, diag: dict) -> list:
    out = [_with(settings, require_header=True, header_once=False),
           _with(settings, require_header=True, header_once=True),
           _with(settings, anchor_needs_amount=True)]
    text_cols = [i for i, c in enumerate(settings["columns"]) if c["kind"] == "text"]
    for row in diag.get("rows_only_got", []):
        words = [v for v in row if v not in ("None", "nan") and not re.search(r"\d", v)]
        if words:  # a label such as 'Opening Balance' printed like a transaction
            pattern = r"\b" + re.escape(max(words, key=len)) + r"\b"
            out.append(_with(settings, skip_patterns=settings["skip_patterns"] + [pattern]))
    return out if text_cols else out[:3]


def _more_rows(settings: dict) -> list:
    out = [_with(settings, header_once=True), _with(settings, require_header=False),
           _with(settings, anchor_needs_amount=False), _with(settings, anchor="amount")]
    out += [_with(settings, line_tolerance=t) for t in (1.5, 4.5, 6.0)]
    for i in range(len(settings["skip_patterns"])):
        out.append(_with(settings, skip_patterns=settings["skip_patterns"][:i]
                         + settings["skip_patterns"][i + 1:]))
    return out


def _boundary_variants(settings: dict, names: set) -> list:
    """Move the edges of the columns whose cells differ (a word landed in a neighbour)."""
    out = []
    for i, col in enumerate(settings["columns"]):
        if col["name"] not in names:
            continue
        for edge in (i, i + 1):
            if not 0 < edge < len(settings["columns"]):
                continue
            for shift in (-6.0, 6.0, -15.0, 15.0, -30.0, 30.0):
                s = copy.deepcopy(settings)
                cols = s["columns"]
                x0 = cols[edge]["x0"] + shift
                if cols[edge - 1]["x0"] < x0 < (cols[edge + 1]["x0"] if edge + 1 < len(cols)
                                                 else float("inf")):
                    cols[edge]["x0"] = round(x0, 2)
                    out.append(s)
    return out


def _dtype_variants(settings: dict, name: str) -> list:
    out = []
    for dtype in ("float", "str", None):
        s = copy.deepcopy(settings)
        for col in s["columns"]:
            if col["name"] == name and col.get("dtype") != dtype:
                col["dtype"] = dtype
                out.append(s)
    return out
