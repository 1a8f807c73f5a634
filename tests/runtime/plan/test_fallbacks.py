"""Where DuckDB cannot read a file's column as pandas does, only the node reading it runs on
pandas: the plan finds it while planning, the segment's boundary moves around that node, and
`explain`, the run's events and the command line's summary say which column and why. A
fallback found only when the run starts is reported the same way, never silent.

The column is a Parquet map of floats: pandas' reader turns it into JSON text whose numbers
DuckDB's `to_json` writes its own way, so it stays refused.
"""

from __future__ import annotations

import io
import json

import duckdb
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.backends.duckdb_reads import check_reads
from runtime.compile import compile_script
from runtime.console import print_summary
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.execution.statuses import NodeStatus
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.explain import explain, explain_json
from runtime.plan.prepare import prepare
from tests.runtime.backends.test_duckdb_foreign_files import write_two_zones
from tests.runtime.compile.scripts import run_script
from tests.runtime.test_cli import runtime_cli

REFUSED = "column 'tags' of 'orders.parquet' is map<"
ON_DUCKDB = {"countries", "big", "named", "ordered", "write"}

PIPELINE = {
    "name": "Tagged orders",
    "nodes": [
        {"id": "orders", "operator": "parquet_input", "params": {"path": "orders.parquet"}},
        {"id": "countries", "operator": "csv_input", "params": {"path": "countries.csv"}},
        {"id": "big", "operator": "filter", "params": {"condition": "amount > 1.6"}},
        {
            "id": "named",
            "operator": "join",
            "params": {"how": "inner", "left_on": "country", "right_on": "country"},
        },
        {"id": "ordered", "operator": "sort", "params": {"by": [{"column": "id"}]}},
        {"id": "write", "operator": "parquet_output", "params": {"path": "out.parquet"}},
    ],
    "edges": [
        {"source": "orders", "target": "big"},
        {"source": "big", "target": "named", "target_port": "left"},
        {"source": "countries", "target": "named", "target_port": "right"},
        {"source": "named", "target": "ordered"},
        {"source": "ordered", "target": "write"},
    ],
}


def by_duckdb(path) -> None:
    duckdb.sql(
        "COPY (SELECT id, amount::DOUBLE AS amount, tags, country FROM (VALUES"
        " (1, 1.5, MAP {'a': 1.5::DOUBLE}, 'fr'), (2, 2.0, MAP {'b': 2.5::DOUBLE}, 'de'),"
        " (3, 3.25, MAP {}::MAP(VARCHAR, DOUBLE), 'fr'),"
        " (4, 4.0, NULL, 'it')) AS t(id, amount, tags, country))"
        f" TO '{path}' (FORMAT parquet)"
    )


def by_pyarrow(path) -> None:
    tags = pa.array([[("a", 1.5)], [("b", 2.5)], [], None], pa.map_(pa.string(), pa.float64()))
    table = pa.table(
        {"id": [1, 2, 3, 4], "amount": [1.5, 2.0, 3.25, 4.0], "tags": tags},
    ).append_column("country", pa.array(["fr", "de", "fr", "it"]))
    pq.write_table(table, path)


@pytest.fixture(params=[by_duckdb, by_pyarrow], ids=["duckdb-copy", "pyarrow"])
def folder(request, tmp_path):
    request.param(tmp_path / "orders.parquet")
    (tmp_path / "countries.csv").write_text("country,name\nfr,France\nde,Germany\nit,Italy\n")
    return tmp_path


def planned(folder, document=PIPELINE, backend="duckdb", probe=check_reads):
    plan = build_plan(load_document(document))
    return prepare(plan, backend=backend, data_root=FileArea.of(folder), probe=probe)


def ran(plan, folder):
    sink = ListSink()
    result = execute(plan, sinks=[sink], data_root=FileArea.of(folder))
    assert result.ok, result.error
    finals = {
        event["node"]: event["metrics"]
        for event in sink.of_type("node_status")
        if event["status"] in NodeStatus.FINAL
    }
    return result, finals, sink


def test_explain_names_the_column_and_only_its_reader_leaves_the_segment(folder):
    plan = planned(folder)
    assert [set(segment.nodes) for segment in plan.segments] == [ON_DUCKDB]
    assert plan.fallbacks["orders"].startswith(REFUSED)
    assert plan.fallbacks["orders"].endswith(
        "whose JSON text pandas writes its own way (floats, dates and bytes in lists and maps)"
    )
    text = explain(plan)
    assert "on pandas: orders\n" in text
    assert f"- orders runs on pandas: {REFUSED}" in text
    assert explain_json(plan)["fallbacks"] == {"orders": plan.fallbacks["orders"]}


def test_the_command_line_explains_the_fallback(folder):
    (folder / "pipeline.json").write_text(json.dumps(PIPELINE))
    result = runtime_cli(
        "explain", "pipeline.json", "--data-root", ".", "--backend", "duckdb", cwd=folder
    )
    assert result.returncode == 0, result.stderr
    assert f"orders runs on pandas: {REFUSED}" in result.stdout
    assert "segment:1 on duckdb" in result.stdout


