"""What a sandboxed run ended as: the rebuilt DataFrame, or the typed dua error saying why not.

Messages are written for two readers: the person at the terminal and the refine step, which
feeds them back to the parser writer; each names the line, the limit or the fix.
"""
from __future__ import annotations

import os

from ..errors import (
    BadReturnValueError,
    CorruptPDFError,
    EncryptedPDFError,
    GeneratedCodeError,
    NoTextLayerError,
    ParserCrashedError,
    ParserTimeoutError,
    PolicyViolationError,
    ResourceLimitError,
    UnexpectedError,
    excerpt,
)
from .policy import Violation

_SIGNALS = {
    "SIGXCPU": ("cpu", "used up its CPU time limit"),
    "SIGXFSZ": ("file_size", "tried to grow a file past the file-size limit (0 bytes)"),
    "SIGKILL": ("memory", "was killed, most likely for using too much memory"),
}


def policy_error(parser_path: str, violations: list, stage: str) -> PolicyViolationError:
    name = os.path.basename(parser_path)
    shown = "; ".join(str(v) for v in violations[:5])
    more = f" (and {len(violations) - 5} more)" if len(violations) > 5 else ""
    when = "was stopped at run time" if stage == "runtime" else "was rejected"
    return PolicyViolationError(
        f"{name} {when} by the safety policy: {shown}{more}", path=parser_path,
        violations=list(violations), stage=stage)


def result(parser_path: str, pdf_path: str, timeout: float, limits: object, header: dict,
           meta: dict, frame: str) -> object:
    """The DataFrame of a successful run; otherwise raises the matching dua error."""
    name = os.path.basename(parser_path)
    output = header.get("output", "")
    stop = header.get("stop")
    if stop == "timeout":
        raise ParserTimeoutError(f"{name} ran past the {timeout:g} s time limit and was stopped",
                                 timeout=timeout, output=excerpt(output))
    if stop == "output":
        raise ResourceLimitError(
            f"{name} printed more than {limits.output_kill:,} bytes and was stopped; a parser "
            "should return its rows, not print them", limit="output", output=excerpt(output))
    if stop == "result":
        raise _too_large(name, limits)
    if not meta:
        raise _died(name, header, output)
    return _from_report(name, parser_path, pdf_path, limits, meta, frame, output)


def _from_report(name: str, parser_path: str, pdf_path: str, limits: object, meta: dict,
                 frame: str, output: str) -> object:
    kind = meta.get("kind")
    if kind == "ok":
        return _decode(name, frame)
    if kind == "refused":
        violations = [Violation(int(v["line"]), int(v["col"]), str(v["reason"]))
                      for v in meta["violations"]]
        raise policy_error(parser_path, violations, stage="runtime")
    if kind == "crash":
        raise _crash(name, meta, output)
    if kind == "memory":
        raise ResourceLimitError(
            f"{name} ran out of memory (limit {limits.memory // (1 << 20):,} MiB above the "
            "libraries)", limit="memory", hint="Process the PDF page by page; do not build huge "
            "strings or lists.")
    if kind == "bad_return":
        raise BadReturnValueError(
            f"parse() in {name} returned {meta['type']}, not a pandas DataFrame",
            returned=meta["type"], hint="End parse() with: return pd.DataFrame(rows, columns=[...])")
    if kind == "bad_value":
        raise BadReturnValueError(f"parse() in {name} returned a DataFrame that cannot be "
                                  f"passed back: {meta['message']}", hint="Use plain str, int, "
                                  "float, bool and date values.")
    if kind == "result_too_large":
        raise _too_large(name, limits)
    if kind == "document":
        raise _document(pdf_path, meta)
    if kind == "no_text":
        n = meta.get("pages", 0)
        pages = f"{n} pages are images" if n != 1 else "1 page is an image"
        raise NoTextLayerError(f"{pdf_path} has no text layer: its {pages} with no characters",
                               path=pdf_path, pages=n)
    raise UnexpectedError(f"the sandbox failed inside the child: {meta.get('message', meta)}")


def _decode(name: str, frame: str) -> object:
    from .frame_json import FrameCodecError, loads  # lazy: loads pandas

    try:
        return loads(frame)
    except FrameCodecError as exc:
        raise BadReturnValueError(f"the result of {name} could not be rebuilt: {exc}") from exc


def _crash(name: str, meta: dict, output: str) -> ParserCrashedError:
    frames = meta.get("frames", [])
    where = ""
    if frames:
        last = frames[-1]
        where = f" at line {last['line']} in {last['function']}()"
        if last.get("code"):
            where += f": {last['code']}"
    exc_name, exc_message = meta.get("exception", "Exception"), meta.get("message", "")
    return ParserCrashedError(
        f"{name} raised {exc_name}{where}: {excerpt(exc_message, 300)}",
        exception=exc_name, exception_message=exc_message, frames=frames,
        output=excerpt(output), hint="Fix the parser at that line; the traceback shows only "
        "frames inside the parser file.")


def _died(name: str, header: dict, output: str) -> GeneratedCodeError:
    sig = header.get("status", {}).get("signal")
    if sig in _SIGNALS:
        limit, what = _SIGNALS[sig]
        return ResourceLimitError(f"{name} {what}", limit=limit, signal=sig, output=excerpt(output))
    if sig:
        return ParserCrashedError(f"{name} killed its process ({sig})", exception=sig,
                                  exception_message="", frames=[], output=excerpt(output))
    code = header.get("status", {}).get("exit")
    return ParserCrashedError(f"{name} ended its process (exit {code}) without returning",
                              exception="SystemExit", exception_message=str(code), frames=[],
                              output=excerpt(output))


def _too_large(name: str, limits: object) -> ResourceLimitError:
    return ResourceLimitError(f"the result of {name} is larger than the {limits.result:,}-"
                              "character limit", limit="result")


def _document(pdf_path: str, meta: dict) -> Exception:
    names = set(meta.get("names", []))
    message = meta.get("message", "")
    if names & {"PDFPasswordIncorrect", "PDFEncryptionError"} or "password" in message.lower():
        return EncryptedPDFError(f"{pdf_path} is encrypted and the password is missing or wrong",
                                 path=pdf_path)
    return CorruptPDFError(f"{pdf_path} is damaged or truncated: {excerpt(message, 200)}",
                           path=pdf_path)
