"""The document pipeline of ``dua extract``: load -> blocks -> classify -> assemble.

It owns the coverage invariant (every word of the text layer ends up in exactly one
element, whatever the classifier or the LLM did), checked on every run, and the JSON
result. Markdown rendering lives in dua.documents.markdown.
"""
from __future__ import annotations

import collections
import dataclasses
import os
import time
from typing import Any, Callable, Iterator

from ..errors import CoverageError, DocumentError, SchemaError, UnexpectedError, UsageError
from ..graph import END, START, Graph
from ..recovery.node import new_run_id
from ..pdf import plain_metadata, read_bounded, require_text_layer, start_reading
from ..schemas import Element
from .blocks import document_blocks
from .classify import Services, analyze_structure_and_visuals
from .flow import join_continued

SCHEMA_VERSION = "dua.extract/1"
_TEXT_KEYS = ("text",)
_AHEAD = 4  # files extract_each has its children read ahead of the one being typed


@dataclasses.dataclass
class DocumentState:
    path: str
    password: str | None = None
    page_numbers: list | None = None
    read_budget: Any = None  # dua.pdf.ReadBudget (None: the default)
    reading: Any = None  # the file's dua.pdf.Reading, started ahead (None: load starts it)
    document: Any = None
    tables: dict = dataclasses.field(default_factory=dict)
    blocks: list = dataclasses.field(default_factory=list)
    elements: list = dataclasses.field(default_factory=list)
    stats: dict = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class Context:
    """Services of one run: the classifier's (LLM or rules) and a progress listener."""

    services: Services = dataclasses.field(default_factory=Services)
    on_progress: Callable[[str], None] | None = None
    on_read: Callable[[], None] | None = None  # once the file is read, its child idle


# --- nodes -------------------------------------------------------------------------------


def load(state: DocumentState, ctx: Context) -> dict:
    """Read the pages once, in a child the read budget stops.

    Raises: DocumentError (any subclass), NoTextLayerError, UsageError (--pages beyond the file)
    """

    def on_page(n: int, total: int) -> None:
        if ctx.on_progress:
            ctx.on_progress(f"page {n}/{total} read")

    # words as a reader sees them, not pdfplumber's: the statements' parsers keep those
    doc = read_bounded(state.path, state.password, state.page_numbers, graphics=True,
                       budget=state.read_budget, on_page=on_page, word_rule="reading",
                       reading=state.reading)
    if ctx.on_read:
        ctx.on_read()
    if not doc.pages:  # the file has pages (else NoPagesError): none of those asked for
        raise UsageError(f"--pages selects no page of {state.path}: it has "
                         f"{doc.page_count} page{'s' if doc.page_count != 1 else ''}",
                         hint="Count pages from 1.")
    missing = sorted(set(state.page_numbers or ()) - {p.number for p in doc.pages})
    if missing and ctx.on_progress:
        # Asked-for pages the file does not have are said, never skipped in silence.
        ctx.on_progress(f"warning: --pages asks for page(s) {_spans(missing)}, "
                        f"but the file has {doc.page_count} page(s); read the others")
    require_text_layer(doc)
    _drop_blank_words(doc)
    return {"document": doc, "tables": {p.number: p.tables for p in doc.pages}}


def _drop_blank_words(doc) -> None:
    """A glyph the font maps to no text (lm-info.pdf page 20 maps one to "") still makes a
    word; it prints nothing, so no element can hold it and it is no word of the text layer."""
    for page in doc.pages:
        page.words = [w for w in page.words if w.text.strip()]


def _spans(numbers: list) -> str:
    """[3, 4, 5, 9] -> "3-5, 9": a long run of missing pages stays one short line."""
    spans: list = []
    for n in numbers:
        if spans and n == spans[-1][1] + 1:
            spans[-1][1] = n
        else:
            spans.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)


def blocks(state: DocumentState, ctx: Context) -> dict:
    return {"blocks": document_blocks(state.document, state.tables)}


def classify(state: DocumentState, ctx: Context) -> dict:
    sizes = {p.number: (p.width, p.height) for p in state.document.pages}
    elements, stats = analyze_structure_and_visuals(state.blocks, sizes, ctx.services)
    return {"elements": join_continued(elements, state.blocks), "stats": stats}


