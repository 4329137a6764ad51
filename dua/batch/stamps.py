"""The resume record: which parser made each output from which PDF.

Each output gets a small JSON beside it in ``<out-dir>/.dua/``, written after the output
itself, so a stamp always vouches for a whole file; a changed parser or a replaced PDF no
longer matches its stamp and is converted again.
"""
from __future__ import annotations

import os

STAMPS = ".dua"  # a folder beside the outputs


def stamp_path(output_path: str) -> str:
    folder, name = os.path.split(os.path.abspath(output_path))
    return os.path.join(folder, STAMPS, name + ".json")


def source_stamp(parser_path: str, pdf_path: str) -> dict:
    """What an output depends on: the parser's bytes and the PDF's identity.

    Raises:
        OSError: either file is gone.
    """
    import hashlib  # lazy: keeps import dua fast

    with open(parser_path, "rb") as fh:
        digest = hashlib.sha256(fh.read()).hexdigest()
    st = os.stat(pdf_path)
    return {"parser_sha256": digest, "pdf": os.path.abspath(pdf_path), "pdf_size": st.st_size,
            "pdf_mtime_ns": st.st_mtime_ns}


def rows_as(task) -> str:
    """How a task writes its rows ('csv', 'ofx+normalized'...): an output written another
    way is not this run's output, however complete."""
    return task.row_format + ("+normalized" if task.normalize else "")


def write_stamp(output_path: str, stamp: dict) -> None:
    """Written after the output itself, so a stamp always vouches for a whole file."""
    import json  # lazy: keeps import dua fast

    from ..outputs import write_output  # lazy: only a file with an output needs it

    write_output(stamp_path(output_path), json.dumps(stamp))


def read_stamp(output_path: str) -> dict | None:
    """The stamp of a complete output, or None (no output, no stamp, or a damaged one)."""
    import json  # lazy: keeps import dua fast

    try:
        with open(stamp_path(output_path), encoding="utf-8") as fh:
            stamp = json.load(fh)
    except (OSError, ValueError):
        return None
    return stamp if isinstance(stamp, dict) and os.path.isfile(output_path) else None


def completed(task) -> tuple | None:
    """``(output, stamp)`` of the output this very parser made earlier from this very PDF,
    under whichever verdict's name its rows went (see ``plan.verdict_path``); None when
    there is none, or when this run checks rows and that one did not (``--no-check``)."""
    from ..outputs import FILE, kind  # lazy: only a batch with outputs needs it

    if not task.output_path or kind(task.output_path) != FILE:
        return None  # a device or a pipe is written again every time
    for path in _verdict_names(task.output_path):
        if is_complete(path, task.pdf_path, task.parser_path):
            stamp = read_stamp(path) or {}
            same_rows = stamp.get("rows_as", "csv") == rows_as(task)  # --normalize, --format
            if same_rows and (not task.check_rows or isinstance(stamp.get("check"), dict)):
                return path, stamp
    return None


def retire_others(task, kept: str) -> None:
    """Remove this PDF's earlier output under another verdict's name (and its stamp): the
    folder holds one output per PDF, named by its latest verdict, so that an old
    ``<name>.csv`` never stands for rows that no longer pass. Only outputs whose stamp says
    they were made from this PDF are touched; a file dua did not stamp is never removed."""
    pdf = os.path.abspath(task.pdf_path)
    for path in _verdict_names(task.output_path):
        if os.path.abspath(path) == os.path.abspath(kept):
            continue
        stamp = read_stamp(path)
        if stamp is not None and stamp.get("pdf") == pdf:
            for gone in (path, stamp_path(path)):  # the output first: a stamp vouches for it
                try:
                    os.remove(gone)
                except FileNotFoundError:
                    pass


def _verdict_names(output_path: str) -> list:
    from .plan import APART, verdict_path  # lazy: plan is the batch's, stamps are its records

    return [output_path] + [verdict_path(output_path, status) for status in APART]


def is_complete(output_path: str, pdf_path: str, parser_path: str) -> bool:
    """An output counts as done when its stamp says this very parser made it from this
    very PDF (same bytes, same file): a changed parser or a replaced PDF is run again.

    Outputs only ever appear by an atomic rename, and stamps after them, so stamped means whole.
    """
    from ..outputs import FILE, kind  # lazy: only a batch with outputs needs it

    if kind(output_path) != FILE:  # a device or a pipe is written again every time
        return False
    stamp = read_stamp(output_path)
    if stamp is None:
        return False
    try:
        sources = source_stamp(parser_path, pdf_path)
    except OSError:
        return False
    return all(stamp.get(key) == value for key, value in sources.items())
