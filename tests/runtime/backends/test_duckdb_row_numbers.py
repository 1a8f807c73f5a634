"""Rows a DuckDB segment must keep in their files' order (ties of a sort, the first rows a
limit keeps) are numbered by the Parquet reader itself (each row's file and its place in it),
not by `row_number() OVER ()` over the scan, which holds every row of it in memory and needs
the session to keep insertion order. The order is pandas' either way."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from runtime.backends.duckdb.render import Renderer
from runtime.io.paths import FileArea
from tests.runtime.backends.both import Step, assert_same, lower_all, run_pandas

ROWS = 30_000


def write_parts(folder, columns: dict[str, str] | None = None) -> None:
    """Three Parquet files of `ROWS` rows in small row groups, the sort key full of ties."""
    (folder / "parts").mkdir()
    for part in range(3):
        index = np.arange(ROWS)
        frame = pd.DataFrame({"k": index % 7, "v": index + part * ROWS})
        frame = frame.rename(columns=columns or {})
        pq.write_table(pa.Table.from_pandas(frame), folder / "parts" / f"{part}.parquet", 4096)


def ties_kept(read: str = "parts/*.parquet") -> list[Step]:
    return [
        Step("read", "parquet_input", {"path": read}),
        Step("some", "filter", {"condition": "v % 3 <> 0"}, {"in": "read"}),
        Step("by_k", "sort", {"by": [{"column": "k"}]}, {"in": "some"}),
        Step("first", "limit", {"n": 25_000}, {"in": "by_k"}),
    ]


def rendered_sql(steps: list[Step], root) -> str:
    _, schemas = run_pandas(steps, {}, root)
    members = lower_all(steps, {}, schemas)
    renderer = Renderer(FileArea.of(root), frame_table=None)
    [rendered] = renderer.render([members[steps[-1].id]["out"]])
    return renderer.query.exit_sql(rendered)[0]


@pytest.mark.parametrize("read", ["parts/*.parquet", "parts/1.parquet"])
def test_ties_of_a_sort_over_parquet_files_keep_the_files_order_numbered_by_the_reader(
    tmp_path, read
):
    write_parts(tmp_path)
    steps = ties_kept(read)
    assert_same(steps, {}, tmp_path, ordered={"first"})
    sql = rendered_sql(steps, tmp_path)
    assert "file_row_number" in sql and "row_number() OVER ()" not in sql


def test_a_file_whose_column_hides_the_readers_row_number_is_numbered_over_the_scan(tmp_path):
    write_parts(tmp_path, {"v": "file_row_number"})
    steps = ties_kept()
    steps[1] = Step("some", "filter", {"condition": "file_row_number % 3 <> 0"}, {"in": "read"})
    assert_same(steps, {}, tmp_path, ordered={"first"})
    assert "row_number() OVER ()" in rendered_sql(steps, tmp_path)
