"""Incremental file inputs: by a watermark and by new files, their positions through
`prepare`, the result store and the CLI's positions file."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest
from pydantic import ValidationError

from runtime.budget import Budget
from runtime.document.spec import load_document
from runtime.execution.events import ListSink
from runtime.execution.executor import execute
from runtime.io.incremental import reached_positions
from runtime.io.paths import CACHE, FileArea
from runtime.operators.csv_files import CsvInputParams
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from runtime.plan.run_options import RunOptions
from runtime.worker.wire import RunOrder
from tests.runtime.test_cli import runtime_cli


def pipeline(incremental: dict, *, path="in", operator="csv_input", mode="overwrite") -> dict:
    read = {"path": path, "incremental": incremental}
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "incremental",
        "nodes": [
            {"id": "read", "operator": operator, "params": read},
            {"id": "write", "operator": "csv_output", "params": {"path": "out.csv", "mode": mode}},
        ],
        "edges": [{"source": "read", "source_port": "out", "target": "write", "target_port": "in"}],
    }  # fmt: skip


WATERMARK = {"mode": "watermark", "column": "id"}
NEW_FILES = {"mode": "new_files"}


def csv_file(root: Path, name: str, ids: list[int]) -> None:
    (root / "in").mkdir(exist_ok=True)
    pd.DataFrame({"id": ids, "v": [f"v{i}" for i in ids]}).to_csv(root / "in" / name, index=False)


def run(root: Path, document: dict, positions=None, *, cache=True, backend=None):
    area = FileArea(root, cache=root / CACHE if cache else None)
    plan = build_plan(load_document(json.dumps(document)), data_root=area)
    plan = prepare(
        plan, data_root=area, options=RunOptions(), positions=positions or {}, backend=backend
    )
    result = execute(plan, data_root=area, sinks=[ListSink()])
    assert result.ok, result.error
    return result


def written(root: Path) -> list[int]:
    return list(pd.read_csv(root / "out.csv")["id"])


@pytest.mark.parametrize("backend", ["pandas", "duckdb"])
def test_a_watermark_reads_rows_strictly_above_the_last_position(tmp_path, backend):
    csv_file(tmp_path, "a.csv", [1, 2, 3])
    first = run(tmp_path, pipeline(WATERMARK), backend=backend)
    position = first.nodes["read"].extra["position"]
    assert position == {"column": "id", "type": "integer", "value": 3}
    csv_file(tmp_path, "b.csv", [3, 4, 5])  # a 3 again: not above the watermark
    second = run(tmp_path, pipeline(WATERMARK), {"read": position}, backend=backend)
    assert written(tmp_path) == [4, 5]
    assert second.nodes["read"].extra["position"]["value"] == 5


def test_new_files_reads_each_file_once_and_a_rewritten_file_again(tmp_path):
    csv_file(tmp_path, "a.csv", [1, 2])
    position = run(tmp_path, pipeline(NEW_FILES)).nodes["read"].extra["position"]
    assert written(tmp_path) == [1, 2]
    csv_file(tmp_path, "b.csv", [3])
    position = (
        run(tmp_path, pipeline(NEW_FILES), {"read": position}).nodes["read"].extra["position"]
    )
    assert written(tmp_path) == [3]
    assert sorted(position["files"]) == ["in/a.csv", "in/b.csv"]
    csv_file(tmp_path, "a.csv", [1, 2, 10])  # rewritten: another size
    run(tmp_path, pipeline(NEW_FILES), {"read": position})
    assert written(tmp_path) == [1, 2, 10]


def test_with_no_new_file_the_node_gives_no_rows_in_the_files_columns(tmp_path):
    csv_file(tmp_path, "a.csv", [1, 2])
    position = run(tmp_path, pipeline(NEW_FILES)).nodes["read"].extra["position"]
    again = run(tmp_path, pipeline(NEW_FILES), {"read": position}, cache=False)
    assert again.nodes["read"].rows_out == 0
    assert list(pd.read_csv(tmp_path / "out.csv").columns) == ["id", "v"]
    assert again.nodes["read"].extra["position"] == position


def test_a_second_run_with_new_rows_is_not_served_from_the_cache(tmp_path):
    csv_file(tmp_path, "a.csv", [1, 2])
    first = run(tmp_path, pipeline(WATERMARK))
    position = first.nodes["read"].extra["position"]
    csv_file(tmp_path, "b.csv", [3])
    second = run(tmp_path, pipeline(WATERMARK), {"read": position})
    assert not second.nodes["read"].extra.get("cached")
    assert written(tmp_path) == [3]


def test_the_same_position_over_the_same_files_is_reused_with_the_position_it_reached(tmp_path):
    csv_file(tmp_path, "a.csv", [1, 2])
    first = run(tmp_path, pipeline(WATERMARK))
    start = {"column": "id", "type": "integer", "value": 1}
    run(tmp_path, pipeline(WATERMARK), {"read": start})
    again = run(tmp_path, pipeline(WATERMARK), {"read": start})
    assert again.nodes["read"].extra["cached"] is True
    assert again.nodes["read"].extra["position"] == first.nodes["read"].extra["position"]


@pytest.mark.parametrize(
    "position",
    [{"files": "in/a.csv"}, {"files": None}, [1, 2], "everything", {"column": "id"}],
    ids=["files-not-a-mapping", "files-none", "a-list", "a-text", "a-watermark"],
)
def test_a_position_of_another_shape_reads_every_file(tmp_path, position):
    csv_file(tmp_path, "a.csv", [1, 2])
    run(tmp_path, pipeline(NEW_FILES), {"read": position}, cache=False)
    assert written(tmp_path) == [1, 2]


def test_a_stored_watermark_of_another_type_says_to_reset_it(tmp_path):
    csv_file(tmp_path, "a.csv", [1, 2])
    area = FileArea(tmp_path)
    plan = build_plan(load_document(json.dumps(pipeline(WATERMARK))), data_root=area)
    start = {"column": "id", "type": "string", "value": "2"}
    plan = prepare(plan, data_root=area, positions={"read": start})
    result = execute(plan, data_root=area)
    assert result.nodes["read"].status == "failed"
    assert "cannot be compared with the stored position" in result.nodes["read"].error
    assert result.nodes["read"].error.endswith("reset it")


def test_a_watermark_on_a_missing_column_names_the_node_field(tmp_path):
    csv_file(tmp_path, "a.csv", [1])
    document = pipeline({"mode": "watermark", "column": "nope"})
    area = FileArea(tmp_path)
    plan = prepare(build_plan(load_document(json.dumps(document)), data_root=area), data_root=area)
    result = execute(plan, data_root=area)
    assert result.nodes["read"].status == "failed"
    assert "there is no column 'nope' to keep a watermark on" in result.nodes["read"].error


@pytest.mark.parametrize(
    ("incremental", "message"),
    [
        ({"mode": "watermark"}, "a watermark needs its column"),
        ({"mode": "new_files", "column": "id"}, "new_files reads whole files"),
        ({"mode": "sometimes"}, "Input should be 'watermark' or 'new_files'"),
    ],
    ids=["watermark-without-column", "files-with-column", "unknown-mode"],
)
def test_incremental_params_are_checked(incremental, message):
    with pytest.raises(ValidationError, match=message):
        CsvInputParams.model_validate({"path": "in", "incremental": incremental})


def test_a_run_order_carries_the_positions_to_its_process(tmp_path):
    order = RunOrder(
        {}, {}, FileArea(tmp_path), {}, Budget(2**30, 1), [], run_id=1,
        positions={"read": {"column": "id", "type": "integer", "value": 7}},
    )  # fmt: skip
    message = json.loads(json.dumps({"kind": "start", **order.to_message()}))
    assert RunOrder.from_message(message).positions == order.positions


def test_reached_positions_come_from_the_nodes_metrics_only():
    found = reached_positions({"a": {"position": {"files": {}}}, "b": {"rows": 1}, "c": None})
    assert found == {"a": {"files": {}}}


# -- the CLI keeps positions in a file, and advances them only after a successful run ---------


def test_the_cli_keeps_positions_in_the_data_roots_positions_folder(tmp_path):
    csv_file(tmp_path, "a.csv", [1, 2])
    (tmp_path / "p.json").write_text(json.dumps(pipeline(WATERMARK)))
    assert runtime_cli("run", "p.json", "--data-root", ".", cwd=tmp_path).returncode == 0
    stored = tmp_path / ".pipewright" / "positions" / "p.json"
    assert json.loads(stored.read_text())["read"]["value"] == 2
    csv_file(tmp_path, "b.csv", [3])
    assert runtime_cli("run", "p.json", "--data-root", ".", cwd=tmp_path).returncode == 0
    assert written(tmp_path) == [3]
    assert json.loads(stored.read_text())["read"]["value"] == 3


def test_a_failed_run_leaves_the_position_and_the_next_run_reads_the_same_rows(tmp_path):
    csv_file(tmp_path, "a.csv", [1, 2])
    (tmp_path / "p.json").write_text(json.dumps(pipeline(WATERMARK, mode="error_if_exists")))
    positions = tmp_path / "positions.json"
    cli = ("run", "p.json", "--data-root", ".", "--positions", "positions.json", "--no-cache")
    assert runtime_cli(*cli, cwd=tmp_path).returncode == 0
    csv_file(tmp_path, "b.csv", [3])
    failed = runtime_cli(*cli, cwd=tmp_path)  # out.csv exists: error_if_exists
    assert failed.returncode == 1
    assert json.loads(positions.read_text())["read"]["value"] == 2
    os.remove(tmp_path / "out.csv")
    assert runtime_cli(*cli, cwd=tmp_path).returncode == 0
    assert written(tmp_path) == [3]


def test_an_unreadable_positions_file_is_a_clear_error(tmp_path):
    csv_file(tmp_path, "a.csv", [1])
    (tmp_path / "p.json").write_text(json.dumps(pipeline(WATERMARK)))
    (tmp_path / "positions.json").write_text("[1, 2")
    failed = runtime_cli("run", "p.json", "--positions", "positions.json", cwd=tmp_path)
    assert failed.returncode != 0
    assert "positions file 'positions.json' is not readable" in failed.stderr
    assert "Traceback" not in failed.stderr
