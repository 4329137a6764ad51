"""The model's answer about a batch of blocks: its schema, how it is asked for, how it is read.

The schema is the one place the block types and a heading's level are named: the prompt's
answer format is written from it, a model's own wording of them ("heading level 3", "h2",
"title") is mapped to it (``dua.llm.conform``), and an answer it still cannot take is fed
back once with the validation error, by seed 003's loop (``dua.llm.structured``), not a
second one. What is unusable after that is reported block by block, typed as seed 000 says,
so that each such block keeps the rules' type with the error attached.
"""
from __future__ import annotations

from ..errors import EmptyResponseError, StructuredOutputValidationError, TruncatedResponseError
from ..llm.conform import conform
from ..llm.schema import Integer, Object, summarize, tagged

ASKED_TYPES = ("heading", "paragraph", "list", "caption", "header", "footer", "page_number")
LEVEL = Integer(1, 6, description="1 = title, 2 = section, 3 = subsection, 4-6 deeper")
BLOCK_ANSWER = tagged("type", {kind: {"level?": LEVEL} if kind == "heading" else {}
                               for kind in ASKED_TYPES})
MAX_ATTEMPTS = 2  # the answer, and one re-ask with its validation error (issue 32)


def batch_schema(ids: list) -> Object:
    """An answer for a batch: one entry per block id asked, each a ``BLOCK_ANSWER``."""
    return Object({i: BLOCK_ANSWER for i in ids})


def answer_format() -> str:
    """The answer's shape in words, from the schema (so prompt and validation agree)."""
    kinds = ", ".join(BLOCK_ANSWER.variants)
    return (f'each value {{"type": T}} with T one of {kinds}; a heading also gets "level": '
            f"{LEVEL.minimum}-{LEVEL.maximum} ({LEVEL.description})")


def ask(provider, messages: list, ids: list, json_mode: bool, max_tokens: int) -> tuple:
    """``(answers, attempts, mapped)``: a seed-000 parse result per block id, the model
    turns it took (2 when re-asked) and how many blocks' answers were mapped to the schema.

    Raises:
        TransportError, BadRequestError and other failures with no answer to read: from
            the provider, untouched (the caller's Error Handler decides).
    """
    from ..llm.structured import PromptedStrategy, complete_structured  # lazy: used with an LLM

    strategy = PromptedStrategy(batch_schema(ids), name="block_types", max_attempts=MAX_ATTEMPTS,
                                instructions="", conform=True,
                                response_format={"type": "json_object"} if json_mode else None)
    try:
        result = complete_structured(provider, messages, strategy, max_tokens=max_tokens)
    except StructuredOutputValidationError as exc:  # still unusable after the re-ask
        return per_block(exc.attempts[-1].raw, ids), len(exc.attempts), 0
    except (EmptyResponseError, TruncatedResponseError) as exc:
        # The model answered, but with nothing whole (never fed back, seed 003): the parser
        # names what it is (EmptyLLMResponse, JSONDecodeError for a cut-off object…).
        turns = len(getattr(exc, "attempts", ())) or 1
        return per_block(getattr(exc, "text", None) or "", ids), turns, 0
    answers = {i: {"status": "success", "data": result.data[i]} for i in ids}
    mapped = {note.split(".", 1)[0] for note in result.repaired}
    return answers, len(result.attempts), len(mapped & set(ids))


def per_block(raw: str | None, ids: list) -> dict:
    """A parse result per block id from the last answer: the blocks it answers usably are
    taken, the others get their own error (the whole answer's, when it is no JSON at all)."""
    from ..llm.parsing import parse_llm_response  # lazy: as above

    parsed = parse_llm_response(raw)
    if parsed["status"] != "success":
        return {i: parsed for i in ids}
    data, _ = conform(parsed["data"], batch_schema(ids))
    out = {}
    for i in ids:
        entry = data.get(i) if isinstance(data, dict) else None
        problems = BLOCK_ANSWER.validate(entry) if entry is not None else []
        if entry is None:
            out[i] = error("SchemaValidationError", f"the answer has no entry for block {i}", raw)
        elif problems:
            out[i] = error("SchemaValidationError", "The JSON does not match the schema: "
                           + summarize([f"{i}.{p}" for p in problems]), raw)
        else:
            out[i] = {"status": "success", "data": entry}
    return out


def error(error_type: str, message: str, raw: str | None) -> dict:
    """Seed 000's error outcome for one block."""
    return {"status": "error", "error_type": error_type, "message": message,
            "original_content": raw, "cleaned_content": raw}
