"""A partitioned run on a Dask cluster of two workers against the same run on one machine.

    python bench/partitioned.py [--rows 8000000] [--repeat 3]

The seed ETL (bench/seed_etl.py) reads its users from a folder of four Parquet files; its
chain users → adults → enrich → by_country runs a partition per file on a cluster started
the way a user deploys one (`dask scheduler`, and two `dask worker --nthreads 1` processes),
against `python -m runtime run` on this machine with `--backend auto` (DuckDB) and
`--backend pandas`, without the result store. Whole processes in alternating rounds, median
wall and CPU seconds of `--repeat` (the CPU of the run's own process: the Dask workers' is
not counted); each output is compared with the pandas one (floats within 1e-9).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
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
PANDAS = "one machine, --backend pandas"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=8_000_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.processes import Entrant, failed, medians, race
    from bench.seed_etl import PIPELINE, generate
    from bench.table import print_table, ratio

    folder = Path(tempfile.mkdtemp(prefix="pw-partitioned-"))
    data = _partitioned_data(generate(args.rows), folder / "data")
    with _cluster(folder) as address:
        contestants = {
            f"Dask, 2 workers, {PARTS} partitions": ["--dask", address],
            "one machine, --backend auto (DuckDB)": ["--backend", "auto"],
            PANDAS: ["--backend", "pandas"],
        }
        entrants, outputs = [], {}
        for index, (name, options) in enumerate(contestants.items()):
            document = folder / f"pipeline-{index}.json"
            outputs[name] = f"out/{index}.csv"
            document.write_text(json.dumps(_reading_the_folder(PIPELINE, outputs[name])))
            command = [sys.executable, "-m", "runtime", "run", str(document), "--data-root"]
            entrants.append(Entrant(name, [*command, str(data), "--no-cache", *options]))
        runs = race(entrants, args.repeat)
    for name, done in runs.items():
        if failed(done):
            raise SystemExit(f"{name}: {failed(done).failure()}\n{failed(done).stderr}")
    summary = {name: medians(done) for name, done in runs.items()}
    rows = [
        [name, f"{wall:.2f}", f"{cpu:.2f}", ratio(wall, summary[PANDAS][0]),
         ratio(cpu, summary[PANDAS][1]), _same(data / outputs[name], data / outputs[PANDAS])]
        for name, (wall, cpu) in summary.items()
    ]  # fmt: skip
    print(
        f"seed ETL over {args.rows:,} rows in {PARTS} Parquet files, median of {args.repeat}"
        " alternating rounds; result store off (--no-cache); CPU seconds are the run's process"
        " only, not the Dask workers'\n"
    )
    print_table(["run", "wall s", "CPU s", "wall/pandas", "CPU/pandas", "same output"], rows)
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


def _reading_the_folder(pipeline: dict, output: str) -> dict:
    """The seed ETL reading the folder of users, writing `output`."""
    replaced = {
        "users": {"id": "users", "operator": "parquet_input", "params": {"path": "users"}},
        "write": {"id": "write", "operator": "csv_output", "params": {"path": output}},
    }
    nodes = [replaced.get(node["id"], node) for node in pipeline["nodes"]]
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


def _same(found: Path, expected: Path) -> str:
    from bench.seed_etl import same_output

    try:
        same_output(found, expected)
    except AssertionError as difference:
        return f"no: {str(difference).splitlines()[0]}"
    return "yes"


if __name__ == "__main__":
    main()
