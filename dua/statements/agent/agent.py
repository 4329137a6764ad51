"""The statement-parser agent (seed 001) on dua.graph: state use, seven nodes, three routes.

analyze → generate → save → execute → compare ⇄ refine → finalize. The PDF is read
once (in analyze); the writer searches on those cached words, and only its best
candidate is run for real through safe execution, which is handed the same words. A
failed node asks the Error Handler (dua.recovery, through ``recovery.py``) and the routes
follow its answer.
"""
from __future__ import annotations

import dataclasses
import os
import time

from ...errors import GeneratedCodeError, UsageError, VerificationError
from ...graph import END, START, Graph
from ...outputs import check_file, check_folder, check_not_an_input, end_stream, write_output
from ...recovery.node import NodeRecovery, new_run_id
from ...schemas import StatementState
from . import prompts, provenance, recovery



@dataclasses.dataclass
class AgentContext:
    """Services and caches for one run (never checkpointed): settings, pages, writer."""

    settings: object = None
    password: str | None = None
    timeout: float = 60.0
    read_budget: object = None  # dua.pdf.ReadBudget for reading the statement (None: default)
    out_path: str | None = None
    parsers_dir: str = "custom_parsers"
    pages: list = dataclasses.field(default_factory=list)
    apart: list = dataclasses.field(default_factory=list)  # words set apart, with reasons
    words: list | None = None  # the word reader's own pages, for the sandbox (None: it reads)
    analysis: object = None
    expected: object = None
    writer: object = None
    make_writer: object = None  # fn(context, state) -> Writer; default picks by settings
    llm_mode: str = "code"
    best: tuple = ()  # (distance, attempt, code, frame, result) of the best attempt so far
    recovery: object = None  # NodeRecovery: this run's consultations of the Error Handler
    on_progress: object = None  # fn(str): the handler's decisions, one line each
    render: object = None  # fn(frame, state, ctx) -> the output's text (None: the CSV)


# --- nodes -------------------------------------------------------------------------------


def prepare(state: StatementState, ctx: AgentContext):
    """Fill the context: pages read once, their analysis, the expected CSV, the writer.

    Raises:
        DocumentError, VerificationError (no transaction table), SchemaError
    """
    from ... import pdf  # lazy: pdfplumber loads only when a statement is parsed
    from ..learning import analysis, sample
    from ..verification import verify

    # Read in a child that the read budget stops, while pandas, which every run needs,
    # imports here: both take about a third of a second, and on two cores they overlap.
    reading = pdf.start_reading(state.pdf_path, ctx.password, budget=ctx.read_budget)
    try:
        verify.preload()
        # Not sooner: until now the child and pandas kept both cores busy. The sandbox's own
        # imports overlap the rest of the read and the analysis instead.
        _start_sandbox()
        doc = reading.document()
    finally:
        reading.cancel()
    pdf.require_text_layer(doc)
    (ctx.pages, ctx.apart), ctx.words = analysis.statement_pages(doc), reading.pages
    if state.expected_csv_path:
        ctx.expected = verify.load_expected(state.expected_csv_path)
    ctx.analysis = found = analysis.analyze_pages(ctx.pages, ctx.expected)
    if not found.settings:
        raise VerificationError(
            f"No transaction table found in {state.pdf_path}: "
            + sample.explain_no_table(ctx.pages), path=state.pdf_path,
            hint="Check that this is a bank statement with a transactions table.")
    ctx.writer = (ctx.make_writer or choose_writer)(ctx, state)
    if getattr(ctx.writer, "recovery", False) is None:  # an LLM writer made by make_writer
        ctx.writer.recovery = ctx.recovery
    return found


def analyze(state: StatementState, ctx: AgentContext) -> dict:
    """Read the PDF once, find its table layout, load the expected CSV."""
    found = prepare(state, ctx)
    return {"pdf_content": "\n".join(found.raw_sample_text)[:4000],
            "column_headers": found.column_headers, "sample_rows": found.sample_rows,
            "raw_sample_text": found.raw_sample_text, "writer": ctx.writer.name,
            "fallback_reason": getattr(ctx.writer, "fallback_reason", "")}


def generate(state: StatementState, ctx: AgentContext) -> dict:
    """The writer's first parser."""
    _ready(state, ctx)
    seen = len(ctx.recovery.records)
    return _draft_updates(state, ctx, ctx.writer.write(state), seen)


