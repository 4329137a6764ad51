"""Structured-output parsing cost: parse_llm_response beside json.loads of the same text.

The floor is the part nobody can avoid (decoding the JSON); the figure adds fence stripping
and schema validation. Also: the fixture corpus end to end, and lenient repair.
"""
from __future__ import annotations

import json
import os

from dua.documents.schema import ELEMENT_SCHEMA
from dua.llm.parsing import parse_llm_response

from .figures import Figure, best_of

OUTPUTS = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                       "fixtures", "llm", "outputs")


def _read(name: str) -> str:
    with open(os.path.join(OUTPUTS, name), encoding="utf-8", newline="") as fh:
        return fh.read()


def run() -> list:
    small = '```json\n{"type": "heading", "text": "Statement of Account", "level": 1}\n```'
    small_json = small[8:-4]
    big = _read("081_huge_valid_list.txt")
    big_json = big[big.index("{"):big.rindex("}") + 1]
    cases = json.loads(_read("expected.json"))["cases"]
    corpus = [(_read(c["file"]), ELEMENT_SCHEMA if c["schema"] else None, c["lenient"]) for c in cases]
    quotes = "{'type': 'paragraph', 'text': 'Hello', 'level': None}"
    figures = [
        Figure("parse_llm_response, fenced element answer", best_of(lambda: parse_llm_response(
            small, ELEMENT_SCHEMA), number=2000), best_of(lambda: json.loads(small_json), number=2000),
            floor_name="json.loads of the payload"),
        Figure("parse_llm_response, 127 KB list of 2,000 items", best_of(lambda: parse_llm_response(
            big, ELEMENT_SCHEMA), number=20), best_of(lambda: json.loads(big_json), number=20),
            floor_name="json.loads of the payload"),
        Figure(f"the {len(cases)}-case corpus, per case", best_of(lambda: [parse_llm_response(*c) for c in corpus],
                                                                 number=5) / len(cases),
               best_of(lambda: [_try_loads(c[0]) for c in corpus], number=5) / len(cases),
               floor_name="json.loads attempt per case"),
        Figure("lenient repair of a Python-literal dict", best_of(lambda: parse_llm_response(
            quotes, None, True), number=500), best_of(lambda: _try_loads(quotes), number=500),
            floor_name="the failing json.loads"),
    ]
    for f in figures:
        f.value, f.floor, f.unit = f.value * 1e6, f.floor * 1e6, "µs"
    return figures


def _try_loads(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None
