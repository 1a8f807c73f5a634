"""Dead-node elimination: what reaches no output is not run."""

from __future__ import annotations

from runtime.plan.passes.dead_nodes import eliminate_dead_nodes
from tests.runtime.plan.plans import USERS_NODE, WRITE, plan_of

SORT = ("sort", {"by": [{"column": "age"}]})
NODES = {"users": USERS_NODE, "order": SORT, "spare": SORT, "spare_2": SORT, "write": WRITE}
EDGES = ["users->order", "order->write", "users->spare", "spare->spare_2"]


def test_nodes_that_reach_no_output_are_eliminated_with_the_reason():
    plan = eliminate_dead_nodes(plan_of(NODES, EDGES))
    assert plan.order == ["users", "order", "write"]
    assert set(plan.nodes) == set(plan.predecessors) == {"users", "order", "write"}
    assert plan.eliminated == {"spare": "reaches no output", "spare_2": "reaches no output"}
    assert plan.consumers[("users", "out")] == 1
    assert plan.notes == ["not run (reaches no output): 'spare', 'spare_2'"]


def test_a_kept_node_runs_with_its_ancestors_though_it_reaches_no_output():
    plan = eliminate_dead_nodes(plan_of(NODES, EDGES), keep={"spare"})
    assert set(plan.order) == {"users", "order", "spare", "write"}
    assert plan.eliminated == {"spare_2": "reaches no output"}


def test_a_pipeline_without_outputs_keeps_every_node_and_says_why():
    nodes = {"users": USERS_NODE, "order": SORT}
    plan = eliminate_dead_nodes(plan_of(nodes, ["users->order"]))
    assert set(plan.nodes) == {"users", "order"} and plan.eliminated == {}
    assert plan.notes == ["no output node: every node runs, to show its results"]


def test_a_pipeline_whose_every_node_reaches_an_output_is_unchanged():
    nodes = {"users": USERS_NODE, "order": SORT, "write": WRITE}
    plan = plan_of(nodes, ["users->order", "order->write"])
    optimized = eliminate_dead_nodes(plan)
    assert optimized.order == plan.order and optimized.eliminated == {} and optimized.notes == []
