import dataclasses
import json
import os
import tempfile
import unittest

from dua.errors import InvalidGraphError, StepLimitError
from dua.graph import END, START, Graph


@dataclasses.dataclass
class Counter:
    count: int = 0
    target: int = 3
    trail: list = dataclasses.field(default_factory=list)


def increment(state, context):
    return {"count": state.count + 1, "trail": state.trail + ["inc"]}


def finish(state, context):
    return {"trail": state.trail + ["finish"]}


def route_after_increment(state):
    return "finish" if state.count >= state.target else "increment"


def retry_graph():
    return (
        Graph(Counter)
        .add_node("increment", increment)
        .add_node("finish", finish)
        .add_edge(START, "increment")
        .add_conditional_edges("increment", route_after_increment, ["increment", "finish"])
        .add_edge("finish", END)
    )


class GraphRunTest(unittest.TestCase):
    def test_a_node_is_revisited_until_the_route_condition_holds(self):
        final = retry_graph().compile().invoke(Counter(target=3))
        self.assertEqual(final.count, 3)
        self.assertEqual(final.trail, ["inc", "inc", "inc", "finish"])

    def test_updates_replace_fields_without_mutating_the_input_state(self):
        start = Counter(target=1)
        retry_graph().compile().invoke(start)
        self.assertEqual((start.count, start.trail), (0, []))

    def test_route_path_map_translates_answers_to_nodes(self):
        graph = (
            Graph(Counter)
            .add_node("increment", increment)
            .add_node("finish", finish)
            .add_edge(START, "increment")
            .add_conditional_edges("increment", lambda s: s.count >= 2,
                                   {True: "finish", False: "increment"})
            .add_edge("finish", END)
        )
        self.assertEqual(graph.compile().invoke(Counter()).count, 2)

    def test_dict_states_are_supported(self):
        graph = Graph().add_node("a", lambda s, c: {"x": s["x"] * 2}).add_edge(START, "a").add_edge("a", END)
        self.assertEqual(graph.compile().invoke({"x": 21}), {"x": 42})

    def test_context_reaches_every_node(self):
        seen = []
        graph = Graph(Counter).add_node("a", lambda s, c: seen.append(c) or {})
        graph.add_edge(START, "a").add_edge("a", END)
        graph.compile().invoke(Counter(), context={"clock": 1})
        self.assertEqual(seen, [{"clock": 1}])

    def test_step_limit_raises_a_typed_recursion_error(self):
        with self.assertRaises(StepLimitError) as ctx:
            retry_graph().compile().invoke(Counter(target=100), step_limit=5)
        self.assertIsInstance(ctx.exception, RecursionError)
        self.assertEqual(ctx.exception.step_limit, 5)
        self.assertEqual(ctx.exception.node, "increment")

    def test_unknown_state_key_names_the_node(self):
        graph = Graph(Counter).add_node("bad", lambda s, c: {"nope": 1})
        graph.add_edge(START, "bad").add_edge("bad", END)
        with self.assertRaisesRegex(InvalidGraphError, "node 'bad' returned unknown state keys: nope"):
            graph.compile().invoke(Counter())

    def test_a_route_answer_outside_its_path_map_is_an_error(self):
        graph = Graph(Counter).add_node("a", increment)
        graph.add_edge(START, "a").add_conditional_edges("a", lambda s: "elsewhere", ["a", END])
        with self.assertRaisesRegex(InvalidGraphError, "returned 'elsewhere'"):
            graph.compile().invoke(Counter())


