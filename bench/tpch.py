"""TPC-H queries as Pipewright pipelines against DuckDB SQL over the same files.

    python bench/tpch.py [--sf 1] [--queries 1,3,6] [--formats parquet,csv]
                         [--backends auto] [--repeat 3] [--memory 2GiB] [--timeout 300]

The data comes from tpchgen-cli (a dev dependency), generated once per scale factor under
bench/.data/tpch-sf<SF>/: its Parquet files, untouched (DECIMAL money, string_view text,
date32 dates, as another engine writes them), and its CSV files. The queries are the project's
own test queries, tests/golden/tpch/ (one copy, which tests/golden/test_tpch_queries.py keeps
answering as DuckDB does): each a pipeline document (qNN.json, written over Parquet; over CSV
its inputs become csv_input) and the standard SQL text beside it (qNN.sql), which
bench/tpch_duckdb.py runs. For each query and format, Pipewright on each backend
(`python -m runtime run --no-cache`: without the result store) and the DuckDB script run as
fresh processes in rounds that alternate them. The table shows median wall and CPU seconds,
their ratios to the DuckDB script's, the highest peak memory, and whether the answer equals
DuckDB's: where both values are exact (integers, decimals) exactly, floats within a relative
1e-9, rows in the queries' order. A run above `--memory` or `--timeout` is killed; a run
that fails is a line of the table saying how, and is not run again.

`--server` adds, for each backend, Pipewright's command through a command server (`python -m
runtime server start`, started for the benchmark): its CPU is the caller's, the server's and
the forked process's that ran the query; its peak memory is neither measured nor limited
(shown as "-").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench.processes import (
    Entrant,
    command_server,
    compile_bytecode,
    failed,
    medians,
    race,
    size_bytes,
)
from bench.table import print_table, ratio

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "bench" / ".data"
QUERIES = ROOT / "tests" / "golden" / "tpch"
FORMATS = ("parquet", "csv")
DUCKDB = "DuckDB SQL"


def tpchgen() -> str:
    """The tpchgen-cli command, installed beside this Python or on the PATH."""
    beside = Path(sys.executable).parent / "tpchgen-cli"
    found = str(beside) if beside.exists() else shutil.which("tpchgen-cli")
    if found is None:
        raise SystemExit("tpchgen-cli is missing: pip install -e '.[dev]' (or tpchgen-cli)")
    return found


def generate(scale: float, folder: Path, formats: Sequence[str] = FORMATS) -> Path:
    """`folder`/parquet and `folder`/csv (those of `formats`) at scale factor `scale`, each
    written once (into a temporary folder renamed when complete)."""
    for fmt in formats:
        target = folder / fmt
        if target.is_dir():
            continue
        partial = folder / f".{fmt}.partial"
        shutil.rmtree(partial, ignore_errors=True)
        command = [tpchgen(), fmt, "-s", f"{scale:g}", "-o", str(partial), "-q"]
        subprocess.run(command, check=True)
        os.replace(partial, target)
    return folder


def query_numbers() -> list[int]:
    """The queries tests/golden/tpch/ has pipelines for."""
    return sorted(int(path.stem[1:]) for path in QUERIES.glob("q*.json"))


def document(number: int, fmt: str, output: str) -> dict:
    """Query `number`'s pipeline reading `fmt` files, writing its answer to `output`."""
    loaded = json.loads((QUERIES / f"q{number:02d}.json").read_text())
    for node in loaded["nodes"]:
        if node["operator"] == "parquet_input" and fmt == "csv":
            node["operator"] = "csv_input"
            node["params"]["path"] = str(Path(node["params"]["path"]).with_suffix(".csv"))
        elif node["operator"] == "parquet_output":
            node["params"]["path"] = output
    return loaded


def pipewright(
    folder: Path, number: int, fmt: str, backend: str, server: tuple[dict, int] | None = None
) -> tuple[Entrant, Path]:
    """`python -m runtime run` of query `number` over `folder`/`fmt` (through the command
    `server`, its environment and pid, if given), and its answer's path."""
    data_root = folder / fmt
    name = f"q{number:02d}-pipewright-{backend}{'-server' if server else ''}"
    path = folder / "pipelines" / f"{name}-{fmt}.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps(document(number, fmt, f"out/{name}.parquet")))
    command = [sys.executable, "-m", "runtime", "run", str(path), "--data-root", str(data_root)]
    command += ["--backend", backend, "--no-cache"]
    label = f"pipewright {backend}"
    entrant = Entrant(label, command) if server is None else Entrant(
        f"{label}, server", command, server[0], served_by=server[1]
    )  # fmt: skip
    return entrant, data_root / "out" / f"{name}.parquet"


