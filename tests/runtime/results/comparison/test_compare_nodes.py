"""Two runs node by node: nodes matched by id (added and removed ones listed), each run's
status, rows, duration and reuse, columns added, removed and retyped from the stored results,
"data not kept" when a stored result is gone, and rows compared at output nodes by keys."""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import pytest

from runtime.cache.store import ResultStore
from runtime.errors import ComparisonError
from runtime.results.comparison.nodes import compare_runs
from runtime.results.comparison.records import RunRecord


def key(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def document(condition: str = "age >= 18", with_sort: bool = False) -> dict:
    nodes = [
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {"id": "adults", "operator": "filter", "params": {"condition": condition}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ]
    edges = [{"source": "read", "target": "adults"}, {"source": "adults", "target": "write"}]
    if with_sort:
        nodes.append({"id": "sorted", "operator": "sort", "params": {"by": ["age"]}})
        edges.append({"source": "adults", "target": "sorted"})
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "p",
        "nodes": nodes,
        "edges": edges,
    }


PEOPLE = pd.DataFrame({"id": [1, 2, 3], "name": ["ann", "bob", "cy"], "age": [30, 17, 50]})


def metrics(rows_in: int | None, rows_out: int | None, seconds: float, **extra) -> dict:
    return {
        "rows_in": {} if rows_in is None else {"in": rows_in},
        "rows_out": rows_out,
        "duration_s": seconds,
        **extra,
    }


def run(
    store: ResultStore, name: str, doc: dict, written: pd.DataFrame, *, cached=False
) -> RunRecord:
    """A finished run of `doc` whose output node wrote `written` (stored under its own key)."""
    out_key = key(f"{name}-written")
    store.put(out_key, written)
    store.put(key("read"), PEOPLE)
    nodes = {
        "read": {"status": "succeeded",
                 "metrics": metrics(None, 3, 0.2, results={"out": key("read")}, cached=cached)},
        "adults": {"status": "succeeded", "metrics": metrics(3, len(written), 0.1)},
        "write": {"status": "succeeded",
                  "metrics": metrics(len(written), 0, 0.3, results={"in": out_key})},
    }  # fmt: skip
    kept = {key: store.path_of(key) for key in RunRecord(name, doc, nodes, {}).result_keys()}
    return RunRecord(name, doc, nodes, {key: path for key, path in kept.items() if path})


def by_id(entries: list[dict]) -> dict[str, dict]:
    return {entry["id"]: entry for entry in entries}


def test_each_node_has_both_runs_figures_and_the_fields_that_changed(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE[PEOPLE.age >= 18], cached=False)
    b = run(store, "run #2", document("age >= 40"), PEOPLE[PEOPLE.age >= 40], cached=True)
    entries = compare_runs(a, b, spill_dir=tmp_path / "spill")
    assert [entry["id"] for entry in entries] == ["read", "adults", "write"]
    adults = by_id(entries)["adults"]
    assert adults["presence"] == "both"
    assert adults["kind"] == "process"
    assert adults["changes"] == ["params.condition"]
    assert adults["a"] == {
        "status": "succeeded", "rows_in": 3, "rows_out": 2, "duration_s": 0.1, "cached": False,
        "error": "",
    }  # fmt: skip
    assert adults["b"]["rows_out"] == 1
    assert by_id(entries)["read"]["b"]["cached"] is True
    assert by_id(entries)["read"]["changes"] == []
    assert "rows" not in by_id(entries)["write"]


def test_nodes_only_one_run_has_are_listed_as_such(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(with_sort=True), PEOPLE)
    b = run(store, "run #2", document(), PEOPLE)
    entries = by_id(compare_runs(a, b, spill_dir=tmp_path / "spill"))
    assert entries["sorted"]["presence"] == "a"
    assert entries["sorted"]["b"] is None
    assert entries["sorted"]["a"]["status"] is None  # in the document, never recorded
    reversed_entries = by_id(compare_runs(b, a, spill_dir=tmp_path / "spill"))
    assert reversed_entries["sorted"]["presence"] == "b"


def test_columns_added_removed_and_retyped_come_from_the_stored_results(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    later = PEOPLE.drop(columns=["name"]).assign(age=PEOPLE.age * 1.0, band="x")
    b = run(store, "run #2", document(), later)
    (result,) = by_id(compare_runs(a, b, spill_dir=tmp_path / "spill"))["write"]["results"]
    assert result["port"] == "in"
    assert result["column_changes"] == {
        "added": [{"name": "band", "type": "string"}],
        "removed": [{"name": "name", "type": "string"}],
        "changed": [{"name": "age", "from": "integer", "to": "float"}],
    }
    assert [column["name"] for column in result["b"]["columns"]] == ["id", "age", "band"]
    assert result["note"] == ""


def test_a_result_that_is_no_longer_stored_is_data_not_kept_never_a_guess(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    b = run(store, "run #2", document(), PEOPLE.head(1))
    store.path_of(key("run #1-written")).unlink()  # evicted since the record was made
    a = RunRecord.from_json(json.loads(json.dumps(a.to_json())))  # as a job's process has it
    entries = by_id(compare_runs(a, b, keys=["id"], spill_dir=tmp_path / "spill"))
    (result,) = entries["write"]["results"]
    assert result["a"] == {"kept": False, "columns": None}
    assert result["b"]["kept"] is True
    assert result["column_changes"] is None
    assert result["note"] == "data not kept for run #1"
    assert entries["write"]["rows"] == {"status": "not_kept", "message": "data not kept for run #1"}


def test_a_node_that_stored_nothing_has_no_results_and_no_rows(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    b = run(store, "run #2", document(), PEOPLE)
    b.nodes["write"]["metrics"].pop("results")  # the cache was off for run #2
    entries = by_id(compare_runs(a, b, keys=["id"], spill_dir=tmp_path / "spill"))
    assert entries["adults"]["results"] == []
    assert entries["write"]["rows"] == {
        "status": "not_kept",
        "message": "data not kept: run #2 stored no result here",
    }


def test_with_keys_the_rows_of_every_output_are_compared(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    changed = PEOPLE.assign(name=["ann", "BOB", "cy"])
    b = run(store, "run #2", document(), pd.concat([changed.tail(2), PEOPLE.head(0)]))
    entries = by_id(compare_runs(a, b, keys=["id"], spill_dir=tmp_path / "spill"))
    rows = entries["write"]["rows"]
    assert (rows["added"], rows["removed"], rows["changed"]) == (0, 1, 1)
    assert rows["samples"]["changed"] == [
        {"key": {"id": 2}, "changes": {"name": {"a": "bob", "b": "BOB"}}}
    ]
    assert "rows" not in entries["adults"]


def test_rows_are_compared_at_the_named_output_node_only(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    b = run(store, "run #2", document(), PEOPLE)
    entries = by_id(compare_runs(a, b, keys=["id"], node="write", spill_dir=tmp_path / "spill"))
    assert entries["write"]["rows"]["unchanged"] == 3


@pytest.mark.parametrize(
    ("node", "keys", "field", "message"),
    [
        ("nope", ["id"], "node", "node 'nope' is not in run #1"),
        ("adults", ["id"], "node", "node 'adults' is not an output node"),
        ("write", [], "keys", "name the key columns to compare rows by"),
        (
            "write",
            ["nope"],
            "keys",
            "key 'nope' is not a column of the result of 'write' in run #1",
        ),
    ],
    ids=["unknown-node", "not-an-output", "no-keys", "unknown-key"],
)
def test_a_bad_node_or_keys_is_refused_naming_the_field(tmp_path, node, keys, field, message):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    b = run(store, "run #2", document(), PEOPLE)
    with pytest.raises(ComparisonError, match=f"^{message}") as raised:
        compare_runs(a, b, keys=keys, node=node, spill_dir=tmp_path / "spill")
    assert raised.value.field == field


def test_a_node_only_in_the_second_run_cannot_have_its_rows_compared(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    b = run(store, "run #2", document(with_sort=True), PEOPLE)
    with pytest.raises(ComparisonError, match=r"^node 'sorted' is not in run #1"):
        compare_runs(a, b, keys=["id"], node="sorted", spill_dir=tmp_path / "spill")


def test_an_unknown_operator_still_compares_with_no_kind(tmp_path):
    store = ResultStore(tmp_path / "cache")
    doc = document()
    doc["nodes"][1]["operator"] = "plugin_gone"
    entries = by_id(
        compare_runs(
            run(store, "run #1", doc, PEOPLE),
            run(store, "run #2", doc, PEOPLE),
            spill_dir=tmp_path / "s",
        )
    )
    assert entries["adults"]["kind"] is None


def test_edges_that_make_a_cycle_across_the_two_documents_still_list_every_node(tmp_path):
    store = ResultStore(tmp_path / "cache")
    first, second = document(), document()
    second["edges"] = [
        {"source": "adults", "target": "read"},
        {"source": "read", "target": "write"},
    ]
    a, b = run(store, "run #1", first, PEOPLE), run(store, "run #2", second, PEOPLE)
    entries = compare_runs(a, b, spill_dir=tmp_path / "spill")
    assert sorted(entry["id"] for entry in entries) == ["adults", "read", "write"]


def test_metrics_of_the_wrong_shape_read_as_unknown_never_fail(tmp_path):
    store = ResultStore(tmp_path / "cache")
    a = run(store, "run #1", document(), PEOPLE)
    broken = {
        "read": {"status": "succeeded", "metrics": ["not", "a", "mapping"]},
        "adults": {"status": "failed", "metrics": {"rows_in": 3, "rows_out": "many",
                                                     "results": ["x"], "duration_s": True}},
        "write": {"status": "succeeded", "metrics": {"rows_in": {"in": None, "x": "2"},
                                                    "results": {"in": 7}}},
    }  # fmt: skip
    b = RunRecord("run #2", document(), broken, {})
    entries = by_id(compare_runs(a, b, keys=["id"], spill_dir=tmp_path / "spill"))
    assert entries["adults"]["b"] == {
        "status": "failed", "rows_in": None, "rows_out": None, "duration_s": None,
        "cached": False, "error": "",
    }  # fmt: skip
    assert entries["read"]["b"]["rows_out"] is None
    assert entries["write"]["b"]["rows_in"] is None
    assert entries["write"]["rows"]["status"] == "not_kept"
