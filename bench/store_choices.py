"""What the result store keeps, tuned from past runs, against storing every result.

    python bench/store_choices.py [--rows 2000000] [--repeat 5]

A scheduled run's shape: every run reads new rows (events.parquet rewritten before each
round, same size, another seed), so nothing is reused and every result a run stores is a
Parquet write paid for nothing until the pipeline is edited. The pipeline, on pandas: read
the file, a filter keeping 90 %, a transform adding a column, a select, a sum per key,
written to CSV. Two stores, one per contestant, in alternating rounds: untuned
(`--no-tuning`: every node's result stored) and tuned (its profile from one run before the
rounds, so it knows what each write and each node took). The table shows median wall and
CPU seconds and the median bytes each run added to its store; outputs are checked equal after
each round. The tuned plan's store choices follow, for new rows.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from bench import processes
from bench.processes import measure
from bench.table import print_table

ROOT = Path(__file__).resolve().parent.parent
PIPELINE = {
    "format": "pipewright.pipeline",
    "version": 2,
    "name": "daily totals",
    "config": {"backend": "pandas"},
    "nodes": [
        {"id": "events", "operator": "parquet_input", "params": {"path": "events.parquet"}},
        {"id": "valid", "operator": "filter", "params": {"condition": "v % 10 != 0"}},
        {"id": "priced", "operator": "transform", "params": {
            "mappings": [{"target": "eur", "expression": "v * 0.92"}]}},
        {"id": "picked", "operator": "select", "params": {"columns": ["k", "eur"]}},
        {"id": "totals", "operator": "aggregate", "params": {
            "group_by": ["k"],
            "aggregations": [{"column": "eur", "function": "sum", "name": "eur"}],
        }},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/totals.csv"}},
    ],
    "edges": [
        {"source": "events", "target": "valid"},
        {"source": "valid", "target": "priced"},
        {"source": "priced", "target": "picked"},
        {"source": "picked", "target": "totals"},
        {"source": "totals", "target": "write"},
    ],
}  # fmt: skip
CONTESTANTS = {"untuned (--no-tuning: every result stored)": ["--no-tuning"], "tuned": []}


def generate(folders: list[Path], rows: int, seed: int) -> None:
    """events.parquet in each folder: `rows` rows of a key, a number and a label."""
    import numpy as np
    import pandas as pd

    picks = np.random.default_rng(seed)
    frame = pd.DataFrame({
        "k": picks.integers(0, 1000, rows), "v": picks.integers(0, 1_000_000, rows),
        "label": picks.choice(["a", "b", "c", "d"], rows),
    })  # fmt: skip
    for folder in folders:
        frame.to_parquet(folder / "events.parquet", index=False)


def command(folder: Path, *options: str, verb: str = "run") -> list[str]:
    return [
        sys.executable, "-m", "runtime", verb, str(folder / "pipeline.json"),
        "--data-root", str(folder), *options,
    ]  # fmt: skip


def store_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in (folder / ".pipewright").rglob("*.parquet"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--repeat", type=int, default=5, help="alternating rounds")
    args = parser.parse_args()
    env = {"PIPEWRIGHT_CACHE_SIZE": "100GB"}  # nothing evicted: every byte written counts
    with tempfile.TemporaryDirectory(prefix="pipewright-store-") as name:
        folders = {label: Path(name) / str(index) for index, label in enumerate(CONTESTANTS)}
        for folder in folders.values():
            (folder / "out").mkdir(parents=True)
            (folder / "pipeline.json").write_text(json.dumps(PIPELINE))
        processes.compile_bytecode()
        generate(list(folders.values()), args.rows, seed=0)
        for label, folder in folders.items():  # the past run the tuned contestant reads
            measure(command(folder, *CONTESTANTS[label]), env)
        runs: dict[str, list[tuple[float, float, int]]] = {label: [] for label in CONTESTANTS}
        for round_ in range(1, args.repeat + 1):
            generate(list(folders.values()), args.rows, seed=round_)
            for label, folder in folders.items():
                before = store_bytes(folder)
                done = measure(command(folder, *CONTESTANTS[label]), env)
                runs[label].append((done.seconds, done.cpu_seconds, store_bytes(folder) - before))
            outputs = {(folder / "out/totals.csv").read_text() for folder in folders.values()}
            assert len(outputs) == 1, "the contestants wrote different totals"
        print(f"{args.rows:,} rows, new each round; median of {args.repeat} alternating rounds")
        print_table(
            ["", "wall s", "CPU s", "MiB stored per run"],
            [
                [label] + [round(statistics.median(run[i] for run in done), 2) for i in (0, 1)]
                + [round(statistics.median(run[2] for run in done) / 2**20, 1)]
                for label, done in runs.items()
            ],
        )  # fmt: skip
        tuned = folders["tuned"]
        generate([tuned], args.rows, seed=args.repeat + 1)  # new rows: every node runs
        explained = subprocess.run(
            command(tuned, verb="explain"), capture_output=True, text=True, cwd=ROOT, check=True
        ).stdout
        print("\n" + "\n".join(line for line in explained.splitlines() if "result of" in line))


if __name__ == "__main__":
    main()
