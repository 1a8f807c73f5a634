"""The same pipeline on pandas and on DuckDB: the same outputs, events for every node, the same
messages for bad settings, and a cancel that stops a running query."""

from __future__ import annotations

import itertools
import threading
import time

import numpy as np
import pandas as pd
import pytest

from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.execution.statuses import NodeStatus, RunStatus
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.plan.seed import etl, node

SEED = etl(
    [
        node("by_country"),
        {"id": "sorted", "operator": "sort", "params": {"by": [{"column": "country"}]}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    [
        {"source": "enrich", "target": "by_country"},
        {"source": "by_country", "target": "sorted"},
        {"source": "sorted", "target": "write"},
    ],
)


@pytest.fixture
def users(tmp_path):
    rng = np.random.default_rng(7)
    rows = 5000
    pd.DataFrame(
        {
            "id": np.arange(rows),
            "name": rng.choice(["ada", "grace", "é"], rows),
            "age": rng.integers(1, 90, rows),
            "country": rng.choice(["FR", "DE", None], rows),
            "amount": rng.uniform(0, 100, rows).round(2),
        }
    ).to_csv(tmp_path / "users.csv", index=False)
    return tmp_path


def run(document: dict, folder, backend: str, **options):
    area = FileArea.of(folder)
    plan = prepare(build_plan(load_document(document)), backend=backend, data_root=area)
    sink = ListSink()
    return plan, sink, execute(plan, sinks=[sink], data_root=area, **options)


def test_the_seed_runs_as_one_duckdb_segment_with_the_same_output(users):
    _, _, on_pandas = run(SEED, users, "pandas")
    expected = pd.read_csv(users / "out.csv")
    plan, sink, on_duckdb = run(SEED, users, "duckdb")
    assert [segment.nodes for segment in plan.segments] == [
        ("users", "adults", "enrich", "by_country", "sorted", "write")
    ]
    assert on_pandas.ok and on_duckdb.ok
    pd.testing.assert_frame_equal(pd.read_csv(users / "out.csv"), expected)
    finals = {
        event["node"]: event
        for event in sink.events
        if event["type"] == "node_status" and event["status"] in NodeStatus.FINAL
    }
    assert set(finals) == {node["id"] for node in SEED["nodes"]}
    assert finals["sorted"]["metrics"]["backend"] == "duckdb"
    assert on_duckdb.nodes["write"].rows_in == on_pandas.nodes["write"].rows_in
    written = finals["write"]["metrics"]
    assert written["path"] == "out.csv" and written["backend"] == "duckdb"
    assert written["rows_written"] == on_pandas.nodes["write"].extra["rows_written"]
    assert written["bytes_out"] == (users / "out.csv").stat().st_size
    assert on_duckdb.totals["rows_written"] == on_pandas.totals["rows_written"]
    logs = [(event["node"], event["message"]) for event in sink.of_type("node_log")]
    assert ("write", f"wrote {written['rows_written']} rows to out.csv") in logs


def test_a_chain_of_a_thousand_filters_gives_the_same_output_on_duckdb(users):
    chain = [
        {"id": f"f{index}", "operator": "filter", "params": {"condition": f"age > {index % 7}"}}
        for index in range(1000)
    ]
    names = ["users", *(node["id"] for node in chain)]
    document = {
        "name": "chain",
        "nodes": [
            {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
            *chain,
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [
            {"source": source, "target": target}
            for source, target in itertools.pairwise([*names, "write"])
        ],
    }
    outputs = []
    for backend in ("pandas", "duckdb"):
        plan, _, result = run(document, users, backend)
        assert result.ok, result.error
        outputs.append((users / "out.csv").read_text())
    assert len(plan.segments) > 1
    assert outputs[0] == outputs[1]


def test_a_bad_column_fails_with_the_same_message_on_both_backends(users):
    document = {**SEED, "nodes": [dict(node) for node in SEED["nodes"]]}
    document["nodes"][1] = {**document["nodes"][1], "params": {"condition": "agee > 18"}}
    errors = {}
    for backend in ("pandas", "duckdb"):
        _, _, result = run(document, users, backend)
        assert result.status == RunStatus.FAILED
        # the hint after ";" names the nearest column read, and pandas reads fewer of them
        errors[backend] = result.error.split(";")[0]
    assert errors["pandas"] == errors["duckdb"] == "adults: condition: unknown column 'agee' at 1:1"


def test_a_failed_write_in_a_segment_fails_that_node_and_leaves_the_others_unfinished(users):
    (users / "out.csv").mkdir()  # where the seed writes: a folder, so the write fails
    plan, sink, result = run(SEED, users, "duckdb")
    [segment] = plan.segments
    assert result.status == RunStatus.FAILED
    assert (
        result.error
        == "write: path: 'out.csv' is a folder; give the name of a file to write inside it"
    )
    finals = {
        event["node"]: event
        for event in sink.events
        if event["type"] == "node_status" and event["status"] in NodeStatus.FINAL
    }
    assert finals.pop("write")["status"] == NodeStatus.FAILED
    reason = f"not finished: write failed, and {segment.id} runs them as one query"
    assert {(event["status"], event["reason"]) for event in finals.values()} == {
        (NodeStatus.SKIPPED, reason)
    }
    assert all("error" not in event for event in finals.values())


def self_join(folder, rows: int, keys: int) -> dict:
    """A document counting the rows of t.csv joined with itself on a key of `keys` values
    (rows² / keys rows): a query that takes a while."""
    pd.DataFrame({"k": np.arange(rows) % keys, "v": np.arange(rows)}).to_csv(
        folder / "t.csv", index=False
    )
    return {
        "name": "self-join",
        "nodes": [
            {"id": "a", "operator": "csv_input", "params": {"path": "t.csv"}},
            {"id": "b", "operator": "csv_input", "params": {"path": "t.csv"}},
            {"id": "j", "operator": "join", "params": {"left_on": ["k"], "right_on": ["k"]}},
            {
                "id": "n",
                "operator": "aggregate",
                "params": {"aggregations": [{"column": "k", "function": "count", "name": "n"}]},
            },
            {"id": "w", "operator": "csv_output", "params": {"path": "n.csv"}},
        ],
        "edges": [
            {"source": "a", "target": "j", "target_port": "left"},
            {"source": "b", "target": "j", "target_port": "right"},
            {"source": "j", "target": "n"},
            {"source": "n", "target": "w"},
        ],
    }


def test_every_member_of_a_long_segment_reports_the_share_done(tmp_path):
    plan, sink, result = run(self_join(tmp_path, 30_000, 2), tmp_path, "duckdb")  # 450M rows
    assert result.ok
    assert pd.read_csv(tmp_path / "n.csv")["n"].tolist() == [30_000**2 // 2]
    [segment] = plan.segments
    shares = {}
    for event in sink.of_type("node_progress"):
        shares.setdefault(event["node"], []).append(event["share"])
    assert set(shares) == set(segment.nodes)
    assert all(0 <= share <= 1 for reported in shares.values() for share in reported)
    assert len({tuple(reported) for reported in shares.values()}) == 1  # the segment's own


def test_cancel_interrupts_a_running_duckdb_query(tmp_path):
    document = self_join(tmp_path, 200_000, 4)  # 10^10 rows: it only ends if interrupted
    cancel = threading.Event()
    started = threading.Event()

    class Watch(ListSink):
        def __call__(self, event):
            super().__call__(event)
            if event["type"] == "node_status" and event["status"] == NodeStatus.RUNNING:
                started.set()

    area = FileArea.of(tmp_path)
    plan = prepare(build_plan(load_document(document)), backend="duckdb", data_root=area)
    assert len(plan.segments) == 1
    sink = Watch()
    outcome = {}
    runner = threading.Thread(
        target=lambda: outcome.update(
            result=execute(plan, sinks=[sink], data_root=area, cancel_event=cancel)
        )
    )
    runner.start()
    assert started.wait(60)
    time.sleep(0.5)  # let the query get going
    cancel.set()
    runner.join(120)
    assert not runner.is_alive()
    assert outcome["result"].status == RunStatus.CANCELLED
    assert not (tmp_path / "n.csv").exists()
    leftovers = [thread for thread in threading.enumerate() if thread.name == "pipewright-node"]
    for thread in leftovers:  # the detached segment worker returns once interrupted
        thread.join(60)
        assert not thread.is_alive()
    assert not list((tmp_path / ".pipewright" / "tmp").rglob("*.tmp"))


def test_a_node_left_to_pandas_names_its_fields_as_the_document_does(users):
    mappings = [
        {"target": "shout", "expression": "upper(name)"},  # read by nothing: pruned for DuckDB
        {"target": "older", "expression": "agee + 1"},
    ]
    document = {
        "name": "fields",
        "nodes": [
            {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
            {"id": "enrich", "operator": "transform", "params": {"mappings": mappings}},
            {"id": "keep", "operator": "select", "params": {"columns": ["older"]}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [
            {"source": "users", "target": "enrich"},
            {"source": "enrich", "target": "keep"},
            {"source": "keep", "target": "write"},
        ],
    }
    errors = {}
    for backend in ("pandas", "duckdb"):
        _, _, result = run(document, users, backend)
        errors[backend] = result.error.split(";")[0]
    assert errors["duckdb"] == errors["pandas"]
    assert "item 2" in errors["duckdb"] or "mappings[1]" in errors["duckdb"]


def test_a_filter_moved_below_a_join_lowers_with_the_columns_of_its_new_input(tmp_path):
    """The pushdown moves the filter onto the join's right input, whose columns are not the
    join's: fusion must not lower it with the columns it had where the document put it."""
    pd.DataFrame({"k": [1, 2], "b": pd.array([True, None], dtype="boolean")}).to_csv(
        tmp_path / "left.csv", index=False
    )
    pd.DataFrame({"k": [1, 2], "y": [5, 6]}).to_csv(tmp_path / "right.csv", index=False)
    document = {
        "name": "moved",
        "nodes": [
            {"id": "left", "operator": "csv_input", "params": {"path": "left.csv"}},
            {"id": "right", "operator": "csv_input", "params": {"path": "right.csv"}},
            {
                "id": "j",
                "operator": "join",
                "params": {"how": "right", "left_on": "k", "right_on": "k"},
            },
            {"id": "nulls", "operator": "filter", "params": {"condition": "b is null"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [
            {"source": "right", "target": "j", "target_port": "left"},
            {"source": "left", "target": "j", "target_port": "right"},
            {"source": "j", "target": "nulls"},
            {"source": "nulls", "target": "write"},
        ],
    }
    written = {}
    for backend in ("pandas", "duckdb"):
        plan, _, result = run(document, tmp_path, backend)
        assert result.ok, result.error
        written[backend] = pd.read_csv(tmp_path / "out.csv")
    assert "filter 'nulls' moved before 'j'" in plan.notes
    pd.testing.assert_frame_equal(written["duckdb"], written["pandas"])


def test_a_segment_left_to_pandas_at_run_time_still_writes_and_reports_its_file(tmp_path):
    """A time of day has no DuckDB scan type: found while rendering, the segment runs on
    pandas, its write included, with the same figures and log line."""
    (tmp_path / "times.csv").write_text("at,n\n10:00:00,1\n11:30:00,2\n12:00:00,3\n")
    document = {
        "name": "times",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "times.csv"}},
            {"id": "keep", "operator": "filter", "params": {"condition": "n > 1"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
        ],
        "edges": [{"source": "read", "target": "keep"}, {"source": "keep", "target": "write"}],
    }
    plan, sink, result = run(document, tmp_path, "duckdb")
    assert [segment.nodes for segment in plan.segments] == [("read", "keep", "write")]
    assert result.ok, result.error
    assert (tmp_path / "out.csv").read_text() == "at,n\n11:30:00,2\n12:00:00,3\n"
    [final] = [
        event["metrics"]
        for event in sink.of_type("node_status")
        if event["node"] == "write" and event["status"] == NodeStatus.SUCCEEDED
    ]
    assert (final["path"], final["rows_written"]) == ("out.csv", 2)
    assert final["bytes_out"] == (tmp_path / "out.csv").stat().st_size
    messages = [event["message"] for event in sink.of_type("node_log")]
    assert "wrote 2 rows to out.csv" in messages
    assert any("runs on pandas instead" in message for message in messages)
