"""A compiled DuckDB script compares join keys as a run does: `=` on a Parquet column every
file declares required, and a file where it became optional (nulls may come) no longer reads
as compiled: the script stops and says to compile again."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq

from tests.runtime.compile.scripts import compiled, run_script

JOINED = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "joined",
    "nodes": [
        {"id": "people", "operator": "parquet_input", "params": {"path": "people.parquet"}},
        {"id": "orders", "operator": "parquet_input", "params": {"path": "orders.parquet"}},
        {
            "id": "named",
            "operator": "join",
            "params": {"how": "left", "left_on": ["id"], "right_on": ["person"]},
        },
        {"id": "write", "operator": "csv_output", "params": {"path": "out.csv"}},
    ],
    "edges": [
        {"source": "people", "target": "named", "target_port": "left"},
        {"source": "orders", "target": "named", "target_port": "right"},
        {"source": "named", "target": "write"},
    ],
}


def people(ids: list, required: bool) -> pa.Table:
    schema = pa.schema([pa.field("id", pa.int64(), nullable=not required)])
    return pa.table({"id": ids}, schema=schema)


def test_a_required_key_is_compared_with_equals_until_a_file_may_hold_nulls(tmp_path):
    pq.write_table(people([1, 2], required=True), tmp_path / "people.parquet")
    pq.write_table(pa.table({"person": [1, None], "total": [5, 6]}), tmp_path / "orders.parquet")
    script = compiled(JOINED, tmp_path, tmp_path, backend="duckdb")
    text = script.read_text()
    assert '"l"."id" = "r"."person"' in text and "DISTINCT FROM" not in text
    result = run_script(script, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "out.csv").read_text() == "id,person,total\n1,1,5\n2,,\n"
    pq.write_table(people([1, None], required=False), tmp_path / "people.parquet")
    result = run_script(script, cwd=tmp_path)
    assert result.returncode != 0
    assert "does not hold the columns the script was compiled for" in result.stderr
