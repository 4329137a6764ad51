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
