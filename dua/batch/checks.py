"""What a batch can say about a file's rows beyond "the parser ran": the statement's own checks.

A parser written by dua's engine carries its ``SETTINGS``; with them and the words the
worker read, the rows the parser returned are put to the checks ``dua parse`` uses without
an answer key (``verify.intrinsic``): the balances and totals printed on the statement,
and every word of its table accounted for. A parser that is not the engine's, or a PDF
the parser read itself, leaves the rows "not checked", and the result says why.
"""
from __future__ import annotations

NOT_CHECKED = "not checked"


def rows_check(parser_path: str, frame, pages: list | None) -> dict:
    """``{"status": passed|failed|unverified|not checked, "summary": ...}`` for a frame the
    parser at ``parser_path`` read from the reader's ``pages`` (dicts with "words")."""
    from ..review.sources import parser_settings  # lazy: only a checked file needs it

    settings, why = parser_settings(parser_path)
    if settings is None:
        return _not_checked(why)
    if pages is None:
        return _not_checked("the parser reads the PDF itself, so its words are not at hand")
    from ..statements.verification import verify  # lazy: the engine loads only to check rows

    try:
        result = verify.on_words([p["words"] for p in pages], settings, frame,
                                 [p.get("chars") for p in pages])
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        return _not_checked(f"the parser's SETTINGS do not fit dua's engine "
                            f"({type(exc).__name__}: {exc})")
    except Exception as exc:  # the rows are converted already: a fault in checking them
        # must not cost the file its output, so it is said here instead of failing the file
        return _not_checked(f"the check itself failed, a bug in dua to report "
                            f"({type(exc).__name__}: {exc})")
    return {"status": result["status"], "summary": result["summary"]}


def _not_checked(why: str) -> dict:
    return {"status": NOT_CHECKED, "summary": why}
