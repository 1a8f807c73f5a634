"""Predicate pushdown: a filter moves before what it commutes with, and nowhere else."""

from __future__ import annotations

import pytest

from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.plan.passes.predicate_pushdown import push_down_predicates
from tests.runtime.plan.plans import COUNTRIES_NODE, USERS_NODE, WRITE, reads, with_schemas

ADULTS = ("filter", {"condition": "age > 18"})


def pushed(tmp_path, middle, condition="age > 18", keep=()):
    """users → middle → filter → write, optimized: the plan, and the one it came from."""
    nodes = {"users": USERS_NODE, "middle": middle, "adults": ("filter", {"condition": condition})}
    plan, schemas = with_schemas(
        tmp_path, {**nodes, "write": WRITE}, ["users->middle", "middle->adults", "adults->write"]
    )
    return push_down_predicates(plan, keep, schemas), plan


def moved(plan) -> bool:
    return reads(plan, "adults") == ["users"] and reads(plan, "middle") == ["adults"]


TRANSFORM = "transform", {"mappings": [{"target": "loud", "expression": "upper(name)"}]}
OLDER = "transform", {"mappings": [{"target": "age", "expression": "age + 1"}]}


def test_a_filter_moves_before_a_transform_and_says_so(tmp_path):
    plan, original = pushed(tmp_path, TRANSFORM)
    assert moved(plan) and reads(plan, "write") == ["middle"]
    assert plan.order == ["users", "adults", "middle", "write"]
    assert plan.notes == ["filter 'adults' moved before 'middle'"]
    assert reads(original, "adults") == ["middle"], "the plan given is left as it was"


@pytest.mark.parametrize(
    "middle, condition, moves",
    [
        (TRANSFORM, "age > 18", True),
        (OLDER, "age > 18", False),
        (("select", {"columns": ["age", "name"]}), "age > 18", True),
        (("select", {"columns": [], "rename": {"name": "who"}}), "age > 18", True),
        (("select", {"columns": [], "rename": {"age": "years"}}), "years > 18", False),
        (("select", {"columns": [], "rename": {"name": "age", "age": "name"}}), "age > 'a'", False),
        (("cast", {"types": {"id": "float"}}), "age > 18", True),
        (("cast", {"types": {"age": "float"}}), "age > 18", False),
        (("fill_nulls", {"values": {"name": "?"}}), "age > 18", True),
        (("fill_nulls", {"values": {"age": 0}}), "age > 18", False),
        (("sort", {"by": [{"column": "age"}]}), "age > 18", True),
        (("limit", {"n": 2}), "age > 18", False),
        (("deduplicate", {"columns": ["country"]}), "age > 18", False),
        (("sample", {"n": 2, "seed": 1}), "age > 18", False),
        (("drop_nulls", {}), "age > 18", False),
        (("window", {"partition_by": ["age"], "functions": [{"function": "rank"}]}),
         "age > 18", True),
        (("window", {"partition_by": ["name"], "functions": [{"function": "rank"}]}),
         "age > 18", False),
    ],
    ids=[
        "transform of other columns", "transform of its column", "select keeping it",
        "select renaming another", "select renaming it", "select swapping names",
        "cast of another", "cast of it", "fill of another", "fill of it", "sort",
        "limit", "deduplicate", "sample", "drop_nulls", "window by its column",
        "window by another",
    ],
)  # fmt: skip
def test_a_filter_moves_only_before_what_keeps_its_rows_and_columns(
    tmp_path, middle, condition, moves
):
    plan, _ = pushed(tmp_path, middle, condition)
    assert moved(plan) is moves


def test_a_filter_on_a_column_missing_there_stays_and_fails_as_written(tmp_path):
    plan, _ = pushed(tmp_path, TRANSFORM, "loud = 'ADA'")
    assert not moved(plan)


def test_a_filter_moves_up_a_chain_as_far_as_it_can(tmp_path):
    nodes = {
        "users": USERS_NODE, "order": ("sort", {"by": [{"column": "name"}]}),
        "middle": TRANSFORM, "adults": ADULTS, "write": WRITE,
    }  # fmt: skip
    edges = ["users->order", "order->middle", "middle->adults", "adults->write"]
    plan, schemas = with_schemas(tmp_path, nodes, edges)
    plan = push_down_predicates(plan, schemas=schemas)
    assert plan.order == ["users", "adults", "order", "middle", "write"]
    assert plan.notes == [
        "filter 'adults' moved before 'middle'",
        "filter 'adults' moved before 'order'",
    ]


def test_a_filter_does_not_move_before_a_node_that_another_node_reads(tmp_path):
    nodes = {"users": USERS_NODE, "middle": TRANSFORM, "adults": ADULTS, "w1": WRITE, "w2": WRITE}
    edges = ["users->middle", "middle->adults", "adults->w1", "middle->w2"]
    plan, schemas = with_schemas(tmp_path, nodes, edges)
    assert reads(push_down_predicates(plan, schemas=schemas), "adults") == ["middle"]


@pytest.mark.parametrize("kept", ["middle", "adults"])
def test_a_kept_node_is_not_moved_nor_moved_past(tmp_path, kept):
    plan, _ = pushed(tmp_path, TRANSFORM, keep={kept})
    assert not moved(plan)


def test_without_schemas_filters_stay_and_a_note_says_why(tmp_path):
    _, original = pushed(tmp_path, TRANSFORM)
    plan = push_down_predicates(original)
    assert reads(plan, "adults") == ["middle"]
    assert plan.notes == ["filters stay in place: no schemas to check their columns against"]


