"""`optimize`: every pass in turn, none of them changing the plan it is given."""

from __future__ import annotations

import pytest

from runtime.execution.executor import execute
from runtime.plan.passes import optimize
from runtime.plan.passes.common_subexpressions import merge_common_subexpressions
from runtime.plan.passes.dead_nodes import eliminate_dead_nodes
from runtime.plan.passes.limit_pushdown import push_down_limits
from runtime.plan.passes.predicate_pushdown import push_down_predicates
from tests.runtime.plan.plans import USERS_NODE, WRITE, reads, with_schemas

NODES = {
    "users": USERS_NODE,
    "again": USERS_NODE,
    "loud": ("transform", {"mappings": [{"target": "name", "expression": "upper(name)"}]}),
    "adults": ("filter", {"condition": "age > 18"}),
    "quiet": ("transform", {"mappings": [{"target": "name", "expression": "lower(name)"}]}),
    "top": ("limit", {"n": 1}),
    "unused": ("sort", {"by": [{"column": "age"}]}),
    "write": WRITE,
    "write_again": ("csv_output", {"path": "again.csv"}),
}
EDGES = [
    "users->loud", "loud->adults", "adults->write", "again->quiet", "quiet->top",
    "top->write_again",
    "users->unused",
]  # fmt: skip


def snapshot(plan) -> tuple:
    nodes = {
        node_id: (repr(node.inputs), node.row_limit, node.params)
        for node_id, node in plan.nodes.items()
    }
    return (
        nodes, list(plan.order), repr(plan.predecessors), dict(plan.consumers),
        dict(plan.eliminated), dict(plan.merged), list(plan.notes),
    )  # fmt: skip


@pytest.mark.parametrize(
    "optimization",
    [
        lambda plan, schemas: eliminate_dead_nodes(plan),
        lambda plan, schemas: merge_common_subexpressions(plan),
        lambda plan, schemas: push_down_predicates(plan, schemas=schemas),
        lambda plan, schemas: push_down_limits(plan),
        lambda plan, schemas: optimize(plan, schemas=schemas),
    ],
    ids=["dead nodes", "common subexpressions", "predicates", "limits", "optimize"],
)
def test_a_pass_leaves_the_plan_it_is_given_as_it_was(tmp_path, optimization):
    plan, schemas = with_schemas(tmp_path, NODES, EDGES)
    before = snapshot(plan)
    assert snapshot(optimization(plan, schemas)) != before
    assert snapshot(plan) == before


def test_optimize_runs_every_pass_in_turn(tmp_path):
    plan, schemas = with_schemas(tmp_path, NODES, EDGES)
    optimized = optimize(plan, schemas=schemas)
    assert optimized.eliminated == {"unused": "reaches no output"}
    assert optimized.merged == {"again": "users"}
    assert reads(optimized, "adults") == ["users"] and reads(optimized, "top") == ["users"]
    assert optimized.notes == [
        "not run (reaches no output): 'unused'",
        "'again' computed once with 'users'",
        "filter 'adults' moved before 'loud'",
        "limit 'top' moved before 'quiet'",
    ]


def test_optimize_keeps_a_previewed_node_as_written(tmp_path):
    plan, schemas = with_schemas(tmp_path, NODES, EDGES)
    optimized = optimize(plan, keep={"unused", "again"}, schemas=schemas)
    assert optimized.eliminated == {} and optimized.merged == {}


def test_filters_identical_once_moved_are_computed_once(tmp_path):
    """Each branch filters its own transform's rows; moved before the transforms, both filters
    read the users file: the next round merges them, and the outputs are unchanged."""
    nodes = {
        "users": USERS_NODE,
        "loud": ("transform", {"mappings": [{"target": "name", "expression": "upper(name)"}]}),
        "quiet": ("transform", {"mappings": [{"target": "name", "expression": "lower(name)"}]}),
        "adults": ("filter", {"condition": "age > 18"}),
        "grown": ("filter", {"condition": "age > 18"}),
        "write": WRITE,
        "write_again": ("csv_output", {"path": "again.csv"}),
    }
    edges = [
        "users->loud", "loud->adults", "adults->write",
        "users->quiet", "quiet->grown", "grown->write_again",
    ]  # fmt: skip
    plan, schemas = with_schemas(tmp_path, nodes, edges)
    optimized = optimize(plan, schemas=schemas)
    filters = [node for node in optimized.nodes.values() if node.operator.name == "filter"]
    assert [node.id for node in filters] == ["adults"] and optimized.merged == {"grown": "adults"}
    assert reads(optimized, "loud") == reads(optimized, "quiet") == ["adults"]
    assert optimized.notes == [
        "filter 'grown' moved before 'quiet'",
        "filter 'adults' moved before 'loud'",
        "'grown' computed once with 'adults'",
    ]
    written = []
    for candidate in (plan, optimized):
        assert execute(candidate, data_root=tmp_path).ok
        written.append([(tmp_path / name).read_text() for name in ("out.csv", "again.csv")])
    assert written[0] == written[1]
    assert written[1] == [
        "id,name,age,country\n1,ADA,36,FR\n3,CYD,52,FR\n",
        "id,name,age,country\n1,ada,36,FR\n3,cyd,52,FR\n",
    ]


def test_a_plan_whose_passes_change_nothing_takes_one_round(tmp_path):
    plan, schemas = with_schemas(tmp_path, {"users": USERS_NODE, "write": WRITE}, ["users->write"])
    assert optimize(plan, schemas=schemas).notes == []
