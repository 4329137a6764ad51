"""The fork server and the child side of a sandboxed parser run.

Started as a script (``python -I -B _child.py CONFIG``) by runner.py, never imported by dua.
The server imports pandas and pdfplumber once, then forks one fresh child per request; both
die with their parent (``dua/lifetime.py``, loaded by path). The child takes its own session,
working directory and resource limits, reads the PDF's words with dua's own reader when the
parser holds a copy of it (or takes those the parent read with it), arms the audit hook,
runs ``parse(pdf_path)`` and writes one JSON report to fd 3.
The server watches the child's output, wall clock and exit, and answers the parent with a
header line plus that report.
"""
from __future__ import annotations

import importlib.util
import json
import os
import select
import signal
import sys
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
REPORT_FD = 3
_MEMORY_REPORT = b'{"kind":"memory","message":"the parser ran out of memory"}'


def _load(name: str, folder: str = HERE):
    spec = importlib.util.spec_from_file_location(f"_dua_sandbox_{name}",
                                                  os.path.join(folder, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    config = json.loads(sys.argv[1])
    lifetime = _load("lifetime", os.path.dirname(HERE))
    if config.get("die_with_parent"):  # before the slow imports: dua may be gone by their end
        lifetime.die_with_parent(int(config["parent"]), watch=False)
    sys.path.extend(p for p in config.get("sys_path", []) if p not in sys.path)
    import numpy  # noqa: F401  pre-loaded once here, so that each child skips the import
    import pandas  # noqa: F401
    import pdfplumber  # noqa: F401

    codec, guard = _load("frame_json"), _load("_guard")
    reader = _trusted_reader()
    read_roots = guard.python_roots(config.get("sys_path", []))
    _answer({"ready": True, "pid": os.getpid()})
    for line in sys.stdin.buffer:
        request = json.loads(line)
        request["read_roots"] = read_roots
        header, report = serve(request, codec, guard, reader, lifetime)
        header["report_bytes"] = len(report)
        _answer(header, report)
    return 0


def _trusted_reader() -> tuple:
    """dua's word reader as parsers copy it (its text) and as dua runs it (its read_pages).

    pypdfium2 is deliberately not pre-loaded: calls into a loaded library raise no audit
    event, so only a child that reads ahead loads it, and forgets it before the guard.
    """
    block = _load("reader_block")
    return block.source(), block.load()["read_pages"]


def _answer(header: dict, report: bytes = b"") -> None:
    out = sys.stdout.buffer
    out.write(json.dumps(header).encode() + b"\n" + report)
    out.flush()


# --- server side: one request ----------------------------------------------------------


def serve(request: dict, codec, guard, reader: tuple, lifetime) -> tuple:
    """Fork a child for ``request`` and watch it; returns (header, raw report bytes)."""
    report_r, report_w = os.pipe()
    output_r, output_w = os.pipe()
    started = time.monotonic()
    server = os.getpid()
    pid = os.fork()
    if pid == 0:  # child: never returns
        os.close(report_r)
        os.close(output_r)
        # its own session (out of reach of the server's group): it ends with the server
        lifetime.die_with_parent(server, watch=False)
        _child(request, report_w, output_w, codec, guard, reader)
    os.close(report_w)
    os.close(output_w)
    watch = _watch(pid, report_r, output_r, request, started)
    header = {"seconds": round(time.monotonic() - started, 4)}
    header.update(watch)
    report = header.pop("report")
    return header, report


def _watch(pid: int, report_r: int, output_r: int, request: dict, started: float) -> dict:
    deadline = started + float(request["timeout"])
    keep, flood = int(request["limits"]["output_keep"]), int(request["limits"]["output_kill"])
    chunks = {report_r: [], output_r: []}
    sizes = {report_r: 0, output_r: 0}
    stop, open_fds, watch_parent = "", [report_r, output_r], [0]
    while open_fds and not stop:
        left = deadline - time.monotonic()
        if left <= 0:
            stop = "timeout"
            break
        ready, _, _ = select.select(open_fds + watch_parent, [], [], left)
        if 0 in ready:  # the parent never writes during a run: this is its end of input
            watch_parent = []
            stop = "" if os.read(0, 65536) else "parent_gone"
            ready.remove(0)
        for fd in ready:
            data = os.read(fd, 65536)
            if not data:
                open_fds.remove(fd)
                continue
            sizes[fd] += len(data)
            if fd == report_r or sizes[fd] - len(data) < keep:
                chunks[fd].append(data)
        if sizes[output_r] > flood:
            stop = "output"
        elif sizes[report_r] > int(request["limits"]["result"]) + 4096:
            stop = "result"
    status = _reap(pid, deadline, kill=bool(stop))
    for fd in (report_r, output_r):
        os.close(fd)
    output = b"".join(chunks[output_r])[:keep].decode("utf-8", "replace")
    return {"stop": stop, "status": status, "output": output, "output_bytes": sizes[output_r],
            "report": b"".join(chunks[report_r]) if not stop else b""}


def _reap(pid: int, deadline: float, kill: bool) -> dict:
    """Wait for the child (killing its whole process group on a stop or at the deadline)."""
    grace = min(deadline, time.monotonic() + 1.0)
    while not kill:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > grace:
            kill = True
        time.sleep(0.001)
    if kill:
        _killpg(pid)
        _, status = os.waitpid(pid, 0)
    else:
        _killpg(pid)  # anything the child left behind in its group
    if os.WIFSIGNALED(status):
        return {"signal": signal.Signals(os.WTERMSIG(status)).name}
    return {"exit": os.WEXITSTATUS(status)}


def _killpg(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


# --- child side ------------------------------------------------------------------------


def _child(request: dict, report_w: int, output_w: int, codec, guard_mod, reader: tuple) -> None:
    try:
        _isolate(request, report_w, output_w)
        limits = request["limits"]
        guard_mod.set_limits(int(limits["memory"]), int(limits["cpu"]), int(limits["files"]))
        # Only the list of refusals stays in reach of our frames: a parser that walks the
        # stack finds no Guard to loosen (the interpreter alone holds it).
        refused = []
        words = _read_ahead(request, reader, guard_mod.UNAUDITED_EVENT)
        guard_mod.install(guard_mod.Guard(request["parser"], [request["parser"], request["pdf"]],
                                          request["read_roots"] + [request["workdir"]], refused))
        report = _run(request, codec, refused, words)
        frame = report.pop("frame", "")
        data = json.dumps(report).encode() + b"\n" + frame.encode("utf-8")
    except MemoryError:
        data = _MEMORY_REPORT
    except BaseException as exc:  # the report is the only way out; never a traceback on stdout
        data = json.dumps({"kind": "internal", "message": f"{type(exc).__name__}: {exc}"}).encode()
    _flush()
    _write_all(REPORT_FD, data)
    os._exit(0)


def _isolate(request: dict, report_w: int, output_w: int) -> None:
    """Own session and group, stdio onto the capture pipe, no inherited fds, own cwd."""
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(output_w, 1)
    os.dup2(output_w, 2)
    os.dup2(report_w, REPORT_FD)
    os.closerange(REPORT_FD + 1, 65536)
    os.chdir(request["workdir"])
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    # line by line, so that what a stopped parser printed last still reaches the message
    sys.stdout.reconfigure(line_buffering=True)


def _read_ahead(request: dict, reader: tuple, refusal_event: str):
    """For a parser holding dua's word reader: the PDF's words, read now by the trusted copy.

    pdfium works through ctypes, which the armed guard refuses to everyone; so the reader
    runs here, before the guard, and the parser's read_pages only hands its result over.
    Words the parent read already with the same reader come in the request instead.
    """
    text, read_pages = reader
    try:
        with open(request["parser"], encoding="utf-8-sig") as fh:
            if text not in fh.read():
                return None
    except (OSError, ValueError):
        return None  # _call_parse reads it again and reports why it cannot
    pdf = os.path.realpath(request["pdf"])
    found, error = _given_words(request), None
    try:
        if found is None:
            found = read_pages(pdf, request.get("password"))
    except Exception as exc:  # the parser's own call raises it, as the reader would have
        found, error = None, exc
    _forget_pdfium()

    def read_ahead(pdf_path, password=None, pages=None):
        if os.path.realpath(pdf_path) != pdf:
            # refused by the armed guard itself (no refusal list held in this closure)
            sys.audit(refusal_event, f"reading {pdf_path!r}: a parser reads only the PDF "
                                     "it is given")
        if error is not None:
            raise error
        return [dict(p) for p in found if not pages or p["number"] in pages]

    return read_ahead


def _given_words(request: dict) -> list | None:
    """The parent's reading, as the reader returns it: JSON made its word tuples lists."""
    given = request.get("words")
    if given is None:
        return None
    return [dict(page, words=[tuple(w) for w in page["words"]]) for page in given]


def _forget_pdfium() -> None:
    """Unload pypdfium2's modules, so that reaching pdfium again means importing it, whose
    dlopen the guard refuses (calls into an already loaded library are never audited)."""
    for name in list(sys.modules):
        if name.partition(".")[0] in _PDFIUM_MODULES or name == "pdfplumber.display":
            del sys.modules[name]
    plumber = sys.modules.get("pdfplumber")
    if plumber is not None:
        plumber.__dict__.pop("display", None)


_PDFIUM_MODULES = ("pypdfium2", "pypdfium2_raw", "pypdfium2_cfg")


def _run(request: dict, codec, refused: list, words=None) -> dict:
    """Import the parser, call parse(), and describe the outcome as a JSON-able dict."""
    import pandas as pd

    _add_password(request.get("password"))
    path = request["parser"]
    try:
        df = _call_parse(path, request["pdf"], words)
    except MemoryError:
        return _refused(refused) or {"kind": "memory", "message": "the parser ran out of memory"}
    except BaseException as exc:
        return (_refused(refused) or _document_error(exc) or _no_text(request)
                or _crash(exc, path))
    if refused:
        return _refused(refused)
    if not isinstance(df, pd.DataFrame):
        return {"kind": "bad_return", "type": type(df).__name__}
    if df.empty and _no_text(request):
        return _no_text(request)
    try:
        text = codec.dumps(df, limit=int(request["limits"]["result"]))
    except codec.FrameCodecError as exc:
        kind = "result_too_large" if "limit" in str(exc) else "bad_value"
        return {"kind": kind, "message": str(exc)}
    return {"kind": "ok", "frame": text}


def _call_parse(path: str, pdf_path: str, words=None) -> object:
    with open(path, encoding="utf-8-sig") as fh:  # as the parent's static check read it
        source = fh.read()
    import types

    module = types.ModuleType("generated_parser")
    module.__file__ = path
    sys.modules["generated_parser"] = module  # dataclasses look their module up here
    exec(compile(source, path, "exec"), module.__dict__)
    if words is not None and callable(module.__dict__.get("read_pages")):
        module.read_pages = words  # the words read before the guard (see _read_ahead)
    parse = getattr(module, "parse", None)
    if not callable(parse):
        raise _NoParse("the module defines no parse(pdf_path) function")
    return parse(pdf_path)


class _NoParse(Exception):
    pass


def _refused(refused: list) -> dict:
    if not refused:
        return {}
    return {"kind": "refused", "violations": refused[:20]}


def _document_error(exc: BaseException) -> dict:
    """pdfminer's own failures (and pdfplumber's wrapper of them) mean a bad PDF, not a bug."""
    chain, seen = [], exc
    while seen is not None and len(chain) < 5:
        chain.append(seen)
        seen = seen.__cause__ or seen.__context__
    for e in chain:
        module = type(e).__module__ or ""
        if module.startswith(("pdfminer", "pdfplumber.utils.exceptions")):
            names = [type(x).__name__ for x in chain] + [type(a).__name__ for a in e.args]
            return {"kind": "document", "names": names, "message": str(e)[:500]}
    return {}


def _no_text(request: dict) -> dict:
    """Whether the PDF has no characters at all, checked only after a failure or no rows."""
    import pdfplumber

    try:
        with pdfplumber.open(request["pdf"], password=request.get("password") or "") as pdf:
            if any(page.chars for page in pdf.pages):
                return {}
            return {"kind": "no_text", "pages": len(pdf.pages)}
    except Exception:
        return {}


def _crash(exc: BaseException, path: str) -> dict:
    frames = [{"line": f.lineno, "function": f.name, "code": (f.line or "")[:200]}
              for f in traceback.extract_tb(exc.__traceback__) if f.filename == path]
    if isinstance(exc, SyntaxError) and exc.filename == path:
        frames.append({"line": exc.lineno or 0, "function": "<module>",
                       "code": (exc.text or "").strip()[:200]})
    name = "MissingParseFunction" if isinstance(exc, _NoParse) else type(exc).__name__
    return {"kind": "crash", "exception": name, "message": str(exc)[:2000], "frames": frames[-20:]}


def _add_password(password: str | None) -> None:
    """parse(pdf_path) takes no password, so pdfplumber.open gets it as its default."""
    if not password:
        return
    import pdfplumber

    original = pdfplumber.open

    def open_with_password(path_or_fp, *args, **kwargs):
        kwargs.setdefault("password", password)
        return original(path_or_fp, *args, **kwargs)

    pdfplumber.open = open_with_password


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            pass


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


if __name__ == "__main__":
    code = main()
    # Nothing is left to tidy up, and the parent waits for this exit: skipping the
    # interpreter's teardown of pandas saves it a tenth of a second.
    _flush()
    os._exit(code)
