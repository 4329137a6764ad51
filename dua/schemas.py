"""Dataclasses for the shapes the seeds define, with ``to_dict`` and validating ``from_dict``.

Validation collects every problem and names its path (``data.error_type: expected one
of [...], got 'oops'``). Nothing here imports pandas or pdfplumber.
"""
from __future__ import annotations

import dataclasses
import datetime as _dt
import re
from typing import Any

from .errors import ERROR_TYPES, PayloadValidationError, SchemaError

NEXT_ACTIONS = ("resume", "await_user", "escalate")
SEVERITIES = ("low", "medium", "high", "critical")
QUERY_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$")

_TYPE_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean",
               list: "list", dict: "object", type(None): "null"}


class Checker:
    """Collects problems while reading a dict; ``done()`` raises them all at once."""

    def __init__(self, data: Any, path: str = "", error: type = SchemaError):
        self.problems: list[str] = []
        self.error = error
        self.data = data if isinstance(data, dict) else {}
        self.path = path
        if not isinstance(data, dict):
            self.problems.append(f"{path or '<root>'}: expected object, got {_name(data)}")

    def _at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def get(self, key: str, types: Any, required: bool = True, default: Any = None) -> Any:
        if key not in self.data:
            if required:
                self.problems.append(f"{self._at(key)}: required field is missing")
            return default
        value = self.data[key]
        types = types if isinstance(types, tuple) else (types,)
        # bool is an int in Python, but never in JSON schemas.
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if float in types and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        if not ok:
            want = " or ".join(_TYPE_NAMES.get(t, t.__name__) for t in types)
            self.problems.append(f"{self._at(key)}: expected {want}, got {_name(value)}")
            return default
        return value

    def choice(self, key: str, allowed: tuple, required: bool = True, default: Any = None) -> Any:
        value = self.get(key, str, required, default)
        if value is not None and value not in allowed and value is not default:
            self.problems.append(f"{self._at(key)}: expected one of {list(allowed)}, got {value!r}")
        return value

    def sub(self, key: str, required: bool = True) -> Checker:
        child = Checker(self.data.get(key, {}), self._at(key), self.error)
        if key not in self.data:
            child.problems = [f"{self._at(key)}: required field is missing"] if required else []
        elif not isinstance(self.data[key], dict):
            child.problems = []
            self.problems.append(f"{self._at(key)}: expected object, got {_name(self.data[key])}")
        self.problems_from(child)
        return child

    def problems_from(self, child: Checker) -> None:
        # Share one list so problems found later on the child are collected too.
        self.problems.extend(child.problems)
        child.problems = self.problems

    def done(self) -> None:
        if self.problems:
            raise self.error(self.problems)


def _name(value: Any) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)


def _bbox(c: Checker, key: str = "bbox", required: bool = True) -> tuple | None:
    box = c.get(key, list, required)
    if box is not None and (len(box) != 4 or not all(isinstance(v, (int, float)) for v in box)):
        c.problems.append(f"{c._at(key)}: expected 4 numbers [x0, top, x1, bottom]")
        return None
    return tuple(box) if box is not None else None


MAX_CONTEXT_DEPTH = 32


def deeper_than(value: Any, limit: int) -> bool:
    """Whether lists and objects nest more than ``limit`` levels (iterative: no recursion)."""
    stack = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth >= limit:
                return True
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict) else item))
    return False


def is_iso8601(text: str) -> bool:
    """True for an ISO 8601 date-time such as 2025-08-08T12:20:05Z."""
    if not isinstance(text, str) or "T" not in text:
        return False
    try:
        _dt.datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return False
    return True


# --- seed 000: lines, blocks, elements ---------------------------------------------


@dataclasses.dataclass
class Line:
    text: str
    bbox: tuple
    font: str = ""
    size: float = 0.0

    def to_dict(self) -> dict:
        return {"text": self.text, "bbox": list(self.bbox), "font": self.font, "size": self.size}

    @classmethod
    def from_dict(cls, data: Any, path: str = "line") -> Line:
        c = Checker(data, path)
        line = cls(c.get("text", str, default=""), _bbox(c) or (0, 0, 0, 0),
                   c.get("font", str, False, ""), c.get("size", float, False, 0.0))
        c.done()
        return line


@dataclasses.dataclass
class Block:
    """A run of lines on one page, or a table or image found by pdfplumber."""

    id: str
    page_number: int
    bbox: tuple
    lines: list = dataclasses.field(default_factory=list)
    text: str = ""
    metadata: dict = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"id": self.id, "page_number": self.page_number, "bbox": list(self.bbox),
                "lines": [ln.to_dict() for ln in self.lines], "text": self.text,
                "metadata": dict(self.metadata)}

    @classmethod
    def from_dict(cls, data: Any, path: str = "block") -> Block:
        c = Checker(data, path)
        lines = []
        for i, raw in enumerate(c.get("lines", list, False, [])):
            try:
                lines.append(Line.from_dict(raw, f"{c._at('lines')}[{i}]"))
            except SchemaError as exc:
                c.problems.extend(exc.problems)
        block = cls(c.get("id", str, default=""), c.get("page_number", int, default=0),
                    _bbox(c) or (0, 0, 0, 0), lines, c.get("text", str, False, ""),
                    c.get("metadata", dict, False, {}))
        c.done()
        return block


