"""The review page's shell: one self-contained HTML document, its policy, style and script.

Nothing in it loads anything: pages are data: URIs, and the one style and the one script
are inline, allowed by their sha256 in a Content-Security-Policy that forbids every other
load. A PDF's text is untrusted: every string that came from one goes through ``esc``.
Pointing at an item lights its twin (a row in the table and its box on the page): by the
script on hover and focus, and with scripts off by CSS ``:target`` when a link is followed.
"""
from __future__ import annotations

import base64
import hashlib
import html

SCALE = 1.5  # CSS pixels per PDF point: a page is shown at 108 dpi whatever it was drawn at
LIT = "--hl:#ffd23f8c;--hw:3"  # a translucent yellow, and a thicker outline

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
    "document.addEventListener('focusin',function(e){light(key(e.target))});})();"
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
.pages{flex:0 1 auto;display:flex;flex-direction:column;gap:18px;min-width:0}
.side{flex:1 1 45%;min-width:280px;position:sticky;top:0;max-height:100vh;overflow:auto;background:#fff;border:1px solid #bbb}
figure{margin:0}
figcaption{font-size:12px;color:#444;margin:0 0 4px}
.page{position:relative;display:inline-block;background:#fff;box-shadow:0 1px 4px rgba(0,0,0,.35)}
.page img{display:block;max-width:100%;height:auto}
.page svg.over{position:absolute;left:0;top:0;width:100%;height:100%}
.page svg.alone{display:block;max-width:100%;height:auto}
svg rect{vector-effect:non-scaling-stroke}
svg text{font:6px sans-serif;pointer-events:none}
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
        return (f'<figure id="page-{image.number}"><figcaption>{label} (not drawn: {reason})'
                f'</figcaption><div class="page"><svg class="alone" width="{shown_w}" '
                f'height="{shown_h}" {box}><rect class="blank" x="0" y="0" width="{w:.2f}" '
                f'height="{h:.2f}"/>{overlay}</svg></div></figure>')
    data = base64.b64encode(image.png).decode("ascii")
    return (f'<figure id="page-{image.number}"><figcaption>{label}</figcaption>'
            f'<div class="page"><img loading="lazy" decoding="async" alt="{label}" '
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
