"""Built-in vs LLM-assisted against a real model server; never part of CI.

``python -m tests.bench llm_real [--base-url URL --model NAME | --start MODEL --port N]
[--documents] [--corpus real|typeset|all] [--only NAME…] [--budget S] [--timeout S]
[--server-log FILE] [--stress]``

Every fixture statement, supervised (a.pdf with a.csv) and unsupervised (b.pdf), runs
through the built-in writer and through the LLM writer in settings mode; every
real-producer document runs through the rules and through the rules checked by the LLM
(macro-F1 and heading-level accuracy against its truth). One table: result, the LLM
calls and tokens dua reported, the requests and usage tokens the server itself answered
(counted by a proxy on 127.0.0.1 that forwards to the server), identical requests sent
more than once, seconds, and a flag: ``WORSE`` when the LLM result is below the built-in
one, ``COUNT`` when dua's count differs from the server's, ``REPEAT`` when a request was
sent twice. ``--server-log`` (the llama_cpp.server log, e.g. /tmp/llm/run/server-8081.log)
adds the server's own count of chat requests and tokens for the whole run. ``--stress``
breaks each statement's analysis (a wrong date pattern, the built-in search off) so that
the model is asked and its patch measured. ``--documents`` runs only the report fixtures
(``--corpus``: real, typeset or all, the default), the issue-32 check that the LLM never
makes a document worse. Without ``--base-url`` it starts ``--start`` (qwen15) on ``--port``
(8081) with shared/tools/llm-server.sh (tests/bench/local_llm.py), reads that server's log,
and stops it at the end; where it cannot, it prints why it skipped and measures nothing.
"""
from __future__ import annotations

import glob
import hashlib
import json
import os
import re
import sys
import threading
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_CHAT = "/chat/completions"


def _options(argv: list) -> dict:
    out = {"base_url": None, "model": None, "only": [], "budget": 300.0, "timeout": 300.0,
           "server_log": None, "stress": False, "documents": False, "corpus": "all",
           "start": "qwen15", "port": 8081}
    i = 0
    while i < len(argv):
        flag = argv[i]
        value = argv[i + 1] if i + 1 < len(argv) else None
        if flag in ("--base-url", "--model", "--budget", "--timeout", "--server-log", "--corpus",
                    "--start", "--port") and value is not None:
            key = flag[2:].replace("-", "_")
            out[key] = float(value) if key in ("budget", "timeout") else \
                int(value) if key == "port" else value
            i += 2
            continue
        if flag in ("--stress", "--documents"):
            out[flag[2:]] = True
        if flag == "--only" and value is not None:
            out["only"].append(value)
            i += 2
            continue
        i += 1
    return out


