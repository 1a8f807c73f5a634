"""Planning a long chain costs work in proportion to its length, whatever the operator: counted
in function calls (never in seconds), on chains of n and 2n nodes."""

from __future__ import annotations

import cProfile
import json
import pstats
from collections import Counter
from itertools import pairwise

import pytest

from runtime.cache.store import ResultStore
from runtime.document.spec import load_document
from runtime.io.paths import CACHE, FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain
from runtime.plan.prepare import prepare
from runtime.plan.reuse.reuse_pass import plan_reuse
from runtime.plan.run_options import RunOptions
from tests.runtime.cache.runs import run

CHAINS = {
    "limit": {"n": 1000},
    "filter": {"condition": "age >= 0"},
    "transform": {"mappings": [{"target": "x", "expression": "age + 1"}]},
    "select": {"columns": ["id", "age"]},
    "sort": {"by": [{"column": "age"}]},
    "cast": {"types": {"age": "integer"}},
    "fill_nulls": {"values": {"age": 0}},
    "drop_nulls": {},
    "deduplicate": {},
    "aggregate": {
        "group_by": ["id"],
        "aggregations": [{"column": "age", "function": "max", "name": "age"}],
    },
    "union": {},
    "sample": {"n": 50, "seed": 1},
}
"""The operators that can follow one another, with params that keep the columns alike."""


def chain(operator: str, length: int) -> dict:
    """users.csv → `length` nodes of `operator` → out.csv."""
    ids = ["users", *(f"n{i}" for i in range(length)), "write"]
    nodes = [{"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}}]
    nodes += [{"id": i, "operator": operator, "params": CHAINS[operator]} for i in ids[1:-1]]
    nodes.append({"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}})
    edges = [{"source": a, "target": b} for a, b in pairwise(ids)]
    return {"name": "chain", "nodes": nodes, "edges": edges}


@pytest.fixture
def area(tmp_path) -> FileArea:
    rows = "".join(f"{i},{i % 90}\n" for i in range(100))
    (tmp_path / "users.csv").write_text("id,age\n" + rows)
    return FileArea(tmp_path, cache=tmp_path / CACHE)


def planned(document: dict, area: FileArea, backend: str = "duckdb"):
    """The document's plan as `python -m runtime explain` makes it, and its text."""
    plan = build_plan(load_document(json.dumps(document)), data_root=area)
    plan = prepare(plan, backend=backend, data_root=area, options=RunOptions())
    return plan, explain(plan)


def calls(document: dict, area: FileArea) -> int:
    profile = cProfile.Profile()
    profile.runcall(planned, document, area)
    return pstats.Stats(profile).total_calls


@pytest.mark.parametrize("operator", CHAINS)
def test_planning_a_chain_twice_as_long_takes_twice_the_work(area, operator):
    planned(chain(operator, 10), area)  # what is done once per process (imports, caches)
    short, long = calls(chain(operator, 150), area), calls(chain(operator, 300), area)
    assert long < 2.2 * short, f"{short} calls for 150 nodes, {long} for 300"


def fan(branches: int) -> dict:
    """users.csv → `branches` times a sample (on pandas) then a transform (a DuckDB segment of
    its own) → one union → a filter (which moves into every branch) → out.csv."""
    mapping = {"mappings": [{"target": "x", "expression": "age + 1"}]}
    nodes = [{"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}}]
    nodes += [{"id": f"t{i}", "operator": "transform", "params": mapping} for i in range(branches)]
    nodes += [
        {"id": f"s{i}", "operator": "sample", "params": {"n": 9 + i}} for i in range(branches)
    ]
    nodes += [
        {"id": "all", "operator": "union", "params": {}},
        {"id": "adults", "operator": "filter", "params": {"condition": "age > 3"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ]
    edges = [("users", f"s{i}") for i in range(branches)] + [
        (f"s{i}", f"t{i}") for i in range(branches)
    ]
    edges += [(f"t{i}", "all") for i in range(branches)] + [("all", "adults"), ("adults", "write")]
    return {"name": "fan", "nodes": nodes, "edges": [{"source": a, "target": b} for a, b in edges]}


def test_planning_a_union_of_twice_the_branches_takes_twice_the_work(area):
    """A union's many parents, each a segment of its own, and a filter copied into each
    branch: nothing is done per pair of branches."""
    planned(fan(10), area)
    short, long = calls(fan(150), area), calls(fan(300), area)
    assert long < 2.2 * short, f"{short} calls for 150 branches, {long} for 300"


@pytest.mark.parametrize("operator", ["limit", "filter", "transform", "fill_nulls"])
def test_a_chain_of_a_thousand_nodes_plans_whole(area, operator):
    plan, text = planned(chain(operator, 1000), area)
    assert len(plan.order) == 1002 and plan.order[0] == "users" and plan.order[-1] == "write"
    assert len([s for s in plan.segments for _ in s.nodes]) == 1002  # all on DuckDB
    assert len(text.splitlines()) < 10_000


def test_a_chain_of_a_thousand_limits_gathers_them_once(area):
    plan, _ = planned(chain("limit", 1000), area, backend="pandas")
    assert not [note for note in plan.notes if "moved" in note]  # nothing for them to pass
    transforms = chain("transform", 1000)
    for node in transforms["nodes"][2:-1:2]:
        node.update(operator="limit", params={"n": 10})
    plan, _ = planned(transforms, area, backend="pandas")
    assert plan.order[1:501] == [f"n{i}" for i in range(1, 1000, 2)]  # the limits, in order
    moves = [note for note in plan.notes if "moved" in note]
    assert len(moves) == 500, "one note per limit, not one per move"


def test_planning_after_a_run_reads_each_record_once(area):
    """The plan's last run is one record for all its nodes: read per node, it made planning
    a long chain cost the square of its length."""
    document = chain("filter", 60)
    run(document, area.root, backend="pandas")
    document["nodes"][1]["params"] = {"condition": "age >= 1"}  # every node below changes
    plan = build_plan(load_document(json.dumps(document)), data_root=area)

    class Counted(ResultStore):
        def record(self, key):
            self.read = [*getattr(self, "read", []), key]
            return super().record(key)

    store = Counted(area.cache)
    planned_reuse = plan_reuse(plan, store, RunOptions(), files=area)
    assert (
        planned_reuse.cache.why["n59"] == "its settings changed"
        or "input changed" in (planned_reuse.cache.why["n59"])
    )
    assert max(Counter(store.read).values()) == 1
