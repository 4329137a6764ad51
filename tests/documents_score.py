"""Scoring ``dua extract`` against per-element truth:
``python -m tests.documents_score [--holdout] [--corpus typeset]``.

Every printed word is tied to its truth element (by its glyph colour) and to the predicted
element that holds it (by page, text and box), so a truth element and a predicted one
overlap by the words they share. They match when each holds the majority of the other's
words (figures without words match by box). From the matches: per-class precision, recall
and F1 (a paragraph cut in two leaves one half unmatched: precision falls), heading-level
accuracy over matched headings, reading order as Kendall's tau over matched elements, and
word coverage.
"""
from __future__ import annotations

import collections
import dataclasses
import glob
import json
import os

from tests.support import FIXTURES

CORPUS = os.path.join(FIXTURES, "documents", "real")
TYPESET = os.path.join(FIXTURES, "documents", "typeset")  # fixtures/documents_real/typeset.py
CORPORA = {"real": CORPUS, "typeset": TYPESET}
CLASSES = ("heading", "paragraph", "list", "table", "figure", "caption", "header", "footer",
           "page_number")


def corpus(holdout: bool | None = None, root: str = CORPUS) -> list:
    """``[(pdf path, truth)]`` of the corpus in ``root``; ``holdout`` True/False picks one
    side, None takes all."""
    out = []
    for path in sorted(glob.glob(os.path.join(root, "*.truth.json"))):
        with open(path, encoding="utf-8") as fh:
            truth = json.load(fh)
        if holdout is None or truth["holdout"] == holdout:
            out.append((path[:-len(".truth.json")] + ".pdf", truth))
    return out


def truth_words(pdf_path: str) -> list:
    """``[(page, text, box, truth id)]`` of the PDF's words, each tied to its truth element
    by its glyphs' colour. Words are cut as ``dua extract`` cuts them (``dua.pdf.reading``):
    a word the truth's pdfplumber words glue ("Annualenergy") is two words of two elements."""
    import pdfplumber

    from dua.pdf.reading import reading_words
    from fixtures.documents_real.truth import FURNITURE, ident_of

    out = []
    with pdfplumber.open(pdf_path) as pdf:
        for page in pdf.pages:
            # the colour's id stands in the font's place: a word keeps its first glyph's
            chars = [[c["text"], c["x0"], c["x1"], c["top"], c["bottom"],
                      ident_of(c.get("non_stroking_color")), c["size"], c["upright"], i]
                     for i, c in enumerate(page.chars)]
            for text, x0, x1, top, bottom, ident, *_ in reading_words(chars):
                if not text.strip():
                    continue
                key = f"{ident}@{page.page_number}" if ident in FURNITURE else ident
                out.append((page.page_number, text, (x0, top, x1, bottom), key))
    return out


@dataclasses.dataclass
class Score:
    """Counts that add up over documents; the figures are computed from them."""

    tp: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    predicted: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    truth: collections.Counter = dataclasses.field(default_factory=collections.Counter)
    levels_right: int = 0
    levels_total: int = 0
    taus: list = dataclasses.field(default_factory=list)
    words: int = 0
    words_covered: int = 0
    confusions: collections.Counter = dataclasses.field(default_factory=collections.Counter)

    def add(self, other: Score) -> None:
        for name in ("tp", "predicted", "truth", "confusions"):
            getattr(self, name).update(getattr(other, name))
        self.levels_right += other.levels_right
        self.levels_total += other.levels_total
        self.taus += other.taus
        self.words += other.words
        self.words_covered += other.words_covered

    def f1(self, kind: str) -> tuple:
        tp, pred, true = self.tp[kind], self.predicted[kind], self.truth[kind]
        p = tp / pred if pred else (1.0 if not true else 0.0)
        r = tp / true if true else (1.0 if not pred else 0.0)
        return p, r, (2 * p * r / (p + r) if p + r else 0.0)

    def figures(self) -> dict:
        per_class = {k: self.f1(k) for k in CLASSES if self.truth[k] or self.predicted[k]}
        present = [k for k in CLASSES if self.truth[k]]
        return {"macro_f1": sum(per_class[k][2] for k in present) / len(present) if present else 0.0,
                "per_class": per_class,
                "heading_level_accuracy": self.levels_right / self.levels_total if self.levels_total else 1.0,
                "kendall_tau": sum(self.taus) / len(self.taus) if self.taus else 1.0,
                "word_coverage": self.words_covered / self.words if self.words else 1.0}


def element_parts(element: dict) -> list:
    """``[(page, bbox, tokens)]``: where an element's words are, page by page."""
    from dua.documents.pipeline import element_fragments

    return element_fragments(element)


