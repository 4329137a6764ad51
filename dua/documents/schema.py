"""Seed 000's element classification as a declarative schema: what an LLM classifier must answer.

One tagged object per block, told apart by ``type``; the same data validates the model's reply
(``parse_llm_response(raw, ELEMENT_SCHEMA)``) and becomes the tool / response_format it is offered.
"""
from __future__ import annotations

from ..llm.schema import Integer, String, tagged

# A table cell as models write it: text, a number, or null for an empty cell.
CELL = (str, int, float, None)
_TEXT = {"text": String(description="The block's text, verbatim.")}

ELEMENT_SCHEMA = tagged("type", {
    "heading": {"text": str, "level": Integer(minimum=1, maximum=6, description="1 is the title level")},
    "paragraph": _TEXT,
    "list": {"items": [{"text": str}]},
    "table": {"rows": [[CELL]], "header?": [CELL]},
    "figure": {"caption?": str},
    "caption": _TEXT,
    "header": _TEXT,
    "footer": _TEXT,
    "page_number": _TEXT,
}, description="The classification of one document block.")

ELEMENT_TYPES = tuple(ELEMENT_SCHEMA.variants)


def parse_llm_classification_response(raw: object, lenient: bool = False) -> dict:
    """Seed 000's function under its own name: ``parse_llm_response(raw, ELEMENT_SCHEMA)``.

    Never raises; returns seed 000's success or error dict.
    """
    from ..llm.parsing import parse_llm_response  # lazy: keeps this module a plain data table

    return parse_llm_response(raw, ELEMENT_SCHEMA, lenient)