def save(state: StatementState, ctx: AgentContext) -> dict:
    """Write the draft atomically: ``{parsers_dir}/{bank}_parser.py``, or beside a parser
    that passed, which only a parser that passes replaces (see ``provenance``)."""
    path = state.parser_file_path or provenance.working_path(ctx.parsers_dir, state.target_bank)
    # no header yet: a crash's line numbers, fed back to the writer, must be its code's own
    write_output(path, state.generated_code)
    return {"parser_file_path": path}


def execute(state: StatementState, ctx: AgentContext) -> dict:
    """Run the saved parser for real through safe execution."""
    from ...sandbox import run_parser  # lazy: the sandbox loads only when a parser runs

    try:
        frame = run_parser(state.parser_file_path, state.pdf_path, timeout=ctx.timeout,
                           password=ctx.password, words=ctx.words)
    except GeneratedCodeError as exc:
        attempts = _note(state, outcome="execution_failed", detail=exc.message,
                         error=type(exc).__name__)
        updates = {"execution_success": False, "generated_df": None, "failure_type": "execution",
                   "errors": state.errors + [prompts.failure_detail(exc)]}
        updates.update(recovery.consult(state, ctx, exc, "execute", attempts))
        return updates
    return {"execution_success": True, "generated_df": frame, "rows": int(len(frame)),
            "recovery_step": ""}


def compare(state: StatementState, ctx: AgentContext) -> dict:
    """Check the frame against --expected, or by its own arithmetic without one."""
    from ..learning import keyspec
    from ..verification import verify

    _ready(state, ctx)
    settings = state.writer_settings or ctx.analysis.settings
    if ctx.expected is not None:
        result = verify.compare(state.generated_df, ctx.expected)
        keyspec.where(result, ctx.pages, settings)  # what the page prints where they differ
        verify.attach_accounting(result, ctx.pages, settings, ctx.apart)
    else:
        result = verify.intrinsic(state.generated_df, ctx.pages, settings, ctx.apart)
    failed = result["status"] == "failed"
    if not ctx.best or result["distance"] < ctx.best[0]:
        ctx.best = (result["distance"], len(state.attempts), state.generated_code,
                    state.generated_df, result)
    attempts = _note(state, outcome=result["status"], detail=result["summary"])
    updates = {"comparison_result": result, "failure_type": "comparison" if failed else "",
               "attempts": attempts}
    if failed:
        first = result["summary"].splitlines()[0] if result["summary"] else "no match"
        updates["errors"] = state.errors + [f"comparison: {first}"]
        exc = VerificationError(f"The parser's output is not verified: {first}", hint=(
            "Check that the expected CSV is this statement's transactions, in its column names."
            if ctx.expected is not None else None))
        updates.update(recovery.consult(state, ctx, exc, "compare", attempts))
    return updates


def refine(state: StatementState, ctx: AgentContext) -> dict:
    """A better parser, given the failure; an exhausted writer ends the retries."""
    _ready(state, ctx)
    seen = len(ctx.recovery.records)
    draft = ctx.writer.refine(state)
    if draft is None:  # the route ends the run: the same rows again would fail again
        return {"errors": state.errors + [f"{ctx.writer.name} writer has no better candidate"]}
    updates = _draft_updates(state, ctx, draft, seen)
    updates["retry_count"] = state.retry_count + 1
    return updates


def finalize(state: StatementState, ctx: AgentContext) -> dict:
    """Final status, and the output CSV when the parser produced a frame."""
    status = state.comparison_result.get("status") if state.execution_success else "failed"
    final = status if status in ("passed", "unverified") else "failed"
    updates: dict = {"final_status": final}
    if final == "failed" and not state.feedback:
        updates.update(recovery.conclude(state, ctx))
    frame = state.generated_df
    if final == "failed" and ctx.best and ctx.best[2] != state.generated_code:
        # Keep the best attempt, not the last one: its parser and its output.
        _, attempt, code, frame, result = ctx.best
        updates.update(generated_code=code, generated_df=frame, comparison_result=result,
                       rows=int(len(frame)), errors=state.errors + [
                           f"kept attempt {attempt}, the closest to passing"])
    code = updates.get("generated_code", state.generated_code)
    if state.parser_file_path and code:  # its provenance on top, where its verdict keeps it
        updates["parser_file_path"] = provenance.seal(
            state.parser_file_path, ctx.parsers_dir, state.target_bank, final, code,
            state.pdf_path, provenance.checks_of(
                updates.get("comparison_result", state.comparison_result)), state.writer)
    if frame is not None and (final != "failed" or len(frame)):
        out = provenance.result_path(ctx.out_path, ctx.parsers_dir, state.target_bank, final == "failed")
        write_output(out, ctx.render(frame, state, ctx) if ctx.render
                     else frame.to_csv(index=False))
        updates["output_csv_path"] = out
    if final == "failed":  # a pipe at --out gets its end (nothing), not a reader left waiting
        end_stream(ctx.out_path)
    return updates


