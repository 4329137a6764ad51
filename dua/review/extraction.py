"""The extraction review: each element of ``dua extract``'s result boxed on its page,
coloured by type and labelled with it (a heading with its level), an unclassified block in
red with its error; the elements in reading order beside the pages.

It draws from the result JSON (``dua.documents.pipeline.to_json``) and the page pictures.
"""
from __future__ import annotations

import collections
import os

from .shell import document, esc, label_text, link_rules, page_figure, rect, swatch, title_of

COLOURS = {"heading": "#1565c0", "paragraph": "#2e7d32", "list": "#6a1b9a",
           "table": "#ef6c00", "figure": "#00838f", "caption": "#8d6e63",
           "header": "#546e7a", "footer": "#546e7a", "page_number": "#78909c",
           "unclassified_text_block": "#d50000"}
OTHER = "#757575"
SNIPPET = 160

CSS = """\
.el{stroke:var(--c);fill:var(--hl,var(--tint));stroke-width:var(--hw,1)}
.lab{fill:var(--c)}
.unc{stroke-width:2.5}
.kind{font-weight:600;white-space:nowrap}
.err{color:#b3261e}
"""


def render(result: dict, images: list, notes: list = ()) -> str:
    """The review of one ``dua extract`` result as a self-contained HTML document."""
    elements = [e for e in result.get("elements", []) if isinstance(e, dict)]
    kinds = sorted({str(e.get("type")) for e in elements})
    css = CSS + "".join(f".t-{k}{{--c:{c};--tint:{c}1a}}\n"  # 1a: a tenth opaque
                      for k, c in ((k, COLOURS.get(k, OTHER)) for k in kinds) if _safe(k))
    css += f".t-other{{--c:{OTHER};--tint:{OTHER}1a}}\n"
    css += link_rules((f"e{i}", f"el-{i}", f"x-{i}") for i in range(len(elements)))
    layers: dict = collections.defaultdict(list)
    for i, element in enumerate(elements):
        for page, box, first in _fragments(element):
            layers[page].append(_shape(i, element, box, first))
    path = (result.get("source") or {}).get("path", "")
    body = (_header(result, kinds, path, notes) + '<div class="split"><section class="pages">'
            + "".join(page_figure(p, "".join(layers.get(p.number, ()))) for p in images)
            + '</section><aside class="side">' + _list(elements) + "</aside></div>")
    return document(title_of(path), body, css)


def _safe(kind: str) -> bool:
    """A type name that may stand in a CSS class (dua's own names; anything else is OTHER)."""
    return kind.replace("_", "").isalnum() and kind.isascii()


def _cls(kind: str) -> str:
    return f"t-{kind}" if _safe(kind) else "t-other"


def label(element: dict) -> str:
    """``heading 2``, ``paragraph``, ``unclassified: ErrorType``."""
    kind = str(element.get("type", ""))
    if kind == "heading" and element.get("level") is not None:
        return f"heading {element['level']}"
    if kind == "unclassified_text_block":
        error = (element.get("annotations") or {}).get("classification_error") or {}
        return f"unclassified: {error.get('error_type', 'error')}"
    return kind


def error_text(element: dict) -> str:
    error = (element.get("annotations") or {}).get("classification_error") or {}
    return str(error.get("message", "")) if error else ""


def text_of(element: dict) -> str:
    """What the element says, in one line (a list's items, a table's rows joined)."""
    if element.get("type") == "list":
        return " · ".join(f"{i.get('marker', '')} {i.get('text', '')}".strip()
                          for i in element.get("items", []))
    if element.get("type") == "table":
        rows = ([element["header"]] if element.get("header") else []) + element.get("rows", [])
        return " / ".join(" | ".join(str(c or "") for c in row) for row in rows)
    return " ".join(str(element.get("text") or element.get("caption") or "").split())


def _fragments(element: dict) -> list:
    out = [(int(element.get("page_number", 0)), element.get("bbox"), True)]
    out += [(int(p.get("page_number", 0)), p.get("bbox"), False)
            for p in element.get("continued") or []]
    return [(page, box, first) for page, box, first in out if box and len(box) == 4]


def _shape(i: int, element: dict, box, first: bool) -> str:
    kind = str(element.get("type", ""))
    name = label(element)
    tip = f"{i}: {name}: {text_of(element)[:300]}"
    if error_text(element):
        tip += f"\nerror: {error_text(element)}"
    unc = " unc" if kind == "unclassified_text_block" else ""
    anchor = f' id="el-{i}"' if first else ""
    return (f'<a href="#x-{i}" class="e{i} {_cls(kind)}" data-k="e{i}"><title>{esc(tip)}</title>'
            + rect(box, f"el{unc}", anchor)
            + label_text(box, name if first else name + " (continued)", cls="lab") + "</a>")


def _header(result: dict, kinds: list, path: str, notes) -> str:
    stats = result.get("stats") or {}
    counts = stats.get("counts") or {}
    legend = "".join(f'<span class="{_cls(k)}">{swatch("el")}{esc(k)} {int(counts.get(k, 0))}'
                     "</span>" for k in kinds)
    unclassified = int(stats.get("unclassified", 0))
    out = [f'<header class="top"><h1>{esc(os.path.basename(path))}</h1><p class="path">{esc(path)}</p>',
           f"<p>{int(stats.get('elements', 0))} elements from {int(stats.get('pages', 0))} "
           f"page(s), classified by {esc(stats.get('classifier', 'rules'))}; "
           f'<b class="{"bad" if unclassified else "ok"}">{unclassified}</b> unclassified. '
           "Every word of the text layer is in exactly one element (checked on every run).</p>"]
    out += [f'<p class="note">{esc(n)}</p>' for n in notes]
    out.append(f'<div class="legend">{legend}</div></header>')
    return "".join(out)


def _list(elements: list) -> str:
    out = ['<table class="items"><thead><tr><th>#</th><th>type</th><th>page</th><th>text</th>'
           "</tr></thead><tbody>"]
    for i, element in enumerate(elements):
        text = text_of(element)
        short = text if len(text) <= SNIPPET else text[:SNIPPET] + "…"
        error = error_text(element)
        error = f'<div class="err">{esc(error)}</div>' if error else ""
        out.append(f'<tr id="x-{i}" class="e{i}" data-k="e{i}"><td><a href="#el-{i}">{i}</a></td>'
                   f'<td class="kind {_cls(str(element.get("type", "")))}">{esc(label(element))}</td>'
                   f'<td>{int(element.get("page_number", 0))}</td><td>{esc(short)}{error}</td></tr>')
    out.append("</tbody></table>")
    return "".join(out)
