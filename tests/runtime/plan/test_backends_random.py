"""Random pipelines run on pandas and on DuckDB write files that read back alike (hypothesis):
the same run status, and each CSV or Parquet output read by pandas' readers and by the input
operators gives the same columns, dtypes and rows (as multisets: a segment may reorder rows
where no sort defines their order, which the rule for equal outputs allows)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from hypothesis import HealthCheck, given
from hypothesis import strategies as st

from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.operators.context import NodeContext
from runtime.operators.csv_files import CsvInput, CsvInputParams
from runtime.operators.parquet_files import ParquetInput, ParquetInputParams
from runtime.plan import build_plan
from runtime.plan.prepare import prepare
from tests.runtime.backends.both import assert_frames_match
from tests.runtime.plan.random_pipelines import pipelines, tables, write_tables
from tests.strategies import bounded

OUTPUTS = ("csv_output", "parquet_output")


def read_back(path: Path) -> dict[str, pd.DataFrame]:
    """The file as pandas' reader and as its input operator read it."""
    if path.suffix == ".csv":
        ctx = NodeContext("read", CsvInputParams(path=path.name), data_root=path.parent)
        return {"read_csv": pd.read_csv(path), "csv_input": CsvInput().run(ctx, {})["out"]}
    ctx = NodeContext("read", ParquetInputParams(path=path.name), data_root=path.parent)
    return {
        "read_parquet": pd.read_parquet(path),
        "parquet_input": ParquetInput().run(ctx, {})["out"],
    }


@bounded(60, tolerate=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(frames=tables(), data=st.data())
def test_a_random_pipeline_writes_files_that_read_back_alike_on_duckdb(
    frames, data, tmp_path_factory
):
    folders = {backend: tmp_path_factory.mktemp(backend) for backend in ("pandas", "duckdb")}
    for folder in folders.values():
        write_tables(folder, frames)
    document = data.draw(pipelines(folders["pandas"], outputs=OUTPUTS))
    results = {}
    for backend, folder in folders.items():
        area = FileArea.of(folder)
        plan = prepare(build_plan(document), backend=backend, data_root=area)
        results[backend] = execute(plan, data_root=area)
    assert results["duckdb"].status == results["pandas"].status, results["duckdb"].error
    paths = [node.params["path"] for node in document.nodes if node.operator in OUTPUTS]
    for path in paths:
        assert (folders["duckdb"] / path).exists() == (folders["pandas"] / path).exists(), path
        if not (folders["pandas"] / path).exists():
            continue
        expected, actual = read_back(folders["pandas"] / path), read_back(folders["duckdb"] / path)
        for reader, frame in expected.items():
            assert_frames_match(actual[reader], frame, ordered=False)