# --- routes -------------------------------------------------------------------------------


def route_after_execute(state: StatementState) -> str:
    if state.execution_success:
        return "compare"
    # Seed 001 refines while retry_count < max_retries; now the handler must say so too.
    return "refine" if recovery.may_refine(state) else "finalize"


def route_after_compare(state: StatementState) -> str:
    if state.comparison_result.get("status") in ("passed", "skipped", "unverified"):
        return "finalize"
    return "refine" if recovery.may_refine(state) else "finalize"


def route_after_refine(state: StatementState) -> str:
    # A writer with nothing new ends the run: the same parser again would fail again.
    return "finalize" if recovery.exhausted(state) else "save"


def build_graph():
    """The compiled workflow; the wiring is the documentation."""
    g = Graph(StatementState)
    for name, fn in (("analyze", analyze), ("generate", generate), ("save", save),
                     ("execute", execute), ("compare", compare), ("refine", refine),
                     ("finalize", finalize)):
        g.add_node(name, fn)
    g.add_edge(START, "analyze").add_edge("analyze", "generate")
    g.add_edge("generate", "save").add_edge("save", "execute")
    g.add_conditional_edges("execute", route_after_execute, ["compare", "refine", "finalize"])
    g.add_conditional_edges("compare", route_after_compare, ["refine", "finalize"])
    g.add_conditional_edges("refine", route_after_refine, ["save", "finalize"])
    g.add_edge("finalize", END)
    return g.compile()


# --- helpers ------------------------------------------------------------------------------


def _ready(state: StatementState, ctx: AgentContext) -> None:
    if ctx.analysis is None:  # a resumed run: the cache is not in the checkpoint
        prepare(state, ctx)


def choose_writer(ctx: AgentContext, state: StatementState):
    """The built-in writer, or the LLM writer (with the built-in one as its fallback)."""
    from .writer import BuiltinWriter

    builtin = BuiltinWriter(ctx.pages, ctx.analysis, ctx.expected, apart=ctx.apart)
    settings = ctx.settings
    if settings is None or not getattr(settings, "uses_llm", False):
        return builtin
    try:
        from .llm_writer import LLMWriter
    except ImportError as exc:  # the LLM layer is not installed in this copy of dua
        builtin.fallback_reason = f"LLM writer unavailable ({exc}); using the built-in writer"
        return builtin
    return LLMWriter(settings, ctx.analysis, ctx.expected, fallback=builtin, mode=ctx.llm_mode,
                     recovery=ctx.recovery)


def _draft_updates(state: StatementState, ctx: AgentContext, draft, seen: int) -> dict:
    entry = {"attempt": len(state.attempts) + 1, "writer": getattr(ctx.writer, "active", None)
             or ctx.writer.name, "note": draft.note, "outcome": "pending"}
    decided = list(ctx.recovery.records[seen:])  # the writer's own consultations (LLM failures)
    return {"generated_code": draft.code, "writer_settings": draft.settings or {},
            "writer": entry["writer"],
            "llm_calls": state.llm_calls + draft.llm_calls, "tokens": state.tokens + draft.tokens,
            "attempts": recovery.with_records(state.attempts + [entry], decided),
            "recovery": state.recovery + decided, "execution_success": False,
            "fallback_reason": getattr(ctx.writer, "fallback_reason", "") or state.fallback_reason}


def _note(state: StatementState, **fields) -> list:
    attempts = [dict(a) for a in state.attempts]
    if attempts:
        attempts[-1].update(fields)
    return attempts


