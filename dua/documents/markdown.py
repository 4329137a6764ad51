"""Markdown for the result of ``dua extract``: one renderer per element type.

Headings become ``#`` lines, lists keep their markers, tables become pipe tables,
figures become placeholders, and an unclassified block stays as its plain text under
an HTML comment naming the error, so no word of the document is missing here either.
"""
from __future__ import annotations

import re

_NUMBERED = re.compile(r"^\d+[.)]\s")
_BULLET = re.compile(r"^[\u2022\u25e6\u25aa\u2023\u00b7\u2013\u2014*-]$")  # glyphs "-" stands for


def to_markdown(result: dict, page_breaks: bool = True) -> str:
    """The whole document; a page break is an HTML comment, invisible when rendered."""
    out, page = [], None
    for element in result["elements"]:
        if page_breaks and element["page_number"] != page:
            page = element["page_number"]
            out.append(f"<!-- page {page} -->")
        out.append(render(element))
    return "\n\n".join(out) + "\n"


def render(element: dict) -> str:
    kind = element["type"]
    return _RENDERERS.get(kind, _plain)(element)


def _inline(text: str) -> str:
    # Keep the words; escape only what Markdown would read as structure at a line start.
    text = " ".join(str(text).split())
    if _NUMBERED.match(text):
        # CommonMark escapes the number's punctuation ("2024\. …"); a backslash before a
        # digit would be printed as it is.
        return re.sub(r"^(\d+)([.)])", r"\1\\\2", text)
    return "\\" + text if text[:1] in "#>+-*|" else text


def _heading(e: dict) -> str:
    return f"{'#' * min(max(int(e.get('level', 1)), 1), 6)} {' '.join(e['text'].split())}"


def _paragraph(e: dict) -> str:
    return _inline(e["text"])


def _list(e: dict) -> str:
    lines = []
    for item in e["items"]:
        marker, text = item.get("marker", ""), " ".join(item["text"].split())
        indent = "    " * (int(item.get("level", 1)) - 1)  # a nested item: four spaces a level
        if _NUMBERED.match(marker + " "):
            lines.append(f"{indent}{marker[:-1]}. {text}")
        elif marker and not _BULLET.match(marker):
            lines.append(f"{indent}- {marker} {text}")  # a., (a), (1), iv): Markdown has none
        else:
            lines.append(f"{indent}- {text}")
    return "\n".join(lines)


def _cell(value) -> str:
    return " ".join(str(value or "").split()).replace("|", "\\|")


def _table(e: dict) -> str:
    rows = [list(r) for r in e.get("rows", [])]
    header = list(e.get("header") or [])
    width = max([len(header)] + [len(r) for r in rows] + [1])
    if not header:
        header = [""] * width
    lines = ["| " + " | ".join(_cell(c) for c in header + [""] * (width - len(header))) + " |",
             "|" + "---|" * width]
    for row in rows:
        lines.append("| " + " | ".join(_cell(c) for c in row + [""] * (width - len(row))) + " |")
    return "\n".join(lines)


def _figure(e: dict) -> str:
    caption = e.get("caption") or "figure"
    box = ", ".join(f"{v:.0f}" for v in e["bbox"])
    image = f"![{_cell(caption)}](#figure-p{e['page_number']} \"page {e['page_number']}, bbox {box}\")"
    if e.get("text"):  # the labels drawn inside it (a chart's title, ticks, categories)
        image += f"\n<!-- figure labels: {' '.join(e['text'].split()).replace('--', '- -')} -->"
    return image


def _caption(e: dict) -> str:
    return f"*{' '.join(e['text'].split())}*"


def _running(e: dict) -> str:
    # Running headers, footers and page numbers are kept, as comments, so they stay findable.
    return f"<!-- {e['type']}: {' '.join(e['text'].split()).replace('--', '- -')} -->"


def _unclassified(e: dict) -> str:
    err = (e.get("annotations") or {}).get("classification_error") or {}
    note = f"<!-- unclassified_text_block {e.get('id', '')}: {err.get('error_type', '')} -->"
    return f"{note}\n{_inline(e['text'])}"


def _plain(e: dict) -> str:
    return _inline(e.get("text", ""))


_RENDERERS = {
    "heading": _heading, "paragraph": _paragraph, "list": _list, "table": _table,
    "figure": _figure, "caption": _caption, "header": _running, "footer": _running,
    "page_number": _running, "unclassified_text_block": _unclassified,
}
