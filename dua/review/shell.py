"""The review page's shell: one self-contained HTML document, its policy, style and script.

Nothing in it loads anything: pages are data: URIs, and the one style and the one script
are inline, allowed by their sha256 in a Content-Security-Policy that forbids every other
load. A PDF's text is untrusted: every string that came from one goes through ``esc``.
Pointing at an item lights its twin (a row in the table and its box on the page): by the
script on hover and focus, and with scripts off by CSS ``:target`` when a link is followed.
The same script runs the filters (failures only, unaccounted words only, one page) and sorts
a table by the heading clicked; without scripts every row and page simply stays shown.
"""
from __future__ import annotations

import base64
import hashlib
import html
import os

SCALE = 1.5  # CSS pixels per PDF point: a page is shown at 108 dpi whatever it was drawn at
LIT = "--hl:#ffd23f8c;--hw:3"  # a translucent yellow, and a thicker outline
LABEL = 8.0  # a label's size in PDF points (svg text in CSS): 12 CSS px at SCALE, as the table

# Hover or focus lights every element of the same key (data-k); nothing else. Generic, so
# it never grows with the document and its hash stays the same.
SCRIPT = (
    "(function(){var lit=[];"
    "function key(t){for(;t&&t.getAttribute;t=t.parentNode){var k=t.getAttribute('data-k');"
    "if(k)return k}return null}"
    "function light(k){lit.forEach(function(e){e.classList.remove('lit')});"
    "lit=k?Array.prototype.slice.call(document.getElementsByClassName(k)):[];"
    "lit.forEach(function(e){e.classList.add('lit')})}"
    "document.addEventListener('mouseover',function(e){light(key(e.target))});"
    "document.addEventListener('focusin',function(e){light(key(e.target))});"
    # The filters: classes on the body hide what CSS names; a page keeps what stands on it.
    "function byId(i){return document.getElementById(i)}"
    "function apply(){var f=byId('f-fail'),l=byId('f-lost'),p=byId('f-page'),n=p?p.value:'';"
    "document.body.classList.toggle('only-fail',!!(f&&f.checked));"
    "document.body.classList.toggle('only-lost',!!(l&&l.checked));"
    "Array.prototype.forEach.call(document.querySelectorAll('[data-page]'),function(e){"
    "e.hidden=!!n&&(' '+e.getAttribute('data-page')+' ').indexOf(' '+n+' ')<0})}"
    "document.addEventListener('change',function(e){"
    "if(e.target.closest&&e.target.closest('.filters'))apply()});apply();"
    # Sorting: numbers by value, the rest as text; a second click reverses.
    "function cell(r,i){var c=r.cells[i];return c?(c.getAttribute('data-v')||c.textContent).trim():''}"
    "document.addEventListener('click',function(e){"
    "var th=e.target.closest&&e.target.closest('th[data-sort]');if(!th)return;"
    "var b=th.closest('table').tBodies[0],hs=th.parentNode.children,"
    "i=Array.prototype.indexOf.call(hs,th),d=th.getAttribute('aria-sort')==='ascending'?-1:1,"
    "rs=Array.prototype.slice.call(b.rows);"
    "rs.sort(function(x,y){var a=cell(x,i),c=cell(y,i),na=parseFloat(a),nc=parseFloat(c);"
    "return d*(isNaN(na)||isNaN(nc)?a.localeCompare(c):na-nc)});"
    "rs.forEach(function(r){b.appendChild(r)});"
    "Array.prototype.forEach.call(hs,function(h){h.removeAttribute('aria-sort')});"
    "th.setAttribute('aria-sort',d>0?'ascending':'descending')});})();"
)

