"""A partitioned run on a Dask cluster of two workers against the same run on one machine.

    python bench/partitioned.py [--rows 8000000] [--repeat 3]

The seed ETL (bench/seed_etl.py) reads its users from a folder of four Parquet files; its
chain users → adults → enrich → by_country runs a partition per file on a cluster started
the way a user deploys one (`dask scheduler`, and two `dask worker --nthreads 1` processes),
against `python -m runtime run` on this machine with `--backend auto` (DuckDB) and
`--backend pandas`. Whole processes, median of `--repeat`; each output is compared with the
pandas one (floats within 1e-9).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
PARTS = 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.seed_etl import PIPELINE, generate
    from bench.table import print_table

    folder = Path(tempfile.mkdtemp(prefix="pw-partitioned-"))
    data = _partitioned_data(generate(args.rows), folder / "data")
    document = folder / "pipeline.json"
    document.write_text(json.dumps(_reading_the_folder(PIPELINE)))
    runs = {}
    with _cluster(folder) as address:
        contestants = {
            f"Dask, 2 workers, {PARTS} partitions": ["--dask", address],
            "one machine, --backend auto (DuckDB)": ["--backend", "auto"],
            "one machine, --backend pandas": ["--backend", "pandas"],
        }
        for index, (name, options) in enumerate(contestants.items()):
            runs[name] = _timed(document, data, options, args.repeat, folder / f"{index}.csv")
    reference = runs["one machine, --backend pandas"][1]
    rows = [
        [name, seconds, round(seconds / runs["one machine, --backend pandas"][0], 2),
         _same(output, reference)]
        for name, (seconds, output) in runs.items()
    ]  # fmt: skip
    print(f"seed ETL over {args.rows:,} rows in {PARTS} Parquet files, median of {args.repeat}")
    print_table(["run", "seconds", "vs pandas", "same output"], rows)
    shutil.rmtree(folder)


def _partitioned_data(source: Path, data: Path) -> Path:
    """The seed's users as `PARTS` Parquet files under `data/users`, and its countries."""
    (data / "users").mkdir(parents=True)
    users = pa_csv.read_csv(source / "users.csv")
    size = -(-users.num_rows // PARTS)
    for index in range(PARTS):
        pq.write_table(users.slice(index * size, size), data / "users" / f"part-{index}.parquet")
    shutil.copy(source / "countries.csv", data / "countries.csv")
    return data


def _reading_the_folder(pipeline: dict) -> dict:
    nodes = [
        {"id": "users", "operator": "parquet_input", "params": {"path": "users"}}
        if node["id"] == "users"
        else node
        for node in pipeline["nodes"]
    ]
    return {**pipeline, "nodes": nodes}


@contextmanager
def _cluster(folder: Path):
    """A scheduler and two single-threaded workers, each a process of its own."""
    scheduler_file = folder / "scheduler.json"
    environment = {**os.environ, "PYTHONPATH": str(ROOT)}
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    processes = [
        subprocess.Popen(
            [*dask, "--scheduler-file", str(scheduler_file), "--port", "0", "--no-dashboard"],
            env=environment,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        while not scheduler_file.exists():
            time.sleep(0.1)
        time.sleep(0.5)  # written before it is complete
        address = json.loads(scheduler_file.read_text())["address"]
        worker = [sys.executable, "-m", "distributed.cli.dask_worker", address]
        for _ in range(2):
            processes.append(
                subprocess.Popen(
                    [*worker, "--nthreads", "1", "--no-dashboard"],
                    env=environment,
                    stderr=subprocess.DEVNULL,
                )
            )
        _wait_for_workers(address, 2)
        yield address
    finally:
        for process in reversed(processes):
            process.terminate()
            process.wait(10)


def _wait_for_workers(address: str, count: int) -> None:
    from distributed import Client

    with Client(address, timeout=30) as client:
        client.wait_for_workers(count, timeout=60)


def _timed(document: Path, data: Path, options: list[str], repeat: int, kept: Path):
    """The median seconds of `repeat` whole runs, and the output of the last (kept)."""
    seconds = []
    for _ in range(repeat):
        started = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "runtime",
                "run",
                str(document),
                "--data-root",
                str(data),
                *options,
            ],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        seconds.append(time.perf_counter() - started)
    shutil.copy(data / "out" / "pipewright.csv", kept)
    return round(statistics.median(seconds), 2), kept


def _same(found: Path, expected: Path) -> str:
    from bench.seed_etl import same_output

    try:
        same_output(found, expected)
    except AssertionError as difference:
        return f"no: {str(difference).splitlines()[0]}"
    return "yes"


if __name__ == "__main__":
    main()
