"""The word reader against pdfplumber's ``extract_words()`` on whole corpora of PDFs.

``python -m tests.reader_parity [--debian] [PDF or folder…]`` compares every page's words
(text and box) and prints, per corpus, the pages equal, differing and read by the fallback
(each reason with its count), the words changed and both readers' time; it exits 1 when a
page differs. The default corpora are the fixtures, everything under ../shared/ and, when
installed, the PDFs of Debian's TeX packages (``--debian`` alone: CI's real corpus). The
bench ``reader_parity`` prints the same with speed figures.
"""
from __future__ import annotations

import collections
import dataclasses
import difflib
import glob
import os
import subprocess
import sys
import time

from .support import FIXTURES, SHARED_DATA

# Debian's LaTeX and Latin Modern packages and the two whose PDFs they bring with them
# (texlive-base is a dependency, lmodern a recommendation): TeX's own documentation, set by
# pdfTeX, LuaTeX and dvipdfmx in Type 1, Type 3 and OpenType fonts with ligatures and accents
DEBIAN_PACKAGES = ("texlive-latex-base", "texlive-latex-recommended", "fonts-lmodern",
                   "texlive-base", "lmodern")
DEBIAN_PAGES = 40  # the first pages of each document: 935 pages in all
TOLERANCE = 0.001  # points, on x0, x1, top and bottom (the word rule's own margin)


@dataclasses.dataclass
class Corpus:
    name: str
    paths: list
    pages: int | None = None  # the first pages of each file, or all
    equal: int = 0
    differ: list = dataclasses.field(default_factory=list)  # "path pN: why"
    fallbacks: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    unread: list = dataclasses.field(default_factory=list)  # files neither reader opens
    words_changed: int = 0
    ours: float = 0.0  # seconds
    plumber: float = 0.0

    @property
    def compared(self) -> int:
        return self.equal + len(self.differ) + sum(self.fallbacks.values())


def debian_pdfs() -> list:
    """Every PDF the Debian packages above installed, or [] where dpkg or they are absent."""
    found = []
    for package in DEBIAN_PACKAGES:
        try:
            listed = subprocess.run(["dpkg", "-L", package], capture_output=True, text=True,
                                    timeout=60).stdout.splitlines()
        except (OSError, subprocess.SubprocessError):
            return []
        found += [p for p in listed if p.endswith(".pdf") and _is_pdf(p)]
    return sorted(set(found))


def _is_pdf(path: str) -> bool:
    try:
        with open(path, "rb") as fh:
            return b"%PDF-" in fh.read(1024)
    except OSError:
        return False


def default_corpora(debian_only: bool = False) -> list:
    corpora = []
    if not debian_only:
        fixtures = sorted(glob.glob(os.path.join(FIXTURES, "**", "*.pdf"), recursive=True))
        corpora.append(Corpus("fixtures", [p for p in fixtures if os.sep + "bad" + os.sep not in p]))
        shared = os.path.dirname(SHARED_DATA)
        corpora.append(Corpus("shared", sorted(
            glob.glob(os.path.join(shared, "**", "*.pdf"), recursive=True))))
    corpora.append(Corpus("debian", debian_pdfs(), DEBIAN_PAGES))
    return [c for c in corpora if c.paths]


def given_corpus(args: list) -> Corpus:
    paths = []
    for arg in args:
        paths += (sorted(glob.glob(os.path.join(arg, "**", "*.pdf"), recursive=True))
                  if os.path.isdir(arg) else [arg])
    return Corpus("given", [p for p in paths if _is_pdf(p)])


def measure(corpus: Corpus) -> Corpus:
    """Both readers over every page of the corpus (its first ``pages`` per file), the
    reference first on each file, so that a busy moment of the machine weighs on both."""
    for path in corpus.paths:
        try:
            reference, seconds = _plumber_words(path, corpus.pages)
        except Exception as exc:  # a file pdfplumber cannot open is no page to compare
            corpus.unread.append(f"{path}: {type(exc).__name__}")
            continue
        corpus.plumber += seconds
        started = time.perf_counter()
        ours = _our_pages(path, len(reference))
        corpus.ours += time.perf_counter() - started
        for page in ours:
            _compare(corpus, path, page, reference[page["number"] - 1])
    return corpus


