"""`explain` on the seed ETL: one DuckDB segment from the reads to the write, whose task hands
no rows back."""

from __future__ import annotations

import pandas as pd

from bench.seed_etl import PIPELINE
from runtime.document.spec import load_document
from runtime.execution.tasks import tasks_of
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain, explain_json
from runtime.plan.prepare import prepare


def seed_files(tmp_path) -> FileArea:
    """The seed's two CSV files, two rows each, in `tmp_path`."""
    pd.DataFrame(
        {
            "id": [1, 2],
            "name": ["ada", "alan"],
            "email": ["user0@example.com", "user1@example.com"],
            "age": [36, 17],
            "country": ["FR", "DE"],
            "amount": [1.5, 2.25],
            "signup": ["2020-01-01", "2021-02-03"],
        }
    ).to_csv(tmp_path / "users.csv", index=False)
    pd.DataFrame({"country": ["FR", "DE"], "country_name": ["France", "Germany"]}).to_csv(
        tmp_path / "countries.csv", index=False
    )
    return FileArea.of(tmp_path)


def test_the_seed_is_one_duckdb_segment_that_ends_with_its_write(tmp_path):
    area = seed_files(tmp_path)
    plan = prepare(build_plan(load_document(PIPELINE)), backend="duckdb", data_root=area)
    described = explain_json(plan)
    [segment] = described["segments"]
    assert segment["backend"] == "duckdb" and segment["nodes"][-1] == "write"
    assert described["pandas"] == []
    lines = explain(plan).splitlines()
    assert lines[1] == "segment:1 on duckdb (backend duckdb):"
    assert (
        "  write = Write(named, format='csv', path='out/pipewright.csv', mode='overwrite', "
        "options=(('delimiter', ','), ('header', True)))"
    ) in lines
    assert not any(line.startswith("on pandas") for line in lines)
    [task] = tasks_of(plan, retain=set()).nodes.values()
    assert task.operator.exits == []  # no frame leaves DuckDB, none is converted to pandas


JOINED_INPUTS = {
    "name": "inputs joined",
    "nodes": [
        {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
        {"id": "countries", "operator": "csv_input", "params": {"path": "countries.csv"}},
        {"id": "named", "operator": "join",
         "params": {"left_on": ["country"], "right_on": ["country"]}},
        {"id": "by_name", "operator": "aggregate", "params": {
            "group_by": ["country_name"], "aggregations": [{"column": "age", "function": "max"}]}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [
        {"source": "users", "target": "named", "target_port": "left"},
        {"source": "countries", "target": "named", "target_port": "right"},
        {"source": "named", "target": "by_name"},
        {"source": "by_name", "target": "write"},
    ],
}  # fmt: skip


def test_each_side_of_a_join_is_said_to_read_only_its_own_columns(tmp_path):
    area = seed_files(tmp_path)
    plan = prepare(build_plan(load_document(JOINED_INPUTS)), backend="duckdb", data_root=area)
    lines = explain(plan).splitlines()
    assert "- users reads only age, country" in lines
    [countries] = [line for line in lines if "countries = Scan(" in line]
    assert "read=" not in countries  # all it has
