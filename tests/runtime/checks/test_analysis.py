"""Validation collects every problem with node, field and fix; valid graphs get an order."""

from __future__ import annotations

import pytest

from runtime.checks.analysis import load_checked, structural_problems, validate
from runtime.errors import PipelineValidationError
from runtime.plan import build_plan
from tests.runtime.engine_operators import document, engine_registry

CASES = {
    "empty": ({}, [], []),
    "diamond": (
        {"a": "test_source", "b": "test_step", "c": "test_step", "d": "test_step"},
        ["a->b", "a->c", "b->d", "c->d"],
        [],
    ),
    "cycle": (
        {"a": "test_source", "b": "test_step", "c": "test_step", "d": "test_step"},
        ["a->b", "b->c", "c->d", "d->b"],
        ["b: these nodes form a cycle: b → c → d → b; remove one of its edges"],
    ),
    "self loop": (
        {"a": "test_step"},
        ["a->a"],
        ["a: these nodes form a cycle: a → a; remove one of its edges"],
    ),
    "unknown operator": (
        {"a": "test_sourse"},
        [],
        ["a.operator: unknown operator 'test_sourse'; did you mean 'test_source'?"],
    ),
    "bad params": (
        {"a": ("test_source", {"rows": -1, "colour": "red"})},
        [],
        [
            "a: Rows: must be at least 0",
            "a: colour: unknown field; remove it or check its spelling",
        ],
    ),
    "dangling edge": (
        {"a": "test_source"},
        ["a->ghost"],
        [
            "edges[0].target: edge a → ghost refers to node 'ghost', which does not exist; "
            "remove the edge or add the node"
        ],
    ),
    "unknown ports": (
        {"a": "test_source", "b": "test_step"},
        ["a.result->b", "a->b.input"],
        [
            "a.outputs.result: there is no output port 'result'; its output ports are: out",
            "b.inputs.input: there is no input port 'input'; its input ports are: in",
            "b.inputs.in: input port 'in' is not connected; connect an edge to it",
        ],
    ),
    "unconnected required port": (
        {"a": "test_source", "p": "test_pair"},
        ["a->p.left"],
        ["p.inputs.right: input port 'right' is not connected; connect an edge to it"],
    ),
    "two edges into a single port": (
        {"a": "test_source", "b": "test_source", "out": "test_sink"},
        ["a->out", "b->out"],
        [
            "out.inputs.in: input port 'in' takes one edge but has 2 (from a.out, b.out); "
            "remove all but one, or combine them with a union"
        ],
    ),
    "many edges into a many port": (
        {"a": "test_source", "b": "test_source", "u": "test_step"},
        ["a->u", "b->u"],
        [],
    ),
    "duplicate edge": (
        {"a": "test_source", "b": "test_step"},
        ["a->b", "a->b"],
        ["b.inputs.in: the edge a.out → b.in appears 2 times; keep one"],
    ),
}


@pytest.mark.parametrize(("nodes", "edges", "expected"), CASES.values(), ids=CASES.keys())
def test_validation_reports_every_problem_with_node_and_field(nodes, edges, expected):
    problems = validate(document(nodes, edges), registry=engine_registry())
    assert [str(problem) for problem in problems] == expected


def test_duplicate_node_ids_are_reported_once_with_the_count():
    doc = document({"a": "test_source"})
    doc.nodes.append(doc.nodes[0].model_copy())
    problems = validate(doc, registry=engine_registry())
    assert [str(p) for p in problems] == [
        "a.id: 2 nodes share the id 'a'; give each node its own id"
    ]


def test_several_kinds_of_problem_are_collected_together():
    doc = document({"a": "nope", "b": ("test_step", {"rows": "many"})}, ["a->b", "b->c"])
    codes = [problem.code for problem in validate(doc, registry=engine_registry())]
    assert codes == ["unknown_operator", "invalid_params", "dangling_edge"]


def test_structural_problems_ignore_what_a_half_built_graph_may_lack():
    doc = document({"a": "unknown_yet", "b": ("test_step", {"rows": -5})}, ["a->b"])
    assert structural_problems(doc) == []
    cyclic = document({"a": "test_step", "b": "test_step"}, ["a->b", "b->a"])
    assert [p.code for p in structural_problems(cyclic)] == ["cycle"]


def test_an_edge_naming_an_undeclared_port_is_a_structural_problem():
    """Saves and imports check structure only, so a bogus port must be caught there."""
    doc = document({"a": "test_source", "f": "test_step"}, ["a.bogus->f.nope"])
    problems = structural_problems(doc, engine_registry())
    assert [str(p) for p in problems] == [
        "a.outputs.bogus: there is no output port 'bogus'; its output ports are: out",
        "f.inputs.nope: there is no input port 'nope'; its input ports are: in",
    ]
    assert {p.code for p in problems} == {"unknown_port"}


def test_ports_of_an_unknown_operator_are_not_checked():
    doc = document({"a": "test_source", "f": "not_installed"}, ["a->f.anything"])
    assert structural_problems(doc, engine_registry()) == []


def test_a_valid_plan_orders_nodes_topologically_and_counts_consumers():
    doc = document(
        {"d": "test_step", "a": "test_source", "b": "test_step", "c": "test_step"},
        ["a->b", "a->c", "b->d", "c->d"],
    )
    plan = build_plan(doc, registry=engine_registry())
    position = {node_id: index for index, node_id in enumerate(plan.order)}
    assert position["a"] < position["b"] < position["d"]
    assert position["a"] < position["c"] < position["d"]
    assert plan.consumers[("a", "out")] == 2
    assert plan.nodes["d"].inputs == {"in": [("b", "out"), ("c", "out")]}


def test_per_node_retries_and_timeout_override_the_pipeline_config():
    doc = document({"a": "test_source", "b": "test_source"}, retries=2, timeout_s=30)
    doc.nodes[1].retries = 0
    doc.nodes[1].timeout_s = 5
    plan = build_plan(doc, registry=engine_registry())
    assert (plan.nodes["a"].retries, plan.nodes["a"].timeout_s) == (2, 30)
    assert (plan.nodes["b"].retries, plan.nodes["b"].timeout_s) == (0, 5)


def test_build_plan_raises_with_all_problems():
    doc = document({"a": "nope", "b": "nope_either"})
    with pytest.raises(PipelineValidationError, match=r"a\.operator: unknown operator 'nope'"):
        build_plan(doc, registry=engine_registry())


@pytest.mark.parametrize(
    "node_id", [[1], {"a": 1}, None, 5], ids=["list", "object", "null", "number"]
)
def test_a_document_with_bad_fields_also_reports_its_graph_problems(node_id):
    data = {
        "name": "t",
        "nodes": [{"id": node_id, "operator": "filter"}, {"id": "a", "operator": "filter"}],
        "edges": [{"source": "a", "target": "a"}, {"source": "a", "target": "gone"}],
    }
    with pytest.raises(PipelineValidationError) as raised:
        load_checked(data)
    assert [problem.code for problem in raised.value.problems] == [
        "invalid",
        "dangling_edge",
        "cycle",
    ]