def score_document(truth: dict, words: list, elements: list) -> Score:
    """The counts for one document: ``words`` from ``truth_words``, ``elements`` from extract."""
    owner, covered = _assign(words, elements)
    overlap = collections.Counter()  # (truth id, predicted index) -> shared words
    sizes_t, sizes_p = collections.Counter(), collections.Counter()
    for (page, text, box, tid), pi in zip(words, owner):
        n = len(text.split())
        sizes_t[tid] += n
        if pi is not None:
            sizes_p[pi] += n
            overlap[(tid, pi)] += n
    matches = {}
    for (tid, pi), n in overlap.items():
        if 2 * n > sizes_t[tid] and 2 * n > sizes_p[pi]:
            matches[tid] = pi
    by_id = {e["id"]: e for e in truth["elements"]}
    _match_figures(truth["elements"], elements, matches)
    s = Score(words=sum(sizes_t.values()), words_covered=covered)
    for e in truth["elements"]:
        s.truth[e["class"]] += 1
    for e in elements:
        s.predicted[e["type"]] += 1
    for tid, pi in matches.items():
        t, p = by_id[tid], elements[pi]
        if t["class"] == p["type"]:
            s.tp[t["class"]] += 1
            if t["class"] == "heading":
                s.levels_total += 1
                s.levels_right += t.get("level") == p.get("level")
        else:
            s.confusions[(t["class"], p["type"])] += 1
    for tid in set(by_id) - set(matches):
        s.confusions[(by_id[tid]["class"], "-")] += 1
    pairs = sorted((by_id[tid]["order"], pi) for tid, pi in matches.items())
    s.taus.append(kendall_tau([pi for _, pi in pairs]))
    return s


def _assign(words: list, elements: list) -> tuple:
    """The predicted element holding each word (None if none does), and the words held."""
    left = collections.defaultdict(list)  # page -> [(index, bbox, Counter of tokens)]
    for i, e in enumerate(elements):
        for page, bbox, tokens in element_parts(e):
            left[page].append((i, bbox, collections.Counter(tokens)))
    owner, covered = [], 0
    for page, text, box, _ in words:
        tokens = text.split()
        cands = [c for c in left[page] if all(c[2][t] > 0 for t in tokens)]
        if not cands:
            owner.append(None)
            continue
        best = min(cands, key=lambda c: (_distance(box, c[1]), _area(c[1])))
        best[2].subtract(tokens)
        owner.append(best[0])
        covered += len(tokens)
    return owner, covered


def _distance(box: tuple, bbox) -> float:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    dx = max(bbox[0] - cx, 0.0, cx - bbox[2])
    dy = max(bbox[1] - cy, 0.0, cy - bbox[3])
    return round(dx + dy, 1)


def _area(b) -> float:
    return (b[2] - b[0]) * (b[3] - b[1])


def _iou(a, b) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    return w * h / (_area(a) + _area(b) - w * h)


def _match_figures(truth_elements: list, elements: list, matches: dict) -> None:
    """Figures whose words did not match them (a photo has none) match by box instead."""
    taken = set(matches.values())
    for t in truth_elements:
        if t["class"] != "figure" or t["id"] in matches:
            continue
        frag = t["fragments"][0]
        best, best_iou = None, 0.5
        for i, e in enumerate(elements):
            if i in taken or e["type"] != "figure" or e["page_number"] != frag["page"]:
                continue
            iou = _iou(frag["bbox"], e["bbox"])
            if iou >= best_iou:
                best, best_iou = i, iou
        if best is not None:
            matches[t["id"]] = best
            taken.add(best)


def kendall_tau(sequence: list) -> float:
    """Kendall's tau between a sequence's order and its sorted order (1.0: same order)."""
    n = len(sequence)
    if n < 2:
        return 1.0
    concordant = discordant = 0
    for i in range(n):
        for j in range(i + 1, n):
            if sequence[i] < sequence[j]:
                concordant += 1
            elif sequence[i] > sequence[j]:
                discordant += 1
    return (concordant - discordant) / (n * (n - 1) / 2)


def score_corpus(holdout: bool | None, extract=None, root: str = CORPUS) -> tuple:
    """``(total Score, {name: Score})`` of extract (dua's by default) on one side of the
    corpus in ``root``."""
    if extract is None:
        from dua.documents.pipeline import extract
    total, per_doc = Score(), {}
    for pdf, truth in corpus(holdout, root):
        s = score_document(truth, truth_words(pdf), extract(pdf)["elements"])
        per_doc[truth["name"]] = s
        total.add(s)
    return total, per_doc


def describe(score: Score) -> str:
    f = score.figures()
    lines = [f"macro-F1 {f['macro_f1']:.3f}  heading levels {f['heading_level_accuracy']:.3f}  "
             f"Kendall tau {f['kendall_tau']:.3f}  word coverage {f['word_coverage']:.2%}"]
    for kind, (p, r, f1) in f["per_class"].items():
        lines.append(f"  {kind:<12} P {p:.3f}  R {r:.3f}  F1 {f1:.3f}  "
                     f"(truth {score.truth[kind]}, predicted {score.predicted[kind]})")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse

    ap = argparse.ArgumentParser(description="score dua extract on a document corpus")
    ap.add_argument("--holdout", action="store_true", help="score the holdout (default: development)")
    ap.add_argument("--all", action="store_true", help="score every report")
    ap.add_argument("--confusions", action="store_true")
    ap.add_argument("--corpus", choices=sorted(CORPORA), default="real")
    args = ap.parse_args(argv)
    total, per_doc = score_corpus(None if args.all else args.holdout, root=CORPORA[args.corpus])
    for name, s in per_doc.items():
        f = s.figures()
        print(f"{name:<18} macro-F1 {f['macro_f1']:.3f}  levels {f['heading_level_accuracy']:.2f}  "
              f"tau {f['kendall_tau']:.3f}  coverage {f['word_coverage']:.2%}")
    print(describe(total))
    if args.confusions:
        for (t, p), n in total.confusions.most_common(25):
            print(f"  truth {t:<12} -> {p:<24} {n}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
