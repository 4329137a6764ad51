"""The statement review: the verdict and its checks, the pages with every row, cell,
furniture line and unaccounted word drawn where it is printed, and the rows as a table.

It draws from the statement's ledger in its JSON form (``dua.statements.verification.ledger.Ledger.
to_dict``: rows with their parts and cells, furniture lines with their reasons, unaccounted
words; pages from 1, boxes in PDF points from the top-left) and from the CSV the run
wrote; it reads no PDF itself (``sources.py`` does).
"""
from __future__ import annotations

import collections
import dataclasses
import os
import re

from . import diff as diff_mod
from .shell import document, esc, filters, label_text, link_rules, page_figure, rect, swatch, title_of

# Column tints; red stays free for what no cell and no furniture line accounts for.
PALETTE = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#17becf",
           "#bcbd22", "#7f7f7f", "#3b5b92")
_ROW_MENTION = re.compile(r"\brows? (\d{1,7})\b")
_NUMBER = re.compile(r"^[-+(]?[^\W\d_]{0,3}[$€£¥₹]?\s?[\d.,'’ \u2009\u202f]*\d\)?-?(?:\s?[A-Za-z]{2,3})?$")
MAX_LISTED = 200  # lines of unaccounted words listed at the top; all are drawn on the pages

CSS = """\
.row{stroke:#0b57b0}
.cell{stroke:none;fill-opacity:.3}
.furn rect{fill:#6b4c9a;fill-opacity:.1;stroke:#6b4c9a;stroke-dasharray:3 2}
.furn text{fill:#4b2c7a}
.lost{fill:#e53935;fill-opacity:.18;stroke:#d50000;stroke-width:2}
rect.lost:target{fill:#ffd23f;fill-opacity:.6}
.lostlist{margin:4px 0;padding-left:20px;font-size:13px;max-height:14em;overflow:auto}
.lostlist .n{color:#555;white-space:nowrap}
.cell.differs{stroke:#d50000;stroke-width:3;fill-opacity:.45}
.items td.differs{background:#ffd6d6;outline:2px solid #d50000;outline-offset:-2px;font-weight:600}
.items td.src{color:#555;font-size:11px}.items tr.exp td{border-bottom:none;color:#444}
.items td.gone{color:#b3261e;font-style:italic}
.items.diff td{white-space:nowrap}.items.diff td.long{white-space:normal;min-width:10em}
.only-fail .pages a[data-k]:not(.fail),.only-fail .items tr[data-k]:not(.fail),.only-fail .furn{display:none}
.only-lost .pages a[data-k],.only-lost .items tr[data-k],.only-lost .furn{display:none}
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
    key_columns: list = dataclasses.field(default_factory=list)  # the answer key's header
    key: list = dataclasses.field(default_factory=list)          # its rows, as text
    links: list = dataclasses.field(default_factory=list)        # (what, href, shown)
    rules: list = dataclasses.field(default_factory=list)        # reading rules that fired


def render(review: StatementReview) -> str:
    """The review as one self-contained HTML document."""
    acc = review.accounting or {}
    colours = _colours(review.columns, acc)
    rows = [r for r in acc.get("rows", []) if isinstance(r, dict) and r.get("parts")]
    placed = {int(r["row"]): r for r in rows}
    pairs = [(f"r{i}", f"row-{i}", f"t-{i}") for i in sorted(placed)]
    css = CSS + _colour_css(colours) + link_rules(pairs)
    diff = (diff_mod.compare(review.columns, review.table, review.key_columns, review.key)
            if review.key_columns else None)
    failing = _failing_rows(review.checks) | (diff.failing_rows() if diff else set())
    body = (_header(review, acc, colours, diff) + '<div class="split"><section class="pages">'
            + _pages(review, acc, placed, colours, failing, diff) + '</section><aside class="side">'
            + _side(review, placed, failing, diff) + "</aside></div>")
    return document(title_of(review.pdf_path), body, css)


def _failing_rows(checks: list) -> set:
    """The rows a failed check names (by its ``rows`` or in its words)."""
    out = set()
    for check in checks:
        if check.get("passed") is False:
            out |= {int(r) for r in check.get("rows") or []}
            out |= {int(m) for m in _ROW_MENTION.findall(str(check.get("detail", "")))}
    return out


def _pages_of(row: dict | None) -> str:
    return " ".join(str(p) for p in sorted({int(part["page"]) for part in row["parts"]})) if row else ""


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

def _header(review: StatementReview, acc: dict, colours: dict, diff) -> str:
    name = esc(os.path.basename(review.pdf_path))
    mode = f" <span class=\"note\">{esc(review.mode)}</span>" if review.mode else ""
    out = [f'<header class="top"><h1>{name}</h1><p class="path">{esc(review.pdf_path)}</p>'
           f'<p><span class="verdict v-{esc(review.status)}">{esc(review.status)}</span>{mode}</p>']
    if review.links:
        out.append('<p class="links">' + " · ".join(
            f'{esc(what)}: <a href="{esc(href)}">{esc(shown)}</a>'
            for what, href, shown in review.links) + "</p>")
    out += [f'<p class="note">{esc(n)}</p>' for n in review.notes]
    if review.checks:
        out.append('<ul class="checks">' + "".join(_check(c) for c in review.checks) + "</ul>")
    if review.rules:
        out.append(f'<p class="note">Reading rules that fired ({len(review.rules)}):</p>'
                   '<ul class="rules">' + "".join(f"<li>{esc(r)}</li>" for r in review.rules)
                   + "</ul>")
    if diff is not None:
        out.append(_diff_summary(diff))
    if review.accounting is not None:
        out.append(_accounting(acc))
    out.append(_legend(colours, review.accounting is not None))
    out.append(filters([p.number for p in review.pages],
                       lost=bool(acc.get("unaccounted"))))
    return "".join(out) + "</header>"


def _diff_summary(diff) -> str:
    if not diff.failing_rows():
        return '<p class="ok">Every row written equals the answer key\'s.</p>'
    parts = [f"{len(diff.cells)} cell(s) in {len({r for r, _ in diff.cells})} row(s) differ"]
    if diff.missing:
        parts.append(f"{len(diff.missing)} row(s) of the key were not written")
    if diff.extra:
        parts.append(f"{len(diff.extra)} row(s) written are not in the key")
    return ('<p class="bad">Against the answer key: ' + "; ".join(parts)
            + " (marked in red in the table, expected over got, and on the pages).</p>")


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
    lines = lost_lines(lost)
    furniture = ", ".join(f"{esc(r)} {n}" for r, n in sorted(reasons.items())) or "none"
    where = f" on {len(lines)} line(s), outlined in red:" if lost else "."
    out = [f'<p>Accounting: <b>{int(acc.get("words_in_cells", 0))}</b> words in cells; '
           f"furniture lines: {furniture}; <b class=\"{'bad' if lost else 'ok'}\">{len(lost)}</b> "
           f"words that no cell and no furniture line accounts for{where}</p>"]
    if lines:
        items = "".join(_lost_line(line) for line in lines[:MAX_LISTED])
        more = (f"<li>… and {len(lines) - MAX_LISTED} more lines</li>"
                if len(lines) > MAX_LISTED else "")
        out.append(f'<ol class="lostlist">{items}{more}</ol>')
    return "".join(out)


def lost_lines(lost: list) -> list:
    """The unaccounted words grouped into the printed lines they stand on, in reading order:
    ``[[(k, word), …], …]`` (``k``: the word's index, its box's id on the page)."""
    lines: list = []
    for k, w in sorted(enumerate(lost), key=lambda kw: (int(kw[1].get("page", 0)),
                                                         float(kw[1]["box"][1]), float(kw[1]["box"][0]))):
        middle = (float(w["box"][1]) + float(w["box"][3])) / 2
        last = lines[-1] if lines else None
        if last and int(last[0][1].get("page", 0)) == int(w.get("page", 0)) \
                and float(last[0][1]["box"][1]) <= middle <= float(last[0][1]["box"][3]):
            last.append((k, w))
        else:
            lines.append([(k, w)])
    return [sorted(line, key=lambda kw: float(kw[1]["box"][0])) for line in lines]


def _lost_line(line: list) -> str:
    first_k, first = line[0]
    words = " ".join(esc(w.get("text", "")) for _, w in line)
    whys = sorted({str(w["why"]) for _, w in line if w.get("why")})
    why = f' <span class="note">({esc("; ".join(whys))})</span>' if whys else ""
    return (f'<li data-page="{int(first.get("page", 0))}"><a href="#w-{first_k}">page '
            f'{int(first.get("page", 0))}</a>: {words} <span class="n">— {len(line)} '
            f'word{"s" if len(line) != 1 else ""}</span>{why}</li>')


def _legend(colours: dict, placed: bool) -> str:
    if not placed:
        return ""
    parts = [f"{swatch(f'cell c{i}')}{esc(name)}" for name, i in colours.items()]
    parts += [f"{swatch('box row')}a row", '<span class="furn">' + swatch("") + "</span>furniture "
              "(its reason above it)", f"{swatch('lost')}unaccounted word"]
    return '<div class="legend">' + "".join(f"<span>{p}</span>" for p in parts) + "</div>"


# --- the pages -------------------------------------------------------------------------------

def _pages(review: StatementReview, acc: dict, placed: dict, colours: dict, failing: set,
           diff) -> str:
    layers: dict = collections.defaultdict(list)
    differs = diff.cells if diff else set()
    for i, row in sorted(placed.items()):
        _row_layers(i, row, review, colours, layers, i in failing, differs)
    for f in acc.get("furniture", []):
        box, page = f.get("box"), int(f.get("page", 0))
        reason, text = str(f.get("reason", "")), str(f.get("text", ""))
        layers[page].append(
            f'<g class="furn">{rect(box, "", title=f"furniture ({reason}): {text}")}'
            f"{label_text(box, short(reason), end=True)}</g>")
    for k, w in enumerate(acc.get("unaccounted", [])):
        why = f" ({w['why']})" if w.get("why") else ""
        layers[int(w.get("page", 0))].append(
            rect(w.get("box"), "lost", f' id="w-{k}"', f"unaccounted for: {w.get('text', '')}{why}"))
    return "".join(page_figure(p, "".join(layers.get(p.number, ()))) for p in review.pages)


def _row_layers(i: int, row: dict, review: StatementReview, colours: dict, layers: dict,
                fail: bool, differs: set) -> None:
    values = review.table[i] if i < len(review.table) else []
    shown = dict(zip(review.columns, values))
    by_page: dict = collections.defaultdict(list)
    for n, part in enumerate(row.get("parts", [])):
        anchor = f' id="row-{i}"' if n == 0 else ""
        by_page[int(part["page"])].append(rect(part["box"], "box row", anchor))
    for cell in row.get("cells", []):
        name = cell.get("column")
        tip = f"{name}: {shown[name]}" if name in shown else str(name)
        mark = " differs" if (i, name) in differs else ""
        if mark:
            tip += f" (the answer key says {_keyed(review, i, name)!r})"
        by_page[int(cell["page"])].append(rect(cell["box"], f"cell c{colours.get(name, 0)}{mark}",
                                               title=tip))
    summary = " | ".join(str(v) for v in values if v != "")
    for page, shapes in by_page.items():
        layers[page].append(f'<a href="#t-{i}" class="r{i}{" fail" if fail else ""}" data-k="r{i}"><title>'
                            f"{esc(f'row {i}: {summary}')}</title>{''.join(shapes)}</a>")


def _keyed(review: StatementReview, i: int, column: str) -> str:
    if i >= len(review.key):
        return ""
    return str(dict(zip(review.key_columns, review.key[i])).get(column, ""))


# --- the table -------------------------------------------------------------------------------

def _side(review: StatementReview, placed: dict, failing: set, diff) -> str:
    if diff is None or not diff.failing_rows():  # rows equal to the key need no twin line
        return _table(review, placed, failing)
    pages = {i: _pages_of(row) for i, row in placed.items()}
    return diff_mod.table(diff, review.columns, review.table, review.key_columns, review.key, pages)


def _table(review: StatementReview, placed: dict, failing: set) -> str:
    colours = _colours(review.columns, {})
    head = "".join(f'<th class="c{colours[c]}">{esc(c)}</th>' for c in review.columns)
    out = [f'<table class="items"><thead><tr><th>row</th><th>page</th>{head}</tr></thead><tbody>']
    for i, values in enumerate(review.table):
        row = placed.get(i)
        number = f'<a href="#row-{i}">{i}</a>' if row else str(i)
        page = str(int(row["parts"][0]["page"])) if row else ""
        cells = "".join(f'<td class="num">{esc(v)}</td>' if _NUMBER.match(str(v)) else
                        f"<td>{esc(v)}</td>" for v in values)
        fail = " fail" if i in failing else ""
        out.append(f'<tr id="t-{i}" class="r{i}{fail}" data-k="r{i}" data-page="{_pages_of(row)}">'
                   f"<td>{number}</td><td>{page}</td>{cells}</tr>")
    out.append("</tbody></table>")
    if not review.table:
        out.append('<p class="note">No row was written.</p>')
    return "".join(out)