class CountingProxy:
    """Forwards every request to the real server and counts what the server answered:
    chat requests, the usage tokens in its answers, and request bodies seen before."""

    def __init__(self, upstream: str):
        import http.server  # lazy: only the bench's own process runs this

        self.upstream = upstream.rstrip("/")
        self.requests = self.tokens = self.repeats = 0
        self.bodies: set = set()
        self.lock = threading.Lock()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.0"  # one request per connection; close ends the body

            def log_message(self, *args):
                pass

            def do_GET(self):
                proxy.forward(self, None)

            def do_POST(self):
                size = int(self.headers.get("Content-Length") or 0)
                proxy.forward(self, self.rfile.read(size))

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        prefix = "/" + self.upstream.split("://", 1)[1].split("/", 1)[1] \
            if self.upstream.count("/") > 2 else ""
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{prefix}"

    def forward(self, handler, body: bytes | None) -> None:
        import urllib.error
        import urllib.request  # lazy: as above

        root = self.upstream.split("://", 1)[1].split("/", 1)[0]
        url = self.upstream.split("://", 1)[0] + "://" + root + handler.path
        chat = body is not None and handler.path.endswith(_CHAT)
        request = urllib.request.Request(url, data=body, method=handler.command, headers={
            k: v for k, v in handler.headers.items() if k.lower() in ("content-type", "accept",
                                                                      "authorization")})
        try:
            with urllib.request.urlopen(request, timeout=3600) as resp:
                status, headers, data = resp.status, resp.headers, resp.read()
        except urllib.error.HTTPError as exc:
            status, headers, data = exc.code, exc.headers, exc.read()
        except OSError as exc:  # the server is not there: nothing it answered, nothing counted
            status, headers = 502, {}
            data = json.dumps({"error": {"message": f"proxy: upstream unreachable ({exc})"}}
                              ).encode()
            chat = False
        if chat:
            # A repeat is a body the server already answered: a retry after a failure is not.
            digest = hashlib.sha256(body).hexdigest()
            with self.lock:
                self.requests += 1
                self.tokens += _usage_tokens(data)
                self.repeats += digest in self.bodies
                if status == 200:
                    self.bodies.add(digest)
        handler.send_response(status)
        handler.send_header("Content-Type", headers.get("Content-Type", "application/json"))
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)

    def snapshot(self) -> tuple:
        with self.lock:
            return self.requests, self.tokens, self.repeats

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _usage_tokens(data: bytes) -> int:
    """prompt + completion tokens the server reported, in a JSON answer or an SSE stream."""
    text = data.decode("utf-8", "replace")
    payloads = [text] if not text.lstrip().startswith("data:") else [
        line[5:].strip() for line in text.splitlines() if line.startswith("data:")]
    total = 0
    for payload in payloads:
        try:
            usage = json.loads(payload).get("usage") or {}
        except (ValueError, AttributeError):
            continue
        total += int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)
    return total


def _provider(opts: dict):
    from dua.config import Settings
    from dua.llm import get_provider
    from dua.llm.transport import RetryPolicy

    settings = Settings(provider="openai", base_url=opts["proxy"].url, model=opts["model"],
                        timeout=opts["timeout"])
    return settings, get_provider(settings, retry=RetryPolicy(max_retries=1))


def _statement(folder: str, supervised: bool, opts: dict) -> list:
    """Two rows (builtin, llm) for one statement."""
    from dua import pdf
    from dua.statements.learning import analysis
    from dua.statements.verification import verify
    from dua.statements.agent import writer
    from dua.statements.agent.llm_writer import LLMWriter

    name = os.path.basename(folder) + (" (a, --expected)" if supervised else " (b)")
    name += " stress" if opts["stress"] else ""
    path = os.path.join(folder, "a.pdf" if supervised else "b.pdf")
    pages = analysis.pages_from_document(pdf.read_document(path))
    expected = verify.load_expected(os.path.join(folder, "a.csv")) if supervised else None
    truth = None if supervised else verify.load_expected(os.path.join(folder, "b.csv"))
    rows = []
    for mode in ("builtin", "llm"):
        started, calls, tokens = time.perf_counter(), 0, 0
        before = opts["proxy"].snapshot()
        found, *search = _stressed(analysis.analyze_pages(pages, expected), opts["stress"])
        try:
            builtin = writer.BuiltinWriter(pages, found, expected, *search)
            if mode == "builtin":
                draft = builtin.write()
            else:
                settings, provider = _provider(opts)
                w = LLMWriter(settings, found, expected, builtin, mode="settings",
                              provider=provider, budget=opts["budget"])
                draft = w.write(None)
                calls, tokens = draft.llm_calls, draft.tokens
            result = _outcome(draft, pages, truth)
        except LookupError:
            result = "no table"
        rows.append([name, mode, result, calls, tokens, *_served(opts, before),
                     time.perf_counter() - started])
    return rows


def _stressed(found, stress: bool) -> tuple:
    """``(found[, search budget])`` for the writer; with --stress, the analysis' date
    pattern is wrong, nothing was learned from the answer key and the built-in search is
    off, so the built-in result fails and the model's patch is what can fix it."""
    if not stress:
        return (found,)
    import copy

    found = copy.copy(found)
    found.settings = dict(found.settings, date_pattern=r"\d{4}-\d{2}-\d{2}")
    found.learned = None
    return found, 0


