"""The statement review: the verdict and its checks, the pages with every row, cell,
furniture line and unaccounted word drawn where it is printed, and the rows as a table.

It draws from the statement's ledger in its JSON form (``dua.statements.ledger.Ledger.
to_dict``: rows with their parts and cells, furniture lines with their reasons, unaccounted
words; pages from 1, boxes in PDF points from the top-left) and from the CSV the run
wrote; it reads no PDF itself (``sources.py`` does).
"""
from __future__ import annotations

import collections
import dataclasses
import os
import re

from .shell import document, esc, link_rules, page_figure, rect, swatch

# Column tints; red stays free for what no cell and no furniture line accounts for.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#3b5b92")
_ROW_MENTION = re.compile(r"\brows? (\d{1,7})\b")
_NUMBER = re.compile(r"^[-+(]?[^\W\d_]{0,3}[$€£¥₹]?\s?[\d.,'’ \u2009\u202f]*\d\)?-?(?:\s?[A-Za-z]{2,3})?$")
MAX_LISTED = 200  # unaccounted words listed at the top; all of them are drawn on the pages

CSS = """\
.row{stroke:#0b57b0}
.cell{stroke:none;fill-opacity:.3}
.furn rect{fill:#6b4c9a;fill-opacity:.1;stroke:#6b4c9a;stroke-dasharray:3 2}
.furn text{fill:#4b2c7a}
.lost{fill:#e53935;fill-opacity:.18;stroke:#d50000;stroke-width:2}
rect.lost:target{fill:#ffd23f;fill-opacity:.6}
.lostlist{columns:3 260px;margin:4px 0;padding-left:20px;font-size:13px}
"""


@dataclasses.dataclass
class StatementReview:
    """What one statement's review page shows."""

    pdf_path: str
    status: str                     # passed | unverified | failed (or the batch's converted…)
    checks: list = dataclasses.field(default_factory=list)     # [{name, passed, detail}]
    columns: list = dataclasses.field(default_factory=list)    # the CSV's header
    table: list = dataclasses.field(default_factory=list)      # the CSV's rows, as text
    accounting: dict | None = None  # the ledger's JSON form, or None (nothing to place)
    pages: list = dataclasses.field(default_factory=list)      # dua.pdf.PageImage
    notes: list = dataclasses.field(default_factory=list)      # said under the title
    mode: str = ""                  # how the verdict was reached, in a few words


def render(review: StatementReview) -> str:
    """The review as one self-contained HTML document."""
    acc = review.accounting or {}
    colours = _colours(review.columns, acc)
    rows = [r for r in acc.get("rows", []) if isinstance(r, dict) and r.get("parts")]
    placed = {int(r["row"]): r for r in rows}
    pairs = [(f"r{i}", f"row-{i}", f"t-{i}") for i in sorted(placed)]
    css = CSS + _colour_css(colours) + link_rules(pairs)
    body = (_header(review, acc, colours) + '<div class="split"><section class="pages">'
            + _pages(review, acc, placed, colours) + '</section><aside class="side">'
            + _table(review, placed) + "</aside></div>")
    return document(f"dua review: {os.path.basename(review.pdf_path)}", body, css)


def _colours(columns: list, acc: dict) -> dict:
    names = list(columns)
    for row in acc.get("rows", []):
        for cell in row.get("cells", []):
            if cell.get("column") not in names:
                names.append(cell.get("column"))
    return {name: i % len(PALETTE) for i, name in enumerate(names)}


def _colour_css(colours: dict) -> str:
    used = sorted(set(colours.values()))
    return "".join(f".cell.c{i}{{fill:{PALETTE[i]}}}th.c{i}{{border-bottom-color:{PALETTE[i]}}}\n"
                   for i in used)


# --- the top: verdict, checks, accounting, legend -------------------------------------------

def _header(review: StatementReview, acc: dict, colours: dict) -> str:
    name = esc(os.path.basename(review.pdf_path))
    mode = f" <span class=\"note\">{esc(review.mode)}</span>" if review.mode else ""
    out = [f'<header class="top"><h1>{name}</h1><p><span class="verdict v-{esc(review.status)}">'
           f"{esc(review.status)}</span>{mode}</p>"]
    out += [f'<p class="note">{esc(n)}</p>' for n in review.notes]
    if review.checks:
        out.append('<ul class="checks">' + "".join(_check(c) for c in review.checks) + "</ul>")
    if review.accounting is not None:
        out.append(_accounting(acc))
    out.append(_legend(colours, review.accounting is not None))
    return "".join(out) + "</header>"


def _check(check: dict) -> str:
    passed = check.get("passed")
    mark, cls = {True: ("passed", "ok"), False: ("failed", "bad")}.get(passed, ("not decided", "unknown"))
    if passed is False and check.get("soft"):
        mark, cls = "unverified", "unknown"
    detail = str(check.get("detail", ""))
    rows = check.get("rows") or sorted({int(m) for m in _ROW_MENTION.findall(detail)})
    links = " ".join(f'<a href="#row-{int(r)}">row {int(r)}</a>' for r in rows[:20])
    links = f" — {links}" if links else ""
    return (f'<li><b>{esc(check.get("name", "check"))}</b> <span class="{cls}">{mark}</span>: '
            f"{esc(detail)}{links}</li>")


