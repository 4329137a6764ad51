"""The LLM parser writer, in two modes, with the built-in writer as its fallback.

``settings`` mode never lets the model make things worse: the built-in writer searches
first; only when its best candidate is not verified is the model asked for a *patch* (the
settings keys to change), which is applied to the built-in start, searched from, and
ranked with every built-in candidate by the same verification, so the best one wins.
``code`` mode asks for a whole parser module (extracted from the answer and syntax-checked
before it is saved). Every request goes through one ``dua.llm.session.Session``: a total
deadline, never the same request twice, every HTTP request and token counted. A failed LLM
call goes to the Error Handler, whose answer is followed: retry, fall back, or stop.
"""
from __future__ import annotations

import ast
import copy
import re

from ...errors import (DuaError, LLMBudgetSpentError, RepeatedRequestError, ResponseError,
                       StructuredOutputError, TransportError, UnusableAnswerError, UsageError,
                       excerpt)
from . import prompts
from .recovery import AGENT_ID
from .writer import Draft, Writer, _key, align

MODES = ("code", "settings")
_PY_BLOCK = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S | re.I)
CODE_MAX_TOKENS = 4096
PATCH_MAX_TOKENS = 600  # a patch is a handful of keys; a cap keeps a rambling model short
_ENDS_PATH = (RepeatedRequestError, LLMBudgetSpentError)  # nothing new to gain from the LLM


def extract_code(text: str) -> tuple:
    """``(code, None)`` or ``(None, problem)``: the module in the answer, syntax-checked."""
    blocks = _PY_BLOCK.findall(text or "")
    if blocks:
        code = max(blocks, key=lambda b: ("def parse" in b, len(b)))
    else:
        from ...llm._fences import strip_fences  # lazy: only when a model answered

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


def patch_schema():
    """The settings patch as a dua.llm schema: every key optional, enums where the engine has them."""
    from ...llm.schema import String, as_schema  # lazy: the LLM layer loads on demand

    return as_schema({
        "date_pattern?": str, "decimal?": String(enum=[".", ","]),
        "columns?": [{"name": str, "x0": float,
                      "kind": String(enum=["date", "text", "amount"])}],
        "date_column?": int, "require_header?": bool, "header_once?": bool,
        "skip_patterns_add?": [str], "parens_negative?": bool, "trailing_minus_negative?": bool,
        "dr_negative?": bool, "cr_negative?": bool, "negative_columns?": [str],
        "anchor?": String(enum=["date", "amount"]),
        "continuation?": String(enum=["nearest", "below", "above"]),
    })