def _outcome(draft, pages: list, truth) -> str:
    from dua.statements.table import dataframe

    status = draft.in_process["status"]
    if truth is None:
        return status
    exact = dataframe.build_frame(pages, draft.settings).equals(truth)
    return f"{status}, {'exact' if exact else 'not exact'}"


def _served(opts: dict, before: tuple) -> list:
    """The server's requests, usage tokens and repeated requests since ``before``."""
    return [a - b for a, b in zip(opts["proxy"].snapshot(), before)]


def _document(pdf_path: str, truth: dict, opts: dict) -> list:
    from dua.documents.pipeline import extract
    from tests.documents_score import score_document, truth_words

    words, rows = truth_words(pdf_path), []
    for mode in ("rules", "llm"):
        started, before = time.perf_counter(), opts["proxy"].snapshot()
        provider = _provider(opts)[1] if mode == "llm" else None
        result = extract(pdf_path, provider=provider, llm_budget=opts["budget"])
        figures = score_document(truth, words, result["elements"]).figures()
        stats = result["stats"]
        result_text = (f"macro-F1 {figures['macro_f1']:.3f} "
                       f"lv {figures['heading_level_accuracy']:.2f}")
        rows.append([truth["name"] + " (document)", mode, result_text,
                     stats.get("llm_calls", 0), stats.get("tokens", 0), *_served(opts, before),
                     time.perf_counter() - started])
        if mode == "llm" and stats.get("llm_asked_blocks"):
            opts.setdefault("answers", []).append(f"{truth['name']}: {_answers(stats)}")
    return rows


def _answers(stats: dict) -> str:
    """What became of the model's answers: how the LLM did or did not change the result."""
    said = [(k, stats.get(k, 0)) for k in ("llm_asked_blocks", "llm_reasked", "llm_mapped",
                                           "llm_changed_blocks", "llm_refused", "llm_kept_rules")]
    text = ", ".join(f"{k[4:].replace('_blocks', '')} {v}" for k, v in said)
    return text + (f", errors {stats['llm_errors']}" if stats.get("llm_errors") else "")


def _flags(builtin: list, llm: list) -> list:
    """What is wrong with the LLM row, judged against the built-in row."""
    flags = []
    if _rank(llm[2]) < _rank(builtin[2]):
        flags.append("WORSE")
    if (llm[3], llm[4]) != (llm[5], llm[6]):
        flags.append("COUNT")
    if llm[7]:
        flags.append("REPEAT")
    return flags


def _rank(result: str) -> tuple:
    """Orders results: macro-F1 then heading levels, or passed/exact over the rest."""
    if result.startswith("macro-F1"):
        parts = result.split()
        return float(parts[1]), float(parts[3])
    return ("passed" in result) + ("not exact" not in result and "exact" in result), 0.0


class _Row:
    """One table line, printed by the bench runner."""

    def __init__(self, cells: list, flags: list = ()):
        self.cells, self.flags = cells, list(flags)

    def line(self) -> str:
        name, mode, result, calls, tokens, s_calls, s_tokens, repeats, seconds = self.cells
        seconds = f"{seconds:.1f}" if isinstance(seconds, float) else seconds
        return (f"{name:36s} {mode:7s} {result:26s} {calls:>5} {tokens:>7} {s_calls:>6} "
                f"{s_tokens:>7} {repeats:>4} {seconds:>7}  {' '.join(self.flags)}").rstrip()


class _Note(_Row):
    def line(self) -> str:
        return self.cells[0]


def _pairs(folders: list, docs: list, opts: dict):
    for folder in [] if opts["documents"] else folders:
        for supervised in (True, False):
            yield _statement(folder, supervised, opts)
    for pdf_path, truth in docs:
        yield _document(pdf_path, truth, opts)


_PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit")
_EVALUATED = re.compile(r"llama_perf_context_print: +(?:prompt eval|eval) time = .*/ +(\d+) "
                        r"(?:tokens|runs)")


