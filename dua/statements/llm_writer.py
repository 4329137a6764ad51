"""The LLM parser writer, in two modes, with the built-in writer as its fallback.

``code`` mode asks for a whole parser module (extracted from the answer and
syntax-checked before it is saved); ``settings`` mode asks for the built-in engine's
settings as JSON and lets the engine emit the code, which small local models manage.
A failed LLM call goes to the Error Handler, whose answer is followed: retry after its
delay, fall back to the built-in writer, or stop the run with its feedback attached.
"""
from __future__ import annotations

import ast
import copy
import re

from ..errors import (DuaError, ResponseError, StructuredOutputError, TransportError,
                      UnusableAnswerError, UsageError, excerpt)
from . import prompts
from .writer import Draft, Writer, align, emit_source

MODES = ("code", "settings")
_PY_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S | re.I)
SETTINGS_SCHEMA = {
    "columns": [{"name": str, "x0": float, "kind": ("date", "text", "amount")}],
    "date_column": int,
    "date_pattern": str,
    "require_header": bool,
    "skip_patterns": [str],
    "parens_negative": bool,
    "trailing_minus_negative": bool,
    "dr_negative": bool,
}


def extract_code(text: str) -> tuple:
    """``(code, None)`` or ``(None, problem)``: the module in the answer, syntax-checked."""
    blocks = _PY_BLOCK.findall(text or "")
    if blocks:
        code = max(blocks, key=lambda b: ("def parse" in b, len(b)))
    else:
        from ..llm._fences import strip_fences  # lazy: only when a model answered

        code, fences = strip_fences(text or "")
        if not fences and not re.search(r"^\s*(def|import|from)\s", code, re.M):
            code = ""
    if not code.strip():
        return None, "The answer holds no ```python code block with a parse(pdf_path) function."
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        return None, f"Your code has a syntax error at line {exc.lineno}: {exc.msg}."
    if not any(isinstance(n, ast.FunctionDef) and n.name == "parse" for n in tree.body):
        return None, "Your module does not define parse(pdf_path)."
    return code.strip() + "\n", None


def settings_schema():
    """SETTINGS_SCHEMA as a dua.llm schema, with the column kind as an enum."""
    from ..llm.schema import Object, String, as_schema  # lazy: the LLM layer loads on demand

    spec = copy.deepcopy(SETTINGS_SCHEMA)
    spec["columns"] = [Object({"name": str, "x0": float,
                               "kind": String(enum=["date", "text", "amount"])})]
    return as_schema(spec)