CSS = """\
body{margin:0;font:14px/1.4 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1b1b1b;background:#e4e4e4}
a{color:#0b57b0}
.top{padding:12px 20px;background:#fff;border-bottom:1px solid #bbb}
.top h1{font-size:18px;margin:0 0 6px}
.note{color:#555;margin:4px 0}
.verdict{display:inline-block;padding:2px 10px;border-radius:10px;font-weight:600;color:#fff;background:#777}
.v-passed,.v-converted,.v-skipped{background:#1e7d32}.v-unverified{background:#b26a00}.v-failed{background:#b3261e}
ul.checks{margin:6px 0;padding-left:20px}
.ok{color:#1e7d32}.bad{color:#b3261e}.unknown{color:#8a6d00}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0;font-size:13px}
.legend svg{vertical-align:middle;margin-right:4px}
.split{display:flex;align-items:flex-start;gap:16px;padding:16px}
.pages{flex:0 0 auto;display:flex;flex-direction:column;gap:18px}
.side{flex:1 1 45%;min-width:280px;position:sticky;top:0;max-height:100vh;overflow:auto;background:#fff;border:1px solid #bbb}
figure{margin:0}
figcaption{font-size:12px;color:#444;margin:0 0 4px}
.page{position:relative;display:inline-block;background:#fff;box-shadow:0 1px 4px rgba(0,0,0,.35)}
.page img{display:block}
.page svg.over{position:absolute;left:0;top:0;width:100%;height:100%;overflow:visible}
.page svg.alone{display:block;max-width:100%;height:auto}
svg rect{vector-effect:non-scaling-stroke}
svg text{font:600 8px sans-serif;pointer-events:none}
[hidden]{display:none!important}
.path,.links{margin:2px 0;color:#444;font-size:13px;word-break:break-all}
.filters{display:flex;flex-wrap:wrap;gap:4px 16px;margin:6px 0;font-size:13px}
th[data-sort]{cursor:pointer;user-select:none}
th[aria-sort=ascending]::after{content:" \\25B2"}th[aria-sort=descending]::after{content:" \\25BC"}
table.items{border-collapse:collapse;font-size:12.5px;width:100%}
.items th,.items td{border-bottom:1px solid #e2e2e2;padding:2px 6px;text-align:left;vertical-align:top}
.items th{position:sticky;top:0;background:#f4f4f4;border-bottom:3px solid #999}
.items td.num{text-align:right;white-space:nowrap}
.items tr[data-k]{background:var(--hl,transparent)}
.items tr[data-k]:hover{outline:2px solid #0b57b0}
.lit,tr:target,rect:target{""" + LIT + """}
.box{fill:var(--hl,transparent);stroke-width:var(--hw,1)}
.blank{fill:#f6f6f6;stroke:#999}
"""


def esc(value) -> str:
    """Text or an attribute value from anywhere (a PDF above all), as inert characters."""
    return html.escape(str(value), quote=True)


def _source_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


def policy(css: str) -> str:
    """The Content-Security-Policy: no load of any kind but data: pictures, this style and
    this script."""
    return ("default-src 'none'; img-src data:; style-src " + _source_hash(css)
            + "; script-src " + _source_hash(SCRIPT) + "; base-uri 'none'; form-action 'none'")


def document(title: str, body: str, css: str = "") -> str:
    """The whole HTML file: ``body`` is already escaped HTML, ``css`` adds to the base style."""
    style = CSS + css
    if "</" in style:  # only dua's own selectors belong here, never a PDF's text
        raise ValueError("a style sheet may not contain '</'")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{esc(policy(style))}\">\n"
            "<meta name=\"referrer\" content=\"no-referrer\">\n"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
            f"<title>{esc(title)}</title>\n<style>{style}</style></head>\n<body>\n{body}\n"
            f"<script>{SCRIPT}</script>\n</body></html>\n")


def link_rules(pairs) -> str:
    """CSS that lights both twins when either is the URL's target (works with scripts off).

    ``pairs`` holds ``(key, page_id, side_id)``; each pair needs its own rule, since CSS has
    no way to say "the element with the same number".
    """
    return "".join(f"body:has(#{a}:target,#{b}:target) .{k}{{{LIT}}}\n" for k, a, b in pairs)


