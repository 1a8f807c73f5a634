"""The 22 TPC-H queries, written as pipelines a user would draw, answer as DuckDB's SQL does.

tests/golden/tpch/ holds each query twice: qNN.json, the pipeline (through the catalog: date
literals and intervals, like patterns, semi and anti joins for exists/in/not exists, a
broadcast or an aggregate joined back for a scalar subquery, aggregate `where` for a
conditional sum), and qNN.sql, the standard text with the standard substitution parameters.
Each pipeline runs in this process on each backend over tpchgen-cli's Parquet files at scale
factor 0.01, and its answer must equal DuckDB's for the SQL over the same files: exactly
where both values are exact (integers, decimals, text, dates), floats within a relative
1e-9, rows in the query's order (bench/tpch.py's `same_answer`). A pipeline the engine cannot
load yet fails here with the problems its check reports, which name the node and the field.
"""

from __future__ import annotations

from pathlib import Path

import pyarrow.parquet as pq
import pytest

from bench import tpch
from bench.tpch_duckdb import answer
from runtime.backends.duckdb_reads import check_reads
from runtime.checks.analysis import load_checked
from runtime.errors import PipelineValidationError
from runtime.execution.executor import execute
from runtime.io.paths import FileArea
from runtime.plan import build_plan
from runtime.plan.prepare import prepare

QUERIES = Path(__file__).parent / "tpch"
NUMBERS = range(1, 23)
BACKENDS = ("pandas", "duckdb")


@pytest.fixture(scope="module")
def reference(tpch_files):
    """`reference(number)`: the Parquet file of DuckDB's answer to qNN.sql, computed once."""
    folder = tpch_files / "parquet"
    answers: dict[int, Path] = {}

    def of(number: int) -> Path:
        if number not in answers:
            path = folder / "out" / f"q{number:02d}-duckdb-sql.parquet"
            path.parent.mkdir(exist_ok=True)
            answer(folder, QUERIES / f"q{number:02d}.sql", path)
            answers[number] = path
        return answers[number]

    return of


def run(document: dict, data_root: Path, backend: str) -> None:
    """Check, plan and run `document` here on `backend`; fail with what stopped it."""
    area = FileArea(data_root)
    try:
        plan = build_plan(load_checked(document), data_root=area)
    except PipelineValidationError as error:
        problems = "\n".join(str(problem) for problem in error.problems)
    else:
        problems = ""
    if problems:  # outside the except block: the message alone, not a chain of exceptions
        pytest.fail(problems, pytrace=False)
    plan = prepare(plan, backend=backend, data_root=area, probe=check_reads)
    result = execute(plan, data_root=area)
    assert result.ok, result.error


def test_the_folder_holds_the_22_queries_as_pipeline_and_sql():
    names = sorted(path.name for path in QUERIES.iterdir())
    assert names == sorted(f"q{n:02d}.{ext}" for n in NUMBERS for ext in ("json", "sql"))


@pytest.mark.parametrize("number", NUMBERS)
def test_each_sql_text_answers_with_rows_at_the_tiny_scale(reference, number):
    assert pq.read_table(reference(number)).num_rows > 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("number", NUMBERS)
def test_each_pipeline_answers_as_duckdb_sql(tpch_files, reference, number, backend):
    folder = tpch_files / "parquet"
    output = f"out/q{number:02d}-{backend}.parquet"
    run(tpch.document(number, "parquet", output), folder, backend)
    difference = tpch.same_answer(folder / output, reference(number))
    assert difference is None, f"Q{number} on {backend}: {difference}"
