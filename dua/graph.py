"""A small hand-written state machine with LangGraph's builder shape.

Nodes are ``fn(state, context) -> dict`` of updates, routes are ``fn(state) -> name``.
The state is a dataclass (updated with ``dataclasses.replace``) or a plain dict.
It owns no domain logic: agents build their graphs from it.
"""
from __future__ import annotations

import dataclasses
import json
import time
from typing import Any, Callable, Iterator, Mapping, NamedTuple, Optional

from .errors import InvalidGraphError, StepLimitError
from .outputs import write_output

START = "__start__"
END = "__end__"

Node = Callable[[Any, Any], Mapping[str, Any]]
Route = Callable[[Any], str]


class Event(NamedTuple):
    """One node transition: what ran, how long it took, what it changed.

    A named tuple, not a frozen dataclass: one is made per node run, and the Error Handler
    runs eight nodes per error, where a frozen dataclass's __init__ alone cost a tenth of the
    graph's overhead.
    """

    step: int
    node: str
    duration: float
    outcome: str  # "ok" | "error"
    changed: tuple = ()
    next: Optional[str] = None
    error: Optional[str] = None

    def to_dict(self) -> dict:
        return self._asdict()


class Graph:
    """Builder: add nodes, edges and conditional edges, then ``compile()``."""

    def __init__(self, state_type: type | None = None):
        self.state_type = state_type
        self.nodes: dict[str, Node] = {}
        self.edges: dict[str, str] = {}
        self.routes: dict[str, tuple[Route, dict[str, str] | None]] = {}

    def add_node(self, name: str, fn: Node) -> Graph:
        if name in (START, END) or name in self.nodes:
            raise InvalidGraphError(f"node name {name!r} is reserved or already used")
        self.nodes[name] = fn
        return self

    def add_edge(self, src: str, dst: str) -> Graph:
        if src in self.edges or src in self.routes:
            raise InvalidGraphError(f"node {src!r} already has a way out")
        self.edges[src] = dst
        return self

    def add_conditional_edges(self, src: str, route: Route, path_map: Any = None) -> Graph:
        """``path_map`` lists the route's possible answers (a list, or a dict answer -> node)."""
        if src in self.edges or src in self.routes:
            raise InvalidGraphError(f"node {src!r} already has a way out")
        if path_map is not None and not isinstance(path_map, dict):
            path_map = {name: name for name in path_map}
        self.routes[src] = (route, path_map)
        return self

    def compile(self) -> CompiledGraph:
        """Check the wiring and freeze it.

        Raises:
            InvalidGraphError: unknown targets, nodes with no way out, unreachable nodes.
        """
        if START not in self.edges:
            raise InvalidGraphError("graph has no edge from START")
        for src in list(self.edges) + list(self.routes):
            if src != START and src not in self.nodes:
                raise InvalidGraphError(f"edge from unknown node {src!r}")
        for src, dst in self.edges.items():
            if dst != END and dst not in self.nodes:
                raise InvalidGraphError(f"edge {src!r} -> {dst!r} points to an unknown node")
        for src, (_, path_map) in self.routes.items():
            for dst in (path_map or {}).values():
                if dst != END and dst not in self.nodes:
                    raise InvalidGraphError(f"route from {src!r} can lead to unknown node {dst!r}")
        for name in self.nodes:
            if name not in self.edges and name not in self.routes:
                raise InvalidGraphError(f"node {name!r} has no way out (add an edge or a route)")
        unreachable = set(self.nodes) - self._reachable()
        if unreachable:
            raise InvalidGraphError(f"nodes unreachable from START: {', '.join(sorted(unreachable))}")
        return CompiledGraph(self)

    def _reachable(self) -> set:
        seen, todo = set(), [self.edges[START]]
        while todo:
            name = todo.pop()
            if name == END or name in seen:
                continue
            seen.add(name)
            if name in self.edges:
                todo.append(self.edges[name])
            elif name in self.routes:
                path_map = self.routes[name][1]
                # A route without a path map may go anywhere; count every node as reachable.
                todo.extend(path_map.values() if path_map else self.nodes)
        return seen


