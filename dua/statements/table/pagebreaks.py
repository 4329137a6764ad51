"""What a page break cuts: the lines a page opens its table with that end the row the page
before printed last, and the lines a page closes its table with that open the next page's
first row (where descriptions stand over their amounts).

Copied verbatim, after ``faces`` and before ``engine``, into every generated parser:
standard library only, never dua.
"""
from __future__ import annotations

from .amounts import looks_like_amount
from .wordlines import HEADING, _LABELLED


def leading_run(items: list, leading: list, first: int) -> list:
    """The text lines that open a page's table, before its first row and touching each
    other: a description that began on an earlier page continues here. A page with no row
    of its own continues one only under the table's heading printed again (the rest of a
    row the page break cut) or over the balance the table closes with; without either, it
    is some other text (terms, a notice)."""
    heads = [i for i in range(first) if items[i][0] == "furniture" and items[i][5] == HEADING]
    leading = [i for i in leading if not heads or i > max(heads)]  # over it: the page's header
    after = next((i for i in range(min(leading or [0]), first) if i not in leading), None)
    # the summary's figures on its labels' line, or on the line under them
    summary = after is not None and items[after][5].startswith(_LABELLED) and any(
        looks_like_amount(w[0]) for item in items[after:after + 2] for w in item[4])
    if not leading or first == len(items) and not heads and not summary:
        return []
    # the first wrapped line, under nothing but the page's furniture and text no row
    # continues (a running header the page prints in its own place)
    start = min(leading)
    if any(items[i][0] not in ("outside", "furniture", "text") for i in range(start)):
        return []
    run = []
    for i in range(start, first):
        if i not in leading:
            break
        run.append(i)
    return run


def trailing_run(items: list, trailing: list) -> list:
    """The text lines that close a page's table after its last row and touch each other:
    the start of a row whose date and amounts the next page prints."""
    if not trailing:
        return []
    end = max(i for i, item in enumerate(items) if item[0] not in ("outside", "furniture"))
    run = []
    for i in range(end, -1, -1):
        if i not in trailing:
            break
        run.insert(0, i)
    return run


def row_steps(items: list, parts: dict) -> list:
    """``(step, next to each other)`` from each row's last line down to the next row's
    first, on one page; next to each other where no other line stands between them."""
    anchors = sorted(parts)
    return [(items[b][1] - max(items[k][1] for k in parts[a]), max(parts[a]) == b - 1)
            for a, b in zip(anchors, anchors[1:])]


def carried_over(items: list, run: list, first: int, steps: list, widest: float,
                 gap: float) -> list:
    """``run`` where it is the rest of a row the page break cut: it stands as close to the
    line under it (a row, a day's date) as the rows on its page stand to each other, or as
    rows next to each other stand anywhere in the statement (``widest``: a bank may set
    some rows further apart than most); a page's own header stands further off."""
    after = run[-1] + 1 if run else len(items)
    if not run or first == len(items) or after == len(items):
        return run
    steps = sorted(s for s, _ in steps) or [gap]
    limit = max(1.2 * steps[len(steps) // 2], widest)
    return run if items[after][1] - items[run[-1]][1] <= limit else []
