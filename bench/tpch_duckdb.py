"""A TPC-H query as a user would run it with DuckDB SQL: the reference of bench/tpch.py.

    python bench/tpch_duckdb.py DATA_FOLDER QUERY.sql OUT.parquet

DATA_FOLDER holds one file per table, all Parquet or all CSV, as tpchgen-cli writes them;
each file the query names becomes a view named after it (`lineitem.parquet` → `lineitem`):
DuckDB reads a CSV file's start to guess its types when the view is made.
"""

import re
import sys
from pathlib import Path

import duckdb


def answer(folder: Path, query: Path, out: Path) -> None:
    """Run `query` over the tables of `folder`, writing its answer to `out` (Parquet)."""
    sql = query.read_text()
    named = set(re.findall(r"\w+", sql.lower()))
    con = duckdb.connect()
    for path in sorted([*folder.glob("*.parquet"), *folder.glob("*.csv")]):
        if path.stem in named:
            read = con.read_parquet if path.suffix == ".parquet" else con.read_csv
            read(str(path)).create_view(path.stem)
    con.sql(sql).write_parquet(str(out))
    con.close()


if __name__ == "__main__":
    answer(Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3]))
