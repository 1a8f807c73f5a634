"""Limit pushdown: a limit moves before row-wise maps, and an exact input reads only its rows."""

from __future__ import annotations

from itertools import pairwise

import pandas as pd
import pytest

from runtime.execution.executor import execute
from runtime.plan.passes.limit_pushdown import push_down_limits
from tests.runtime.plan.plans import USERS_NODE, WRITE, plan_of, reads

TOP = ("limit", {"n": 2})
LOUD = ("transform", {"mappings": [{"target": "name", "expression": "upper(name)"}]})
PICK = ("select", {"columns": ["id", "name"]})
PARQUET = ("parquet_input", {"path": "users.parquet"})


def chain(*steps) -> tuple[dict, list[str]]:
    """users → the steps in order → write."""
    names = ["users", *(name for name, _ in steps), "write"]
    nodes = {"users": USERS_NODE, **dict(steps), "write": WRITE}
    return nodes, [f"{a}->{b}" for a, b in pairwise(names)]


def test_a_limit_moves_before_the_row_wise_maps_above_it():
    plan = push_down_limits(plan_of(*chain(("loud", LOUD), ("pick", PICK), ("top", TOP))))
    assert plan.order == ["users", "top", "loud", "pick", "write"]
    assert reads(plan, "loud") == ["top"] and reads(plan, "write") == ["pick"]
    assert plan.notes == ["limit 'top' moved before 'loud' (past 2 row-wise nodes)"]
    assert plan.reshaped.keys() == {"top", "loud", "pick"}


@pytest.mark.parametrize(
    "blocker",
    [("sort", {"by": [{"column": "age"}]}), ("filter", {"condition": "age > 18"})],
    ids=["sort", "filter"],
)
def test_a_limit_stops_below_an_operator_that_looks_at_every_row(blocker):
    plan = push_down_limits(plan_of(*chain(("stop", blocker), ("loud", LOUD), ("top", TOP))))
    assert plan.order == ["users", "stop", "top", "loud", "write"]


def test_a_limit_does_not_move_before_a_node_another_node_reads():
    nodes, edges = chain(("loud", LOUD), ("top", TOP))
    plan = push_down_limits(plan_of({**nodes, "w2": WRITE}, [*edges, "loud->w2"]))
    assert reads(plan, "top") == ["loud"]


def test_a_kept_node_is_not_moved_past():
    plan = push_down_limits(plan_of(*chain(("loud", LOUD), ("top", TOP))), keep={"loud"})
    assert reads(plan, "top") == ["loud"]


def parquet_users(tmp_path, rows: int = 10) -> None:
    frame = pd.DataFrame({"id": range(rows), "name": [f"u{i}" for i in range(rows)]})
    frame.to_parquet(tmp_path / "users.parquet", index=False)


def test_a_limit_that_reaches_a_parquet_input_makes_it_read_only_those_rows(tmp_path):
    parquet_users(tmp_path)
    nodes, edges = chain(("loud", LOUD), ("top", TOP))
    plan = plan_of({**nodes, "users": PARQUET}, edges)
    optimized = push_down_limits(plan)
    assert optimized.nodes["users"].row_limit == 2 and plan.nodes["users"].row_limit is None
    assert optimized.notes[-1] == "limit 'top' makes 'users' read only 2 rows"
    written = []
    for candidate in (plan, optimized):
        result = execute(candidate, data_root=tmp_path)
        assert result.ok
        written.append((tmp_path / "out.csv").read_text())
    assert written[0] == written[1] == "id,name\n0,U0\n1,U1\n"
    assert result.nodes["users"].rows_out == 2, "the optimized run read only two rows"


def test_a_run_row_limit_smaller_than_the_nodes_wins(tmp_path):
    parquet_users(tmp_path)
    plan = push_down_limits(
        plan_of({"users": PARQUET, "top": TOP, "write": WRITE}, ["users->top", "top->write"])
    )
    result = execute(plan, data_root=tmp_path, row_limit=1)
    assert result.nodes["users"].rows_out == 1


def test_a_csv_input_reads_every_row_as_its_types_may_depend_on_them():
    """A CSV file's column types are guessed from its rows: its first rows alone could give
    other types than the whole file, so the limit stays but the file is read whole."""
    plan = push_down_limits(plan_of(*chain(("top", TOP))))
    assert plan.nodes["users"].row_limit is None


def test_an_input_read_by_another_node_reads_every_row(tmp_path):
    nodes, edges = chain(("top", TOP))
    plan = plan_of({**nodes, "users": PARQUET, "w2": WRITE}, [*edges, "users->w2"])
    assert push_down_limits(plan).nodes["users"].row_limit is None


def test_two_limits_on_one_input_read_the_fewer_rows(tmp_path):
    nodes, edges = chain(("top", ("limit", {"n": 5})), ("fewer", ("limit", {"n": 3})))
    plan = push_down_limits(plan_of({**nodes, "users": PARQUET}, edges))
    assert plan.nodes["users"].row_limit == 3


def test_limits_among_maps_gather_at_the_top_of_their_chain_in_their_order(tmp_path):
    """Each limit passes the maps above it and stops at the limits already there, so a chain
    whose limits and maps alternate is rewired once; the rows are those of the document."""
    parquet_users(tmp_path)
    steps = [("l1", ("limit", {"n": 4})), ("loud", LOUD), ("l2", ("limit", {"n": 3}))]
    steps += [("pick", PICK), ("l3", ("limit", {"n": 5}))]
    nodes, edges = chain(*steps)
    plan = plan_of({**nodes, "users": PARQUET}, edges)
    optimized = push_down_limits(plan)
    assert optimized.order == ["users", "l1", "l2", "l3", "loud", "pick", "write"]
    assert optimized.notes == [
        "limit 'l2' moved before 'loud'",
        "limit 'l3' moved before 'loud' (past 2 row-wise nodes)",
        "limit 'l2' makes 'users' read only 3 rows",
    ]
    assert optimized.reshaped.keys() == {"users", "l1", "l2", "l3", "loud", "pick"}
    written = []
    for candidate in (plan, optimized):
        assert execute(candidate, data_root=tmp_path).ok
        written.append((tmp_path / "out.csv").read_text())
    assert written[0] == written[1] == "id,name\n0,U0\n1,U1\n2,U2\n"


def test_a_limit_above_the_smallest_is_reshaped_the_ones_below_are_not(tmp_path):
    steps = [("l5", ("limit", {"n": 5})), ("l2", ("limit", {"n": 2})), ("l9", ("limit", {"n": 9}))]
    nodes, edges = chain(*steps)
    plan = push_down_limits(plan_of({**nodes, "users": PARQUET}, edges))
    assert plan.nodes["users"].row_limit == 2
    assert plan.reshaped.keys() == {"users", "l5"}


def test_a_limit_read_by_two_nodes_still_moves(tmp_path):
    nodes, edges = chain(("loud", LOUD), ("top", TOP))
    plan = push_down_limits(plan_of({**nodes, "w2": WRITE}, [*edges, "top->w2"]))
    assert reads(plan, "top") == ["users"] and reads(plan, "loud") == ["top"]
    assert reads(plan, "write") == reads(plan, "w2") == ["loud"]
