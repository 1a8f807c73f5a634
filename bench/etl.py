"""The seed's ETL side by side: Pipewright (auto, pandas) against hand-written pandas, DuckDB
and Polars scripts.

    python bench/etl.py [--rows 2000000 | --sizes 2e6,10e6,30e6] [--repeat 5] [--pause 0]

users.csv → filter age > 18 → transform (amount_eur = amount * 0.92, name upper-cased) →
aggregate by country (count, sum amount_eur, mean age) → join countries.csv → csv_output.
Every contestant runs as a fresh process on the same generated data (bench/seed_etl.py), in
rounds that alternate them (A B C D E, A B C D E, ...) so that a machine's slow minute hurts
them all alike. The table shows the median wall and CPU seconds, their ratios to the DuckDB
script's, the wall ratio to the naive pandas script's and the highest peak memory (max RSS);
every output is checked equal to the naive one's. A Pipewright backend this tree's runtime
cannot be told reads n/a. Pipewright runs without its result store (`--no-cache`), and once
more on `auto` with it as a user's first run has it (`--fresh`: stores, reuses nothing).
`--server` adds that last one through a command server (`python -m runtime server start`):
its CPU counts the server's and the forked command's; its peak memory is not measured ("-").
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import processes, seed_etl
from bench.processes import Entrant, best, compile_bytecode, failed, medians
from bench.table import print_table, ratio

NAIVE = "naive pandas"
STORE = "off (--no-cache) except on the line 'store on' (--fresh)"
DUCKDB = "DuckDB script"
FIXED_COST = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "Start-up and fixed costs",
    "nodes": [
        {"id": "countries", "operator": "csv_input", "params": {"path": "countries.csv"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/countries.csv"}},
    ],
    "edges": [{"source": "countries", "target": "write"}],
}


def contestants(folder: Path, support: str | None, server=None) -> list[seed_etl.Contestant]:
    """The six (seven with a command `server`), in the order each round runs them."""
    served = [seed_etl.pipewright(folder, "auto", support, store=True, server=server)]
    return [
        *(seed_etl.pipewright(folder, backend, support) for backend in seed_etl.BACKENDS),
        seed_etl.pipewright(folder, "auto", support, store=True),
        *(served if server else []),
        seed_etl.script(folder, "naive", NAIVE),
        seed_etl.script(folder, "duckdb", DUCKDB),
        seed_etl.script(folder, "polars", "Polars script (lazy)"),
    ]


def race(entrants: list[seed_etl.Contestant], repeat: int, pause: float) -> dict[str, list]:
    """`repeat` alternating rounds: each contestant's runs, every output checked against the
    naive script's after each round; a failed run stops the benchmark."""
    reference = next(entrant.output for entrant in entrants if entrant.label == NAIVE)
    runnable = [entrant for entrant in entrants if entrant.command]

    def check() -> None:
        for entrant in runnable:
            seed_etl.same_output(entrant.output, reference)

    runs = processes.race(
        [Entrant(e.label, e.command, e.env, e.served_by) for e in runnable],
        repeat,
        pause,
        after_round=check,
    )
    for label, done in runs.items():
        if failed(done):
            raise SystemExit(f"{label}: {failed(done).failure()}")
    return runs


HEADERS = ["", "rows", "wall s", "CPU s", "wall/DuckDB", "CPU/DuckDB", "wall/naive", "peak MiB"]


def table_rows(rows: int, entrants: list[seed_etl.Contestant], runs: dict) -> list[list]:
    """One line per contestant (HEADERS): median wall and CPU seconds, their ratios to the
    DuckDB script's, the wall ratio to naive pandas', the highest peak MiB."""
    summary = {label: medians(done) for label, done in runs.items()}
    duckdb = summary.get(DUCKDB, (None, None))
    lines = []
    for entrant in entrants:
        if entrant.label not in runs:
            lines.append([entrant.label, f"{rows:,}", *["n/a"] * 6])
            continue
        wall, cpu = summary[entrant.label]
        lines.append(
            [
                entrant.label,
                f"{rows:,}",
                f"{wall:.2f}",
                f"{cpu:.2f}",
                ratio(wall, duckdb[0]),
                ratio(cpu, duckdb[1]),
                ratio(wall, summary[NAIVE][0]),
                "-" if entrant.served_by else round(max(r.peak_mb for r in runs[entrant.label])),
            ]
        )
    return lines


def fixed_costs(support: str | None, repeat: int) -> str:
    """What a 12-row pipeline through the CLI costs, next to `import pandas` alone."""
    folder = seed_etl.generate(12)
    (folder / "fixed-cost.json").write_text(json.dumps(FIXED_COST))
    command = [sys.executable, "-m", "runtime", "run", str(folder / "fixed-cost.json")]
    command += ["--data-root", str(folder)]
    if support == "option":
        command += ["--backend", "auto"]
    cli, _ = best(repeat, command)
    pandas_import, _ = best(repeat, [sys.executable, "-c", "import pandas"])
    return (
        f"a 12-row pipeline through the CLI {cli:.3f} s;"
        f" `import pandas` alone {pandas_import:.3f} s"
    )


def sizes(text: str) -> list[int]:
    """`2e6,10e6` → [2000000, 10000000]."""
    return [int(float(part)) for part in text.split(",")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--sizes", type=sizes, help="several sizes, such as 2e6,10e6,30e6")
    parser.add_argument("--repeat", type=int, default=5, help="rounds per size")
    parser.add_argument("--pause", type=float, default=0.0, help="idle seconds before each run")
    parser.add_argument("--server", action="store_true", help="also through a command server")
    args = parser.parse_args()
    compile_bytecode()
    support = seed_etl.backend_support()
    lines = []
    with processes.command_server() if args.server else contextlib.nullcontext() as server:
        for rows in args.sizes or [args.rows]:
            folder = seed_etl.generate(rows)
            entrants = contestants(folder, support, server)
            lines += table_rows(rows, entrants, race(entrants, args.repeat, args.pause))
    told = {"option": "`run --backend`", "config": "the document's config.backend"}
    print(
        f"seed ETL, median of {args.repeat} alternating rounds; every output equals naive pandas';"
        f" result store {STORE if seed_etl.has_result_store() else 'absent'}"
    )
    print(f"Pipewright backend given by {told.get(support, 'nothing: this runtime has none')}\n")
    print_table(HEADERS, lines)
    print(f"\nfixed costs: {fixed_costs(support, args.repeat)}")
    print("targets: pipewright auto ≤ 0.5x naive pandas at 2M rows, about 0.2x at 30M")


if __name__ == "__main__":
    main()