def _log_size(path: str | None) -> int | None:
    return os.path.getsize(path) if path and os.path.exists(path) else None


def _log_counts(path: str, start: int) -> tuple:
    """The llama_cpp.server log's own count since byte ``start``: chat requests (uvicorn's
    access lines) and tokens (prompt tokens it evaluated + those it reused from its prefix
    cache + tokens it generated)."""
    with open(path, encoding="utf-8", errors="replace") as fh:
        fh.seek(start)
        text = fh.read()
    requests = sum(1 for line in text.splitlines() if "POST " in line and _CHAT in line)
    tokens = sum(int(n) for n in _PREFIX_HIT.findall(text) + _EVALUATED.findall(text))
    return requests, tokens


def _unreachable(base_url: str) -> str:
    """Why the server at ``base_url`` does not answer GET /models, or ''."""
    import urllib.request  # lazy: as above

    try:
        with urllib.request.urlopen(base_url.rstrip("/") + "/models", timeout=30) as resp:
            resp.read()
        return ""
    except OSError as exc:  # URLError and HTTPError included
        return str(exc)


def run() -> list:
    opts = _options(sys.argv[1:])
    server = None
    if not opts["base_url"]:
        from tests.bench.local_llm import LocalServer

        server = LocalServer(opts["start"], opts["port"])
        why = server.start()
        if why:
            print(f"   skipped: {why}")
            return []
        opts["base_url"], opts["model"] = server.base_url, server.model
        opts["server_log"] = opts["server_log"] or server.log
    try:
        return _measure(opts)
    finally:
        if server is not None:
            server.stop()


def _measure(opts: dict) -> list:
    if not opts["model"]:
        print("   skipped: --base-url needs --model NAME (the served model's name)")
        return []
    down = _unreachable(opts["base_url"])
    if down:
        print(f"   skipped: no server answers at {opts['base_url']} ({down})")
        return []
    from tests.documents_score import CORPORA, corpus

    folders = sorted(os.path.dirname(p) for p in
                     glob.glob(os.path.join(REPO, "fixtures", "statements", "*", "b.pdf")))
    roots = list(CORPORA) if opts["corpus"] == "all" else [opts["corpus"]]
    docs = [d for name in roots for d in corpus(None, CORPORA[name])]
    if opts["only"]:
        folders = [f for f in folders if any(o in f for o in opts["only"])]
        docs = [d for d in docs if any(o in d[0] for o in opts["only"])]
    opts["proxy"] = CountingProxy(opts["base_url"])
    logged = _log_size(opts["server_log"])
    rows = [_Row(["what", "engine", "result", "calls", "tokens", "server", "s.tok", "rep",
                  "seconds"], ["flags"])]
    try:
        for builtin, llm in _pairs(folders, docs, opts):
            rows += [_Row(builtin), _Row(llm, _flags(builtin, llm))]
            print(rows[-2].line() + "\n" + rows[-1].line(), file=sys.stderr, flush=True)
    finally:
        opts["proxy"].close()
    total = opts["proxy"].snapshot()
    reported = (sum(r.cells[3] for r in rows[1:]), sum(r.cells[4] for r in rows[1:]))
    rows.append(_Note([f"total: dua reported {reported[0]} calls / {reported[1]} tokens; the "
                       f"server answered {total[0]} requests / {total[1]} usage tokens; "
                       f"identical requests sent again: {total[2]}"]))
    if logged is not None:
        requests, tokens = _log_counts(opts["server_log"], logged)
        rows.append(_Note([f"server log {opts['server_log']}: {requests} chat requests / "
                           f"{tokens} tokens during this run"]))
    rows += [_Note([f"answers {line}"]) for line in opts.get("answers", [])]
    worse = [r.cells[0] for r in rows if "WORSE" in r.flags]
    rows.append(_Note([f"LLM worse than built-in: {', '.join(worse) or 'none'}"]))
    return rows