class CompiledGraph:
    """A validated graph that runs states through its nodes."""

    def __init__(self, graph: Graph):
        self.graph = graph

    def invoke(self, state: Any, **options: Any) -> Any:
        """Run to END and return the final state (same options as ``stream``)."""
        for _, state in self.stream(state, **options):
            pass
        return state

    def stream(
        self,
        state: Any,
        *,
        context: Any = None,
        step_limit: int = 100,
        on_event: Callable[[Event], None] | None = None,
        checkpoint: str | None = None,
        start_at: str | None = None,
        step: int = 0,
    ) -> Iterator[tuple[Event, Any]]:
        """Yield ``(event, state)`` after every node.

        Raises:
            StepLimitError: more than ``step_limit`` nodes ran.
        """
        current = start_at or self.graph.edges[START]
        while current != END:
            if step >= step_limit:
                raise StepLimitError(
                    f"workflow stopped after {step} steps before running {current!r}",
                    step_limit=step_limit,
                    node=current,
                )
            step += 1
            state, event = self._run_node(current, state, context, step, on_event)
            current = event.next
            if checkpoint:
                save_checkpoint(checkpoint, state, current, step)
            yield event, state

    def resume(self, checkpoint: str, **options: Any) -> Any:
        """Continue a run from the checkpoint file written by an earlier run."""
        with open(checkpoint, encoding="utf-8") as fh:
            saved = json.load(fh)
        state = _state_from_dict(self.graph.state_type, saved["state"])
        if saved["next"] == END:
            return state
        options.setdefault("checkpoint", checkpoint)
        return self.invoke(state, start_at=saved["next"], step=saved["step"], **options)

    def _run_node(self, name, state, context, step, on_event):
        started = time.perf_counter()
        try:
            updates = self.graph.nodes[name](state, context) or {}
            state = apply_updates(state, updates, name)
            nxt = self._next(name, state)
        except Exception as exc:
            event = Event(step, name, time.perf_counter() - started, "error",
                          error=f"{type(exc).__name__}: {exc}")
            if on_event:
                on_event(event)
            raise
        event = Event(step, name, time.perf_counter() - started, "ok", tuple(updates), nxt)
        if on_event:
            on_event(event)
        return state, event

    def _next(self, name: str, state: Any) -> str:
        if name in self.graph.edges:
            return self.graph.edges[name]
        route, path_map = self.graph.routes[name]
        answer = route(state)
        if path_map is not None:
            if answer not in path_map:
                raise InvalidGraphError(
                    f"route after {name!r} returned {answer!r}, not one of {sorted(path_map)}"
                )
            return path_map[answer]
        if answer != END and answer not in self.graph.nodes:
            raise InvalidGraphError(f"route after {name!r} returned unknown node {answer!r}")
        return answer


def apply_updates(state: Any, updates: Mapping[str, Any], node: str) -> Any:
    """Return ``state`` with ``updates`` applied; an unknown key names the node."""
    if isinstance(state, dict):
        return {**state, **updates}
    known = {f.name for f in dataclasses.fields(state)}
    unknown = sorted(set(updates) - known)
    if unknown:
        raise InvalidGraphError(f"node {node!r} returned unknown state keys: {', '.join(unknown)}")
    return dataclasses.replace(state, **updates)


def save_checkpoint(path: str, state: Any, next_node: str, step: int) -> None:
    """Write the state atomically so that a crash never leaves half a checkpoint."""
    doc = {"next": next_node, "step": step, "state": _state_to_dict(state)}
    write_output(path, json.dumps(doc))


def _state_to_dict(state: Any) -> dict:
    if isinstance(state, dict):
        return state
    if hasattr(state, "to_dict"):
        return state.to_dict()
    return dataclasses.asdict(state)


def _state_from_dict(state_type: type | None, data: dict) -> Any:
    if state_type is None:
        return data
    if hasattr(state_type, "from_dict"):
        return state_type.from_dict(data)
    return state_type(**data)