def test_the_run_reports_the_fallback_and_writes_what_pandas_writes(folder):
    result, finals, _ = ran(planned(folder), folder)
    assert finals["orders"]["backend"] == "pandas"
    assert finals["orders"]["fallback"].startswith(REFUSED)
    assert result.totals["fallbacks"] == {"orders": finals["orders"]["fallback"]}
    for node_id in ON_DUCKDB:
        assert finals[node_id]["backend"] == "duckdb", node_id
        assert "fallback" not in finals[node_id]
    on_duckdb = (folder / "out.parquet").read_bytes()
    summary = io.StringIO()
    print_summary(planned(folder), result, debug=False, out=summary)
    lines = summary.getvalue().splitlines()
    assert lines[2].split()[0] == "orders" and lines[2].split()[-1] == "pandas"
    assert f"orders ran on pandas, not DuckDB: {REFUSED}" in summary.getvalue()

    ran(planned(folder, backend="pandas"), folder)
    expected = pd.read_parquet(folder / "out.parquet")
    pd.testing.assert_frame_equal(pd.read_parquet(io.BytesIO(on_duckdb)), expected)
    tags = expected.set_index("id")["tags"].fillna("missing").to_dict()
    assert tags == {2: '{"b":2.5}', 3: "{}", 4: "missing"}  # pandas' JSON text of the map


def test_a_compiled_script_reads_the_refused_file_on_pandas_and_the_rest_on_duckdb(folder):
    script = compile_script(load_document(PIPELINE), data_root=folder, backend="duckdb")
    assert "frame_table(orders)" in script  # the reader's rows enter the DuckDB statements
    (folder / "script.py").write_text(script)
    finished = run_script(folder / "script.py", "--data-root", str(folder), cwd=folder)
    assert finished.returncode == 0, finished.stderr
    compiled = pd.read_parquet(folder / "out.parquet")
    ran(planned(folder, backend="pandas"), folder)
    pd.testing.assert_frame_equal(compiled, pd.read_parquet(folder / "out.parquet"))


def test_a_reader_of_only_the_other_columns_stays_on_duckdb(folder):
    """The check is of the columns the scan reads: a reader whose `columns` leave the map out
    lowers with the rest."""
    columns = ["id", "amount", "country"]
    reader = {**PIPELINE["nodes"][0], "params": {"path": "orders.parquet", "columns": columns}}
    document = {**PIPELINE, "nodes": [reader, *PIPELINE["nodes"][1:]]}
    plan = planned(folder, document)
    assert plan.fallbacks == {}
    assert [set(segment.nodes) for segment in plan.segments] == [{*ON_DUCKDB, "orders"}]
    _, finals, _ = ran(plan, folder)
    assert {metrics["backend"] for metrics in finals.values()} == {"duckdb"}


def test_a_reader_whose_refused_column_nothing_reads_stays_on_duckdb(folder):
    """Pruning comes first: the scan converts only the columns the aggregate reads."""
    totals = {
        "group_by": ["country"],
        "aggregations": [{"column": "amount", "function": "sum"}],
    }
    document = {
        "name": "Totals",
        "nodes": [
            PIPELINE["nodes"][0],
            {"id": "totals", "operator": "aggregate", "params": totals},
            {"id": "ordered", "operator": "sort", "params": {"by": [{"column": "country"}]}},
            {"id": "write", "operator": "parquet_output", "params": {"path": "out.parquet"}},
        ],
        "edges": [
            {"source": "orders", "target": "totals"},
            {"source": "totals", "target": "ordered"},
            {"source": "ordered", "target": "write"},
        ],
    }
    plan = planned(folder, document)
    assert plan.fallbacks == {}
    _, finals, _ = ran(plan, folder)
    assert {metrics["backend"] for metrics in finals.values()} == {"duckdb"}
    on_duckdb = pd.read_parquet(folder / "out.parquet")
    ran(planned(folder, document, backend="pandas"), folder)
    pd.testing.assert_frame_equal(on_duckdb, pd.read_parquet(folder / "out.parquet"))
    assert on_duckdb["amount_sum"].tolist() == [2.0, 4.75, 4.0]
    script = compile_script(load_document(document), data_root=folder, backend="duckdb")
    assert "frame_table(orders)" not in script
    (folder / "script.py").write_text(script)
    finished = run_script(folder / "script.py", "--data-root", str(folder), cwd=folder)
    assert finished.returncode == 0, finished.stderr
    pd.testing.assert_frame_equal(on_duckdb, pd.read_parquet(folder / "out.parquet"))


def test_a_fallback_found_only_when_the_run_starts_is_reported_on_every_member(folder):
    plan = planned(folder, probe=None)  # the plan did not look at the files
    assert plan.fallbacks == {} and [len(segment.nodes) for segment in plan.segments] == [6]
    _, finals, sink = ran(plan, folder)
    for node_id, metrics in finals.items():
        assert metrics["backend"] == "pandas", node_id
        assert metrics["fallback"].startswith(REFUSED), node_id
    warnings = [event for event in sink.of_type("node_log") if event["level"] == "warning"]
    assert any(f"runs on pandas instead: {REFUSED}" in event["message"] for event in warnings)


