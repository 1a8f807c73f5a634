"""What the result store keeps, chosen from past runs: a result that took longer to store
than to recompute from the stored results above it is left out, said in `explain` with its
figures; a node edited before is kept; `--no-tuning` and the document's settings win."""

from __future__ import annotations

import json

import pytest

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import CACHE, FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions
from runtime.plan.tuned import node_shapes, profile_key
from runtime.tuning.figures import NodeFigures, node_figures
from runtime.tuning.profiles import FORMAT, VERSION, profile_path, read_profile
from runtime.tuning.storing import not_kept

DOC = {
    "format": "pipewright.pipeline",
    "version": 2,
    "name": "stored",
    "config": {"backend": "pandas"},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}},
        {"id": "keep", "operator": "filter", "params": {"condition": "v >= 0"}},
        {
            "id": "totals",
            "operator": "aggregate",
            "params": {
                "group_by": ["k"],
                "aggregations": [{"column": "v", "function": "sum", "name": "t"}],
            },
        },
        {"id": "write", "operator": "csv_output", "params": {"path": "out/out.csv"}},
    ],
    "edges": [
        {"source": "read", "target": "keep"},
        {"source": "keep", "target": "totals"},
        {"source": "totals", "target": "write"},
    ],
}


@pytest.fixture
def area(tmp_path) -> FileArea:
    (tmp_path / "in.csv").write_text("k,v\n" + "".join(f"{i % 7},{i}\n" for i in range(100)))
    return FileArea(tmp_path, cache=tmp_path / CACHE)


def planned(area: FileArea, doc: dict = DOC, **options):
    return prepare(build_plan(load_document(doc)), data_root=area, options=RunOptions(**options))


def seed_profile(area: FileArea, writes: dict[str, tuple[float, float]], doc: dict = DOC):
    """A profile of 3 runs in which each node of `writes` took (seconds, store seconds)."""
    plan = build_plan(load_document(doc))
    path = profile_path(area.cache, profile_key(plan))
    path.parent.mkdir(parents=True, exist_ok=True)
    shapes = node_shapes(plan)
    nodes = {
        shapes[node_id]: [{"rows": 100, "bytes": 800, "seconds": seconds, "backend": "pandas",
                           "store_s": store_s, "stored_bytes": 4096}] * 3
        for node_id, (seconds, store_s) in writes.items()
    }  # fmt: skip
    path.write_text(json.dumps({"format": FORMAT, "version": VERSION, "runs": [], "nodes": nodes}))


def figures(node: str, seconds: float, store_s: float | None) -> NodeFigures:
    return NodeFigures(node, 100, 800, seconds, 5, "pandas", store_s=store_s, stored_bytes=1 << 20)


def test_a_run_records_how_long_each_result_took_to_store(area):
    plan = planned(area)
    assert execute(plan, data_root=area).ok
    measured = node_figures(read_profile(plan.profile), plan.shapes)
    assert measured["keep"].store_s > 0 and measured["keep"].stored_bytes > 0
    assert measured["write"].store_s is None  # an output stores no result of its own


def test_a_result_quicker_to_recompute_than_to_store_is_not_kept_and_explain_says_why(area):
    seed_profile(area, {"read": (0.5, 0.1), "keep": (0.02, 0.4), "totals": (0.3, 0.02)})
    plan = planned(area)
    text = explain(plan)
    assert (
        "result of keep not kept: re-computing it from stored results took 0.02 s, "
        "storing it (4.0 KiB) took 0.40 s in the last 3 runs (median)" in text
    )
    assert "result of read not kept" not in text and "result of totals" not in text
    assert execute(plan, data_root=area).ok
    store, keys = plan.cache.store, plan.cache.keys
    assert not store.has(keys.ports[("keep", "out")])
    assert store.has(keys.ports[("read", "out")]) and store.has(keys.ports[("totals", "out")])


