"""The seed's ETL on 80 million rows (a 5 GB CSV) under a 1 GiB memory limit.

    python bench/scale.py [--rows 80000000] [--memory 1GiB] [--repeat 1]

Pipewright (`auto`, without its result store), the DuckDB script and the Polars script each
run once per round (rounds alternate them) as a fresh process, told the limit by their own
settings: PIPEWRIGHT_RUN_MEMORY for Pipewright, DuckDB's `memory_limit` (spilling next to its
output), and Polars' streaming engine (Polars has no limit setting). The limit is enforced:
a run whose processes together hold more resident memory is killed (bench/watch.py) and
reads "killed at the memory limit". The table shows median wall and CPU seconds, their
ratios to the DuckDB script's and the peak memory measured (max RSS); a run that fails is
shown with its last error line and not run again. The outputs are
checked equal to the DuckDB script's (naive pandas would need about 19 GB here; bench/etl.py
checks DuckDB against it). The data is generated once, in chunks, under bench/.data/; the
command refuses to start when the disk has no room for it.
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import seed_etl
from bench.processes import Entrant, compile_bytecode, failed, medians, race, size_bytes
from bench.table import print_table, ratio

DUCKDB = "DuckDB script"
SPARE_BYTES = 2 * 2**30  # room left on the disk besides the data (spill files, outputs)


def check_disk(rows: int) -> None:
    """Refuse, saying how much is missing, when the data for `rows` would not fit."""
    folder = seed_etl.data_folder(rows)
    if (folder / "users.csv").exists():
        return
    needed = rows * seed_etl.BYTES_PER_ROW + SPARE_BYTES
    free = shutil.disk_usage(seed_etl.DATA.parent).free
    if free < needed:
        raise SystemExit(
            f"not enough disk for {rows:,} rows: users.csv needs about "
            f"{needed / 1e9:.1f} GB free (with room for spill files) under {seed_etl.DATA}, "
            f"and only {free / 1e9:.1f} GB are free"
        )


def contestants(folder: Path, support: str | None, memory: str) -> list[seed_etl.Contestant]:
    """Pipewright, then the DuckDB script told `memory`, then the Polars script (Pipewright's
    setting, PIPEWRIGHT_RUN_MEMORY, goes into its environment in `run_all`)."""
    backend = "auto" if support else "pandas"  # a runtime without backends is pandas only
    return [
        seed_etl.pipewright(folder, backend, support),
        seed_etl.script(folder, "duckdb", DUCKDB, memory),
        seed_etl.script(folder, "polars", "Polars script (streaming)"),
    ]


def run_all(
    entrants: list[seed_etl.Contestant], memory: str, repeat: int, limit: int
) -> list[list]:
    """Alternating rounds, each run killed above `limit`: one table line per contestant
    (median wall and CPU seconds, their ratios to the DuckDB script's, highest peak, output)."""
    env = {"PIPEWRIGHT_RUN_MEMORY": memory}
    runs = race(
        [
            Entrant(e.label, e.command, env if e.label.startswith("pipewright") else None)
            for e in entrants
        ],
        repeat,
        limit_bytes=limit,
    )
    duckdb = medians(runs[DUCKDB]) if not failed(runs[DUCKDB]) else (None, None)
    reference = next(entrant.output for entrant in entrants if entrant.label == DUCKDB)
    lines = []
    for entrant in entrants:
        done = runs[entrant.label]
        peak = round(max(run.peak_mb for run in done))
        if failed(done):
            lines.append([entrant.label, "", "", "", "", peak, failed(done).failure()])
            continue
        wall, cpu = medians(done)
        outcome = "not compared: the DuckDB script failed"
        if duckdb[0] is not None:
            seed_etl.same_output(entrant.output, reference)
            outcome = "equal"
        lines.append(
            [
                entrant.label,
                f"{wall:.2f}",
                f"{cpu:.2f}",
                ratio(wall, duckdb[0]),
                ratio(cpu, duckdb[1]),
                peak,
                outcome,
            ]
        )
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=80_000_000)
    parser.add_argument("--memory", default="1GiB", help="the limit given to each (1GiB, 500MB)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per contestant")
    args = parser.parse_args()
    try:
        limit = size_bytes(args.memory)
    except ValueError as error:
        parser.error(str(error))
    check_disk(args.rows)
    folder = seed_etl.generate(args.rows)
    size_gb = (folder / "users.csv").stat().st_size / 1e9
    compile_bytecode()
    support = seed_etl.backend_support()
    lines = run_all(contestants(folder, support, args.memory), args.memory, args.repeat, limit)
    print(
        f"seed ETL, {args.rows:,} rows ({size_gb:.1f} GB CSV), limit {args.memory} (a run above"
        f" it is killed), median of {args.repeat} alternating rounds; result store"
        f" {'off (--no-cache)' if seed_etl.has_result_store() else 'absent'}"
    )
    if not support:
        print("this runtime has no backends: Pipewright runs on pandas, which ignores the limit")
    print()
    headers = ["", "wall s", "CPU s", "wall/DuckDB", "CPU/DuckDB", "peak MiB", "output"]
    print_table(headers, lines)
    print(f"\ntargets: every run finishes under {args.memory}; Pipewright peak ≤ 500 MiB")


if __name__ == "__main__":
    main()
