"""Running a generated parser for real: through dua.sandbox when it is installed.

Until the sandbox's runner is available this module keeps a minimal private
fallback: the static policy check, then a child process with a wall-clock timeout
that sends the frame back as JSON (never pickle). Errors are dua's typed ones.
"""
from __future__ import annotations

import json
import os
import sys

from ..errors import (
    BadReturnValueError,
    DocumentError,
    ParserCrashedError,
    ParserTimeoutError,
    PolicyViolationError,
)

_CHILD = r"""
import importlib.util, json, sys, traceback
parser_path, pdf_path, codec_path, password = sys.argv[1:5]
def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod
codec = load("_dua_frame_json", codec_path)
try:
    mod = load("generated_parser", parser_path)
    fn = getattr(mod, "parse", None)
    if not callable(fn):
        print(json.dumps({"ok": False, "kind": "bad_return", "message": "the module has no parse() function"}))
        sys.exit(0)
    df = fn(pdf_path, password=password) if password else fn(pdf_path)
    frame = codec.encode(df)
except codec.FrameCodecError as exc:
    print(json.dumps({"ok": False, "kind": "bad_return", "message": str(exc)}))
except BaseException as exc:
    tb = traceback.format_exc(limit=6)
    print(json.dumps({"ok": False, "kind": "crash", "message": f"{type(exc).__name__}: {exc}", "traceback": tb[-3000:]}))
else:
    print(json.dumps({"ok": True, "frame": frame}))
"""


def run_generated(parser_path: str, pdf_path: str, *, timeout: float = 60.0,
                  password: str | None = None):
    """The DataFrame the parser at ``parser_path`` returns for ``pdf_path``.

    Raises:
        PolicyViolationError, ParserCrashedError, ParserTimeoutError, ResourceLimitError,
        BadReturnValueError, DocumentError
    """
    try:
        from ..sandbox import run_parser  # lazy: the sandbox loads only when a parser runs
    except ImportError:
        return _fallback(parser_path, pdf_path, timeout, password)
    return run_parser(parser_path, pdf_path, timeout=timeout, password=password)


def _policy(parser_path: str) -> None:
    from ..sandbox.policy import check_source  # lazy: keeps import dua fast

    with open(parser_path, encoding="utf-8") as fh:
        source = fh.read()
    violations = check_source(source, os.path.basename(parser_path))
    if violations:
        raise PolicyViolationError(
            f"{parser_path} was rejected by the safety policy: "
            + "; ".join(str(v) for v in violations[:5]),
            violations=[str(v) for v in violations], path=parser_path)


def _fallback(parser_path: str, pdf_path: str, timeout: float, password: str | None):
    import subprocess  # lazy: keeps import dua fast

    from ..sandbox import frame_json

    _policy(parser_path)
    argv = [sys.executable, "-I", "-c", _CHILD, os.path.abspath(parser_path),
            os.path.abspath(pdf_path), frame_json.__file__, password or ""]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        raise ParserTimeoutError(f"{parser_path} ran past its {timeout:g} s limit",
                                 timeout=timeout, path=parser_path) from exc
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("{")]
    if not lines:
        raise ParserCrashedError(f"{parser_path} exited with status {done.returncode} "
                                 f"and no result: {done.stderr.strip()[-500:]}", path=parser_path)
    result = json.loads(lines[-1])
    if result["ok"]:
        return frame_json.decode(result["frame"])
    if result["kind"] == "bad_return":
        raise BadReturnValueError(f"{parser_path}: {result['message']}", path=parser_path)
    message = result["message"]
    if any(name in message for name in ("PDFSyntaxError", "PDFPasswordIncorrect", "No /Root")):
        raise DocumentError(f"{pdf_path} could not be read by the parser: {message}", path=pdf_path)
    raise ParserCrashedError(f"{parser_path} raised {message}", path=parser_path,
                             traceback=result.get("traceback", ""))
