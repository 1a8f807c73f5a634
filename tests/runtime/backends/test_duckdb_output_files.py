"""Output files of a DuckDB segment are all or nothing, like the pandas path's: staged beside
the target, published only once every query is done and only if the run was not stopped, with
the same modes (append: no second header; error_if_exists), confined to the workspace through
symlinks, and the session may write the staged files and nothing else."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import duckdb
import pandas as pd
import pytest

from runtime import relational as r
from runtime.backends.duckdb import SegmentError, run_segment
from runtime.backends.duckdb.session import open_session
from runtime.budget import Budget
from runtime.document.spec import load_document
from runtime.errors import NodeCancelled
from runtime.io.paths import FileArea
from runtime.operators.atomic import remove_stale_temporaries
from runtime.operators.context import NodeContext
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.backends.both import Step, write_both_ways
from tests.runtime.plan.test_backends_agree import self_join

ROOT = Path(__file__).resolve().parents[3]
BUDGET = Budget(memory_bytes=256 * 2**20, threads=1)
FRAME = pd.DataFrame({"a": pd.array([2, None], dtype="Int64"), "b": pd.array(["y", "z,"])})
OLD = b"a,b\n1,x\n"


def write(path: str = "out/data.csv", mode: str = "overwrite", **options) -> Step:
    return Step("write", "csv_output", {"path": path, "mode": mode, **options}, {"in": "p"})


def leftovers(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.rglob("*.tmp"))


def test_append_adds_the_rows_without_a_second_header_as_on_pandas(tmp_path):
    on_pandas, on_duckdb, _ = write_both_ways(
        [], write(mode="append"), {"p": FRAME}, tmp_path, existing=OLD
    )
    assert on_duckdb.read_bytes() == on_pandas.read_bytes() == OLD + b'2,y\n,"z,"\n'
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("path", ["out/it's é.csv", "out/a'); COPY (SELECT 1) TO ('x.csv"])
def test_a_path_with_quotes_and_unicode_is_written_as_named(tmp_path, path):
    """The session's allowed paths quote it, and COPY binds it."""
    on_pandas, on_duckdb, _ = write_both_ways(
        [], write(path, mode="append"), {"p": FRAME}, tmp_path, existing=OLD
    )
    assert on_duckdb.read_bytes() == on_pandas.read_bytes()
    assert sorted(p.name for p in (tmp_path / "duckdb").rglob("*")) == sorted(
        ["out", Path(path).name]
    )


def test_append_to_no_file_writes_the_header(tmp_path):
    on_pandas, on_duckdb, _ = write_both_ways([], write(mode="append"), {"p": FRAME}, tmp_path)
    assert on_duckdb.read_bytes() == on_pandas.read_bytes() == b'a,b\n2,y\n,"z,"\n'


def test_overwrite_replaces_the_file_and_counts_the_rows(tmp_path):
    _, on_duckdb, result = write_both_ways([], write(), {"p": FRAME}, tmp_path, existing=OLD)
    assert on_duckdb.read_bytes() == b'a,b\n2,y\n,"z,"\n'
    [(node, written)] = result.written.items()
    assert (node, written.path, written.rows) == ("write", "out/data.csv", 2)
    assert written.bytes == on_duckdb.stat().st_size
    assert result.rows == {"write": 0}


def test_error_if_exists_writes_a_new_file(tmp_path):
    on_pandas, on_duckdb, _ = write_both_ways(
        [], write(mode="error_if_exists"), {"p": FRAME}, tmp_path
    )
    assert on_duckdb.read_bytes() == on_pandas.read_bytes()


def sink_alone(area: Path, write: r.Write, **options):
    """A segment of one frame written by `write`."""
    members = {"write": {r.SINK: write}}
    frames = {("p", "out"): FRAME}
    return run_segment(
        members, [], frames, files=area, spill_dir=area.parent / "spill", budget=BUDGET, **options
    )


FRAME_ROWS = r.Input(("p", "out"))


def csv_write(path: str, rows: r.Relation = FRAME_ROWS, mode: str = "overwrite") -> r.Write:
    return r.Write(rows, "csv", path, mode, (("delimiter", ","), ("header", True)))


