"""Seed 000's ``analyze_structure_and_visuals`` node: blocks -> typed elements.

The node runs a small graph (profile -> rules | llm -> END) with two interchangeable
classifiers: the built-in rules (default, no network) and the rules checked by an LLM,
which is asked only about the blocks the rules are unsure of, in batches keyed by block
id, for their type (and a heading's level), never their text. An answer the schema cannot
take is asked again once with the validation error (dua.documents.answers); a block whose
answer is still unusable keeps the rules' type with the error attached, and only a block
neither the rules nor the model can type becomes seed 000's unclassified_text_block. When
a call fails, the Error Handler (dua.recovery) says whether to retry or fall back.
"""
from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, Callable

from ..errors import BadRequestError, LLMBudgetSpentError, RepeatedRequestError
from ..graph import END, START, Graph
from ..recovery.node import NodeRecovery
from ..schemas import classification_error, unclassified_text_block
from .answers import ASKED_TYPES, answer_format, ask, error
from .rules import (CAPTION, GLUED_MARKER, MARKER, NO_RULE, PAGE_NUMBER, PAGE_OF, SECTION_NUMBER,
                    Profile, build_element, classify_with_rules, is_bold, looks_like_heading,
                    rule_type)

BATCH_SIZE = 20
_PROMPT_TEXT_LIMIT = 240  # characters of a block shown to the model: enough to judge its type
# What one block's answer costs: '"p1-b12": {"type": "paragraph"},' is about 12 tokens.
TOKENS_PER_BLOCK = 16

SYSTEM_PROMPT = f"""You check the types a rule classifier gave to blocks of a PDF document.
You see each block's id, page, position (x, y from the page's top-left, in points), font
size, whether it is bold, its line count, the start of its text, and the rules' guess.
Answer with one JSON object and nothing else: each key is a block id you were given,
{answer_format()}.
Never copy the block's text into the answer."""