def assemble(state: DocumentState, ctx: Context) -> dict:
    """Attach captions to figures, validate every element, and check coverage."""
    elements = [dict(e) for e in state.elements]
    _attach_captions(elements)
    for i, element in enumerate(elements):
        try:
            Element.from_dict(element, f"elements[{i}]")
        except SchemaError as exc:  # our own output: a bug, never the user's bad input
            raise UnexpectedError(f"extract built a malformed element: {exc}") from exc
    check_coverage(state.document, elements)
    return {"elements": elements}


def build_graph():
    return (Graph(DocumentState)
            .add_node("load", load)
            .add_node("blocks", blocks)
            .add_node("classify", classify)
            .add_node("assemble", assemble)
            .add_edge(START, "load")
            .add_edge("load", "blocks")
            .add_edge("blocks", "classify")
            .add_edge("classify", "assemble")
            .add_edge("assemble", END)
            .compile())


def extract(path: str, *, password: str | None = None, pages: list | None = None,
            provider: Any = None, batch_size: int | None = None,
            on_progress: Callable[[str], None] | None = None,
            sleep: Callable[[float], None] = time.sleep,
            llm_budget: float | None = None, read_budget: Any = None) -> dict:
    """The JSON result of extracting ``path`` (see ``to_json`` for its schema).

    A failing LLM is handled as the Error Handler says (retry after ``sleep``, or the
    built-in rules); what it said is kept in ``stats["recovery"]``. ``llm_budget`` bounds
    the run's total LLM seconds, every retry and wait included (None: per-call limits only);
    once spent, the rules keep every block left. ``read_budget`` (a ``dua.pdf.ReadBudget``)
    bounds reading the file (None: the default).

    Raises:
        DocumentError (any subclass): the file cannot be read as a PDF with text.
        CoverageError: a word was lost or doubled (a bug in dua).
        TransportError and others: the Error Handler said to stop rather than fall back.
    """
    started = time.perf_counter()
    services = Services(provider, batch_size or Services.batch_size, on_progress, sleep,
                        new_run_id("extract"), llm_budget)
    return _extracted(DocumentState(path, password, pages, read_budget),
                      Context(services, on_progress), started)


def _extracted(state: DocumentState, context: Context, started: float) -> dict:
    state = build_graph().invoke(state, context=context, step_limit=10)
    return to_json(state, time.perf_counter() - started)


def extract_each(paths: list, *, password: str | None = None, pages: list | None = None,
                 read_budget: Any = None) -> Iterator[tuple]:
    """``(path, result or DocumentError)`` for each of ``paths`` in turn, by the built-in
    rules: ``extract``'s results, while reading children read the files ahead as this
    one's pages are typed. Each child is handed files in turn and goes on from one to the
    next unasked; two children where the machine has two cores or more, each file going
    to the one with fewer bytes handed so far (a file's bytes as its reading's work).

    Raises: what ``extract`` raises beyond a DocumentError (a bug in dua).
    """
    ahead: dict = {}  # index -> the file's Reading, or the error its start raised
    chains = [[None, 0] for _ in range(_readers())]  # [its last Reading, bytes handed]

    def read_ahead(i: int) -> None:
        for j in range(i + 1, min(i + 1 + _AHEAD, len(paths))):
            if j in ahead:
                continue
            chain = min(chains, key=lambda c: c[1])
            try:
                ahead[j] = chain[0] = start_reading(
                    paths[j], password, pages, graphics=True, budget=read_budget,
                    word_rule="reading", after=chain[0])
            except DocumentError as exc:  # said when the file's turn comes
                ahead[j] = exc
                continue
            try:
                chain[1] += os.path.getsize(paths[j])
            except OSError:  # gone since its reading started: that reading says so
                pass

    try:
        read_ahead(-1)
        for i, path in enumerate(paths):
            started, reading = time.perf_counter(), ahead.pop(i, None)
            context = Context(on_read=lambda i=i: read_ahead(i))
            try:
                if isinstance(reading, DocumentError):
                    raise reading
                result = _extracted(DocumentState(path, password, pages, read_budget,
                                                  reading), context, started)
            except DocumentError as exc:
                yield path, exc
                continue
            yield path, result
    finally:  # a caller that stops early leaves no child reading
        for reading in ahead.values():
            if not isinstance(reading, DocumentError):
                reading.cancel()


def _readers() -> int:
    """Reading children for a batch: two where this process may run on two cores (no
    more: each may take the read budget's memory)."""
    cores = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else range(
        os.cpu_count() or 1)
    return 2 if len(cores) >= 2 else 1