def short(reason: str) -> str:
    """A furniture reason as a label over its line: the engine's sentence without its
    parenthesis or detail ("a running header or footer (the same text…)" -> its first part)."""
    return reason.split(" (")[0].split(":")[0].strip()


def _accounting(acc: dict) -> str:
    reasons = collections.Counter(short(str(f.get("reason", ""))) for f in acc.get("furniture", []))
    lost = acc.get("unaccounted", [])
    furniture = ", ".join(f"{esc(r)} {n}" for r, n in sorted(reasons.items())) or "none"
    out = [f'<p>Accounting: <b>{int(acc.get("words_in_cells", 0))}</b> words in cells; '
           f"furniture lines: {furniture}; <b class=\"{'bad' if lost else 'ok'}\">{len(lost)}</b> "
           "words that no cell and no furniture line accounts for"
           + (" (outlined in red):" if lost else ".") + "</p>"]
    if lost:
        items = "".join(f'<li><a href="#w-{k}">page {int(w.get("page", 0))}</a>: '
                        f'{esc(w.get("text", ""))}{_why(w)}</li>'
                        for k, w in enumerate(lost[:MAX_LISTED]))
        more = f"<li>… and {len(lost) - MAX_LISTED} more</li>" if len(lost) > MAX_LISTED else ""
        out.append(f'<ol class="lostlist" start="1">{items}{more}</ol>')
    return "".join(out)


def _why(word: dict) -> str:
    return f' <span class="note">({esc(word["why"])})</span>' if word.get("why") else ""


def _legend(colours: dict, placed: bool) -> str:
    if not placed:
        return ""
    parts = [f"{swatch(f'cell c{i}')}{esc(name)}" for name, i in colours.items()]
    parts += [f"{swatch('box row')}a row", '<span class="furn">' + swatch("") + "</span>furniture "
              "(its reason above it)", f"{swatch('lost')}unaccounted word"]
    return '<div class="legend">' + "".join(f"<span>{p}</span>" for p in parts) + "</div>"


# --- the pages -------------------------------------------------------------------------------

def _pages(review: StatementReview, acc: dict, placed: dict, colours: dict) -> str:
    layers: dict = collections.defaultdict(list)
    for i, row in sorted(placed.items()):
        _row_layers(i, row, review, colours, layers)
    for f in acc.get("furniture", []):
        box, page = f.get("box"), int(f.get("page", 0))
        reason, text = str(f.get("reason", "")), str(f.get("text", ""))
        layers[page].append(
            f'<g class="furn">{rect(box, "", title=f"furniture ({reason}): {text}")}'
            f'<text x="{float(box[2]):.2f}" y="{float(box[1]) - 1:.2f}" text-anchor="end">'
            f"{esc(short(reason))}</text></g>")
    for k, w in enumerate(acc.get("unaccounted", [])):
        why = f" ({w['why']})" if w.get("why") else ""
        layers[int(w.get("page", 0))].append(
            rect(w.get("box"), "lost", f' id="w-{k}"', f"unaccounted for: {w.get('text', '')}{why}"))
    return "".join(page_figure(p, "".join(layers.get(p.number, ()))) for p in review.pages)


def _row_layers(i: int, row: dict, review: StatementReview, colours: dict, layers: dict) -> None:
    values = review.table[i] if i < len(review.table) else []
    shown = dict(zip(review.columns, values))
    by_page: dict = collections.defaultdict(list)
    for n, part in enumerate(row.get("parts", [])):
        anchor = f' id="row-{i}"' if n == 0 else ""
        by_page[int(part["page"])].append(rect(part["box"], "box row", anchor))
    for cell in row.get("cells", []):
        name = cell.get("column")
        tip = f"{name}: {shown[name]}" if name in shown else str(name)
        by_page[int(cell["page"])].append(rect(cell["box"], f"cell c{colours.get(name, 0)}", title=tip))
    summary = " | ".join(str(v) for v in values if v != "")
    for page, shapes in by_page.items():
        layers[page].append(f'<a href="#t-{i}" class="r{i}" data-k="r{i}"><title>'
                            f"{esc(f'row {i}: {summary}')}</title>{''.join(shapes)}</a>")


# --- the table -------------------------------------------------------------------------------

def _table(review: StatementReview, placed: dict) -> str:
    colours = _colours(review.columns, {})
    head = "".join(f'<th class="c{colours[c]}">{esc(c)}</th>' for c in review.columns)
    out = [f'<table class="items"><thead><tr><th>row</th><th>page</th>{head}</tr></thead><tbody>']
    for i, values in enumerate(review.table):
        row = placed.get(i)
        number = f'<a href="#row-{i}">{i}</a>' if row else str(i)
        page = str(int(row["parts"][0]["page"])) if row else ""
        cells = "".join(f'<td class="num">{esc(v)}</td>' if _NUMBER.match(str(v)) else
                        f"<td>{esc(v)}</td>" for v in values)
        out.append(f'<tr id="t-{i}" class="r{i}" data-k="r{i}"><td>{number}</td><td>{page}</td>'
                   f"{cells}</tr>")
    out.append("</tbody></table>")
    if not review.table:
        out.append('<p class="note">No row was written.</p>')
    return "".join(out)
