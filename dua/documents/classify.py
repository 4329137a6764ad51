"""Seed 000's ``analyze_structure_and_visuals`` node: blocks -> typed elements.

The node runs a small graph (profile -> rules | llm -> END) with two interchangeable
classifiers: the built-in rules (default, no network) and the LLM, which sends blocks
in batches keyed by block id, validates every answer, retries a failed batch block by
block, and keeps each block it still cannot classify as an ``unclassified_text_block``.
When a call fails, the Error Handler (dua.recovery) says whether to retry or fall back.
"""
from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, Callable

from ..errors import BadRequestError, EmptyResponseError, TruncatedResponseError
from ..graph import END, START, Graph
from ..node_recovery import NodeRecovery
from ..schemas import unclassified_text_block
from .rules import Profile, build_element, classify_with_rules, rule_type

BATCH_SIZE = 20
_PROMPT_TEXT_LIMIT = 1500  # characters of a block shown to the model; the element keeps all

# type -> required keys, as the model must answer them (seed 000's element types)
ANSWER_SHAPES = {
    "heading": {"text": str, "level": int},
    "paragraph": {"text": str},
    "list": {"items": [{"text": str}]},
    "table": {"rows": [[(str, int, float, type(None))]], "header?": [(str, int, float, type(None))]},
    "figure": {"caption?": str},
    "caption": {"text": str},
    "header": {"text": str},
    "footer": {"text": str},
    "page_number": {"text": str},
}

SYSTEM_PROMPT = """You classify blocks of a PDF page into document elements.
Answer with one JSON object and nothing else. Its keys are the block ids you were given;
each value is the element for that block, one of:
  {"type": "heading", "text": str, "level": 1-6}
  {"type": "paragraph", "text": str}
  {"type": "list", "items": [{"text": str}, ...]}
  {"type": "table", "rows": [[cell, ...], ...], "header": [cell, ...] (optional)}
  {"type": "figure", "caption": str (optional)}
  {"type": "caption", "text": str}
  {"type": "header", "text": str}   (running header repeated on pages)
  {"type": "footer", "text": str}
  {"type": "page_number", "text": str}
Copy the block's text exactly; never summarise or drop words."""
SINGLE_PROMPT = """Answer with the JSON element for this one block (no wrapper object)."""


@dataclasses.dataclass
class Services:
    """What the classification graph needs from outside: the LLM (None = rules), a listener,
    the wait before a retry the Error Handler asks for, and the run's query id for it."""

    provider: Any = None
    batch_size: int = BATCH_SIZE
    on_progress: Callable[[str], None] | None = None
    sleep: Callable[[float], None] = time.sleep  # tests pass a recorder: no real waiting
    run_id: str | None = None  # None: a fresh id, so each run has its own retry budget


@dataclasses.dataclass
class ClassifyState:
    blocks: list
    page_sizes: dict = dataclasses.field(default_factory=dict)
    classifier: str = "rules"
    profile: Any = None
    elements: list = dataclasses.field(default_factory=list)
    stats: dict = dataclasses.field(default_factory=dict)


# --- nodes -------------------------------------------------------------------------------


def profile(state: ClassifyState, services: Services) -> dict:
    return {"profile": Profile(state.blocks, state.page_sizes)}


def classify_rules(state: ClassifyState, services: Services) -> dict:
    return {"elements": classify_with_rules(state.blocks, state.profile),
            "stats": {"classifier": "rules", "llm_calls": 0}}


def classify_llm(state: ClassifyState, services: Services) -> dict:
    run = LLMClassifier(services)
    elements = run.classify(state.blocks, state.profile)
    return {"elements": elements, "stats": run.stats}


def route_after_profile(state: ClassifyState) -> str:
    return "llm" if state.classifier == "llm" else "rules"


def build_graph():
    return (Graph(ClassifyState)
            .add_node("profile", profile)
            .add_node("classify_rules", classify_rules)
            .add_node("classify_llm", classify_llm)
            .add_edge(START, "profile")
            .add_conditional_edges("profile", route_after_profile,
                                   {"rules": "classify_rules", "llm": "classify_llm"})
            .add_edge("classify_rules", END)
            .add_edge("classify_llm", END)
            .compile())


def analyze_structure_and_visuals(blocks: list, page_sizes: dict, services: Services) -> tuple:
    """``(elements, stats)`` for ``blocks``: the LLM when ``services.provider`` is set, else rules."""
    state = ClassifyState(blocks, page_sizes, "llm" if services.provider is not None else "rules")
    state = build_graph().invoke(state, context=services, step_limit=10)
    return state.elements, state.stats


# --- the LLM classifier -------------------------------------------------------------------