def page_figure(image, overlay: str, caption: str = "") -> str:
    """One page: its picture with ``overlay`` (SVG elements in PDF points) drawn over it."""
    w, h = image.width, image.height
    box = f'viewBox="0 0 {w:.2f} {h:.2f}" preserveAspectRatio="none"'
    shown_w, shown_h = round(w * SCALE), round(h * SCALE)
    label = esc(caption or f"Page {image.number}")
    if image.png is None:
        reason = esc(image.why or "no picture")
        return (f'<figure id="page-{image.number}" data-page="{image.number}"><figcaption>'
                f'{label} (not drawn: {reason})'
                f'</figcaption><div class="page"><svg class="alone" width="{shown_w}" '
                f'height="{shown_h}" {box}><rect class="blank" x="0" y="0" width="{w:.2f}" '
                f'height="{h:.2f}"/>{overlay}</svg></div></figure>')
    data = base64.b64encode(image.png).decode("ascii")
    # Eager: a lazy picture is blank in print and in a headless screenshot (issue 30).
    return (f'<figure id="page-{image.number}" data-page="{image.number}">'
            f'<figcaption>{label}</figcaption>'
            f'<div class="page"><img alt="{label}" '
            f'width="{shown_w}" height="{shown_h}" src="data:image/png;base64,{data}">'
            f'<svg class="over" {box}>{overlay}</svg></div></figure>')


def rect(box, cls: str, extra: str = "", title: str = "") -> str:
    """An SVG rectangle over ``box`` [x0, top, x1, bottom] in PDF points."""
    x0, top, x1, bottom = (float(v) for v in box)
    tip = f"<title>{esc(title)}</title>" if title else ""
    return (f'<rect class="{cls}" x="{x0:.2f}" y="{top:.2f}" width="{max(x1 - x0, 0.5):.2f}" '
            f'height="{max(bottom - top, 0.5):.2f}"{extra}>{tip}</rect>')


def swatch(cls: str) -> str:
    """A small square in a legend, drawn with the class its boxes use."""
    return f'<svg width="14" height="14" viewBox="0 0 14 14"><rect class="{cls} key" x="1" y="1" width="12" height="12"/></svg>'


def label_text(box, text: str, end: bool = False, cls: str = "") -> str:
    """A label over ``box``: above its top edge, or just inside it where the page's top would
    cut it off; at its right edge (``end``) unless it would run off the page's left."""
    x0, top, x1, _ = (float(v) for v in box)
    width = len(text) * LABEL * 0.6  # a generous guess: sans-serif averages under 0.6 em
    y = top - 1.5 if top - 1.5 >= LABEL else top + LABEL
    if end and x1 >= width:
        x, anchor = x1, ' text-anchor="end"'
    else:
        x, anchor = x0, ""
    css = f' class="{cls}"' if cls else ""
    return f'<text{css} x="{x:.2f}" y="{y:.2f}"{anchor}>{esc(text)}</text>'


def title_of(path: str, what: str = "dua review") -> str:
    """A page's title: the PDF's own name, then the folder it is in (a batch's PDFs are
    often all called statement.pdf), then what the page is."""
    folder = os.path.dirname(path) or "."
    return f"{os.path.basename(path)} in {folder} — {what}"


def filters(pages: list, lost: bool = False, fail: bool = True) -> str:
    """The filter controls the script runs: failures only, unaccounted words only, a page."""
    out = ['<div class="filters"><b>Show</b>']
    if fail:
        out.append('<label><input type="checkbox" id="f-fail"> failures only</label>')
    if lost:
        out.append('<label><input type="checkbox" id="f-lost"> unaccounted words only</label>')
    if len(pages) > 1:
        options = "".join(f'<option value="{int(n)}">page {int(n)}</option>' for n in pages)
        out.append(f'<label>page <select id="f-page"><option value="">all pages</option>'
                   f"{options}</select></label>")
    return "".join(out) + "</div>"