def _plumber_words(path: str, limit: int | None) -> tuple:
    import pdfplumber

    started, out = time.perf_counter(), []
    with pdfplumber.open(path) as pdf:
        for page in pdf.pages[:limit]:
            out.append([(w["text"], w["x0"], w["x1"], w["top"], w["bottom"])
                        for w in page.extract_words()])
            page.close()
    return out, time.perf_counter() - started


def _our_pages(path: str, count: int) -> list:
    from dua.pdf import read_pages

    return read_pages(path, pages=list(range(1, count + 1)))


def _compare(corpus: Corpus, path: str, page: dict, reference: list) -> None:
    if page["reader"] != "pdfium":
        corpus.fallbacks[page["why"]] += 1
        return
    why, changed = difference(page["words"], reference)
    if why:
        corpus.differ.append(f"{path} p{page['number']}: {why}")
        corpus.words_changed += changed
    else:
        corpus.equal += 1


def difference(ours: list, reference: list) -> tuple:
    """(why one page's words differ, how many of pdfplumber's words we changed), or
    ('', 0) where every word's text is the same and its box within TOLERANCE."""
    texts, wanted = [w[0] for w in ours], [w[0] for w in reference]
    if texts != wanted:
        same = sum(b.size for b in difflib.SequenceMatcher(None, texts, wanted,
                                                           autojunk=False).get_matching_blocks())
        first = next((i for i, (a, b) in enumerate(zip(texts, wanted)) if a != b),
                     min(len(texts), len(wanted)))
        mine = texts[first] if first < len(texts) else None
        theirs = wanted[first] if first < len(wanted) else None
        return f"word {first}: ours {mine!r}, pdfplumber {theirs!r}", len(wanted) - same
    off = [(a, b) for a, b in zip(ours, reference)
           if max(abs(x - y) for x, y in zip(a[1:5], b[1:5])) > TOLERANCE]
    if off:
        a, b = off[0]
        return (f"{a[0]!r} box {tuple(round(v, 4) for v in a[1:5])} vs "
                f"{tuple(round(v, 4) for v in b[1:5])}"), len(off)
    return "", 0


def report(corpus: Corpus, out=sys.stdout, shown: int = 20) -> None:
    pages, fell = corpus.compared, sum(corpus.fallbacks.values())
    share = f"{100 * fell / pages:.1f}%" if pages else "-"
    print(f"{corpus.name}: {len(corpus.paths)} files, {pages} pages: {corpus.equal} equal, "
          f"{len(corpus.differ)} differ, {fell} read by pdfplumber ({share}); "
          f"{corpus.words_changed} words changed", file=out)
    ratio = corpus.plumber / corpus.ours if corpus.ours else float("inf")
    print(f"  time: dua.pdf {corpus.ours:.1f} s (fallbacks included), pdfplumber "
          f"extract_words {corpus.plumber:.1f} s: {ratio:.2f}x", file=out)
    for why, count in corpus.fallbacks.most_common():
        print(f"  fell back {count}x: {why}", file=out)
    for line in corpus.unread:
        print(f"  not read by pdfplumber either: {line}", file=out)
    for line in corpus.differ[:shown]:
        print(f"  DIFFERS: {line}", file=out)
    if len(corpus.differ) > shown:
        print(f"  ... and {len(corpus.differ) - shown} more pages differ", file=out)


def main(argv: list | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    debian = "--debian" in args
    args = [a for a in args if a != "--debian"]
    corpora = [given_corpus(args)] if args else default_corpora(debian)
    if not corpora:
        print("reader parity: no PDF to compare (Debian's TeX packages are not installed)")
        return 0
    differ = 0
    for corpus in corpora:
        report(measure(corpus))
        differ += len(corpus.differ)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