@pytest.fixture
def area(tmp_path) -> Path:
    root = tmp_path / "workspace"
    (root / "out").mkdir(parents=True)
    (tmp_path / "secret").mkdir()
    return root


def test_error_if_exists_refuses_before_any_query_naming_the_node_and_keeps_the_file(area):
    (area / "out" / "data.csv").write_bytes(OLD)
    with pytest.raises(SegmentError) as caught:
        sink_alone(area, csv_write("out/data.csv", mode="error_if_exists"))
    assert str(caught.value) == (
        "node 'write': 'out/data.csv' already exists and mode is error_if_exists; "
        "choose overwrite or append, or another path"
    )
    assert (area / "out" / "data.csv").read_bytes() == OLD
    assert leftovers(area) == []


@pytest.mark.parametrize("path", ["../secret/out.csv", "/tmp/out.csv", "out/../../secret/x.csv"])
def test_a_path_outside_the_workspace_is_refused_naming_the_path_as_written(area, path):
    with pytest.raises(SegmentError) as caught:
        sink_alone(area, csv_write(path))
    assert str(caught.value).startswith(f"node 'write': path '{path}' is outside the data root")
    assert not caught.value.retryable and str(area.parent) not in str(caught.value)
    assert list((area.parent / "secret").iterdir()) == []


def test_a_symlink_pointing_out_of_the_workspace_is_refused(area):
    (area / "out" / "link.csv").symlink_to(area.parent / "secret" / "target.csv")
    with pytest.raises(SegmentError, match=r"node 'write': path 'out/link\.csv' is outside"):
        sink_alone(area, csv_write("out/link.csv"))
    assert list((area.parent / "secret").iterdir()) == []


def test_a_symlink_inside_the_workspace_writes_its_target_as_on_pandas(tmp_path):
    for backend in ("pandas", "duckdb"):
        (tmp_path / backend / "real").mkdir(parents=True)
        (tmp_path / backend / "real" / "data.csv").write_bytes(OLD)
        (tmp_path / backend / "link.csv").symlink_to(tmp_path / backend / "real" / "data.csv")
    write_both_ways([], write("link.csv"), {"p": FRAME}, tmp_path)
    for backend in ("pandas", "duckdb"):
        assert (tmp_path / backend / "link.csv").is_symlink()
        assert (tmp_path / backend / "real" / "data.csv").read_bytes() == b'a,b\n2,y\n,"z,"\n'


def test_a_path_that_is_a_folder_is_refused(area):
    with pytest.raises(
        SegmentError, match=r"^node 'write': path: 'out' is a folder; give the name"
    ):
        sink_alone(area, csv_write("out"))


def test_a_query_failing_midway_leaves_the_previous_file_whole_and_no_temporary(area):
    lines = "".join(f"{index},x\n" for index in range(300_000))
    (area / "late.csv").write_text(f"a,b\n{lines}oops,y\n")
    (area / "out" / "data.csv").write_bytes(OLD)
    scan = r.Scan("csv", "late.csv", (("delimiter", ","), ("header", True), ("skip_rows", 0)))
    members = {"read": {"out": scan}, "write": {r.SINK: csv_write("out/data.csv", scan)}}
    with pytest.raises(SegmentError) as caught:
        run_segment(members, [], {}, files=area, spill_dir=area.parent / "spill", budget=BUDGET)
    assert "oops" in str(caught.value) and str(area) not in str(caught.value)
    assert (area / "out" / "data.csv").read_bytes() == OLD
    assert leftovers(area) == []


def test_a_node_stopped_before_the_commit_publishes_nothing(area):
    (area / "out" / "data.csv").write_bytes(OLD)
    ctx = NodeContext("segment", None, data_root=area, run_id="run-7")
    ctx.stop()
    with pytest.raises(NodeCancelled):
        sink_alone(area, csv_write("out/data.csv"), run_id=ctx.run_id, commit=ctx.commit)
    assert (area / "out" / "data.csv").read_bytes() == OLD
    assert leftovers(area) == []