# element type -> {required key: type}
ELEMENT_FIELDS = {
    "heading": {"text": str, "level": int},
    "paragraph": {"text": str},
    "list": {"items": list},
    "table": {"rows": list},
    "figure": {},
    "caption": {"text": str},
    "header": {"text": str},
    "footer": {"text": str},
    "page_number": {"text": str},
    "unclassified_text_block": {"text": str},
}
OPTIONAL_FIELDS = {"table": {"header": list, "continued": list}, "figure": {"caption": str, "text": str},
                   "paragraph": {"continued": list}, "list": {"continued": list},
                   "unclassified_text_block": {"lines": list, "metadata": dict, "annotations": dict,
                                               "id": str}}


@dataclasses.dataclass
class Element:
    """A typed piece of a document; ``fields`` holds the type's keys (text, level, items, rows…)."""

    type: str
    page_number: int
    bbox: tuple
    block_ids: list = dataclasses.field(default_factory=list)
    fields: dict = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict:
        out = {"type": self.type, **self.fields, "bbox": list(self.bbox),
               "page_number": self.page_number, "block_ids": list(self.block_ids)}
        return out

    @classmethod
    def from_dict(cls, data: Any, path: str = "element") -> Element:
        c = Checker(data, path)
        kind = c.choice("type", tuple(ELEMENT_FIELDS))
        fields = {}
        for key, typ in ELEMENT_FIELDS.get(kind, {}).items():
            fields[key] = c.get(key, typ)
        for key, typ in OPTIONAL_FIELDS.get(kind, {}).items():
            if key in c.data:
                fields[key] = c.get(key, typ, False)
        if kind == "list":
            for i, item in enumerate(fields.get("items") or []):
                Checker(item, f"{c._at('items')}[{i}]", SchemaError).get("text", str) if isinstance(
                    item, dict) else c.problems.append(
                    f"{c._at('items')}[{i}]: expected object, got {_name(item)}")
        element = cls(kind or "", c.get("page_number", int, default=0), _bbox(c) or (0, 0, 0, 0),
                      c.get("block_ids", list, False, []), fields)
        c.done()
        return element


def unclassified_text_block(block: Block, error: dict) -> dict:
    """Seed 000's exact shape for a block whose classification failed."""
    return {
        "id": block.id,
        "type": "unclassified_text_block",
        "text": block.text,
        "bbox": list(block.bbox),
        "page_number": block.page_number,
        "lines": [ln.to_dict() for ln in block.lines],
        "metadata": {"source_block_type": block.metadata.get("source_block_type", "text")},
        "annotations": {"classification_error": classification_error(error)},
    }


def classification_error(error: dict) -> dict:
    """Seed 000's ``annotations.classification_error`` from a parse result's error dict."""
    return {"error_type": error.get("error_type", "UnexpectedParsingError"),
            "message": error.get("message", ""),
            "original_llm_output": error.get("original_content", error.get("original_llm_output")),
            "cleaned_llm_output": error.get("cleaned_content", error.get("cleaned_llm_output"))}


# --- seed 004: error payload and feedback --------------------------------------------


@dataclasses.dataclass
class ErrorPayload:
    agent_id: str
    timestamp: str
    error_type: str
    error_code: str
    message: str
    query_id: str
    context: dict = dataclasses.field(default_factory=dict)
    status: str = "error"

    def to_dict(self) -> dict:
        return {"agent_id": self.agent_id, "timestamp": self.timestamp, "status": self.status,
                "data": {"error_type": self.error_type, "error_code": self.error_code,
                         "message": self.message, "context": dict(self.context),
                         "query_id": self.query_id}}

    @classmethod
    def from_dict(cls, payload: Any) -> ErrorPayload:
        """Raises: PayloadValidationError listing every problem."""
        c = Checker(payload, "", PayloadValidationError)
        if not isinstance(payload, dict):
            c.done()  # one problem: listing every field as missing from a list says nothing more
        agent_id = c.get("agent_id", str)
        timestamp = c.get("timestamp", str)
        if timestamp is not None and not is_iso8601(timestamp):
            c.problems.append(f"timestamp: expected ISO 8601 date-time, got {timestamp!r}")
        status = c.choice("status", ("error",))
        d = c.sub("data")
        error_type = d.choice("error_type", ERROR_TYPES)
        error_code = d.get("error_code", str)
        message = d.get("message", str)
        context = d.get("context", dict, False, {})
        if deeper_than(context, MAX_CONTEXT_DEPTH):  # copying or storing it would recurse too deep
            c.problems.append(f"data.context: nested deeper than {MAX_CONTEXT_DEPTH} levels")
        query_id = d.get("query_id", str)
        if query_id is not None and not QUERY_ID.match(query_id):
            c.problems.append(f"data.query_id: expected letters, digits, '_', '-', '.', ':' "
                              f"(at most 128), got {query_id!r}")
        c.done()
        return cls(agent_id, timestamp, error_type, error_code, message, query_id, context, status)


