"""The provider-neutral answer of one LLM call (seed 002). The ResponseHandler lands here too."""
from __future__ import annotations

import dataclasses


@dataclasses.dataclass
class ToolCall:
    """One tool (function) call; ``arguments`` is the parsed JSON object."""

    name: str
    arguments: dict
    id: str | None = None
    raw_arguments: str | None = None


@dataclasses.dataclass
class Usage:
    """Token accounting; ``+`` sums usage across calls."""

    input_tokens: int = 0
    output_tokens: int = 0
    calls: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(self.input_tokens + other.input_tokens,
                     self.output_tokens + other.output_tokens, self.calls + other.calls)

    def to_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass
class Response:
    """What every provider returns, so that no caller knows which one answered."""

    text: str = ""
    tool_calls: list = dataclasses.field(default_factory=list)
    finish_reason: str | None = None
    usage: Usage = dataclasses.field(default_factory=Usage)
    raw: object = None
    model: str | None = None
    provider: str | None = None
