"""Fusion: which nodes form segments, and which backend the document asks for."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest

from runtime.errors import NotLowerable
from runtime.execution.tasks import tasks_of
from runtime.io.paths import FileArea
from runtime.operators.contract import Operator, Port
from runtime.operators.registry import Registry
from runtime.plan import build_plan
from runtime.plan.fusion import MAX_SEGMENT_NODES, fuse
from runtime.relational import Input, Relation
from runtime.tables.schema import Column, Schema
from tests.runtime.engine_operators import document


@dataclass(frozen=True)
class Step(Relation):
    input: Relation
    name: str


class Lowers(Operator):
    """A row-wise step that lowers."""

    name = "lowers"
    kind = "process"
    title = "Lowers"

    def output_schema(self, ctx, inputs):
        return {"out": inputs["in"]}

    def lower(self, params, inputs, schemas):
        return {"out": Step(inputs["in"], "lowers")}


class Root(Lowers):
    name = "root"
    kind = "input"
    inputs = ()

    def output_schema(self, ctx, inputs):
        return {"out": Schema.of(Column("x", "integer"))}

    def lower(self, params, inputs, schemas):
        return {"out": Step(Input(("nowhere", "out")), "root")}


class Stays(Lowers):
    """A step that only runs on pandas."""

    name = "stays"

    def lower(self, params, inputs, schemas):
        raise NotLowerable("it needs Python")


class Both(Lowers):
    name = "both"
    inputs = (Port("left"), Port("right"))

    def output_schema(self, ctx, inputs):
        return {"out": inputs["left"]}

    def lower(self, params, inputs, schemas):
        return {"out": Step(inputs["left"], f"both:{inputs['right']}")}


class Opens(Lowers):
    """A step that lowers but has a lifecycle (a client it opens per node)."""

    name = "opens"

    def open(self, ctx):
        ctx.resources["client"] = object()


REGISTRY = Registry([Root, Lowers, Stays, Both, Opens])


def fused(nodes: dict, edges: list[str], backend: str = "duckdb", **options):
    plan = build_plan(document(nodes, edges), registry=REGISTRY)
    return fuse(plan, backend, data_root=FileArea.of("."), **options)


def test_a_chain_of_nodes_that_lower_is_one_segment():
    plan = fused({"a": "root", "b": "lowers", "c": "lowers"}, ["a->b", "b->c"])
    [segment] = plan.segments
    assert segment.nodes == ("a", "b", "c")
    assert segment.backend == "duckdb"
    # each member's relation is built on its parent's
    assert segment.relations["c"]["out"].input is segment.relations["b"]["out"]


def test_a_node_that_cannot_lower_splits_the_chain_and_says_why():
    plan = fused({"a": "root", "b": "stays", "c": "lowers"}, ["a->b", "b->c"])
    assert [segment.nodes for segment in plan.segments] == [("a",), ("c",)]
    assert "b runs on pandas: it needs Python" in plan.notes
    # c reads b's frame from outside its segment
    assert plan.segments[1].relations["c"]["out"].input == Input(("b", "out"))


def test_an_operator_with_open_and_close_runs_alone_and_says_why():
    plan = fused({"a": "root", "b": "opens", "c": "lowers"}, ["a->b", "b->c"])
    assert [segment.nodes for segment in plan.segments] == [("a",), ("c",)]
    assert "b runs on pandas: an operator with open/close runs alone, not fused" in plan.notes


def test_a_segment_never_waits_for_a_pandas_node_that_waits_for_it():
    # a → b(pandas) → d, and a → d: a and d cannot share a segment (a cycle of tasks)
    nodes = {"a": "root", "b": "stays", "d": "both"}
    plan = fused(nodes, ["a->b", "a->d.left", "b->d.right"])
    assert sorted(segment.nodes for segment in plan.segments) == [("a",), ("d",)]
    tasks = tasks_of(plan, set())
    assert tasks.predecessors[_task_of(plan, "d")] == {"b", _task_of(plan, "a")}


def test_two_lowered_branches_meeting_in_a_join_are_one_segment():
    nodes = {"a": "root", "b": "root", "j": "both"}
    plan = fused(nodes, ["a->j.left", "b->j.right"])
    assert [set(segment.nodes) for segment in plan.segments] == [{"a", "b", "j"}]


def test_backend_pandas_lowers_nothing():
    plan = fused({"a": "root", "b": "lowers"}, ["a->b"], backend="pandas")
    assert plan.segments == []
    assert plan.notes == ["backend pandas: every node runs on pandas"]


def test_backend_auto_keeps_small_inputs_on_pandas():
    plan = fused({"a": "root", "b": "lowers"}, ["a->b"], backend="auto")
    assert plan.segments == []
    assert "the inputs are small" in plan.notes[0]


def test_kept_nodes_stay_on_pandas():
    plan = fused({"a": "root", "b": "lowers"}, ["a->b"], keep={"b"})
    assert [segment.nodes for segment in plan.segments] == [("a",)]


def test_tasks_stand_for_their_segment_nodes():
    plan = fused({"a": "root", "b": "lowers", "c": "stays"}, ["a->b", "b->c"])
    tasks = tasks_of(plan, set())
    segment = plan.segments[0]
    assert tasks.members[segment.id] == ("a", "b")
    assert tasks.predecessors["c"] == {segment.id}
    assert tasks.nodes[segment.id].operator.exits == [("b", "out")]


def _task_of(plan, node_id):
    return next(segment.id for segment in plan.segments if node_id in segment.nodes)


@pytest.mark.parametrize("backend", ["auto", "duckdb", "pandas"])
def test_every_backend_keeps_the_document_order_of_nodes(backend):
    plan = fused({"a": "root", "b": "lowers"}, ["a->b"], backend=backend)
    assert plan.order == ["a", "b"]


def test_a_long_chain_becomes_segments_of_at_most_the_largest_size():
    nodes = {"a": "root", **{f"n{index}": "lowers" for index in range(149)}}
    names = list(nodes)
    plan = fused(nodes, [f"{left}->{right}" for left, right in itertools.pairwise(names)])
    assert [len(segment.nodes) for segment in plan.segments] == [
        MAX_SEGMENT_NODES,
        MAX_SEGMENT_NODES,
        150 - 2 * MAX_SEGMENT_NODES,
    ]
    later = plan.segments[1]
    assert later.relations[later.nodes[0]]["out"].input == Input(
        (plan.segments[0].nodes[-1], "out")
    )