def test_a_file_of_datetimes_in_two_zones_leaves_its_reader_on_pandas_when_planned(tmp_path):
    write_two_zones(tmp_path / "zones.parquet")
    document = {
        "name": "Zones",
        "nodes": [
            {"id": "zones", "operator": "parquet_input", "params": {"path": "zones.parquet"}},
            {"id": "write", "operator": "parquet_output", "params": {"path": "out.parquet"}},
        ],
        "edges": [{"source": "zones", "target": "write"}],
    }
    plan = planned(tmp_path, document)
    assert plan.fallbacks == {
        "zones": "datetimes in the zones America/New_York, Europe/Paris meet in one segment, "
        "whose DuckDB session keeps one"
    }
    ran(plan, tmp_path)
    assert str(pd.read_parquet(tmp_path / "out.parquet")["york"].dtype).endswith("New_York]")


SHOP_TOTALS = {
    "name": "Shop totals",
    "nodes": [
        {"id": "shops", "operator": "csv_input", "params": {"path": "shops.csv"}},
        {
            "id": "totals",
            "operator": "aggregate",
            "params": {
                "group_by": ["id"],
                "aggregations": [{"column": "amount", "function": "sum"}],
            },
        },
        {"id": "ordered", "operator": "sort", "params": {"by": [{"column": "id"}]}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [
        {"source": "shops", "target": "totals"},
        {"source": "totals", "target": "ordered"},
        {"source": "ordered", "target": "write"},
    ],
}


@pytest.fixture
def shops(tmp_path):
    """A CSV with a time-of-day column and an empty one: pyarrow types them time32 and null,
    which DuckDB does not read as pandas does."""
    (tmp_path / "shops.csv").write_text(
        "id,amount,opens,note\n1,1.5,09:30:00,\n2,2.5,10:00:00,\n1,3.5,11:15:00,\n"
    )
    return tmp_path


def test_a_csv_reader_whose_refused_columns_nothing_reads_stays_on_duckdb(shops):
    plan = planned(shops, SHOP_TOTALS)
    assert plan.fallbacks == {}
    _, finals, _ = ran(plan, shops)
    assert {metrics["backend"] for metrics in finals.values()} == {"duckdb"}
    on_duckdb = (shops / "out.csv").read_text()
    assert on_duckdb == "id,amount_sum\n1,5.0\n2,2.5\n"
    ran(planned(shops, SHOP_TOTALS, backend="pandas"), shops)
    assert (shops / "out.csv").read_text() == on_duckdb
    script = compile_script(load_document(SHOP_TOTALS), data_root=shops, backend="duckdb")
    assert "frame_table(shops)" not in script
    (shops / "script.py").write_text(script)
    finished = run_script(shops / "script.py", "--data-root", str(shops), cwd=shops)
    assert finished.returncode == 0, finished.stderr
    assert (shops / "out.csv").read_text() == on_duckdb


def test_a_csv_reader_of_a_refused_column_runs_on_pandas_naming_it(shops):
    by_opening = {"id": "ordered", "operator": "sort", "params": {"by": [{"column": "opens"}]}}
    document = {
        **SHOP_TOTALS,
        "nodes": [SHOP_TOTALS["nodes"][0], by_opening, SHOP_TOTALS["nodes"][3]],
    }
    document["edges"] = [
        {"source": "shops", "target": "ordered"},
        {"source": "ordered", "target": "write"},
    ]
    plan = planned(shops, document)
    assert plan.fallbacks["shops"] == (
        "column 'opens' of 'shops.csv' reads as time32[s], kept as pandas keeps it"
    )


@pytest.mark.parametrize("endings", [("\n", "\r\n"), ("\r\n", "\n")])
def test_a_csv_file_whose_lines_end_two_ways_runs_on_pandas_and_writes_the_same_rows(
    tmp_path, endings
):
    """DuckDB's reader stops at the first line that ends otherwise (files joined from two
    systems); pandas reads them all, so the segment runs there and says why."""
    lines = ["id,name", "1,ada", "2,alan", "3,grace"]
    text = "".join(line + endings[index % 2] for index, line in enumerate(lines))
    (tmp_path / "people.csv").write_bytes(text.encode())
    document = {
        "name": "Endings",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
            {"id": "some", "operator": "filter", "params": {"condition": "id > 1"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "read", "target": "some"}, {"source": "some", "target": "write"}],
    }
    result, finals, _ = ran(planned(tmp_path, document), tmp_path)
    why = "DuckDB's CSV reader cannot parse 'people.csv' (its lines may end in more than one way)"
    assert {node: metrics["backend"] for node, metrics in finals.items()} == dict.fromkeys(
        ("read", "some", "write"), "pandas"
    )
    assert result.totals["fallbacks"]["read"].startswith(why)
    on_duckdb = (tmp_path / "out.csv").read_text()
    ran(planned(tmp_path, document, backend="pandas"), tmp_path)
    assert on_duckdb == (tmp_path / "out.csv").read_text() == "id,name\n2,alan\n3,grace\n"
