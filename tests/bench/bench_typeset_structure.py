"""What ``dua extract`` makes of Debian's TeX PDFs (first 10 pages of each), where no truth
is written down: how many of the bare numbers standing first or last on a page are typed
``page_number``, how many numbered lists are cut in two (a list whose first marker counts
on from the last list's last), and how many paragraphs end mid-sentence where the next
paragraph below goes on in lower case. The development files and the third set aside
before tuning (every third, as in ``bench_reading_words``) are reported apart, each against
the issue's aim. Skips where the packages installed no PDF.
"""
from __future__ import annotations

import collections
import re

from .bench_reading_words import PAGES, typeset_pdfs
from .figures import Figure

_ENDS = re.compile(r"[.:!?;)][\"”’)]*$")
_FOLIO = re.compile(r"\d{1,4}|[ivxlc]{1,6}")
_NUMBER = re.compile(r"^\(?(\d+)[.)]$")


def measure(paths: list) -> collections.Counter:
    from dua.documents.pipeline import extract
    from dua.errors import DocumentError

    found = collections.Counter()
    for path in paths:
        try:
            elements = extract(path, pages=list(range(1, PAGES + 1)))["elements"]
        except DocumentError:  # an image-only file: no text to judge
            continue
        found["files"] += 1
        _paragraphs(elements, found)
        _folios(elements, found)
        _lists(elements, found)
    return found


def _paragraphs(elements: list, found: collections.Counter) -> None:
    for a, b in zip(elements, elements[1:]):
        if a["type"] == "paragraph":
            found["paragraphs"] += 1
            found["cut"] += (b["type"] == "paragraph" and b["page_number"] == a["page_number"]
                             and not _ENDS.search(a["text"].strip()) and b["text"][:1].islower())


def _folios(elements: list, found: collections.Counter) -> None:
    pages = collections.defaultdict(list)
    for e in elements:
        pages[e["page_number"]].append(e)
    for mine in pages.values():
        mine.sort(key=lambda e: e["bbox"][1])
        for e in {id(mine[0]): mine[0], id(mine[-1]): mine[-1]}.values():
            if _FOLIO.fullmatch(str(e.get("text") or "").strip()):
                found["bare"] += 1
                found["typed"] += e["type"] == "page_number"


def _lists(elements: list, found: collections.Counter) -> None:
    lists = [e for e in elements if e["type"] == "list" and e["items"]]
    found["lists"] += len(lists)
    for a, b in zip(lists, lists[1:]):
        last, first = (_NUMBER.match(x.get("marker") or "")
                       for x in (a["items"][-1], b["items"][0]))
        found["split"] += bool(last and first and int(first.group(1)) == int(last.group(1)) + 1)


def run() -> list:
    paths = typeset_pdfs()
    if not paths:
        print("   skipped: Debian's TeX packages installed no PDF here")
        return []
    aside = set(paths[::3])
    out = []
    for side, chosen in (("development", [p for p in paths if p not in aside]),
                         ("set aside", [p for p in paths if p in aside])):
        f = measure(chosen)
        # each figure against its whole: the ratio is the share gone wrong
        out += [
            Figure(f"{side}: bare numbers at a page's head or foot not typed page_number "
                   f"({f['files']} files)", f["bare"] - f["typed"], f["bare"], unit="numbers",
                   floor_name="all of them", target="0"),
            Figure(f"{side}: numbered lists cut in two", f["split"], f["lists"], unit="lists",
                   floor_name="all lists", target="0"),
            Figure(f"{side}: paragraphs ending mid-sentence over a lower-case paragraph "
                   f"(displays and tables of code count too)", f["cut"], f["paragraphs"],
                   unit="paragraphs", floor_name="all paragraphs", target="as few as can be"),
        ]
    return out
