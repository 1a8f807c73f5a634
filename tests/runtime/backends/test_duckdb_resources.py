"""A segment runs within its memory budget, spilling to its own folder (removed afterwards),
and stops within a second when the run is stopped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime import relational as r
from runtime.backends.duckdb import run_segment
from runtime.budget import Budget, machine_memory, parse_bytes, usable_cores
from runtime.errors import NodeCancelled, OperatorError

ROOT = Path(__file__).resolve().parents[3]
ROWS = 3_000_000
LIMIT_MIB = 64


def test_an_aggregate_and_join_larger_than_memory_spill_and_finish(tmp_path):
    area = tmp_path / "area"
    (area / "data").mkdir(parents=True)
    rng = np.random.default_rng(7)
    values = rng.random(ROWS)
    pq.write_table(
        pa.table({"k": rng.permutation(ROWS), "v": values}), area / "data" / "big.parquet"
    )
    spill = tmp_path / "pipewright-tmp" / "run-1"
    child = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.runtime.backends.spill_child",
            str(area),
            str(spill),
            str(LIMIT_MIB),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert child.returncode == 0, child.stderr
    measured = json.loads(child.stdout)
    assert measured["rows"] == ROWS
    assert measured["sum"] == pytest.approx(values.sum(), rel=1e-9)
    assert measured["spilled"] > LIMIT_MIB * 2**20  # the state did not fit: it went to disk
    assert measured["grown"] < 2.5 * LIMIT_MIB * 2**20  # against about 420 MiB without a limit
    assert not measured["spill_left"]


def self_join_total(folder, rows: int) -> r.Relation:
    """The sum over a table joined with itself on a key of two values: rows² / 2 rows."""
    keys = np.arange(rows) % 2
    pq.write_table(pa.table({"k": keys, "v": keys * 0.5}), folder / "wide.parquet")
    scan = r.Scan("parquet", "wide.parquet")
    columns = (
        r.JoinColumn("key", "k", "k"),
        r.JoinColumn("left", "v", "v"),
        r.JoinColumn("right", "v", "w"),
    )
    explosion = r.Join(scan, scan, "inner", (("k", "k"),), columns)
    return r.Aggregate(explosion, (), (r.AggregateCall("sum", "w", "total"),))


def test_stopping_interrupts_a_running_query_within_a_second(tmp_path):
    count = self_join_total(tmp_path, 100_000)  # 5 billion rows
    stops = []
    stopped_at = []

    def stop_soon() -> None:
        time.sleep(0.5)
        stopped_at.append(time.monotonic())
        stops[0]()

    threading.Thread(target=stop_soon, daemon=True).start()
    with pytest.raises(NodeCancelled):
        run_segment(
            {"c": {"out": count}},
            [("c", "out")],
            {},
            files=tmp_path,
            spill_dir=tmp_path / "spill",
            budget=Budget(256 * 2**20, 2),
            on_stop=stops.append,
        )
    assert time.monotonic() - stopped_at[0] < 1.0
    assert not (tmp_path / "spill").exists()


def test_a_run_stopped_before_its_query_starts_runs_nothing(tmp_path):
    (tmp_path / "in.csv").write_text("a\n1\n")
    scan = r.Scan("csv", "in.csv", (("delimiter", ","), ("header", True), ("skip_rows", 0)))
    with pytest.raises(NodeCancelled):
        run_segment(
            {"s": {"out": scan}},
            [("s", "out")],
            {},
            files=tmp_path,
            spill_dir=tmp_path / "spill",
            on_stop=lambda stop: stop(),
        )


@pytest.mark.parametrize(
    ("written", "expected"),
    [("1073741824", 2**30), ("2GiB", 2 * 2**30), ("512 MB", 512 * 10**6), ("1.5gib", 3 * 2**29)],
)
def test_the_run_memory_is_read_in_bytes_or_with_a_unit(written, expected):
    assert parse_bytes(written, "PIPEWRIGHT_RUN_MEMORY") == expected


@pytest.mark.parametrize("written", ["lots", "2 GiBs", "-1", "0"])
def test_a_run_memory_that_is_not_a_size_is_refused_naming_the_setting(written):
    with pytest.raises(OperatorError, match="PIPEWRIGHT_RUN_MEMORY"):
        Budget.from_environment({"PIPEWRIGHT_RUN_MEMORY": written})


def test_the_default_budget_shares_memory_and_cores_between_runs():
    memory, cores = machine_memory(), usable_cores()
    assert Budget.from_environment({}) == Budget(int(memory * 0.7 / 2), max(1, cores // 2))
    three = Budget.from_environment({"PIPEWRIGHT_MAX_RUNS": "3"})
    assert three == Budget(int(memory * 0.7 / 3), max(1, cores // 3))
    assert Budget.from_environment({"PIPEWRIGHT_MAX_RUNS": "1000"}).threads == 1
    assert Budget.from_environment({"PIPEWRIGHT_RUN_MEMORY": "1GiB"}).memory_bytes == 2**30


def test_a_pandas_only_run_never_imports_duckdb():
    code = (
        "import sys, runtime.cli, runtime.execution.executor, runtime.relational;"
        "import runtime.operators.registry;"
        "runtime.operators.registry.default_registry();"
        "print('duckdb' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_a_long_segment_reports_its_progress_between_0_and_1(tmp_path):
    total = self_join_total(tmp_path, 30_000)  # 450 million rows
    reported = []
    result = run_segment(
        {"t": {"out": total}},
        [("t", "out")],
        {},
        files=tmp_path,
        spill_dir=tmp_path / "spill",
        budget=Budget(256 * 2**20, 2),
        on_progress=reported.append,
    )
    assert result.frames[("t", "out")]["total"].iloc[0] == 0.5 * 15_000 * 15_000
    assert reported and all(0 <= share <= 1 for share in reported)
