"""The seed's ETL compiled to scripts (`python -m runtime compile`) against Pipewright's runs.

    python bench/compiled.py [--rows 2000000] [--repeat 5] [--pause 0]

The script compiled for DuckDB (the whole ETL one COPY statement), the one compiled for pandas,
and Pipewright's runs (auto, pandas), with the naive pandas and DuckDB scripts as references,
each a fresh process in alternating rounds (bench/etl.py's table). Compiling is not timed: a
script is written once and run many times. Every output is checked equal to the naive script's.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import seed_etl
from bench.etl import DUCKDB, HEADERS, NAIVE, race, table_rows
from bench.processes import compile_bytecode
from bench.table import print_table


def compiled(folder: Path, backend: str) -> seed_etl.Contestant:
    """The seed ETL compiled for `backend`, writing its own output, run with `python -I`."""
    output = folder / "out" / f"compiled-{backend}.csv"
    output.parent.mkdir(exist_ok=True)
    document = json.loads(json.dumps(seed_etl.PIPELINE))
    document["nodes"][-1]["params"] = {"path": str(output.relative_to(folder))}
    source, script = folder / f"compiled-{backend}.json", folder / f"compiled-{backend}.py"
    source.write_text(json.dumps(document))
    command = [sys.executable, "-m", "runtime", "compile", str(source), "-o", str(script)]
    command += ["--data-root", str(folder), "--backend", backend]
    subprocess.run(command, cwd=seed_etl.ROOT, check=True, capture_output=True)
    run = [sys.executable, "-I", str(script), "--data-root", str(folder)]
    return seed_etl.Contestant(f"script compiled for {backend}", run, output)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="rounds")
    parser.add_argument("--pause", type=float, default=0.0, help="idle seconds before each run")
    args = parser.parse_args()
    compile_bytecode()
    support = seed_etl.backend_support()
    folder = seed_etl.generate(args.rows)
    entrants = [
        compiled(folder, "duckdb"),
        compiled(folder, "pandas"),
        *(seed_etl.pipewright(folder, backend, support) for backend in seed_etl.BACKENDS),
        seed_etl.script(folder, "naive", NAIVE),
        seed_etl.script(folder, "duckdb", DUCKDB),
    ]
    lines = table_rows(args.rows, entrants, race(entrants, args.repeat, args.pause))
    print(f"seed ETL, median of {args.repeat} alternating rounds; every output equals naive's\n")
    print_table(HEADERS, lines)


if __name__ == "__main__":
    main()
