"""pandas loads when a frame is first touched, never when the engine is only imported."""

from __future__ import annotations

import datetime
import json
import subprocess
import sys
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from bench.seed_etl import PIPELINE
from runtime import lazy
from runtime.lazy import LazyModule
from runtime.worker.zygote import PRELOAD
from tests.runtime.io.test_schema_reads import settled

ROOT = Path(__file__).resolve().parent.parent.parent


def _run(code: str) -> str:
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return result.stdout.strip()


def test_importing_the_engine_and_its_operators_loads_no_pandas():
    code = (
        "import sys, runtime.cli, runtime.execution.executor, runtime.plan;"
        "import runtime.operators.registry;"
        "import runtime.backends.duckdb;"
        "runtime.operators.registry.default_registry();"
        "print('pandas.core.frame' in sys.modules)"
    )
    assert _run(code) == "False"


PROCESSING = ("aggregate", "broadcast", "column_ops", "combine", "filter", "reshape", "route")
PROCESSING += ("rows", "subpipelines", "validate", "window")
"""The modules of the built-in process operators."""


def test_importing_the_process_operators_loads_neither_numpy_nor_pyarrow():
    """numpy alone is a tenth of a second of a command's start-up: a sort, a pivot or a window
    that DuckDB runs has no use for it, nor for pyarrow."""
    modules = ", ".join(f"runtime.operators.{name}" for name in PROCESSING)
    code = f"import sys, {modules}; print([m for m in ('numpy', 'pyarrow') if m in sys.modules])"
    assert _run(code) == "[]"


def test_the_first_use_loads_pandas_once_even_from_two_threads_at_once():
    code = """
import sys, threading
from runtime.lazy import pd
start, seen = threading.Barrier(4), []
def touch():
    start.wait()
    seen.append(pd.DataFrame)
threads = [threading.Thread(target=touch) for _ in range(4)]
for thread in threads: thread.start()
for thread in threads: thread.join()
import pandas
print(len(seen), all(kind is pandas.DataFrame for kind in seen), pd.DataFrame is pandas.DataFrame)
"""
    assert _run(code) == "4 True True"


def test_importing_what_a_duckdb_run_of_files_uses_loads_no_arrow():
    """pyarrow (with numpy) is a third of a small DuckDB run's start-up: it loads when a file's
    types or rows are first read, not with the engine's modules (runtime/lazy.py)."""
    code = (
        "import sys, runtime.cli, runtime.execution.executor, runtime.plan;"
        "import runtime.backends.duckdb, runtime.operators.registry;"
        "from runtime.operators import csv_files, parquet_files, filter, column_ops, aggregate;"
        "from runtime.operators import combine;"
        "runtime.operators.registry.default_registry();"
        "print([name for name in ('pyarrow', 'numpy') if name in sys.modules])"
    )
    assert _run(code) == "[]"


def test_reading_a_document_loads_no_arrow():
    """`schema`, the editor's saves and a worker's snapshot read documents: pyarrow (with
    numpy) loads only when a file's rows or a pattern's matches are reached."""
    code = (
        "import sys; from runtime.document.spec import load_document;"
        "load_document({'format': 'pipewright.pipeline', 'version': 1, 'name': 'p',"
        " 'nodes': [{'id': 'read', 'operator': 'csv_input', 'params': {'path': 'in.csv'},"
        " 'expect': [{'check': 'matches', 'column': 'code', 'pattern': '[A-Z]{2}'}]}],"
        " 'edges': []});"
        "print([name for name in ('pyarrow', 'numpy') if name in sys.modules])"
    )
    assert _run(code) == "[]"


ONLY_ON_OTHER_PATHS = (
    "pyarrow.compute",  # computing on frames or Arrow arrays
    "pyarrow.parquet",  # Parquet files, the result store
    "runtime.plan.partitioning",  # a Dask cluster
    "runtime.plan.decompose",
)
"""Modules that a run of CSV files on DuckDB without the result store has no use for."""


