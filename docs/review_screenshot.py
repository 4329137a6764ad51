"""Make docs/review.png, the README's picture of a statement review: ``python docs/review_screenshot.py``.

It runs ``dua parse --review`` (no answer key) on the fixture statement whose ledger leaves
four words unaccounted, opens the review in headless Chromium (as
tests/test_review_browser.py does) with row 3 lit, and keeps the top of the screenshot in
128 colours, so that the picture stays small. Needs Chromium and Pillow (which
pdfplumber installs); a development tool, never part of dua.
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, REPO)

from tests.review_support import browse  # noqa: E402 (the repository must be on the path first)
from tests.support import FIXTURES, run_dua  # noqa: E402

STATEMENT = os.path.join(FIXTURES, "review", "unaccounted", "a.pdf")
OUT = os.path.join(REPO, "docs", "review.png")


def main() -> int:
    from PIL import Image

    tmp = tempfile.mkdtemp(prefix="dua-docs-")
    try:
        review = os.path.join(tmp, "review.html")
        proc = run_dua("parse", STATEMENT, "--bank", "fenland", "--parsers-dir", tmp, "--out",
                       os.path.join(tmp, "fenland.csv"), "--review", review, "-q")
        if not os.path.exists(review):
            print(proc.stderr, file=sys.stderr)
            return 1
        shot = os.path.join(tmp, "shot.png")
        browse(f"file://{review}#t-3", screenshot=shot, size="1280,1700")
        image = Image.open(shot).convert("RGB").crop((0, 0, 1280, 900))
        image.quantize(128).save(OUT, optimize=True)
    finally:
        shutil.rmtree(tmp, True)
    print(f"wrote {OUT} ({os.path.getsize(OUT):,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
