"""The index of a ``dua run --review DIR``: each statement's verdict, linking its own page."""
from __future__ import annotations

import collections
import dataclasses
import os

from .shell import document, esc

CSS = """\
main{padding:16px 20px}
table.items{max-width:1200px;background:#fff}
.items td{padding:4px 8px}
"""


@dataclasses.dataclass
class IndexEntry:
    """One statement of the run."""

    pdf_path: str
    page: str          # its review's file name, beside the index ('' when none was written)
    run_status: str    # converted | skipped | failed, as dua run reports it
    rows: int
    verdict: str       # passed | unverified | failed from dua's checks; '' when none ran
    detail: str        # the error, or what the checks found
    rows_href: str = ""  # its CSV, relative to the index ('' when none was written)


def render(entries: list, parser_path: str, parser_href: str = "") -> str:
    """The index page: a count per verdict, then one line per statement, sortable by any
    column (a click on its heading)."""
    counts = collections.Counter(e.verdict or e.run_status for e in entries)
    summary = ", ".join(f"{n} {esc(v)}" for v, n in sorted(counts.items()))
    lines = "".join(_line(e) for e in entries)
    body = (f'<header class="top"><h1>dua run: {len(entries)} statement(s)</h1>'
            f"<p>Parser {_link(parser_href, parser_path)}: {summary}.</p><p class=\"note\">Each statement's "
            "page shows its pages with every row drawn where it is printed, the rows as a "
            "table, and what dua's checks found.</p></header><main>"
            '<table class="items"><thead><tr>' + "".join(
                f'<th data-sort title="sort by {h}">{h}</th>' for h in
                ("statement", "folder", "run", "rows", "checks", "detail"))
            + f"</tr></thead><tbody>{lines}</tbody></table></main>")
    return document(f"dua run review: {len(entries)} statement(s) with "
                    f"{os.path.basename(parser_path)}", body, CSS)


def _line(entry: IndexEntry) -> str:
    name = esc(os.path.basename(entry.pdf_path))
    link = f'<a href="{esc(entry.page)}">{name}</a>' if entry.page else name
    verdict = (f'<span class="verdict v-{esc(entry.verdict)}">{esc(entry.verdict)}</span>'
               if entry.verdict else "—")
    # The folder apart: a batch's PDFs often share one name (statement.pdf) in many folders.
    return (f'<tr><td title="{esc(entry.pdf_path)}">{link}</td>'
            f"<td>{esc(os.path.dirname(entry.pdf_path) or '.')}</td>"
            f'<td><span class="verdict v-{esc(entry.run_status)}">{esc(entry.run_status)}</span>'
            f"</td><td data-v=\"{int(entry.rows)}\">{_link(entry.rows_href, str(int(entry.rows)))}</td>"
            f"<td>{verdict}</td><td>{esc(entry.detail)}</td></tr>")


def _link(href: str, text: str) -> str:
    return f'<a href="{esc(href)}">{esc(text)}</a>' if href else esc(text)
