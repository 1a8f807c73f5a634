"""The seed's ETL on 80 million rows (a 5 GB CSV) under a 1 GiB memory limit.

    python bench/scale.py [--rows 80000000] [--memory 1GiB] [--repeat 1]

Pipewright (`auto`), the DuckDB script and the Polars script each run once per round as a
fresh process, limited by their own settings: PIPEWRIGHT_RUN_MEMORY for Pipewright, DuckDB's
`memory_limit` (spilling next to its output), and Polars' streaming engine (Polars has no
limit setting). The table shows wall time, the peak memory measured (max RSS) and whether it
stayed under the limit; a run that fails is shown with its last error line. The outputs are
checked equal to the DuckDB script's (naive pandas would need about 19 GB here; bench/etl.py
checks DuckDB against it). The data is generated once, in chunks, under bench/.data/; the
command refuses to start when the disk has no room for it.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import seed_etl
from bench.processes import compile_bytecode, run_measured
from bench.table import print_table

UNITS = {"kib": 2**10, "mib": 2**20, "gib": 2**30, "kb": 10**3, "mb": 10**6, "gb": 10**9}
SPARE_BYTES = 2 * 2**30  # room left on the disk besides the data (spill files, outputs)


def size_bytes(text: str) -> int:
    """`1GiB` → 1073741824 (KiB, MiB, GiB, KB, MB, GB)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)\s*([kmg]i?b)", text.strip(), re.IGNORECASE)
    if match is None:
        raise ValueError(f"'{text}' is not a size such as 1GiB or 500MB")
    return int(float(match[1]) * UNITS[match[2].lower()])


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


def contestants(folder: Path, support: str | None, memory: str) -> list[tuple]:
    """(contestant, extra environment) for each, with its own memory setting."""
    backend = "auto" if support else "pandas"  # a runtime without backends is pandas only
    return [
        (seed_etl.pipewright(folder, backend, support), {"PIPEWRIGHT_RUN_MEMORY": memory}),
        (seed_etl.script(folder, "duckdb", "DuckDB script", memory), {}),
        (seed_etl.script(folder, "polars", "Polars script (streaming)"), {}),
    ]


def run_all(entrants: list[tuple], repeat: int, limit: int) -> list[list]:
    """One table line per contestant: median seconds, highest peak, under the limit, output."""
    reference = next(entrant.output for entrant, _ in entrants if entrant.label.startswith("Duck"))
    lines = []
    for entrant, env in entrants:
        runs = [run_measured(entrant.command, env) for _ in range(repeat)]
        peak = max(run["peak_mb"] for run in runs)
        under = "yes" if peak * 2**20 <= limit else "NO"
        failed = [run for run in runs if run["code"] != 0]
        if failed:
            last = failed[0]["stderr"].strip().splitlines() or ["(no message)"]
            outcome = f"failed (exit {failed[0]['code']}): {last[-1][:80]}"
            lines.append([entrant.label, "", round(peak), under, outcome])
            continue
        seconds = statistics.median(run["seconds"] for run in runs)
        lines.append([entrant.label, f"{seconds:.2f}", round(peak), under, entrant.output])
    for line, (entrant, _) in zip(lines, entrants, strict=True):
        if line[-1] == entrant.output:
            seed_etl.same_output(entrant.output, reference)
            line[-1] = "equal"
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
    lines = run_all(contestants(folder, support, args.memory), args.repeat, limit)
    print(f"seed ETL, {args.rows:,} rows ({size_gb:.1f} GB CSV), limit {args.memory}")
    if not support:
        print("this runtime has no backends: Pipewright runs on pandas, which ignores the limit")
    print()
    print_table(["", "wall s", "peak MiB", f"under {args.memory}", "output"], lines)
    print(f"\ntargets: every run finishes under {args.memory}; Pipewright peak ≤ 500 MiB")


if __name__ == "__main__":
    main()
