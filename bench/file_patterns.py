"""Inputs of many files: listing a pattern, and reading a folder on pandas and on DuckDB.

    python bench/file_patterns.py [--repeat N]

Lists `**/*.csv` over 10,000 small files in 100 folders (what every validation and run of
such an input pays), then runs `read → aggregate` over a folder of 100 Parquet files of 50,000
rows each and over 1,000 small CSV files, on each backend. Prints one table: the best of N.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.overhead import best_of  # noqa: E402
from bench.table import print_table  # noqa: E402
from runtime.document.spec import load_document  # noqa: E402
from runtime.execution.executor import execute  # noqa: E402
from runtime.io.file_patterns import input_files  # noqa: E402
from runtime.io.paths import FileArea  # noqa: E402
from runtime.plan import build_plan  # noqa: E402
from runtime.plan.prepare import prepare  # noqa: E402


def small_csv_files(root: Path, folders: int, per_folder: int) -> None:
    for folder in range(folders):
        (root / "logs" / f"{folder:03d}").mkdir(parents=True)
        for index in range(per_folder):
            text = f"k,v\n{index % 7},{index}\n{folder % 5},{folder}\n"
            (root / "logs" / f"{folder:03d}" / f"{index:03d}.csv").write_text(text)


def parquet_folder(root: Path, files: int, rows: int) -> None:
    rng = np.random.default_rng(1)
    (root / "sales").mkdir()
    for index in range(files):
        frame = pd.DataFrame({"k": rng.integers(0, 50, rows), "v": rng.uniform(0, 1, rows)})
        frame.to_parquet(root / "sales" / f"part-{index:03d}.parquet", index=False)


def summing(operator: str, path: str) -> dict:
    return {
        "name": "sum",
        "nodes": [
            {"id": "read", "operator": operator, "params": {"path": path}},
            {"id": "by_k", "operator": "aggregate", "params": {"group_by": ["k"],
             "aggregations": [{"column": "v", "function": "sum", "name": "v"}]}},
        ],
        "edges": [{"source": "read", "target": "by_k"}],
    }  # fmt: skip


def run_on(backend: str, document: dict, area: FileArea):
    def work():
        plan = prepare(build_plan(load_document(document)), backend=backend, data_root=area)
        result = execute(plan, data_root=area)
        assert result.ok, result

    return work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    repeat = parser.parse_args().repeat
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        small_csv_files(root, folders=100, per_folder=100)
        parquet_folder(root, files=100, rows=50_000)
        area = FileArea(root)
        listed = best_of(repeat, lambda: input_files(area, "logs/**/*.csv", (".csv",)))
        rows = [["list logs/**/*.csv (10,000 files)", None, None, listed]]
        for label, document in (
            ("read+aggregate sales/ (100 Parquet, 5M rows)", summing("parquet_input", "sales")),
            ("read+aggregate logs/00*/*.csv (1,000 CSV)", summing("csv_input", "logs/00*/*.csv")),
        ):
            pandas = best_of(repeat, run_on("pandas", document, area))
            duckdb = best_of(repeat, run_on("duckdb", document, area))
            rows.append([label, pandas, duckdb, None])
        print_table(["work", "pandas (s)", "duckdb (s)", "listing (s)"], rows)


if __name__ == "__main__":
    main()