def run_agent(pdf_path: str, bank: str, *, expected: str | None = None, out: str | None = None,
              parsers_dir: str = "custom_parsers", settings=None, max_retries: int = 3,
              password: str | None = None, timeout: float = 60.0, on_event=None,
              checkpoint: str | None = None, make_writer=None, llm_mode: str = "code",
              on_progress=None, sleep=time.sleep, read_budget=None, render=None) -> StatementState:
    """Run the whole workflow and return the final state (``render``: see AgentContext).

    ``on_progress(line)`` hears the Error Handler's decisions; ``sleep`` waits its delays
    (tests pass a recorder); ``read_budget`` (a ``dua.pdf.ReadBudget``) bounds reading the PDF. A failure that ends the run carries the handler's feedback
    dict as ``exc.feedback``.

    Raises:
        DocumentError (bad PDF), VerificationError (no table), UsageError, DuaError
    """
    if max_retries < 0:
        raise UsageError(f"--max-retries must be 0 or more, got {max_retries}")
    check_run(timeout, out, parsers_dir, checkpoint, inputs=(pdf_path, expected))
    if checkpoint:  # the engine writes it beside itself, into a folder that must exist
        os.makedirs(os.path.dirname(os.path.abspath(checkpoint)), exist_ok=True)
    state = StatementState(pdf_path=pdf_path, target_bank=provenance.check_bank(bank),
                           expected_csv_path=expected or "", max_retries=max_retries,
                           run_id=new_run_id("statement"))
    ctx = _context(state, on_progress, sleep, settings=settings, password=password,
                   timeout=timeout, out_path=out, parsers_dir=parsers_dir,
                   make_writer=make_writer, llm_mode=llm_mode, read_budget=read_budget,
                   render=render)
    return recovery.invoke(build_graph(), state, ctx, on_event=on_event, checkpoint=checkpoint,
                           step_limit=_steps(max_retries))


def _start_sandbox() -> None:
    """Start the sandbox now: it imports pandas while the statement is analysed and its
    parser written, instead of after."""
    from ...sandbox.runner import default_sandbox  # lazy: the sandbox loads when a parser runs

    default_sandbox().start(wait=False)


def check_run(timeout: float, out: str | None, parsers_dir: str,
              checkpoint: str | None = None, inputs: tuple = ()) -> None:
    """Refuse, before the PDF is read, a run that could only fail at its end.

    Raises:
        UsageError
    """
    from ...sandbox import MAX_TIMEOUT, valid_timeout  # lazy: the sandbox loads when a parser runs

    if not valid_timeout(timeout):
        raise UsageError(f"--timeout must be seconds in (0, {MAX_TIMEOUT:g}], got {timeout}")
    check_folder(parsers_dir, "--parsers-dir")
    for path, flag in ((out, "--out"), (checkpoint, "--checkpoint")):
        if path:
            check_file(path, flag)
            check_not_an_input(path, flag, inputs)


def _steps(max_retries: int) -> int:
    return 6 + 4 * (max_retries + 1)


def _context(state: StatementState, on_progress, sleep, **fields) -> AgentContext:
    run = NodeRecovery(recovery.AGENT_ID, state.run_id or new_run_id("statement"), sleep=sleep,
                       on_progress=on_progress)
    return AgentContext(recovery=run, on_progress=on_progress, **fields)


def resume_agent(checkpoint: str, *, out: str | None = None, parsers_dir: str = "custom_parsers",
                 settings=None, password: str | None = None, timeout: float = 60.0,
                 on_event=None, make_writer=None, llm_mode: str = "code", on_progress=None,
                 sleep=time.sleep, read_budget=None, render=None) -> StatementState:
    """Continue a run from its checkpoint file (the PDF is read again; the frame is re-made).

    Raises:
        UsageError: no such checkpoint file. SchemaError: the checkpoint is not a statement
        agent's. Same as ``run_agent`` otherwise.
    """
    import json

    from ...errors import SchemaError

    if not os.path.isfile(checkpoint):
        raise UsageError(f"No checkpoint file at {checkpoint}",
                         hint="Pass --resume the --checkpoint FILE of the interrupted run.")
    try:
        with open(checkpoint, encoding="utf-8") as fh:
            saved = json.load(fh)
        state, nxt, step = StatementState.from_dict(saved["state"]), saved["next"], saved["step"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise SchemaError([f"{checkpoint}: not a statement agent checkpoint ({exc})"]) from exc
    if nxt == END:
        return state
    check_run(timeout, out, parsers_dir, inputs=(state.pdf_path, state.expected_csv_path))
    if nxt in ("compare", "finalize") and state.execution_success:
        nxt = "execute"  # the DataFrame is not checkpointed: run the saved parser again
    ctx = _context(state, on_progress, sleep, settings=settings, password=password,
                   timeout=timeout, out_path=out, parsers_dir=parsers_dir,
                   make_writer=make_writer, llm_mode=llm_mode, read_budget=read_budget,
                   render=render)
    _start_sandbox()
    return recovery.invoke(build_graph(), state, ctx, on_event=on_event, checkpoint=checkpoint,
                           start_at=nxt, step=step, step_limit=step + _steps(state.max_retries))