def duckdb_sql(folder: Path, number: int, fmt: str) -> tuple[Entrant, Path]:
    """bench/tpch_duckdb.py running query `number`'s SQL, and its answer's path."""
    output = folder / fmt / "out" / f"q{number:02d}-duckdb.parquet"
    output.parent.mkdir(exist_ok=True)
    script = ROOT / "bench" / "tpch_duckdb.py"
    sql = QUERIES / f"q{number:02d}.sql"
    return Entrant(
        DUCKDB, [sys.executable, str(script), str(folder / fmt), str(sql), str(output)]
    ), output


def same_answer(path: Path, reference: Path) -> str | None:
    """None when the answers agree (see the module's docstring), else what differs."""
    import pyarrow.parquet as pq

    ours, theirs = pq.read_table(path), pq.read_table(reference)
    if ours.column_names != theirs.column_names:
        return f"columns {ours.column_names}, DuckDB's {theirs.column_names}"
    if ours.num_rows != theirs.num_rows:
        return f"{ours.num_rows} rows, DuckDB's {theirs.num_rows}"
    for index, (row, expected) in enumerate(zip(ours.to_pylist(), theirs.to_pylist(), strict=True)):
        for name, value in row.items():
            if not same_value(value, expected[name]):
                return f"row {index + 1}, {name}: {value!r}, DuckDB's {expected[name]!r}"
    return None


def same_value(value, expected) -> bool:
    """Exact where both are exact numbers (or not numbers); floats within a relative 1e-9."""
    exact, number = (int, Decimal), (int, Decimal, float)
    both_numbers = isinstance(value, number) and isinstance(expected, number)
    if both_numbers and not (isinstance(value, exact) and isinstance(expected, exact)):
        return math.isclose(float(value), float(expected), rel_tol=1e-9)
    return value == expected


def table_lines(number: int, fmt: str, entrants: list, runs: dict) -> list[list]:
    """One line per contestant of one query and format."""
    reference_output = next(output for entrant, output in entrants if entrant.label == DUCKDB)
    reference = runs[DUCKDB]
    duckdb = medians(reference) if not failed(reference) else (None, None)
    lines = []
    for entrant, output in entrants:
        done = runs[entrant.label]
        peak = "-" if entrant.served_by else round(max(run.peak_mb for run in done))
        head = [f"Q{number}", fmt, entrant.label]
        if failed(done):
            lines.append([*head, "", "", "", "", peak, failed(done).failure()])
            continue
        wall, cpu = medians(done)
        if entrant.label == DUCKDB:
            answer = "reference"
        elif duckdb[0] is None:
            answer = "not compared: DuckDB failed"
        else:
            answer = same_answer(output, reference_output) or "equal"
        lines.append(
            [*head, f"{wall:.2f}", f"{cpu:.2f}", ratio(wall, duckdb[0]), ratio(cpu, duckdb[1]),
             peak, answer]
        )  # fmt: skip
    return lines


def numbers(text: str) -> list[int]:
    """`1,3,6` → [1, 3, 6]."""
    return [int(part) for part in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sf", type=float, default=1.0, help="scale factor (0.1: quick)")
    parser.add_argument("--queries", type=numbers, help=f"default: all ({query_numbers()})")
    parser.add_argument("--formats", default=",".join(FORMATS), help="parquet,csv")
    parser.add_argument("--backends", default="auto", help="Pipewright's, such as auto,pandas")
    parser.add_argument("--repeat", type=int, default=3, help="rounds per query and format")
    parser.add_argument("--memory", default="2GiB", help="a run above it is killed")
    parser.add_argument("--timeout", type=float, default=300, help="seconds, then killed")
    parser.add_argument("--server", action="store_true", help="also through a command server")
    args = parser.parse_args()
    try:
        limit = size_bytes(args.memory)
    except ValueError as error:
        parser.error(str(error))
    formats = args.formats.split(",")
    folder = generate(args.sf, DATA / f"tpch-sf{args.sf:g}", formats)
    compile_bytecode()
    with command_server() if args.server else contextlib.nullcontext() as server:
        lines = []
        for number in args.queries or query_numbers():
            for fmt in formats:
                backends = args.backends.split(",")
                entrants = [pipewright(folder, number, fmt, b) for b in backends]
                if server:
                    entrants += [pipewright(folder, number, fmt, b, server) for b in backends]
                entrants.append(duckdb_sql(folder, number, fmt))
                contestants = [entrant for entrant, _ in entrants]
                runs = race(contestants, args.repeat, 0, limit, args.timeout)
                lines += table_lines(number, fmt, entrants, runs)
    print(
        f"TPC-H SF {args.sf:g} (tpchgen-cli), median of {args.repeat} alternating rounds;"
        f" Pipewright's result store off (--no-cache); a run above {args.memory} or"
        f" {args.timeout:g} s is killed\n"
    )
    headers = ["", "format", "", "wall s", "CPU s", "wall/DuckDB", "CPU/DuckDB", "peak MiB"]
    print_table([*headers, "answer"], lines)


if __name__ == "__main__":
    main()
