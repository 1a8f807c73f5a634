"""Compiled scripts of conditional aggregates and broadcasts write what a run writes, on
pandas and on DuckDB; a value of several rows fails the script as it fails the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime.compile import compile_script
from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.backends.both import assert_frames_match
from tests.runtime.compile.test_compile_pipelines import read_back, run_in_process

LINES = (
    "order,status,price,discount,qty\n"
    "1,F,10.5,0.1,2\n"
    "1,O,20.0,0.0,\n"
    "2,F,,0.05,1\n"
    "3,O,7.25,0.2,4\n"
    "3,,3.0,0.0,5\n"
)


def document(value_filter: str = "true") -> dict:
    """Revenue per order (all rows, open ones, distinct statuses), the whole table's revenue
    broadcast to every order, and the orders above a share of it."""
    by_order = [
        {"expression": "price * (1 - discount)", "function": "sum", "name": "revenue"},
        {"column": "qty", "function": "sum", "where": "status = 'O'", "name": "open_qty"},
        {"function": "size", "where": "price > 100", "name": "dear"},
        {"column": "status", "function": "count_distinct", "name": "statuses"},
        {"expression": "qty * 2", "function": "mean", "where": "qty > 1", "name": "m"},
    ]
    total = [
        {"expression": "price * (1 - discount)", "function": "sum", "name": "total"},
        {"column": "qty", "function": "max", "where": "status is not null", "name": "most"},
    ]
    return {
        "name": "shares",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "lines.csv"}},
            {"id": "orders", "operator": "aggregate",
             "params": {"group_by": ["order"], "aggregations": by_order}},
            {"id": "all", "operator": "aggregate", "params": {"aggregations": total}},
            {"id": "some", "operator": "filter", "params": {"condition": value_filter}},
            {"id": "with_total", "operator": "broadcast", "params": {}},
            {"id": "big", "operator": "filter", "params": {"condition": "revenue > total * 0.3"}},
            {"id": "kinds", "operator": "aggregate", "params": {"group_by": ["order"],
             "aggregations": [{"column": "status", "function": "count_distinct"}]}},
            {"id": "w1", "operator": "csv_output", "params": {"path": "orders.csv"}},
            {"id": "w3", "operator": "csv_output", "params": {"path": "kinds.csv"}},
            {"id": "w2", "operator": "parquet_output", "params": {"path": "big.parquet"}},
        ],
        "edges": [
            {"source": "read", "target": "orders"}, {"source": "read", "target": "all"},
            {"source": "all", "target": "some"},
            {"source": "orders", "target": "with_total", "target_port": "in"},
            {"source": "some", "target": "with_total", "target_port": "value"},
            {"source": "with_total", "target": "big"},
            {"source": "orders", "target": "w1"}, {"source": "big", "target": "w2"},
            {"source": "read", "target": "kinds"}, {"source": "kinds", "target": "w3"},
        ],
    }  # fmt: skip


def run_and_script(raw: dict, tmp_path: Path, backend: str):
    """The run's result and whether the script finished, each in a folder of its own."""
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
        (folder / "lines.csv").write_text(LINES)
    pipeline = load_document(raw)
    area = FileArea.of(folders["run"])
    plan = build_plan(pipeline, data_root=area)
    if backend == "duckdb":
        plan = prepare(plan, backend=backend, data_root=area)
    result = execute(plan, data_root=area)
    script = compile_script(pipeline, data_root=folders["script"], backend=backend)
    return result, run_in_process(script, folders["script"]), folders


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_script_of_conditional_aggregates_and_a_broadcast_writes_what_a_run_writes(
    backend, tmp_path
):
    result, finished, folders = run_and_script(document(), tmp_path, backend)
    assert result.ok and finished, result.error
    for path in ("orders.csv", "big.parquet", "kinds.csv"):
        written, ran = read_back(folders["script"] / path), read_back(folders["run"] / path)
        assert_frames_match(written, ran, ordered=backend == "pandas")
    big = read_back(folders["run"] / "big.parquet")
    assert big["order"].tolist() == [1] and big["total"].iloc[0] == pytest.approx(38.25)


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_value_of_no_row_gives_nulls_in_the_script_as_in_the_run(backend, tmp_path):
    result, finished, folders = run_and_script(document("false"), tmp_path, backend)
    assert result.ok and finished, result.error
    assert read_back(folders["script"] / "big.parquet").empty
    assert read_back(folders["run"] / "big.parquet").empty


def test_a_value_of_several_rows_fails_the_script_as_it_fails_the_run(tmp_path):
    raw = document()
    raw["edges"] = [
        {**edge, "source": "read"} if edge.get("target_port") == "value" else edge
        for edge in raw["edges"]
    ]
    nodes = {node["id"]: node for node in raw["nodes"]}
    nodes["with_total"]["params"] = {"columns": ["price"]}
    nodes["big"]["params"] = {"condition": "revenue > price"}
    result, finished, _ = run_and_script(raw, tmp_path, "pandas")
    assert not result.ok and not finished
    assert "value gives 5 rows; broadcast needs at most one" in str(result.error)
