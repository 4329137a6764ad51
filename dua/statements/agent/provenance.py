"""Where a parse keeps its parser and its rows, and the provenance written at the top of it.

A parser that passed is never replaced by one that did not: a run that finds one (or a parser
whose verdict it cannot read, made by hand or by an older dua) works on ``BANK_parser.attempt.py``
and keeps a failed attempt beside it as ``BANK_parser.failed.py`` (or ``.unverified.py``).
The header is comment lines only, so the code below it runs and reads exactly as checked; it
is written when the run ends (drafts have none: a crash's line numbers are the code's own).
"""
from __future__ import annotations

import os
import re

from ...errors import UsageError
from ...outputs import FILE, kind

MARK = "# dua provenance"  # the header's first line: how a later run finds the verdict
_VERDICT = re.compile(r"^# verdict: (\w+)", re.M)
_HEAD_LINES = 40  # the header is at the top; a verdict further down is some other comment
_DETAIL = 160  # characters of a check's detail in the header
_BANK = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$")


def check_bank(bank: str) -> str:
    """Raises: UsageError when the bank name cannot be a file name part."""
    if not isinstance(bank, str) or not _BANK.match(bank):
        raise UsageError(f"--bank must be letters, digits, '_' or '-' (at most 64), got {bank!r}",
                         hint="Pass e.g. --bank icici.")
    return bank


def result_path(out: str | None, parsers_dir: str, bank: str, partial: bool = False) -> str:
    """``out`` or PARSERS_DIR/BANK_result.csv; a failed run's rows beside it, named partial (beside
    the parser when ``out`` is ``-``, a device or a pipe: those never grow a sibling file)."""
    default = os.path.join(parsers_dir, f"{bank}_result.csv")
    if not partial:
        return out or default
    beside = out if out and kind(out) == FILE else default
    return "%s.partial%s" % os.path.splitext(beside)


def parser_path(parsers_dir: str, bank: str) -> str:
    return os.path.join(parsers_dir, f"{bank}_parser.py")


def apart_path(parsers_dir: str, bank: str, verdict: str) -> str:
    """``BANK_parser.<verdict>.py``: an attempt kept beside the parser (attempt, failed,
    unverified)."""
    return os.path.join(parsers_dir, f"{bank}_parser.{verdict}.py")


def saved_verdict(path: str) -> str | None:
    """The verdict a parser file's provenance records; None when the file has none (made by
    hand, or by a dua before provenance) or cannot be read; "" when there is no file."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            head = "".join(fh.readline() for _ in range(_HEAD_LINES))
    except FileNotFoundError:
        return ""
    except (OSError, ValueError):
        return None
    found = _VERDICT.search(head) if head.startswith(MARK) else None
    return found.group(1) if found else None


def working_path(parsers_dir: str, bank: str) -> str:
    """Where this run writes its drafts: the parser's own name, unless a parser there passed
    (or says nothing of its verdict), which only a parser that passes may replace."""
    own = parser_path(parsers_dir, bank)
    if saved_verdict(own) in ("", "failed", "unverified"):
        return own
    return apart_path(parsers_dir, bank, "attempt")


def final_path(working: str, parsers_dir: str, bank: str, verdict: str) -> str:
    """Where the run's parser ends: its own name when it passed or replaced nothing that
    passed; beside a kept parser, named by its verdict, otherwise."""
    own = parser_path(parsers_dir, bank)
    if verdict == "passed" or os.path.abspath(working) == os.path.abspath(own):
        return own
    return apart_path(parsers_dir, bank, "failed" if verdict != "unverified" else "unverified")


def header(pdf_path: str, verdict: str, checks: list, writer: str, when=None) -> str:
    """The provenance comment block: dua's version, the source PDF and its sha256, the
    verdict and each check behind it in one line, the date (UTC)."""
    import datetime  # lazy: keeps import dua fast

    from ... import __version__

    when = when or datetime.datetime.now(datetime.timezone.utc)
    lines = [MARK,
             f"# written by dua {__version__} (dua parse, {writer or 'built-in'} writer) on "
             f"{when.strftime('%Y-%m-%d %H:%M:%S')} UTC",
             f"# source PDF: {os.path.basename(pdf_path)}, sha256 {_sha256(pdf_path)}",
             f"# verdict: {verdict}"]
    for check in checks:
        mark = {True: "held", False: "FAILED", None: "could not be checked"}.get(
            check.get("passed"), "could not be checked")
        detail = (check.get("detail") or "").strip().splitlines()
        said = detail[0] if detail else ""
        if len(said) > _DETAIL:  # one line a check: the report has the whole of it
            said = said[:_DETAIL].rstrip() + " ..."
        lines.append(f"#   {check.get('name', '?')}: {mark}" + (f" - {said}" if said else ""))
    return "\n".join(line.replace("\r", " ") for line in lines) + "\n\n"


def seal(working: str, parsers_dir: str, bank: str, verdict: str, code: str, pdf_path: str,
         checks: list, writer: str) -> str:
    """Write the run's parser, its provenance on top, where its verdict keeps it; the
    working draft beside a kept parser goes. Returns the parser's path.

    Raises:
        UsageError, OutputError: the parser cannot be written.
    """
    from ...outputs import write_output  # lazy: only a finished run writes

    path = final_path(working, parsers_dir, bank, verdict)
    write_output(path, header(pdf_path, verdict, checks, writer) + strip_header(code))
    if os.path.abspath(path) != os.path.abspath(working):
        try:
            os.remove(working)
        except FileNotFoundError:
            pass
    return path


def checks_of(result: dict) -> list:
    """The checks behind a verdict, ``[{name, passed, detail}]``: the verifier's own, or the
    comparison with the expected CSV."""
    if result.get("checks"):
        return result["checks"]
    if not result:
        return []
    return [{"name": "equals_expected", "passed": result.get("equal"),
             "detail": result.get("summary", "")}]


def strip_header(code: str) -> str:
    """The code without a provenance block it already starts with (a resumed run's)."""
    if not code.startswith(MARK):
        return code
    lines = code.split("\n")
    end = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "\n".join(lines[end:]).lstrip("\n")


def _sha256(path: str) -> str:
    import hashlib  # lazy: keeps import dua fast

    digest = hashlib.sha256()
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                digest.update(block)
    except OSError:
        return "unknown (the PDF could not be read again)"
    return digest.hexdigest()