@dataclasses.dataclass
class Feedback:
    """Seed 004's feedback object, the Error Handler's answer."""

    error_id: str
    error_type: str
    error_source: str
    severity: str
    user_message: str
    recovery_suggestions: list
    automated_actions: list
    next_action: str
    confidence: float = 1.0
    context_preserved: bool = True
    query_id: str | None = None
    timestamp: str | None = None
    context: dict = dataclasses.field(default_factory=dict)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: Any) -> Feedback:
        c = Checker(data, "feedback")
        kw = {f.name: c.get(f.name, _FEEDBACK_TYPES[f.name], f.name in _FEEDBACK_REQUIRED, None)
              for f in dataclasses.fields(cls)}
        c.choice("error_type", ERROR_TYPES)
        c.choice("next_action", NEXT_ACTIONS)
        c.choice("severity", SEVERITIES)
        c.done()
        return cls(**{k: v for k, v in kw.items() if v is not None})


_FEEDBACK_TYPES = {"error_id": str, "error_type": str, "error_source": str, "severity": str,
                   "user_message": str, "recovery_suggestions": list, "automated_actions": list,
                   "next_action": str, "confidence": float, "context_preserved": bool,
                   "query_id": str, "timestamp": str, "context": dict}
_FEEDBACK_REQUIRED = {"error_id", "error_type", "error_source", "severity", "user_message",
                      "recovery_suggestions", "automated_actions", "next_action"}


# --- seed 001: the statement-parser agent's state -------------------------------------

_STATE_FIELDS = {  # name -> (type, default factory); generated_df stays out of the JSON
    "pdf_path": (str, str), "target_bank": (str, str), "pdf_content": (str, str),
    "column_headers": (list, list), "sample_rows": (list, list), "raw_sample_text": (list, list),
    "generated_code": (str, str), "parser_file_path": (str, str),
    "execution_success": (bool, bool), "output_csv_path": (str, str),
    "expected_csv_path": (str, str), "comparison_result": (dict, dict),
    "retry_count": (int, int), "max_retries": (int, lambda: 3), "errors": (list, list),
    "failure_type": (str, str), "final_status": (str, str), "attempts": (list, list),
    "llm_calls": (int, int), "tokens": (int, int), "writer": (str, lambda: "builtin"),
    "writer_settings": (dict, dict), "fallback_reason": (str, str), "rows": (int, int),
    "run_id": (str, str), "recovery": (list, list), "recovery_step": (str, str),
    "feedback": (dict, dict),
}


@dataclasses.dataclass
class StatementState:
    """Seed 001's AgentState plus the attempt history, LLM usage and the writer's settings."""

    pdf_path: str = ""
    target_bank: str = ""
    pdf_content: str = ""
    column_headers: list = dataclasses.field(default_factory=list)
    sample_rows: list = dataclasses.field(default_factory=list)
    raw_sample_text: list = dataclasses.field(default_factory=list)
    generated_code: str = ""
    parser_file_path: str = ""
    execution_success: bool = False
    generated_df: Any = dataclasses.field(default=None, repr=False, compare=False)
    output_csv_path: str = ""
    expected_csv_path: str = ""
    comparison_result: dict = dataclasses.field(default_factory=dict)
    retry_count: int = 0
    max_retries: int = 3
    errors: list = dataclasses.field(default_factory=list)
    failure_type: str = ""  # "" | "execution" | "comparison"
    final_status: str = ""  # "" | "passed" | "failed" | "unverified"
    attempts: list = dataclasses.field(default_factory=list)
    llm_calls: int = 0
    tokens: int = 0
    writer: str = "builtin"
    writer_settings: dict = dataclasses.field(default_factory=dict)
    fallback_reason: str = ""
    rows: int = 0
    run_id: str = ""  # the Error Handler's query id: its budgets count per run
    recovery: list = dataclasses.field(default_factory=list)  # the handler's decisions, in order
    recovery_step: str = ""  # its step for the latest failure (refine, ask, stop…); routes read it
    feedback: dict = dataclasses.field(default_factory=dict)  # its feedback when it ended the run

    def to_dict(self) -> dict:
        """JSON-ready; the DataFrame is left out (checkpoints re-run the parser)."""
        return {name: getattr(self, name) for name in _STATE_FIELDS}

    @classmethod
    def from_dict(cls, data: Any) -> StatementState:
        """Raises: SchemaError naming every bad field."""
        c = Checker(data, "state")
        kw = {name: c.get(name, typ, False, None) for name, (typ, _) in _STATE_FIELDS.items()}
        c.done()
        return cls(**{k: v for k, v in kw.items() if v is not None})