def test_a_filter_goes_into_every_branch_of_a_union_as_copies(tmp_path):
    nodes = {
        "users": USERS_NODE, "again": ("sort", {"by": [{"column": "id"}]}),
        "both": ("union", {}), "adults": ADULTS, "write": WRITE,
    }  # fmt: skip
    edges = ["users->again", "users->both", "again->both", "both->adults", "adults->write"]
    plan, schemas = with_schemas(tmp_path, nodes, edges)
    optimized = push_down_predicates(plan, schemas=schemas)
    assert reads(optimized, "both") == ["again", "adults#2"]
    assert reads(optimized, "again") == ["adults"] and reads(optimized, "adults") == ["users"]
    assert reads(optimized, "adults#2") == ["users"] and reads(optimized, "write") == ["both"]
    assert optimized.nodes["adults#2"].params == plan.nodes["adults"].params
    assert optimized.notes == [
        "filter 'adults' moved into the branches of 'both' (as 'adults', 'adults#2')",
        "filter 'adults' moved before 'again'",
    ]
    outputs = []
    for candidate in (plan, optimized):
        assert execute(candidate, data_root=tmp_path).ok
        outputs.append((tmp_path / "out.csv").read_text())
    adults = "1,ada,36,FR\n3,cyd,52,FR\n"
    assert outputs[0] == outputs[1] == "id,name,age,country\n" + adults * 2


def test_a_filters_copies_are_reported_as_the_filter_itself(tmp_path):
    nodes = {
        "users": USERS_NODE, "again": ("sort", {"by": [{"column": "id"}]}),
        "both": ("union", {}), "adults": ADULTS, "write": WRITE,
    }  # fmt: skip
    edges = ["users->again", "users->both", "again->both", "both->adults", "adults->write"]
    plan, schemas = with_schemas(tmp_path, nodes, edges)
    sink = ListSink()
    result = execute(push_down_predicates(plan, schemas=schemas), data_root=tmp_path, sinks=[sink])
    assert set(result.nodes) == set(nodes)
    assert {event["node"] for event in sink.of_type("node_status")} == set(nodes)
    assert result.totals["nodes"] == {"succeeded": len(nodes)}


def test_a_filter_stays_after_a_union_when_a_branch_lacks_its_column(tmp_path):
    nodes = {
        "users": USERS_NODE, "countries": COUNTRIES_NODE, "both": ("union", {}),
        "named": ("filter", {"condition": "name = 'ada'"}), "write": WRITE,
    }  # fmt: skip
    edges = ["users->both", "countries->both", "both->named", "named->write"]
    plan, schemas = with_schemas(tmp_path, nodes, edges)
    assert reads(push_down_predicates(plan, schemas=schemas), "named") == ["both"]


@pytest.mark.parametrize(
    "how, suffixes, condition, side",
    [
        ("inner", ["_left", "_right"], "name = 'ada'", "left"),
        ("inner", ["_left", "_right"], "label = 'France'", "right"),
        ("inner", ["_left", "_right"], "country = 'FR'", "left"),
        ("inner", ["_left", "_right"], "name = 'ada' and label = 'France'", None),
        ("inner", ["_left", "_right"], "age_left > 18", None),
        ("inner", ["_l", ""], "age > 1", "right"),
        ("inner", ["", "_r"], "age > 1", "left"),
        ("left", ["_left", "_right"], "name = 'ada'", "left"),
        ("left", ["_left", "_right"], "label = 'France'", None),
        ("right", ["_left", "_right"], "label = 'France'", "right"),
        ("right", ["_left", "_right"], "name = 'ada'", None),
        ("outer", ["_left", "_right"], "name = 'ada'", None),
        ("semi", ["_left", "_right"], "name = 'ada'", "left"),
        ("anti", ["_left", "_right"], "age > 1", "left"),
    ],
    ids=[
        "inner, left column", "inner, right column", "inner, shared key", "inner, both sides",
        "inner, suffixed", "inner, right keeps its name", "inner, left keeps its name",
        "left join, left column", "left join, right column", "right join, right column",
        "right join, left column", "outer", "semi join", "anti join, a column both sides have",
    ],
)  # fmt: skip
def test_a_filter_goes_into_the_join_side_that_keeps_its_rows_and_columns(
    tmp_path, how, suffixes, condition, side
):
    join = "join", {"how": how, "left_on": "country", "right_on": "country", "suffixes": suffixes}
    nodes = {
        "users": USERS_NODE, "countries": COUNTRIES_NODE, "joined": join,
        "chosen": ("filter", {"condition": condition}), "write": WRITE,
    }  # fmt: skip
    edges = ["users->joined.left", "countries->joined.right", "joined->chosen", "chosen->write"]
    plan, schemas = with_schemas(tmp_path, nodes, edges)
    optimized = push_down_predicates(plan, schemas=schemas)
    ports = {port: sources[0][0] for port, sources in optimized.nodes["joined"].inputs.items()}
    expected = {"left": "users", "right": "countries"}
    if side is not None:
        expected[side] = "chosen"
    assert ports == expected
    outputs = []
    for candidate in (plan, optimized):
        assert execute(candidate, data_root=tmp_path).ok
        outputs.append((tmp_path / "out.csv").read_text())
    assert outputs[0] == outputs[1]