# --- coverage ------------------------------------------------------------------------------


def element_fragments(element: dict) -> list:
    """``[(page, bbox, words)]``: an element's words where they are printed. A paragraph or
    list that runs on into the next column's or page's top lists the later parts in
    ``continued`` ({page_number, bbox, words}: how many of its last words are there)."""
    words = element_words(element)
    parts = element.get("continued") or []
    cut = len(words) - sum(int(p["words"]) for p in parts)
    out = [(element["page_number"], tuple(element["bbox"]), words[:cut])]
    for p in parts:
        out.append((p["page_number"], tuple(p["bbox"]), words[cut:cut + int(p["words"])]))
        cut += int(p["words"])
    return out


def element_words(element: dict) -> list:
    """The words an element owns (a figure's ``caption`` is a reference, owned by its caption)."""
    kind = element.get("type")
    if kind == "list":
        return [w for item in element.get("items", [])
                for w in f"{item.get('marker', '')} {item.get('text', '')}".split()]
    if kind == "table":
        rows = ([element["header"]] if element.get("header") else []) + element.get("rows", [])
        return [w for row in rows for cell in row for w in str(cell or "").split()]
    return str(element.get("text", "")).split()  # a figure's: the labels drawn inside it


def tokens(page) -> list:
    """A page's words as elements hold them: split at white space, since a glyph whose text
    holds a space ("f f" for a ligature) makes one word of the page but two of an element."""
    return [t for w in page.words for t in w.text.split()]


def check_coverage(document, elements: list) -> None:
    """Raises CoverageError unless every page's words equal its elements' words, as multisets."""
    owned = collections.defaultdict(collections.Counter)
    for element in elements:
        for page, _, words in element_fragments(element):
            owned[page].update(words)
    for page in document.pages:
        have = collections.Counter(tokens(page))
        got = owned.pop(page.number, collections.Counter())
        if have != got:
            lost, extra = have - got, got - have
            raise CoverageError(
                f"page {page.number}: {sum(lost.values())} word(s) lost "
                f"{sorted(lost)[:8]}, {sum(extra.values())} word(s) doubled or invented "
                f"{sorted(extra)[:8]}", page=page.number)
    if owned:
        raise CoverageError(f"elements on pages that were not read: {sorted(owned)}")


def _attach_captions(elements: list) -> None:
    """A figure borrows the text of a caption element right after (or before) it on its page."""
    for i, element in enumerate(elements):
        if element["type"] != "figure" or element.get("caption"):
            continue
        for j in (i + 1, i - 1):
            near = elements[j] if 0 <= j < len(elements) else None
            if near and near["type"] == "caption" and near["page_number"] == element["page_number"]:
                element["caption"] = near["text"]
                break


# --- JSON -----------------------------------------------------------------------------------


def to_json(state: DocumentState, seconds: float) -> dict:
    """``{schema, source, pages, elements, stats}`` — the documented result of ``dua extract``."""
    doc = state.document
    counts = collections.Counter(e["type"] for e in state.elements)
    stats = {"pages": len(doc.pages), "blocks": len(state.blocks),
             "words": sum(len(p.words) for p in doc.pages), "elements": len(state.elements),
             "counts": dict(sorted(counts.items())),
             "unclassified": counts.get("unclassified_text_block", 0),
             "classifier": state.stats.get("classifier", "rules"),
             "llm_calls": state.stats.get("llm_calls", 0), "seconds": round(seconds, 4)}
    for key in ("tokens", "llm_batches", "llm_asked_blocks", "llm_changed_blocks", "llm_refused",
                "llm_retried_blocks", "llm_reasked", "llm_mapped", "llm_kept_rules",
                "llm_repeats_refused", "llm_errors", "llm_down", "json_mode"):
        if key in state.stats:
            stats[key] = state.stats[key]
    stats["recovery"] = state.stats.get("recovery", [])  # the Error Handler's answers, in order
    return {
        "schema": SCHEMA_VERSION,
        "source": {"path": doc.path, "pages_read": [p.number for p in doc.pages],
                   "metadata": plain_metadata(doc.metadata)},
        "pages": [{"number": p.number, "width": round(p.width, 2), "height": round(p.height, 2),
                   "words": len(p.words), "chars": p.char_count} for p in doc.pages],
        "elements": state.elements,
        "stats": stats,
    }


