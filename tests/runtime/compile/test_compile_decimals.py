"""A compiled script aggregates decimal columns as a run does: exact sums of 38 digits, means
as those sums over the counts in floats (not in decimals rounded to the column's scale, nor
sums of floats); and computes decimal expressions as a run does, exactly."""

from __future__ import annotations

import duckdb
import pytest

from runtime.document.spec import load_document
from runtime.execution.executor import execute
from runtime.plan import build_plan
from tests.runtime.compile.scripts import compiled, run_script

DOCUMENT = {
    "name": "money",
    "nodes": [
        {"id": "read", "operator": "parquet_input", "params": {"path": "money.parquet"}},
        {"id": "by_k", "operator": "aggregate", "params": {"group_by": ["k"], "aggregations": [
            {"column": "price", "function": "sum"}, {"column": "price", "function": "mean"},
            {"column": "price", "function": "max"}]}},
        {"id": "all", "operator": "aggregate", "params": {"aggregations": [
            {"column": "price", "function": "mean"}, {"column": "price", "function": "sum"}]}},
        {"id": "w1", "operator": "csv_output", "params": {"path": "by_k.csv"}},
        {"id": "w2", "operator": "csv_output", "params": {"path": "all.csv"}},
        {"id": "q6", "operator": "filter", "params": {
            "condition": "price between 1.01 + 1.01 and 4.04 and price <> 3.03"}},
        {"id": "rev", "operator": "transform", "params": {"mappings": [
            {"target": "net", "expression": "price * (1 - 0.25) + 0.005"},
            {"target": "whole", "expression": "round(coalesce(price, 0.5), 1) * 2"}]}},
        {"id": "w3", "operator": "csv_output", "params": {"path": "net.csv"}},
    ],
    "edges": [
        {"source": "read", "target": "by_k"}, {"source": "by_k", "target": "w1"},
        {"source": "read", "target": "all"}, {"source": "all", "target": "w2"},
        {"source": "read", "target": "q6"}, {"source": "q6", "target": "rev"},
        {"source": "rev", "target": "w3"},
    ],
}  # fmt: skip


def run_and_script(tmp_path, price_sql: str, outputs: tuple[str, ...]):
    """The run's folder after a run and a compiled script each read `money.parquet` (k, and
    `price_sql` of `i` in 0..5) and wrote the same `outputs`."""
    folders = {way: tmp_path / way for way in ("run", "script")}
    for folder in folders.values():
        folder.mkdir()
        duckdb.execute(
            f"COPY (SELECT (i % 2)::VARCHAR AS k, {price_sql} AS price "
            f"FROM range(6) t(i)) TO '{folder / 'money.parquet'}' (FORMAT parquet)"
        )
    result = execute(build_plan(load_document(DOCUMENT)), data_root=folders["run"])
    assert result.ok, result.error
    ran = run_script(compiled(DOCUMENT, folders["script"], tmp_path), cwd=folders["script"])
    assert ran.returncode == 0, ran.stderr
    for name in outputs:
        assert (folders["script"] / name).read_text() == (folders["run"] / name).read_text()
    return folders["run"]


def test_a_scripts_decimal_sums_and_means_are_a_runs(tmp_path):
    ran = run_and_script(tmp_path, "(i * 1.01)::DECIMAL(15,2)", ("by_k.csv", "all.csv", "net.csv"))
    net = (ran / "net.csv").read_text().splitlines()  # exact: 2.02 and 4.04
    assert [line.split(",")[-2:] for line in net[1:]] == [["1.5200", "4.0"], ["3.0350", "8.0"]]
    mean, total = (ran / "all.csv").read_text().splitlines()[1].split(",")
    assert float(mean) == pytest.approx(2.525) and total == "15.15"  # not 2.52 nor 2.53


def test_a_scripts_mean_of_decimals_past_15_digits_is_a_runs_exact_one(tmp_path):
    """10^17 + 0.01, -10^17 and 0.02 average to 0.01, not to a mean of floats (0.02 / 3)."""
    values = "[100000000000000000.01, -100000000000000000, 0.02][i // 2 + 1]::DECIMAL(38,2)"
    ran = run_and_script(tmp_path, values, ("by_k.csv", "all.csv"))
    by_k = (ran / "by_k.csv").read_text().splitlines()
    assert [line.split(",")[2] for line in by_k[1:]] == ["0.01", "0.01"]
    assert (ran / "all.csv").read_text().splitlines()[1].split(",")[0] == "0.01"