def test_an_edit_below_a_result_not_kept_recomputes_it_from_the_stored_results_above(area):
    seed_profile(area, {"read": (0.5, 0.1), "keep": (0.02, 0.4), "totals": (0.3, 0.02)})
    assert execute(planned(area), data_root=area).ok
    edited = json.loads(json.dumps(DOC))
    edited["nodes"][2]["params"]["aggregations"][0]["function"] = "max"
    plan = planned(area, edited)
    assert "read" in plan.cache.reading  # the file is not read again
    assert plan.cache.why["keep"] == (
        "its result was not kept: past runs computed it sooner than they stored it"
    )
    assert "keep" in plan.nodes and execute(plan, data_root=area).ok
    assert (area.root / "out/out.csv").read_text().splitlines()[1] == "0,98"


def test_a_result_left_out_stays_out_after_an_edit_below_it(area):
    """The figures that left it out are its own: an edit below changes none of them."""
    seed_profile(area, {"read": (0.5, 0.1), "keep": (0.02, 0.4), "totals": (0.3, 0.02)})
    assert execute(planned(area), data_root=area).ok
    edited = json.loads(json.dumps(DOC))
    edited["nodes"][2]["params"]["aggregations"][0]["function"] = "max"
    plan = planned(area, edited, fresh=True)
    assert "result of keep not kept: re-computing it from stored results took" in explain(plan)
    assert execute(plan, data_root=area).ok
    assert not plan.cache.store.has(plan.cache.keys.ports[("keep", "out")])


def test_a_run_that_left_a_result_out_carries_its_last_timed_write_on(area):
    seed_profile(area, {"read": (0.5, 0.1), "keep": (0.02, 0.4), "totals": (0.3, 0.02)})
    plan = planned(area)
    assert execute(plan, data_root=area).ok
    last = read_profile(plan.profile)["nodes"][plan.shapes["keep"]][-1]
    assert (last["store_s"], last["stored_bytes"]) == (0.4, 4096)
    assert 0 < last["compute_s"] < 0.4


def test_no_tuning_stores_every_result(area):
    seed_profile(area, {"keep": (0.02, 0.4)})
    plan = planned(area, tuning=False)
    assert "not kept" not in explain(plan)
    assert execute(plan, data_root=area).ok
    assert plan.cache.store.has(plan.cache.keys.ports[("keep", "out")])


def test_a_chain_of_cheap_nodes_is_left_out_only_while_its_sum_stays_below_one_write():
    parents = {"a": set(), "b": {"a"}, "c": {"b"}, "d": {"c"}}
    measured = {
        "a": figures("a", 1.0, 0.5),  # reading the file: costlier than its write, kept
        "b": figures("b", 0.1, 0.3),
        "c": figures("c", 0.1, 0.3),  # 0.1 + b's 0.1: still below its write
        "d": figures("d", 0.15, 0.3),  # 0.15 + 0.2: not
    }
    skipped, kept = not_kept("abcd", parents, measured, candidates=set("abcd"), edited=set())
    assert sorted(skipped) == ["b", "c"] and kept == []
    assert "re-computing it from stored results took 0.20 s" in skipped["c"].because


def test_a_node_edited_in_an_earlier_run_is_kept_whatever_its_figures():
    parents = {"a": set(), "b": {"a"}}
    measured = {"a": figures("a", 1.0, 0.5), "b": figures("b", 0.1, 0.3)}
    skipped, kept = not_kept("ab", parents, measured, candidates={"a", "b"}, edited={"b"})
    assert skipped == {}
    assert kept[0].text().startswith("result of b kept: edited in an earlier run, re-computing")


def test_a_node_without_timed_writes_or_with_quick_ones_is_kept():
    parents = {"a": set(), "b": {"a"}}
    measured = {"a": figures("a", 0.0, None), "b": figures("b", 0.001, 0.005)}
    assert not_kept("ab", parents, measured, candidates={"a", "b"}, edited=set()) == ({}, [])