@dataclasses.dataclass
class Services:
    """What the classification graph needs from outside: the LLM (None = rules), a listener,
    the wait before a retry the Error Handler asks for, and the run's query id for it."""

    provider: Any = None
    batch_size: int = BATCH_SIZE
    on_progress: Callable[[str], None] | None = None
    sleep: Callable[[float], None] = time.sleep  # tests pass a recorder: no real waiting
    run_id: str | None = None  # None: a fresh id, so each run has its own retry budget
    llm_budget: float | None = None  # the run's total LLM seconds (None: per-call limits only)


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
    """The rules decide; the model is asked only about the text blocks they are unsure of.

    One call per batch of unsure blocks, keyed by block id, asking for the type (and a
    heading's level), never the text. A confident rule signal (a running header repeated
    across pages, a page number, a numbered caption, a list marker, a table or image from
    its finder) is never put to the model, and an answer is taken only where the rules' own
    evidence bears it (``candidates``, heading levels the fonts rank; see ``_element``), so
    the model can only help. An answer the schema cannot take is asked again once with the
    validation error; one still missing or invalid for a block leaves the rules' element,
    with the error attached as ``annotations.classification_error``. A failed call goes
    to the Error Handler: retry the batch after its delay, fall back to the rules for every
    block left, or stop (the failure is raised, its feedback kept in ``stats["recovery"]``).
    """

    def __init__(self, services: Services):
        from ..llm.session import Session  # lazy: the LLM layer loads only when used

        self.provider = Session(services.provider, services.llm_budget)
        self.on_progress = services.on_progress
        self.batch_size = max(1, services.batch_size)
        self.recovery = NodeRecovery("extract_pipeline", services.run_id, sleep=services.sleep,
                                     on_progress=services.on_progress)
        self.json_mode = True  # ask for JSON mode where the server has it
        self.stats = {"classifier": "llm", "llm_calls": 0, "llm_batches": 0, "llm_retried_blocks": 0,
                      "llm_asked_blocks": 0, "llm_changed_blocks": 0, "llm_errors": {},
                      "llm_reasked": 0, "llm_mapped": 0, "llm_kept_rules": 0,
                      "llm_down": None, "json_mode": True, "recovery": self.recovery.records}

    def classify(self, blocks: list, profile: Profile) -> list:
        decided = {b.id: rule_type(b, profile) for b in blocks}
        unsure = [b for b in blocks if not confident(b, profile, *decided[b.id])]
        # The deepest heading level the rules are sure of: a model's level may go at most one
        # below it (a hierarchy has no gaps), never above what the fonts rank (see _element).
        asked = {b.id for b in unsure}
        self.deepest = max([lv or 0 for i, (k, lv) in decided.items()
                            if k == "heading" and i not in asked], default=0)
        self.stats["llm_asked_blocks"] = len(unsure)
        answers: dict = {}  # block id -> parse result; filled as calls return
        batches = -(-len(unsure) // self.batch_size)
        before = self.provider.usage
        for n, start in enumerate(range(0, len(unsure), self.batch_size), 1):
            batch = unsure[start:start + self.batch_size]
            if not self._follow(batch, answers, f"{n}/{batches}", profile, decided):
                break
            if self.on_progress:
                self.on_progress(f"LLM batch {n}/{batches} classified")
        used = self.provider.usage
        self.stats["llm_calls"] = used.calls - before.calls
        self.stats["tokens"] = (used.input_tokens + used.output_tokens
                                - before.input_tokens - before.output_tokens)
        return [self._element(block, profile, decided[block.id], answers.get(block.id))
                for block in blocks]

    def _follow(self, batch: list, answers: dict, label: str, profile, decided: dict) -> bool:
        """Classify one batch, doing what the Error Handler says after each failure.

        Returns False when the LLM is given up (the rules keep every block left).

        Raises:
            Exception: the failure itself, when the handler says to stop or ask the user.
        """
        while True:
            try:
                self._batch(batch, answers, profile, decided)
                return True
            except RepeatedRequestError:
                # A retry after the re-ask failed in transit would ask the batch's first
                # question again, already answered: nothing new to buy, nothing sent. This
                # batch keeps the rules; the next batches are new questions.
                self.stats["llm_repeats_refused"] = self.stats.get("llm_repeats_refused", 0) + 1
                return True
            except LLMBudgetSpentError as exc:
                # Nothing was sent: the rules keep the rest, no handler needed to say so.
                self.stats["llm_down"] = {"error_code": exc.error_code, "message": exc.message,
                                          "fallback": "rules", "user_message": exc.user_message,
                                          "recovery_suggestions": []}
                return False
            except Exception as exc:  # any failure: the handler decides, not this code
                step, record = self.recovery.decide(exc, "classify_llm", batch=label)
                if step in ("retry", "refine"):  # bounded by the handler's retry budget
                    continue
                if step == "resume":  # dealt with: the rules keep this batch's blocks
                    return True
                if step != "fallback":  # ask or stop: the run ends with this failure
                    raise
                self.stats["llm_down"] = {
                    "error_code": record["error_code"], "message": str(exc), "fallback": "rules",
                    "user_message": record["user_message"],
                    "recovery_suggestions": record["recovery_suggestions"]}
                return False

    def _batch(self, batch: list, answers: dict, profile, decided: dict) -> None:
        """The model's answers for one batch of unsure blocks: one call, and one more with
        the validation error when the schema cannot take the answer (seed 003's loop).

        Raises:
            TransportError: the LLM cannot be reached (the caller asks the Error Handler).
        """
        self.stats["llm_batches"] += 1
        ids = [b.id for b in batch]
        limit = 40 + TOKENS_PER_BLOCK * len(batch)
        messages = _batch_prompt(batch, profile, decided)
        try:
            got, turns, mapped = ask(self.provider, messages, ids, self.json_mode, limit)
        except BadRequestError:
            if not self.json_mode:
                raise
            # Some compatible servers refuse JSON mode: ask once more without it, and stop asking.
            self.json_mode = self.stats["json_mode"] = False
            got, turns, mapped = ask(self.provider, messages, ids, False, limit)
        if turns > 1:
            self.stats["llm_reasked"] += 1
            self.stats["llm_retried_blocks"] += len(batch)
        self.stats["llm_mapped"] += mapped
        answers.update(got)

    def _element(self, block, profile, decided: tuple, answer: dict | None) -> dict:
        """The block's element: the model's answer where the rules' evidence bears it.

        The model can only help because it only ever chooses among what the rules measured:
        a type is taken only when it is one of the block's ``candidates`` (the rules' type,
        the plain paragraph they fall back to, or a type whose signal they found on this very
        block and weighed against) and the page can bear it (``plausible``); a heading's level
        only between the level its font ranks (a body-size heading never outranks a larger
        one) and one below the deepest heading the rules are sure of. Anything else keeps
        the rules' element, the refused answer annotated. Confident blocks are never asked.
        """
        kind, level = decided
        if answer is None:  # confident, not asked, or the LLM was given up: the rules decide
            return _rules_element(block, kind, level, None)
        if answer["status"] != "success":
            # Unusable even after the re-ask: the rules' type stands, the error kept with it
            # (seed 000's typed error); unclassified only when the rules had none either.
            error_type = answer.get("error_type")
            self.stats["llm_errors"][error_type] = self.stats["llm_errors"].get(error_type, 0) + 1
            self.stats["llm_kept_rules"] += kind is not None
            return _rules_element(block, kind, level, answer)
        new_kind = answer["data"]["type"]
        if new_kind in candidates(block, profile, kind) and plausible(block, profile, new_kind):
            ranked = level if kind == "heading" else profile.level(block.lines[0].size)
            new_level = _level(answer["data"].get("level"), ranked)
            if not ranked <= new_level <= max(ranked, self.deepest + 1):
                new_level = ranked  # a level the fonts and the hierarchy cannot bear
            if (new_kind, new_level if new_kind == "heading" else None) != (kind, level):
                self.stats["llm_changed_blocks"] += 1
            return build_element(block, new_kind, new_level)
        # A well-formed answer the page cannot bear: the rules' element stands (the
        # model may only help) and the refused answer stays visible.
        self.stats["llm_refused"] = self.stats.get("llm_refused", 0) + 1
        reason = "no evidence on the page for this type here"
        element = _rules_element(block, kind, level, None) if kind else unclassified_text_block(
            block, error(NO_RULE["error_type"],
                         f"{NO_RULE['message']}; the model's {new_kind!r} has {reason}", None))
        element.setdefault("annotations", {})["llm_refused"] = {"type": new_kind, "reason": reason}
        return element


def _rules_element(block, kind: str | None, level: int | None, failure: dict | None) -> dict:
    """The rules' element, with ``failure`` (the model's error, None: no model failed)
    attached; seed 000's unclassified_text_block when the rules have no type either."""
    if kind is None:
        return unclassified_text_block(block, failure or NO_RULE)
    element = build_element(block, kind, level)
    if failure is not None:
        element["annotations"] = {"classification_error": classification_error(failure)}
    return element


def confident(block, profile: Profile, kind: str, level: int | None) -> bool:
    """Whether the rules' type for ``block`` rests on a signal the model must not overrule."""
    if block.metadata.get("source_block_type", "text") != "text" or not block.lines:
        return True
    if kind is None:
        return False  # the rules found nothing to read: only the model may say what it is
    text = " ".join(block.text.split())
    words = len(text.split())
    if kind in ("page_number", "caption", "list"):
        return True  # a page-number pattern in the margin, "Figure 3:", a list marker
    if kind in ("header", "footer"):
        return block.id in profile.repeated  # repeated on pages, not just small and low
    if kind == "heading":
        size = block.lines[0].size
        return size > profile.body_size + 0.5 or bool(SECTION_NUMBER.match(text))
    # Prose of two lines or more is prose; a short line could be a heading, a label or a
    # caption the rules missed, which is what a model can judge from its wording.
    return len(block.lines) >= 2 or words > 12


def candidates(block, profile: Profile, kind: str) -> set:
    """The types the rules' own evidence allows for an unsure text block: theirs, the plain
    paragraph every text block falls back to, and any type whose signal the rules found on
    this block (a heading's font and shape, a caption's number, a page number's pattern, a
    list marker, a small font in the margin) even if they weighed it against."""
    text = " ".join(block.text.split())
    first = block.lines[0]
    band = profile.band(block)
    words = first.text.split()
    out = {"paragraph"} | ({kind} if kind else set())
    if looks_like_heading(block, profile):
        out.add("heading")
    if CAPTION.match(text):
        out.add("caption")
    if band and (PAGE_NUMBER.match(text) or PAGE_OF.search(text)):
        out.add("page_number")
    if band and (block.id in profile.repeated or first.size < profile.body_size - 0.5):
        out.add("header" if band == "top" else "footer")
    if kind == "list" or GLUED_MARKER.match(first.text) or (
            words and MARKER.match(words[0]) and len(words) > 1):
        out.add("list")
    return out


def plausible(block, profile: Profile, kind: str) -> bool:
    """A model's type that the page can bear: furniture only in the margins, page numbers
    only where one is printed, headings short."""
    text = " ".join(block.text.split())
    if kind in ("header", "footer"):
        return bool(profile.band(block))
    if kind == "page_number":
        return bool(PAGE_NUMBER.match(text) or PAGE_OF.search(text))
    if kind == "heading":
        return len(text.split()) <= 12 and len(block.lines) <= 2
    return kind in ASKED_TYPES


def _level(value: Any, default: int | None) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return min(max(value, 1), 6)
    return int(default or 1)  # no level given: the font-size ranking's level


def _block_view(block, profile: Profile, decided: tuple) -> dict:
    first = block.lines[0]
    kind, level = decided
    return {"id": block.id, "page": block.page_number,
            "x": round(block.bbox[0]), "y": round(block.bbox[1]), "size": round(first.size, 1),
            "bold": is_bold(first.font), "lines": len(block.lines),
            "text": block.text[:_PROMPT_TEXT_LIMIT],
            # in the answer's own shape, so the model's answer can take the same shape
            "rules_guess": None if kind is None else
            {"type": kind, **({"level": level} if kind == "heading" else {})}}


def _batch_prompt(batch: list, profile: Profile, decided: dict) -> list:
    blocks = json.dumps([_block_view(b, profile, decided[b.id]) for b in batch],
                        ensure_ascii=False)
    system = (f"{SYSTEM_PROMPT}\nBody text is {profile.body_size:g} pt; heading sizes in use: "
              f"{', '.join(f'{s:g}' for s in profile.heading_sizes) or 'none'} pt.")
    return [{"role": "system", "content": system},
            {"role": "user", "content": f"Blocks:\n{blocks}"}]
