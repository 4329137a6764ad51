"""Helpers for the review tests: read a review's HTML as a browser parses it, decode a PNG
screenshot (zlib and struct only), and run headless Chromium on a file."""
from __future__ import annotations

import html.parser
import json
import os
import shutil
import struct
import subprocess
import tempfile
import unittest
import zlib


class Audit(html.parser.HTMLParser):
    """Every element, attribute and text node of a document, as the HTML parser sees them."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list = []     # (tag, {attr: value}) in document order
        self.texts: list = []    # (enclosing tag, text) with character references decoded
        self.stack: list = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))
        if tag not in ("meta", "img", "rect", "br", "input", "link"):
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag):
        if tag in self.stack:
            while self.stack and self.stack.pop() != tag:
                pass

    def handle_data(self, data):
        if data.strip():
            self.texts.append((self.stack[-1] if self.stack else "", data))

    def named(self, tag: str) -> list:
        return [attrs for t, attrs in self.tags if t == tag]

    def text_in(self, tag: str) -> str:
        return "\n".join(text for t, text in self.texts if t == tag)


def decode_png(data: bytes) -> tuple:
    """``(width, height, channels, rows)``: an 8-bit RGB(A) or grey PNG's pixel rows."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG")
    pos, idat, head = 8, [], None
    while pos < len(data):
        size, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + size]
        pos += 12 + size
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat.append(body)
    width, height, depth, colour, _, _, interlace = head
    if depth != 8 or interlace or colour not in (0, 2, 6):
        raise ValueError(f"unsupported PNG: depth {depth}, colour {colour}, interlace {interlace}")
    channels = {0: 1, 2: 3, 6: 4}[colour]
    raw, stride = zlib.decompress(b"".join(idat)), width * channels
    rows, prev = [], bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        prev = _unfilter(raw[start], raw[start + 1:start + 1 + stride], prev, channels)
        rows.append(prev)
    return width, height, channels, rows


def _add(a: bytes, b: bytes) -> bytes:
    """Byte-wise a + b mod 256, done on whole rows as integers (SWAR), not byte by byte."""
    n = len(a)
    hi = int.from_bytes(b"\x80" * n, "little")
    x, y = int.from_bytes(a, "little"), int.from_bytes(b, "little")
    return (((x & ~hi) + (y & ~hi)) ^ ((x ^ y) & hi)).to_bytes(n, "little")


def _unfilter(kind: int, line: bytes, prev: bytes, bpp: int) -> bytes:
    if kind == 0:
        return line
    if kind == 2:  # Up
        return _add(line, prev)
    if kind == 1:  # Sub: a running sum at distance bpp, by doubling strides
        out, step = line, bpp
        while step < len(line):
            out = _add(out, bytes(step) + out[:-step])
            step *= 2
        return out
    out = bytearray(line)
    for i in range(len(out)):
        a = out[i - bpp] if i >= bpp else 0
        b = prev[i]
        if kind == 3:  # Average
            out[i] = (out[i] + ((a + b) >> 1)) & 0xFF
            continue
        c = prev[i - bpp] if i >= bpp else 0  # Paeth
        p = a + b - c
        pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
        out[i] = (out[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
    return bytes(out)


class Screenshot:
    """A decoded screenshot: ``pixel(x, y)`` -> (r, g, b)."""

    def __init__(self, path: str):
        with open(path, "rb") as fh:
            self.width, self.height, self.channels, self.rows = decode_png(fh.read())

    def pixel(self, x: int, y: int) -> tuple:
        row, i = self.rows[y], x * self.channels
        return tuple(row[i:i + 3]) if self.channels >= 3 else (row[i],) * 3


def chromium() -> str:
    """The Chromium binary; skips the calling test with the reason when there is none."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise unittest.SkipTest("headless Chromium is not installed (Debian: apt-get install -y "
                            "chromium); .ci/run installs it where apt-get is available")


def browse(url: str, *, screenshot: str | None = None, net_log: str | None = None,
           dump_dom: bool = False, size: str = "1500,1700") -> str:
    """Open ``url`` in headless Chromium, offline; returns the DOM when ``dump_dom``."""
    profile = tempfile.mkdtemp(prefix="dua-chromium-")
    try:
        cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-background-networking", "--disable-component-update",
               "--disable-sync", f"--user-data-dir={profile}", "--hide-scrollbars",
               f"--window-size={size}", "--host-resolver-rules=MAP * ~NOTFOUND",
               "--virtual-time-budget=3000"]
        cmd += [f"--screenshot={screenshot}"] if screenshot else []
        cmd += [f"--log-net-log={net_log}"] if net_log else []
        cmd += ["--dump-dom"] if dump_dom else []
        proc = subprocess.run(cmd + [url], capture_output=True, text=True, timeout=120)
        if screenshot and not os.path.exists(screenshot):
            raise AssertionError(f"Chromium wrote no screenshot: {proc.stderr[-2000:]}")
        return proc.stdout
    finally:
        shutil.rmtree(profile, True)


def page_requests(net_log: str) -> list:
    """URLs the page itself asked the network for (the browser's own update checks aside:
    a page's requests carry the file:// top-frame site in their isolation key)."""
    with open(net_log, encoding="utf-8") as fh:
        log = json.load(fh)
    names = {v: k for k, v in log["constants"]["logEventTypes"].items()}
    out = []
    for event in log["events"]:
        params = event.get("params") or {}
        if names.get(event["type"]) == "URL_REQUEST_START_JOB" and "url" in params \
                and "file://" in str(params.get("network_isolation_key", "")):
            out.append(params["url"])
    return out


def drive(review: str, script: str) -> object:
    """Run ``script`` in a review page in headless Chromium, as a user's clicks would, and
    return what it leaves in ``out`` (JSON). The page's own script runs unchanged; only the
    policy that keeps any other script out is taken away from a copy of the page."""
    import re

    with open(review, encoding="utf-8") as fh:
        text = fh.read()
    text = re.sub(r'<meta http-equiv="Content-Security-Policy"[^>]*>', "", text, count=1)
    probe = ("<script>window.addEventListener('load',function(){var out=null;" + script +
             ";var p=document.createElement('pre');p.id='dua-test-out';"
             "p.textContent=JSON.stringify(out);document.body.appendChild(p)});</script>")
    copy = review[:-len(".html")] + ".driven.html"
    with open(copy, "w", encoding="utf-8") as fh:
        fh.write(text.replace("</body>", probe + "</body>", 1))
    try:
        dom = browse(f"file://{copy}", dump_dom=True)
    finally:
        os.remove(copy)
    found = re.search(r'<pre id="dua-test-out">(.*?)</pre>', dom, re.S)
    if not found:
        raise AssertionError(f"the page's probe left nothing: {dom[-2000:]}")
    import html as html_mod

    return json.loads(html_mod.unescape(found.group(1)))