class GraphEventsTest(unittest.TestCase):
    def test_every_node_transition_is_an_event_with_duration_and_changes(self):
        events = []
        retry_graph().compile().invoke(Counter(target=2), on_event=events.append)
        self.assertEqual([e.node for e in events], ["increment", "increment", "finish"])
        self.assertEqual([e.step for e in events], [1, 2, 3])
        self.assertEqual([e.next for e in events], ["increment", "finish", END])
        self.assertTrue(all(e.outcome == "ok" and e.duration >= 0 for e in events))
        self.assertEqual(events[0].changed, ("count", "trail"))
        json.dumps([e.to_dict() for e in events])

    def test_a_failing_node_emits_an_error_event_and_raises(self):
        def boom(state, context):
            raise KeyError("missing")

        events = []
        graph = Graph(Counter).add_node("boom", boom).add_edge(START, "boom").add_edge("boom", END)
        with self.assertRaises(KeyError):
            graph.compile().invoke(Counter(), on_event=events.append)
        self.assertEqual((events[0].node, events[0].outcome), ("boom", "error"))
        self.assertIn("KeyError", events[0].error)

    def test_stream_yields_each_intermediate_state(self):
        counts = [s.count for _, s in retry_graph().compile().stream(Counter(target=2))]
        self.assertEqual(counts, [1, 2, 2])


class GraphCheckpointTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.path = os.path.join(self.dir.name, "run.json")

    def tearDown(self):
        self.dir.cleanup()

    def test_checkpoint_after_each_node_records_the_next_node(self):
        retry_graph().compile().invoke(Counter(target=2), checkpoint=self.path)
        with open(self.path) as fh:
            saved = json.load(fh)
        self.assertEqual(saved["next"], END)
        self.assertEqual(saved["state"]["count"], 2)

    def test_an_interrupted_run_resumes_from_its_checkpoint(self):
        compiled = retry_graph().compile()
        with self.assertRaises(StepLimitError):
            compiled.invoke(Counter(target=4), checkpoint=self.path, step_limit=2)
        final = compiled.resume(self.path)
        self.assertEqual(final.count, 4)
        self.assertEqual(final.trail, ["inc"] * 4 + ["finish"])

    def test_resuming_a_finished_run_returns_its_final_state(self):
        compiled = retry_graph().compile()
        compiled.invoke(Counter(target=1), checkpoint=self.path)
        self.assertEqual(compiled.resume(self.path).trail, ["inc", "finish"])


class GraphCompileTest(unittest.TestCase):
    def test_missing_start_edge_is_rejected(self):
        graph = Graph().add_node("a", increment).add_edge("a", END)
        with self.assertRaisesRegex(InvalidGraphError, "no edge from START"):
            graph.compile()

    def test_edge_to_unknown_node_is_rejected_by_name(self):
        graph = Graph().add_node("a", increment).add_edge(START, "a").add_edge("a", "ghost")
        with self.assertRaisesRegex(InvalidGraphError, "'ghost'"):
            graph.compile()

    def test_route_to_unknown_node_is_rejected_by_name(self):
        graph = Graph().add_node("a", increment).add_edge(START, "a")
        graph.add_conditional_edges("a", lambda s: END, ["ghost", END])
        with self.assertRaisesRegex(InvalidGraphError, "unknown node 'ghost'"):
            graph.compile()

    def test_node_without_a_way_out_is_rejected_by_name(self):
        graph = Graph().add_node("a", increment).add_node("b", finish)
        graph.add_edge(START, "a").add_edge("a", "b")
        with self.assertRaisesRegex(InvalidGraphError, "node 'b' has no way out"):
            graph.compile()

    def test_unreachable_node_is_rejected_by_name(self):
        graph = Graph().add_node("a", increment).add_node("island", finish)
        graph.add_edge(START, "a").add_edge("a", END).add_edge("island", END)
        with self.assertRaisesRegex(InvalidGraphError, "unreachable from START: island"):
            graph.compile()

    def test_edge_from_unknown_node_is_rejected(self):
        graph = Graph().add_node("a", increment).add_edge(START, "a").add_edge("a", END)
        graph.add_edge("ghost", "a")
        with self.assertRaisesRegex(InvalidGraphError, "unknown node 'ghost'"):
            graph.compile()

    def test_duplicate_node_and_second_exit_are_rejected(self):
        graph = Graph().add_node("a", increment)
        with self.assertRaises(InvalidGraphError):
            graph.add_node("a", finish)
        graph.add_edge("a", END)
        with self.assertRaises(InvalidGraphError):
            graph.add_conditional_edges("a", route_after_increment)


if __name__ == "__main__":
    unittest.main()
