"""bench/tpch.py's TPC-H pipelines answer as DuckDB SQL does over tpchgen-cli's CSV files.

The pipelines are tests/golden/tpch/'s, which tests/golden/test_tpch_queries.py runs over the
Parquet files (DECIMAL money, string_view text, date32 dates); here each runs as the
benchmark runs it, through the command line with its inputs turned into csv_input, on both
backends (a benchmark timing a wrong answer is worthless).
"""

from __future__ import annotations

import json
from decimal import Decimal

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from bench import processes, tpch
from bench.tpch_duckdb import answer
from runtime import cli


@pytest.fixture
def folder(tpch_files):
    """SF 0.01 in both formats, as tpchgen-cli writes it (one copy for the session)."""
    return tpch_files


def test_tpchgen_writes_decimal_money_and_string_view_text(folder):
    schema = pq.read_schema(folder / "parquet" / "lineitem.parquet")
    assert schema.field("l_extendedprice").type == pa.decimal128(15, 2)
    assert schema.field("l_shipmode").type == pa.string_view()
    assert (folder / "csv" / "lineitem.csv").read_text().startswith("l_orderkey,")


@pytest.mark.parametrize("number", tpch.query_numbers())
def test_each_pipeline_answers_as_duckdb_sql_over_csv_on_both_backends(folder, number):
    fmt = "csv"
    reference = folder / fmt / "out" / f"q{number:02d}-reference.parquet"
    reference.parent.mkdir(exist_ok=True)
    answer(folder / fmt, tpch.QUERIES / f"q{number:02d}.sql", reference)
    assert pq.read_table(reference).num_rows > 0  # the constants select something
    for backend in ("pandas", "duckdb"):
        output = f"out/q{number:02d}-{backend}.parquet"
        path = folder / f"q{number:02d}-{fmt}-{backend}.json"
        path.write_text(json.dumps(tpch.document(number, fmt, output)))
        args = ["run", str(path), "--data-root", str(folder / fmt), "--backend", backend]
        assert cli.main([*args, "--no-cache"]) == 0
        assert tpch.same_answer(folder / fmt / output, reference) is None, backend


def test_an_answer_differing_in_one_value_is_told(tmp_path):
    ours, theirs = tmp_path / "ours.parquet", tmp_path / "theirs.parquet"
    pq.write_table(pa.table({"flag": ["A", "N"], "revenue": [1.5, 2.0]}), ours)
    pq.write_table(pa.table({"flag": ["A", "N"], "revenue": [1.5, 2.5]}), theirs)
    assert tpch.same_answer(ours, theirs) == "row 2, revenue: 2.0, DuckDB's 2.5"


def test_exact_values_compare_exactly_and_floats_within_a_relative_1e_9():
    assert tpch.same_value(Decimal("505822441.4861"), Decimal("505822441.48610"))
    assert not tpch.same_value(Decimal("505822441.4861"), Decimal("505822441.4862"))
    assert tpch.same_value(505822441.486102, Decimal("505822441.4861"))
    assert not tpch.same_value(505823000.0, Decimal("505822441.4861"))
    assert tpch.same_value(64, 64.0)
    assert not tpch.same_value(64, 65)


def test_a_run_killed_at_the_memory_limit_is_a_line_of_the_table(folder):
    (pipewright, _), (duckdb, output) = (
        tpch.pipewright(folder, 3, "parquet", "pandas"),
        tpch.duckdb_sql(folder, 3, "parquet"),
    )
    runs = {
        pipewright.label: [processes.run_measured(pipewright.command, limit_bytes=40 * 2**20)],
        duckdb.label: [processes.run_measured(duckdb.command)],
    }
    entrants = [(pipewright, None), (duckdb, output)]
    killed, reference = tpch.table_lines(3, "parquet", entrants, runs)
    assert killed[:3] == ["Q3", "parquet", "pipewright pandas"]
    assert killed[-1] == "killed at the memory limit"
    assert reference[-1] == "reference"