class LLMWriter(Writer):
    """Writes parsers with an LLM; falls back to ``fallback`` (the built-in writer)."""

    name = "llm"

    def __init__(self, settings, found, expected, fallback, *, mode: str = "code",
                 provider=None, answer_attempts: int = 2, recovery=None,
                 budget: float | None = None):
        from ...llm.session import Session  # lazy: the LLM layer loads on demand

        if mode not in MODES:
            raise UsageError(f"--llm-mode must be one of {', '.join(MODES)}, got {mode!r}")
        if provider is None:
            from ...llm import get_provider  # lazy: keeps import dua fast
            from ...llm.transport import RetryPolicy

            # One transport retry per call: the Error Handler retries the call after that.
            provider = get_provider(settings, retry=RetryPolicy(max_retries=1))
        if budget is None:
            from ...llm.session import run_budget

            budget = run_budget(settings)
        self.recovery = recovery  # NodeRecovery of the run; the agent sets it when None
        self.provider = Session(provider, budget)
        self.found, self.expected = found, expected
        self.fallback, self.mode, self.answer_attempts = fallback, mode, answer_attempts
        self.active, self.fallback_reason = f"llm-{mode}", ""
        self.ended = ""  # why the LLM path ended early (repeat, budget); "" while it runs
        self.history: list = []
        self.codes: list = []  # every parser module the model answered, in order
        self.patches: list = []  # every settings patch the model answered, in order
        self.problems: list = []  # what was wrong with the last patch, told to the next ask
        self.narrowed = False  # the one narrower question (a date regex) was asked

    # --- the Writer interface ---------------------------------------------------------

    def write(self, state) -> Draft:
        if self.mode == "settings":
            return self._settings_write(state)
        return self._guarded(state, lambda: self._ask_code(
            prompts.first_code_prompt(self.found, self.expected, self.fallback.pages)),
            "generate", self.fallback.write)

    def refine(self, state) -> Draft | None:
        if self.active == "builtin":
            return self.fallback.refine(state)
        if self.mode == "settings":
            return self._settings_refine(state)
        failure = prompts.failure_text(state, self.fallback.pages, self._last_settings(state))
        return self._guarded(state, lambda: self._ask_code(
            prompts.refine_code_prompt(self.history, failure)), "refine", self.fallback.write)

    # --- both modes -----------------------------------------------------------------------

    def _guarded(self, state, ask, node: str, fallback) -> Draft:
        before = self.provider.usage
        while True:
            try:
                draft = ask()
                break
            except _ENDS_PATH as exc:  # no request was sent: nothing for the handler to judge
                draft = self._fall_back(state, exc, fallback)
                break
            except (TransportError, ResponseError, StructuredOutputError) as exc:
                step = self._follow(exc, node)
                if step == "retry":  # the handler has waited its delay; its budget bounds this
                    continue
                draft = self._fall_back(state, exc, fallback)
                break
        if draft is None:  # nothing better to offer (a refine)
            return None
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
            from ...recovery.node import NodeRecovery

            self.recovery = NodeRecovery(AGENT_ID)  # a writer used on its own, outside a run
        step, _ = self.recovery.decide(exc, f"{node}_llm", mode=self.mode)
        if step in ("ask", "stop"):
            exc.feedback = self.recovery.last_feedback
            raise exc
        return step  # retry; fallback, refine and resume all mean: the built-in writer now

    def _fall_back(self, state, exc: DuaError, fallback) -> Draft:
        self.active = "builtin"
        message = exc.message if isinstance(exc, DuaError) else str(exc)
        self.fallback_reason = (f"the LLM writer gave up ({type(exc).__name__}: "
                                f"{excerpt(message, 200)}); fell back to the built-in writer")
        draft = fallback(state)
        if draft is not None:
            draft.note = f"{self.fallback_reason}; {draft.note}"
        return draft

    def _last_settings(self, state) -> dict:
        return getattr(state, "writer_settings", None) or self.found.settings

    # --- code mode -----------------------------------------------------------------------

    def _ask_code(self, messages: list) -> Draft:
        problem = ""
        for _ in range(self.answer_attempts):
            response = self.provider.complete(messages, max_tokens=CODE_MAX_TOKENS,
                                              temperature=0.0)
            code, problem = extract_code(response.text)
            messages = messages + [{"role": "assistant", "content": response.text or ""}]
            if problem is None and code in self.codes:
                # Temperature 0: asking again would only repeat it. This path is done.
                raise RepeatedRequestError("the model answered with a parser it already gave, "
                                           "which failed")
            if problem is None:
                self.codes.append(code)
                self.history = messages
                return Draft(code, None, "LLM code")
            messages.append({"role": "user", "content": f"{problem} Answer with the whole "
                             "module again in one ```python block."})
        raise UnusableAnswerError(f"no usable parser after {self.answer_attempts} answers: {problem}")

    # --- settings mode -------------------------------------------------------------------

    def _settings_write(self, state) -> Draft:
        builtin = self.fallback.write(state)
        if builtin.in_process.get("status") == "passed":
            builtin.note = f"built-in candidate verified, the LLM was not asked; {builtin.note}"
            return builtin
        self.start = self.found.learned or self.found.settings
        if self.expected is not None and self.start is not self.found.learned:
            self.start = align(self.start, self.expected)
        self.fallback.evaluate(self.start)
        return self._guarded(state, lambda: self._patch_round(state, self.start), "generate",
                             lambda s: self._best_draft(s, builtin))

    def _settings_refine(self, state) -> Draft | None:
        if self.ended:
            return self.fallback.refine(state)
        base = self.fallback._best()[1]
        return self._guarded(state, lambda: self._patch_round(state, base, state), "refine",
                             self.fallback.refine)

    def _patch_round(self, state, base: dict, failed_run=None) -> Draft:
        """Ask for a patch of ``base``, search from it, and emit the best verified candidate."""
        result = self.fallback.evaluate(base)
        cause = prompts.diagnose(self.fallback.pages, base, result)
        if failed_run is not None and not failed_run.execution_success:
            cause = prompts.failure_text(failed_run) + "\n" + cause
        before = set(self.fallback.tried)
        for _ in range(self.answer_attempts):
            told = cause
            if self.problems:  # a new question: the last patch's faults, by name
                told += "\nYour last patch was refused: " + "; ".join(self.problems)
            messages = prompts.patch_prompt(self.found, self.expected, self.fallback.pages, base,
                                            told, [prompts.compact(p) for p in self.patches])
            patched = self._apply(base, self._ask_patch(messages))
            if not (self.problems and _key(patched) in before):
                break
        if _key(patched) in before and not self.narrowed:
            patched = self._narrower(base, result, patched)
        if _key(patched) in before:
            # The same settings again (an echo, or a patch that changes nothing): this path
            # has nothing more to offer; the built-in search goes on without the model.
            self.ended = "the model's patch gave settings already tried"
            if failed_run is not None:
                return self.fallback.refine(state)
            return self._best_draft(state, None, "the built-in search (the model's patch "
                                    "repeated settings already tried)")
        self.fallback.evaluate(patched)
        self.fallback._search(patched)
        best = _key(self.fallback._best()[1])
        if failed_run is not None and best in self.fallback.emitted:
            return self.fallback.refine(state)  # already run for real: the next best instead
        return self._best_draft(state, None, "the LLM's patch" if best not in before else
                                "the built-in search (the LLM's patch did not beat it)")

    def _narrower(self, base: dict, result: dict, patched: dict) -> dict:
        """Once per run, when a patch repeated the guesses and no row was read although the
        page prints dates: the question changes to the one key at fault, a regex for the
        date cells shown (a small model answers that where it echoes the whole settings)."""
        rows = (((result or {}).get("diagnostics") or {}).get("row_count") or {}).get("got")
        cells = prompts.date_cells(self.fallback.pages, base) if rows == 0 else []
        if not cells:
            return patched
        self.narrowed = True
        from ...llm.schema import as_schema  # lazy

        # Its own one-key schema: shown the whole patch schema, a small model fills every key.
        one_key = as_schema({"date_pattern?": str})
        answer = self._ask_patch(prompts.date_pattern_prompt(cells), one_key)
        return self._apply(base, {k: v for k, v in answer.items() if k == "date_pattern"})

    def _best_draft(self, state, builtin: Draft | None, origin: str = "") -> Draft:
        """The best candidate evaluated so far, as a draft (the built-in one if it leads)."""
        entry = self.fallback._best()
        if builtin is not None and _key(builtin.settings) == _key(entry[1]):
            return builtin
        draft = self.fallback._emit(entry, state)
        draft.note = f"best verified candidate from {origin or 'the search'}; {draft.note}"
        return draft

    def _ask_patch(self, messages: list, schema=None) -> dict:
        from ...llm.structured import complete_structured  # lazy

        strategy = _strategy(schema or patch_schema(), self.provider.name, self.answer_attempts)
        try:
            answer = complete_structured(self.provider, messages, strategy,
                                         max_tokens=PATCH_MAX_TOKENS).data
        except StructuredOutputError as exc:
            # Each wrong answer was already fed back (a new turn); the Error Handler falls
            # back from here and picks advice that fits whether JSON mode was on, so the
            # class's generic hint ("Retry, or use … JSON mode") is not added to it.
            exc.details["json_mode"] = bool(getattr(strategy, "json_mode", False))
            exc.hint = ""
            raise
        self.patches.append(answer)
        return answer

    def _apply(self, base: dict, patch: dict) -> dict:
        """``base`` with the patch's valid keys applied; the invalid ones go to ``problems``."""
        s, problems = copy.deepcopy(base), []
        width = prompts.page_width(self.fallback.pages)
        for key in ("date_pattern",):
            if key in patch:
                why = prompts.valid_regex(patch[key])
                if why:
                    problems.append(f"date_pattern {patch[key]!r} does not compile: {why}")
                else:
                    s[key] = patch[key]
        # A key repeated at its guessed value changes nothing: it leaves ``base`` as it is, so
        # a patch that only echoes the guesses gives settings already tried (the path ends).
        adds = [p for p in patch.get("skip_patterns_add", []) if not prompts.valid_regex(p)
                and p not in s.get("skip_patterns", [])]
        if adds:
            s["skip_patterns"] = list(s.get("skip_patterns", [])) + adds
        for key in ("decimal", "require_header", "header_once", "parens_negative",
                    "trailing_minus_negative", "anchor", "continuation"):
            if key in patch:
                s[key] = patch[key]
        signs = dict(s.get("drcr_signs", {"dr": -1, "cr": 1}))
        for mark in ("dr", "cr"):
            if f"{mark}_negative" in patch:
                signs[mark] = -1 if patch[f"{mark}_negative"] else 1
        if signs != s.get("drcr_signs", {"dr": -1, "cr": 1}):
            s["drcr_signs"] = signs
        problems += self._apply_columns(s, patch, width)
        for col in s["columns"]:
            if col["name"] in patch.get("negative_columns", []) and col["kind"] == "amount" \
                    and col.get("sign") != -1:
                col["sign"] = -1
        self.problems = problems
        return s

    def _apply_columns(self, s: dict, patch: dict, width: float) -> list:
        cols = patch.get("columns")
        if cols is None:
            if "date_column" in patch and 0 <= patch["date_column"] < len(s["columns"]):
                s["date_column"] = patch["date_column"]
            return []
        xs = [c["x0"] for c in cols]
        date_col = patch.get("date_column", next((i for i, c in enumerate(cols)
                                                  if c["kind"] == "date"), -1))
        problems = []
        if not cols or xs != sorted(xs):
            problems.append("columns must be listed left to right (ascending x0)")
        if any(not 0 <= x <= width for x in xs):
            problems.append(f"every x0 must lie on the page (0 to {width:.0f})")
        if not 0 <= date_col < len(cols):
            problems.append(f"date_column {date_col} is not a column index")
        if problems:
            return problems
        new = [{"name": c["name"], "x0": float(c["x0"]), "kind": c["kind"]} for c in cols]
        new[0]["x0"] = min(0.0, new[0]["x0"])  # the first column is open to the left
        if _shape(new) == _shape(s["columns"]) and date_col == s.get("date_column"):
            return []  # the guessed columns repeated: the base's (with their types) stand
        s.update(columns=new, date_column=date_col)
        s.pop("output_order", None)
        if self.expected is not None:
            s.update(align(s, self.expected))
        return []


def _shape(columns: list) -> list:
    """What a patch can say about columns: name, start and kind (the first open to the left),
    the start to the whole point the prompt shows it at (x=105 for 104.75)."""
    return [(c["name"], "0" if i == 0 else f"{float(c['x0']):.0f}", c["kind"])
            for i, c in enumerate(columns)]


def _strategy(schema, provider_name: str, attempts: int):
    """JSON mode where the server has it (with the schema in the prompt), else prompted JSON;
    either way a wrong answer is fed back once, as a new turn (a different request)."""
    from ...llm.structured import PromptedStrategy  # lazy

    class _JSONMode(PromptedStrategy):
        json_mode = True

        def request(self, messages):
            transcript, options = super().request(messages)
            return transcript, dict(options, response_format={"type": "json_object"})

    cls = _JSONMode if provider_name == "openai" else PromptedStrategy
    return cls(schema, name="parser_settings_patch", max_attempts=attempts)
