"""Common-subexpression elimination: identical nodes are computed once."""

from __future__ import annotations

import pytest

from runtime.operators.rows import Sample
from runtime.operators.sql.reading import SqlInput
from runtime.plan.passes.common_subexpressions import merge_common_subexpressions
from tests.runtime.plan.plans import USERS_NODE, WRITE, plan_of, reads

ADULTS = ("filter", {"condition": "age > 18"})
ORDER = ("sort", {"by": [{"column": "age"}]})


def test_an_identical_node_is_merged_and_its_consumers_read_the_kept_one():
    nodes = {"users": USERS_NODE, "a": ADULTS, "b": ADULTS, "w1": WRITE, "w2": WRITE}
    plan = merge_common_subexpressions(plan_of(nodes, ["users->a", "users->b", "a->w1", "b->w2"]))
    assert plan.merged == {"b": "a"}
    assert "b" not in plan.nodes and "b" not in plan.order
    assert reads(plan, "w2") == ["a"] and plan.consumers[("a", "out")] == 2
    assert plan.notes == ["'b' computed once with 'a'"]


def test_merged_parents_make_their_identical_children_merge_too():
    nodes = {
        "users": USERS_NODE, "copy": USERS_NODE, "a": ADULTS, "b": ADULTS,
        "sa": ORDER, "sb": ORDER, "w1": WRITE, "w2": WRITE,
    }  # fmt: skip
    edges = ["users->a", "copy->b", "a->sa", "b->sb", "sa->w1", "sb->w2"]
    plan = merge_common_subexpressions(plan_of(nodes, edges))
    assert plan.merged == {"copy": "users", "b": "a", "sb": "sa"}
    assert reads(plan, "w2") == ["sa"]


def test_params_are_compared_after_parameter_substitution():
    nodes = {
        "users": USERS_NODE,
        "a": ("filter", {"condition": "age > ${least}"}),
        "b": ADULTS,
        "w1": WRITE,
        "w2": WRITE,
    }
    edges = ["users->a", "users->b", "a->w1", "b->w2"]
    plan = plan_of(nodes, edges, parameters={"least": 18})
    assert merge_common_subexpressions(plan).merged == {"b": "a"}


@pytest.mark.parametrize(
    "b, b_edges",
    [
        (("filter", {"condition": "age > 19"}), ["users->b"]),
        (ADULTS, ["a->b"]),
    ],
    ids=["other params", "other inputs"],
)
def test_nodes_with_other_params_or_inputs_are_not_merged(b, b_edges):
    nodes = {"users": USERS_NODE, "a": ADULTS, "b": b, "w1": WRITE, "w2": WRITE}
    plan = merge_common_subexpressions(plan_of(nodes, ["users->a", *b_edges, "a->w1", "b->w2"]))
    assert plan.merged == {} and set(plan.nodes) == set(nodes)


def test_nodes_with_other_retries_are_not_merged():
    nodes = {"users": USERS_NODE, "a": ADULTS, "b": ADULTS, "w1": WRITE, "w2": WRITE}
    plan = plan_of(nodes, ["users->a", "users->b", "a->w1", "b->w2"])
    plan.nodes["b"].retries = 3
    assert merge_common_subexpressions(plan).merged == {}


def test_random_draws_are_never_merged():
    sample = ("sample", {"n": 1})
    nodes = {"users": USERS_NODE, "a": sample, "b": sample, "w1": WRITE, "w2": WRITE}
    plan = plan_of(nodes, ["users->a", "users->b", "a->w1", "b->w2"])
    assert merge_common_subexpressions(plan).merged == {}


def test_two_identical_writes_both_run():
    nodes = {"users": USERS_NODE, "w1": WRITE, "w2": WRITE}
    plan = plan_of(nodes, ["users->w1", "users->w2"])
    assert merge_common_subexpressions(plan).merged == {}


@pytest.mark.parametrize("operator", [Sample, SqlInput], ids=["sample", "sql_input"])
def test_operators_whose_rows_may_differ_between_two_reads_say_so(operator):
    assert operator.deterministic is False


def test_a_kept_node_is_not_merged_away():
    nodes = {"users": USERS_NODE, "a": ADULTS, "b": ADULTS, "w1": WRITE, "w2": WRITE}
    plan = plan_of(nodes, ["users->a", "users->b", "a->w1", "b->w2"])
    assert merge_common_subexpressions(plan, keep={"b"}).merged == {}
