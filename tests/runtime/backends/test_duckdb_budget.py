"""Under a 64 MiB budget, a sort, a join and an aggregate of many groups over a file several
times that size finish on DuckDB (fewer threads, spilling), give pandas' result, and leave no
spill file behind; a process running one stays within a few budgets of resident memory.
DuckDB keeps insertion order only for the segments that read a stream in its order."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime import relational as r
from runtime.backends.duckdb.render import Renderer
from runtime.backends.duckdb.session import threads_within
from runtime.budget import Budget
from runtime.io.paths import FileArea
from tests.runtime.backends.both import write_on_pandas
from tests.runtime.backends.budget_child import steps

ROOT = Path(__file__).resolve().parents[3]
ROWS = 3_000_000
"""About 100 MiB as Arrow columns, more inside DuckDB."""
BUDGET_MIB = 64
SCAN = r.Scan("parquet", "t.parquet")
CSV_SCAN = r.Scan("csv", "t.csv", (("delimiter", ","), ("header", True), ("skip_rows", 0)))


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """`big.parquet`, written by pyarrow in row groups of a million rows (each larger than
    half the budget): a key of a million values, a float, a name of two million."""
    folder = tmp_path_factory.mktemp("area")
    rng = np.random.default_rng(3)
    names = [f"name-{i:08d}" for i in rng.integers(0, ROWS // 2, ROWS)]
    table = pa.table(
        {"k": rng.integers(0, ROWS // 4, ROWS), "v": rng.random(ROWS), "name": pa.array(names)}
    )
    pq.write_table(table, folder / "big.parquet")
    return folder


@pytest.mark.parametrize(
    ("case", "ordered"), [("sort", True), ("join", False), ("aggregate", True)]
)
def test_a_segment_larger_than_its_budget_spills_and_matches_pandas(big, tmp_path, case, ordered):
    area = _linked(big, tmp_path / "duckdb")
    spill = tmp_path / "spill" / "run-1"
    command = [sys.executable, "-m", "tests.runtime.backends.budget_child"]
    child = subprocess.run(
        [*command, str(area), str(spill), str(BUDGET_MIB), case],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=600,
    )
    assert child.returncode == 0, child.stderr
    measured = json.loads(child.stdout)
    assert measured["spilled"] > BUDGET_MIB << 20  # the state did not fit: it went to disk
    assert not measured["spill_left"]
    assert measured["peak"] - measured["before"] < 4 * (BUDGET_MIB << 20)
    *pipeline, write = steps(case)
    expected = write_on_pandas(pipeline, write, {}, _linked(big, tmp_path / "pandas"))
    actual, wanted = pd.read_parquet(area / "out.parquet"), pd.read_parquet(expected)
    if not ordered:  # a multiset: compared in one order
        actual, wanted = (frame.sort_values(list(frame.columns)) for frame in (actual, wanted))
    pd.testing.assert_frame_equal(
        actual.reset_index(drop=True), wanted.reset_index(drop=True), check_exact=False, rtol=1e-9
    )


def _linked(big: Path, folder: Path) -> Path:
    """A folder holding `big.parquet` (a hard link: a symbolic one leads out of the area)."""
    folder.mkdir()
    os.link(big / "big.parquet", folder / "big.parquet")
    return folder


@pytest.mark.parametrize(
    ("memory_mib", "threads", "expected"),
    [(64, 2, 1), (256, 2, 2), (256, 8, 2), (4096, 8, 8), (1, 1, 1)],
)
def test_a_small_budget_runs_duckdb_on_fewer_threads(memory_mib, threads, expected):
    assert threads_within(Budget(memory_mib << 20, threads)) == expected


@pytest.mark.parametrize(
    ("relation", "kept"),
    [
        (r.Sort(CSV_SCAN, (("k", False),)), True),  # ties keep the file's order: rows numbered
        (r.Sort(SCAN, (("k", False),)), False),  # numbered by the Parquet reader, not the stream
        (r.Limit(SCAN, 3), True),  # the first rows of the stream
        (r.Filter(SCAN, "k > 1"), True),  # the file's order is the result's
        (r.Aggregate(SCAN, ("k",), (r.AggregateCall("size", None, "n"),)), False),  # by key
    ],
    ids=["sort-csv", "sort-parquet", "limit", "filter", "aggregate"],
)
def test_insertion_order_is_kept_only_where_a_query_reads_a_stream_in_order(
    tmp_path, relation, kept
):
    pq.write_table(pa.table({"k": [2, 1, 2]}), tmp_path / "t.parquet")
    (tmp_path / "t.csv").write_text("k\n2\n1\n2\n")
    renderer = Renderer(FileArea.of(tmp_path), frame_table=None)
    [rendered] = renderer.render([relation])
    assert renderer.query.reads_in_order([rendered]) is kept
