"""Words glued by a lost space, per 1,000 words, on the typeset PDFs Debian's TeX packages
install (first 10 pages of each): the reading rule ``dua extract`` reads with against the
parsers' rule (pdfplumber's) measured in the same run.

The reference is poppler's ``pdftotext``: a glued word is one dua prints that pdftotext
never prints in that file but that splits into two or more words pdftotext prints. A
ligature counts as its letters on both sides, and a glyph no font names (``(cid:N)``)
is no word to compare. Files with the same bytes count once; a third of them (every third,
in path order) were set aside while the rule was tuned and are reported apart. Skips where
pdftotext or the packages are absent.
"""
from __future__ import annotations

import hashlib
import os
import shutil
import subprocess

from .figures import Figure

PAGES = 10
TARGET = 4.0  # per 1,000 words, overall (issue 32)
FILE_TARGET = 20.0  # per 1,000 words, in any one file


def typeset_pdfs() -> list:
    """Debian's TeX PDFs (``tests.reader_parity.debian_pdfs``), each content once."""
    from tests.reader_parity import debian_pdfs

    seen, out = set(), []
    for path in debian_pdfs():
        with open(path, "rb") as fh:
            digest = hashlib.sha1(fh.read()).hexdigest()
        if digest not in seen:
            seen.add(digest)
            out.append(path)
    return out


def reference_words(path: str) -> set:
    """The words pdftotext prints on the first pages, ligatures as their letters."""
    from dua.pdf.wordrule import _LIGATURES

    done = subprocess.run(["pdftotext", "-f", "1", "-l", str(PAGES), "-enc", "UTF-8", path, "-"],
                          capture_output=True, text=True, timeout=120)
    return set("".join(_LIGATURES.get(ch, ch) for ch in done.stdout).split())


def is_glued(word: str, known: set) -> bool:
    """Whether ``word`` is unknown but two or more known words end to end."""
    if word in known or len(word) < 2 or "(cid:" in word:
        return False
    n = len(word)
    ends = [True] + [False] * n  # ends[i]: word[:i] is known words end to end
    for i in range(1, n + 1):
        ends[i] = any(ends[j] and word[j:i] in known and (j or i < n) for j in range(i))
    return ends[n]


def glued(path: str, rule: str, known: set) -> tuple:
    """``(words, glued words)`` of the file's first pages read by ``rule``."""
    from dua.pdf import document

    pages, _ = document.read_words(path, pages=list(range(1, PAGES + 1)), word_rule=rule)
    tokens = [t for p in pages for w in p["words"] for t in w[0].split()]
    return len(tokens), sum(is_glued(t, known) for t in tokens)


def measure(paths: list) -> dict:
    """``{path: {rule: (words, glued)}}``, both rules on each file."""
    out = {}
    for path in paths:
        known = reference_words(path)
        out[path] = {rule: glued(path, rule, known) for rule in ("parser", "reading")}
    return out


def _figure(side: str, found: dict) -> Figure:
    words, bad = (sum(found[p]["reading"][i] for p in found) for i in (0, 1))
    floor_words, floor_bad = (sum(found[p]["parser"][i] for p in found) for i in (0, 1))
    worst = max((1000.0 * g / n if n else 0.0, os.path.basename(p))
                for p, (n, g) in ((p, found[p]["reading"]) for p in found))
    return Figure(f"{side}: glued words per 1,000, {len(found)} files ({words} words; worst file "
                  f"{worst[1]} {worst[0]:.1f})", 1000.0 * bad / words,
                  1000.0 * floor_bad / floor_words, unit="per 1,000",
                  floor_name="the parsers' rule (pdfplumber's)",
                  target=f"<= {TARGET:g}, no file over {FILE_TARGET:g}")


def run(paths: list | None = None) -> list:
    if shutil.which("pdftotext") is None:
        print("   skipped: pdftotext is not installed (apt-get install poppler-utils)")
        return []
    paths = paths or typeset_pdfs()
    if not paths:
        print("   skipped: Debian's TeX packages installed no PDF here")
        return []
    found = measure(paths)
    aside = set(paths[::3])
    return [_figure("all", found),
            _figure("development", {p: v for p, v in found.items() if p not in aside}),
            _figure("set aside", {p: v for p, v in found.items() if p in aside})]