class LLMWriter(Writer):
    """Writes parsers with an LLM; falls back to ``fallback`` (the built-in writer)."""

    name = "llm"

    def __init__(self, settings, found, expected, fallback, *, mode: str = "code",
                 provider=None, answer_attempts: int = 2, recovery=None):
        if mode not in MODES:
            raise UsageError(f"--llm-mode must be one of {', '.join(MODES)}, got {mode!r}")
        if provider is None:
            from ..llm import get_provider  # lazy: keeps import dua fast
            from ..llm.transport import RetryPolicy

            # One transport retry per call: the Error Handler retries the call after that.
            provider = get_provider(settings, retry=RetryPolicy(max_retries=1))
        self.recovery = recovery  # NodeRecovery of the run; the agent sets it when None
        self.provider, self.found, self.expected = provider, found, expected
        self.fallback, self.mode, self.answer_attempts = fallback, mode, answer_attempts
        self.active, self.fallback_reason = f"llm-{mode}", ""
        self.history: list = []
        self.current: dict = {}

    # --- the Writer interface ---------------------------------------------------------

    def write(self, state) -> Draft:
        return self._guarded(state, lambda: self._first(state), "generate")

    def refine(self, state) -> Draft | None:
        if self.active == "builtin":
            return self.fallback.refine(state)
        return self._guarded(state, lambda: self._again(state), "refine")

    # --- both modes -----------------------------------------------------------------------

    def _guarded(self, state, ask, node: str) -> Draft:
        before = self.provider.usage
        while True:
            try:
                draft = ask()
                break
            except (TransportError, ResponseError, StructuredOutputError) as exc:
                step = self._follow(exc, node)
                if step == "retry":  # the handler has waited its delay; its budget bounds this
                    continue
                draft = self._fall_back(state, exc)
                break
        used = self.provider.usage
        draft.llm_calls += used.calls - before.calls
        draft.tokens += (used.input_tokens + used.output_tokens
                         - before.input_tokens - before.output_tokens)
        return draft

    def _follow(self, exc: DuaError, node: str) -> str:
        """The Error Handler's step for a failed LLM call; ask and stop raise ``exc``.

        Raises:
            DuaError: ``exc`` itself, with the handler's feedback as ``exc.feedback``.
        """
        if self.recovery is None:
            from ..node_recovery import NodeRecovery
            from .agent import AGENT_ID

            self.recovery = NodeRecovery(AGENT_ID)  # a writer used on its own, outside a run
        step, _ = self.recovery.decide(exc, f"{node}_llm", mode=self.mode)
        if step in ("ask", "stop"):
            exc.feedback = self.recovery.last_feedback
            raise exc
        return step  # retry; fallback, refine and resume all mean: the built-in writer now

    def _fall_back(self, state, exc: DuaError) -> Draft:
        self.active = "builtin"
        message = exc.message if isinstance(exc, DuaError) else str(exc)
        self.fallback_reason = (f"the LLM writer gave up ({type(exc).__name__}: "
                                f"{excerpt(message, 200)}); fell back to the built-in writer")
        draft = self.fallback.write(state)
        draft.note = f"{self.fallback_reason}; {draft.note}"
        return draft

    def _first(self, state) -> Draft:
        if self.mode == "settings":
            self.current = copy.deepcopy(self.found.settings)
            return self._ask_settings(prompts.settings_prompt(self.found, self.expected,
                                                              self.current), state)
        return self._ask_code(prompts.first_code_prompt(self.found, self.expected))

    def _again(self, state) -> Draft:
        if self.mode == "settings":
            return self._ask_settings(prompts.settings_prompt(self.found, self.expected,
                                                              self.current, state), state)
        return self._ask_code(prompts.refine_code_prompt(self.history, state))

    # --- code mode -----------------------------------------------------------------------

    def _ask_code(self, messages: list) -> Draft:
        problem = ""
        for _ in range(self.answer_attempts):
            response = self.provider.complete(messages, max_tokens=4096, temperature=0.0)
            code, problem = extract_code(response.text)
            messages = messages + [{"role": "assistant", "content": response.text or ""}]
            if problem is None:
                self.history = messages
                return Draft(code, None, "LLM code")
            messages.append({"role": "user", "content": f"{problem} Answer with the whole "
                             "module again in one ```python block."})
        raise UnusableAnswerError(f"no usable parser after {self.answer_attempts} answers: {problem}")

    # --- settings mode -------------------------------------------------------------------

    def _ask_settings(self, messages: list, state) -> Draft:
        from ..llm.structured import (PromptedStrategy, ProviderStrategy,  # lazy
                                      complete_structured)

        schema = settings_schema()
        if getattr(self.provider, "name", "") == "openai":
            strategy = ProviderStrategy(schema, name="parser_settings", mode="json_object")
        else:
            strategy = PromptedStrategy(schema, name="parser_settings",
                                        max_attempts=self.answer_attempts)
        answer = complete_structured(self.provider, messages, strategy).data
        settings = self._merge(answer)
        result = self.fallback.evaluate(settings)
        self.current = settings
        bank = getattr(state, "target_bank", "") or "bank"
        return Draft(emit_source(settings, bank), settings,
                     f"LLM settings, in-process check {result['status']}", in_process=result)

    def _merge(self, answer: dict) -> dict:
        """The model's answer on top of the analysis (tolerances and header stay measured)."""
        s = copy.deepcopy(self.found.settings)
        cols = [{"name": c["name"], "x0": float(c["x0"]), "kind": c["kind"]}
                for c in answer["columns"]]
        problems = []
        if not cols or not 0 <= answer["date_column"] < len(cols):
            problems.append(f"date_column {answer['date_column']} is not a column index")
        if any(a["x0"] > b["x0"] for a, b in zip(cols, cols[1:])):
            problems.append("columns must be listed left to right (ascending x0)")
        for pattern in [answer["date_pattern"]] + list(answer["skip_patterns"]):
            try:
                re.compile(pattern)
            except re.error as exc:
                problems.append(f"regex {pattern!r} does not compile: {exc}")
        if problems:
            from ..errors import StructuredOutputValidationError

            raise StructuredOutputValidationError("parser_settings", "; ".join(problems))
        cols[0]["x0"] = 0.0
        s.update(columns=cols, date_column=answer["date_column"],
                 date_pattern=answer["date_pattern"], require_header=answer["require_header"],
                 skip_patterns=list(answer["skip_patterns"]),
                 parens_negative=answer["parens_negative"],
                 trailing_minus_negative=answer["trailing_minus_negative"],
                 drcr_signs={"dr": -1 if answer["dr_negative"] else 1, "cr": 1})
        return align(s, self.expected) if self.expected is not None else s
