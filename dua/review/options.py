"""The ``--review`` flags the commands share, and their checks before any work is done."""
from __future__ import annotations

import os

from ..errors import UsageError
from ..pdf.render import DEFAULT_DPI, MAX_DPI, MIN_DPI


def add_arguments(p, folder: bool = False) -> None:
    """``--review FILE.html`` (``DIR`` for a command over many PDFs) and ``--review-dpi``."""
    g = p.add_argument_group("review (one HTML file that shows what dua read, over the pages)")
    if folder:
        g.add_argument("--review", metavar="DIR",
                       help="write DIR/index.html (each statement's verdict) and one page per "
                       "statement: its pages with every row drawn where it is printed")
    else:
        g.add_argument("--review", metavar="FILE.html",
                       help="write a self-contained HTML page that shows what dua read, drawn "
                       "over the PDF's pages (opens in any browser, loads nothing)")
    g.add_argument("--review-dpi", type=float, default=DEFAULT_DPI, metavar="DPI",
                   help=f"resolution of the pages in the review ({MIN_DPI}-{MAX_DPI}; default "
                   f"{DEFAULT_DPI}): lower makes a long document's review smaller")


def check(args, inputs=(), others=()) -> None:
    """Refuse a review that could only fail at the end, or that would destroy an input.

    ``others`` are the run's other outputs (``--out``): the review may not replace them.

    Raises:
        UsageError
    """
    if not getattr(args, "review", None):
        return
    from ..outputs import (  # lazy: --help stays fast
        check_file, check_folder, check_not_an_input, require_folder)

    if args.review == "-":  # a page of HTML on standard output would mix with the report
        raise UsageError("--review needs a path, not '-'",
                         hint="Pass --review a file such as review.html.")
    if not MIN_DPI <= args.review_dpi <= MAX_DPI:
        raise UsageError(f"--review-dpi must be in [{MIN_DPI}, {MAX_DPI}], got {args.review_dpi:g}",
                         hint=f"Pass --review-dpi {DEFAULT_DPI}, or lower for a smaller file.")
    mkdir = getattr(args, "mkdir", False)
    if getattr(args, "pdfs", None) is not None:  # dua run: a folder of pages
        require_folder(args.review, "--review", mkdir, folder=True)
        check_folder(args.review, "--review")
        return
    require_folder(args.review, "--review", mkdir)
    check_file(args.review, "--review")
    check_not_an_input(args.review, "--review", [*inputs, *others])
    for other in others:
        if other and _same_path(other, args.review):
            raise UsageError(f"--review {args.review} is also where the run writes its result",
                             hint="Pass --review a path of its own, such as review.html.")


def _same_path(a: str, b: str) -> bool:
    return os.path.abspath(a) == os.path.abspath(b)
