"""Tuning from past runs against the fixed rule, on a small file that a join multiplies.

    python bench/tuning.py [--rows 30000] [--keys 300] [--repeat 5]

events.csv (ROWS rows, 2 columns, under a megabyte) joined with itself on a key of KEYS values
makes ROWS²/KEYS pairs (3 million by default), summed per key and written out. The fixed rule
of `auto` sees a file under 32 MiB and runs everything on pandas, which makes every pair a
row in memory; tuned from past runs, the planner sees the join made millions of rows and puts
the segment on DuckDB. Contestants, each a fresh `python -m runtime run --fresh` (the store
on, reusing nothing) or script, in alternating rounds: untuned (`--no-tuning`), tuned (its
profile seeded by one run before the rounds), and the same query as a DuckDB script. The
table shows median wall and CPU seconds and their ratios to the DuckDB script's; outputs are
checked equal after each round. The tuned plan's "tuning from past runs" section follows.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import processes
from bench.processes import Entrant, failed, medians
from bench.table import print_table, ratio

ROOT = Path(__file__).resolve().parent.parent
DUCKDB = "DuckDB script"
PIPELINE = {
    "format": "pipewright.pipeline",
    "version": 2,
    "name": "pairs per key",
    "nodes": [
        {"id": "left", "operator": "csv_input", "params": {"path": "events.csv"}},
        {"id": "right", "operator": "csv_input", "params": {"path": "events.csv"}},
        {
            "id": "pairs",
            "operator": "join",
            "params": {"how": "inner", "left_on": ["k"], "right_on": ["k"]},
        },
        {
            "id": "totals",
            "operator": "aggregate",
            "params": {
                "group_by": ["k"],
                "aggregations": [
                    {"column": "v_right", "function": "sum", "name": "total"},
                    {"function": "size", "name": "pairs"},
                ],
            },
        },
        {"id": "write", "operator": "csv_output", "params": {"path": "out/pipewright.csv"}},
    ],
    "edges": [
        {"source": "left", "target": "pairs", "target_port": "left"},
        {"source": "right", "target": "pairs", "target_port": "right"},
        {"source": "pairs", "target": "totals"},
        {"source": "totals", "target": "write"},
    ],
}
SCRIPT = """
import sys, duckdb
events, out = sys.argv[1:3]
con = duckdb.connect()
con.read_csv(events).create_view("events")
con.sql('''
    SELECT l.k, sum(r.v) AS total, count(*) AS pairs
    FROM events l JOIN events r USING (k) GROUP BY l.k
''').write_csv(out)
"""


def generate(folder: Path, rows: int, keys: int) -> None:
    """events.csv: `rows` rows of a key (of `keys` values) and a number."""
    picks = random.Random(29)
    lines = "".join(f"{picks.randrange(keys)},{index}\n" for index in range(rows))
    (folder / "events.csv").write_text("k,v\n" + lines)
    (folder / "pipeline.json").write_text(json.dumps(PIPELINE))
    (folder / "duckdb_script.py").write_text(SCRIPT)


def pipewright(folder: Path, *options: str, command: str = "run") -> list[str]:
    return [
        sys.executable, "-m", "runtime", command, str(folder / "pipeline.json"),
        "--data-root", str(folder), "--fresh", *options,
    ]  # fmt: skip


def same_outputs(folder: Path) -> None:
    """Every contestant wrote the same totals per key."""
    import pandas as pd

    frames = [
        pd.read_csv(folder / "out" / name).sort_values("k").reset_index(drop=True)
        for name in ("pipewright.csv", "duckdb.csv")
    ]
    pd.testing.assert_frame_equal(*frames, check_dtype=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=30_000)
    parser.add_argument("--keys", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pipewright-tuning-") as name:
        folder = Path(name)
        (folder / "out").mkdir()
        generate(folder, args.rows, args.keys)
        processes.compile_bytecode()
        processes.measure(pipewright(folder))  # the past run the tuned contestant reads
        entrants = [
            Entrant("untuned (--no-tuning: fixed 32 MiB rule)", pipewright(folder, "--no-tuning")),
            Entrant("tuned from past runs", pipewright(folder)),
            Entrant(DUCKDB, [sys.executable, str(folder / "duckdb_script.py"),
                             str(folder / "events.csv"), str(folder / "out" / "duckdb.csv")]),
        ]  # fmt: skip
        runs = processes.race(entrants, args.repeat, after_round=lambda: same_outputs(folder))
        for label, done in runs.items():
            if failed(done):
                raise SystemExit(f"{label}: {failed(done).failure()}")
        summary = {label: medians(done) for label, done in runs.items()}
        wall_ref, cpu_ref = summary[DUCKDB]
        pairs = args.rows * args.rows // args.keys
        print(
            f"{args.rows:,} rows, {args.keys} keys (about {pairs:,} pairs), "
            f"median of {args.repeat} alternating rounds; outputs checked equal"
        )
        print_table(
            ["", "wall s", "CPU s", "wall/DuckDB", "CPU/DuckDB", "peak MiB"],
            [
                [label, round(wall, 2), round(cpu, 2), ratio(wall, wall_ref), ratio(cpu, cpu_ref),
                 round(max(run.peak_mb for run in runs[label]))]
                for label, (wall, cpu) in summary.items()
            ],
        )  # fmt: skip
        untuned, tuned = (summary[entrant.label][0] for entrant in entrants[:2])
        print(f"\ntuned / untuned wall: {tuned / untuned:.2f}x")
        explained = subprocess.run(
            pipewright(folder, command="explain"),
            capture_output=True, text=True, cwd=ROOT, check=True,
        ).stdout  # fmt: skip
        section = explained[explained.index("tuning from past runs:") :].split("result store:")[0]
        print(f"\n{section.rstrip()}")


if __name__ == "__main__":
    main()