def _run_seed_on_duckdb(folder: Path, *options: str, watched: tuple[str, ...]) -> list[str]:
    """Run the seed ETL on DuckDB in a fresh process: which of `watched` it imported."""
    (folder / "users.csv").write_text(  # `amount`, floats and no null, is checked for NaN
        "id,name,age,amount,country\n1,ada,36,10.5,FR\n2,alan,17,3.0,DE\n3,grace,45,7.25,FR\n"
    )
    (folder / "countries.csv").write_text("country,country_name\nFR,France\nDE,Germany\n")
    (folder / "seed.json").write_text(json.dumps(PIPELINE))
    code = (
        "import json, sys; from runtime.cli import main;"
        f"code = main(['run', {str(folder / 'seed.json')!r}, '--data-root', {str(folder)!r},"
        f" '--backend', 'duckdb', *{options!r}]);"
        f"print(code, json.dumps([name for name in {watched!r} if name in sys.modules]))"
    )
    code, imported = _run(code).splitlines()[-1].split(" ", 1)
    assert code == "0"
    written = (folder / PIPELINE["nodes"][-1]["params"]["path"]).read_text().splitlines()
    assert sorted(line.split(",")[:2] for line in written[1:]) == [["FR", "2"]]  # adults only
    return json.loads(imported)


def test_a_run_whose_segments_all_run_on_duckdb_never_imports_pandas(tmp_path):
    assert _run_seed_on_duckdb(tmp_path, watched=("pandas.core.frame",)) == []


def test_a_duckdb_run_without_the_result_store_imports_nothing_only_other_paths_need(tmp_path):
    assert _run_seed_on_duckdb(tmp_path, "--no-cache", watched=ONLY_ON_OTHER_PATHS) == []


def test_a_duckdb_run_storing_its_results_does_not_import_pyarrow_parquet(tmp_path):
    """DuckDB writes the store's files; checking that one is whole reads its ends by hand
    (pyarrow.parquet, with pyarrow.fs, weighs some 20 MiB of a cold run's memory)."""
    assert _run_seed_on_duckdb(tmp_path, watched=("pyarrow.parquet",)) == []


def test_a_duckdb_run_of_plain_csv_files_never_imports_pyarrow_even_the_first_time(tmp_path):
    """Their types are read without it (runtime/io/csv_types.py), with or without the store."""
    assert _run_seed_on_duckdb(tmp_path, "--fresh", watched=("pyarrow",)) == []


def test_a_tpch_query_over_parquet_on_duckdb_imports_no_pandas_and_next_time_no_pyarrow(tmp_path):
    """Q6's date range, decimal literals and their sums are constants folded as the plan is
    made, in Python, and DuckDB writes its Parquet answer: pandas is never loaded. pyarrow reads
    the footers the first time; the next command plans from what was kept of them on disk."""
    data = tmp_path / "data"
    data.mkdir()
    lineitem = {
        "l_shipdate": pa.array([datetime.date(1994, 3, 1), datetime.date(1995, 3, 1)]),
        "l_discount": pa.array([Decimal("0.06"), Decimal("0.06")], pa.decimal128(15, 2)),
        "l_quantity": pa.array([Decimal("10"), Decimal("30")], pa.decimal128(15, 2)),
        "l_extendedprice": pa.array([Decimal("100.00"), Decimal("5.00")], pa.decimal128(15, 2)),
    }
    pq.write_table(pa.table(lineitem), data / "lineitem.parquet")
    settled(data / "lineitem.parquet")
    query = ROOT / "tests" / "golden" / "tpch" / "q06.json"
    code = (
        "import sys; from runtime.cli import main;"
        f"code = main(['run', {str(query)!r}, '--data-root', {str(data)!r},"
        " '--backend', 'duckdb', '--no-cache']);"
        "print(code, 'pandas' in sys.modules, 'pyarrow' in sys.modules)"
    )
    assert _run(code).splitlines()[-1] == "0 False True"
    assert _run(code).splitlines()[-1] == "0 False False"
    [answer] = pq.read_table(data / "out" / "q06.parquet").to_pylist()
    assert answer == {"revenue": Decimal("6.0000")}


def test_the_run_process_server_imports_before_it_forks_what_runs_import_lazily():
    """Each run's process is forked from it: what the server left out, every run imports."""
    lazily = {module.__name__ for module in vars(lazy).values() if isinstance(module, LazyModule)}
    assert lazily | {"runtime.plan.partitioning"} <= set(PRELOAD)