def fused(document: dict, root: Path) -> dict:
    """The members of the one DuckDB segment that `document` fuses into."""
    area = FileArea.of(root)
    plan = prepare(build_plan(load_document(document)), backend="duckdb", data_root=area)
    [segment] = plan.segments
    return segment.relations


def streamed(document: dict) -> dict:
    """`document` writing its join's rows, not their count: a file that grows until stopped."""
    nodes = [node for node in document["nodes"] if node["id"] != "n"]
    edges = [edge for edge in document["edges"] if "n" not in (edge["source"], edge["target"])]
    return {**document, "nodes": nodes, "edges": [*edges, {"source": "j", "target": "w"}]}


@pytest.mark.parametrize(
    ("operator", "shape"),
    [("csv_output", "count"), ("parquet_output", "count"), ("parquet_output", "rows")],
)
def test_a_stop_during_a_write_interrupts_it_and_commits_nothing(tmp_path, operator, shape):
    document = self_join(tmp_path, 200_000, 4)  # 10^10 rows: a query that ends only when stopped
    document = streamed(document) if shape == "rows" else document
    document["nodes"][-1]["operator"] = operator
    members = fused(document, tmp_path)
    assert r.SINK in members["w"]
    (tmp_path / "n.csv").write_bytes(OLD)
    stops, outcome = [], {}
    progressed = threading.Event()

    def run() -> None:
        try:
            run_segment(
                members, [], {}, files=tmp_path, spill_dir=tmp_path / "spill", budget=BUDGET,
                on_stop=stops.append, on_progress=lambda share: progressed.set(), run_id="run-8",
            )  # fmt: skip
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    runner = threading.Thread(target=run)
    runner.start()
    assert progressed.wait(60)
    if (operator, shape) != ("parquet_output", "count"):  # rows are being written
        deadline = time.monotonic() + 30
        while not list(tmp_path.glob(".n.csv.run-8.*.tmp")) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert list(tmp_path.glob(".n.csv.run-8.*.tmp"))
    stops[0]()
    runner.join(60)
    assert not runner.is_alive()
    assert isinstance(outcome.get("error"), NodeCancelled)
    assert (tmp_path / "n.csv").read_bytes() == OLD
    assert leftovers(tmp_path) == []


def test_a_killed_run_leaves_only_a_temporary_that_is_cleared_as_stale(tmp_path):
    document = self_join(tmp_path, 200_000, 4)
    (tmp_path / "n.csv").write_bytes(OLD)
    (tmp_path / "p.json").write_text(json.dumps(document))
    command = [
        sys.executable,
        "-m",
        "runtime",
        "run",
        "p.json",
        "--data-root",
        ".",
        "--backend",
        "duckdb",
    ]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    child = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".n.csv.*.tmp")) and time.monotonic() < deadline:
        time.sleep(0.05)
    child.send_signal(signal.SIGKILL)
    child.wait(30)
    [temporary] = tmp_path.glob(".n.csv.*.tmp")  # the COPY's, named after the run
    assert (tmp_path / "n.csv").read_bytes() == OLD
    assert remove_stale_temporaries(tmp_path, lambda run: True) == [temporary]


def test_the_session_writes_the_staged_files_and_nothing_else(tmp_path):
    (tmp_path / "spill").mkdir()
    staged = tmp_path / "out" / ".data.csv.run.0123456789ab.tmp"
    staged.parent.mkdir()
    connection = open_session([], tmp_path / "spill", BUDGET, writes=[staged])
    try:
        [(rows,)] = connection.execute(
            "COPY (SELECT 1 AS a) TO ? (FORMAT csv)", [str(staged)]
        ).fetchall()
        assert rows == 1 and staged.read_text() == "a\n1\n"
        for other in ("out/data.csv", "out/.data.csv.run.0123456789ab.tmp.tmp", "other.csv"):
            with pytest.raises(duckdb.PermissionException):
                connection.execute("COPY (SELECT 1) TO ? (FORMAT csv)", [str(tmp_path / other)])
            assert not (tmp_path / other).exists()
    finally:
        connection.close()