class LLMClassifier:
    """Batches of text blocks in one call each; tables and images keep their finder's type.

    A failed batch goes to the Error Handler and its answer is followed: retry the batch's
    unanswered blocks after the handler's delay, fall back to the rules for every block
    left, or stop (the failure is raised, its feedback kept in ``stats["recovery"]``).
    """

    def __init__(self, services: Services):
        from ..llm.schema import as_schema, tagged  # lazy: the LLM layer loads only when used

        self.provider, self.on_progress = services.provider, services.on_progress
        self.batch_size = max(1, services.batch_size)
        self.recovery = NodeRecovery("extract_pipeline", services.run_id, sleep=services.sleep,
                                     on_progress=services.on_progress)
        self.schema = as_schema(tagged("type", ANSWER_SHAPES))
        self.response_format: dict | None = {"type": "json_object"}  # JSON mode where served
        self.stats = {"classifier": "llm", "llm_calls": 0, "llm_batches": 0, "llm_retried_blocks": 0,
                      "llm_errors": {}, "llm_down": None, "json_mode": True,
                      "recovery": self.recovery.records}

    def classify(self, blocks: list, profile: Profile) -> list:
        answers: dict = {}  # block id -> parse result; filled as calls return, so a failure
        # half-way through a batch keeps what was already answered
        todo = [b for b in blocks if b.metadata.get("source_block_type", "text") == "text"]
        batches = -(-len(todo) // self.batch_size)
        for n, start in enumerate(range(0, len(todo), self.batch_size), 1):
            if not self._follow(todo[start:start + self.batch_size], answers, f"{n}/{batches}"):
                break
            if self.on_progress:
                self.on_progress(f"LLM batch {n}/{batches} classified")
        elements = []
        for block in blocks:
            answer = answers.get(block.id)
            if answer is None:  # table, image, or the LLM gave up: the rules decide
                kind, level = rule_type(block, profile)
                elements.append(build_element(block, kind, level))
            else:
                elements.append(self._element(block, answer))
        return elements

    def _follow(self, batch: list, answers: dict, label: str) -> bool:
        """Classify one batch, doing what the Error Handler says after each failure.

        Returns False when the LLM is given up (the rules classify every block left).

        Raises:
            Exception: the failure itself, when the handler says to stop or ask the user.
        """
        while True:
            left = [b for b in batch if b.id not in answers]
            if not left:
                return True
            try:
                self._batch(left, answers)
                return True
            except Exception as exc:  # any failure: the handler decides, not this code
                step, record = self.recovery.decide(exc, "classify_llm", batch=label)
                if step in ("retry", "refine"):  # bounded by the handler's retry budget
                    continue
                if step == "resume":  # dealt with: the rules take this batch's blocks
                    return True
                if step != "fallback":  # ask or stop: the run ends with this failure
                    raise
                self.stats["llm_down"] = {
                    "error_code": record["error_code"], "message": str(exc), "fallback": "rules",
                    "user_message": record["user_message"],
                    "recovery_suggestions": record["recovery_suggestions"]}
                return False

    def _batch(self, batch: list, answers: dict) -> None:
        """Valid answers from one batch call, then one call for each block still unanswered.

        Raises:
            TransportError: the LLM cannot be reached (the caller asks the Error Handler).
        """
        from ..llm.parsing import parse_llm_response  # lazy: the LLM layer loads only when used

        self.stats["llm_batches"] += 1
        parsed = parse_llm_response(self._call(_batch_prompt(batch)))
        by_id = _by_id(parsed["data"]) if parsed["status"] == "success" else {}
        for block in batch:
            answer = by_id.get(block.id)
            if answer is not None and not self.schema.validate(answer):
                answers[block.id] = {"status": "success", "data": answer}
        for block in batch:
            if block.id not in answers:
                self.stats["llm_retried_blocks"] += 1
                raw = self._call(_single_prompt(block))
                answers[block.id] = parse_llm_response(raw, self.schema)

    def _call(self, messages: list) -> str | None:
        self.stats["llm_calls"] += 1
        try:
            return self.provider.complete(messages, response_format=self.response_format).text
        except BadRequestError:
            if self.response_format is None:
                raise
            # Some compatible servers refuse JSON mode: ask once more without it, and stop asking.
            self.response_format, self.stats["json_mode"] = None, False
            return self._call(messages)
        except (EmptyResponseError, TruncatedResponseError) as exc:
            # The model answered, but with nothing usable: the parser names it (EmptyLLMResponse…).
            # Anything else (an HTML page, a broken wire format) is not the model's answer and
            # goes to the Error Handler like a transport failure.
            return getattr(exc, "text", None) or ""

    def _element(self, block, answer: dict) -> dict:
        if answer["status"] == "success":
            data = answer["data"]
            try:
                return build_element(block, data["type"], _level(data.get("level")))
            except ValueError as exc:
                answer = {"status": "error", "error_type": "SchemaValidationError",
                          "message": str(exc), "original_content": json.dumps(data),
                          "cleaned_content": json.dumps(data)}
        kind = answer["error_type"]
        self.stats["llm_errors"][kind] = self.stats["llm_errors"].get(kind, 0) + 1
        return unclassified_text_block(block, answer)


def _by_id(data: Any) -> dict:
    """Answers keyed by block id: ``{id: element}``, or a list of elements carrying ``id``."""
    if isinstance(data, dict):
        return data
    if isinstance(data, list):
        return {a["id"]: {k: v for k, v in a.items() if k != "id"} for a in data
                if isinstance(a, dict) and isinstance(a.get("id"), str)}
    return {}


def _level(value: Any) -> int:
    return min(max(int(value), 1), 6) if isinstance(value, int) else 1


def _block_view(block) -> dict:
    first = block.lines[0] if block.lines else None
    return {"id": block.id, "page": block.page_number, "bbox": [round(v) for v in block.bbox],
            "font": first.font if first else "", "size": first.size if first else 0,
            "lines": len(block.lines), "text": block.text[:_PROMPT_TEXT_LIMIT]}


def _batch_prompt(batch: list) -> list:
    blocks = json.dumps([_block_view(b) for b in batch], ensure_ascii=False)
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Blocks:\n{blocks}"}]


def _single_prompt(block) -> list:
    view = json.dumps(_block_view(block), ensure_ascii=False)
    return [{"role": "system", "content": SYSTEM_PROMPT + "\n" + SINGLE_PROMPT},
            {"role": "user", "content": f"Block:\n{view}"}]
