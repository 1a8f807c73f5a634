"""Comparing two runs' stored outputs by key: time and peak memory at 1M and 10M rows.

    python bench/compare_runs.py [--rows 1000000 10000000] [--repeat N]

Writes two Parquet files per size (id, name, amount, quantity, day): the second has 1 % of
the first's rows removed, 1 % new rows and 1 % of rows with a changed amount or name, plus
float noise of 1e-12 on every other amount (which must not count as a change). Compares them
by `id`, then by (`name`, `id`), each in a fresh process so that its peak memory is its own.
Prints one table: the best of N seconds and the peak resident memory.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import print_table  # noqa: E402

CHUNK = 1_000_000


def write_pair(folder: Path, rows: int) -> tuple[Path, Path]:
    """Two files of `rows` rows each, written a chunk at a time (little memory)."""
    a, b = folder / f"a-{rows}.parquet", folder / f"b-{rows}.parquet"
    rng = np.random.default_rng(7)
    writers = None
    for start in range(0, rows, CHUNK):
        ids = np.arange(start, min(rows, start + CHUNK), dtype=np.int64)
        amount = rng.uniform(0, 1000, len(ids))
        first = _chunk(ids, amount)
        kept = ids % 100 != 0  # 1 % removed
        noisy = np.where(ids % 2 == 0, amount + 1e-12, amount)
        changed = ids % 100 == 1  # 1 % changed
        noisy = np.where(changed, amount + 1, noisy)
        second = _chunk(ids[kept], noisy[kept])
        new_ids = ids[ids % 100 == 0] + rows  # 1 % added
        second = pa.concat_tables([second, _chunk(new_ids, rng.uniform(0, 1000, len(new_ids)))])
        if writers is None:
            writers = (pq.ParquetWriter(a, first.schema), pq.ParquetWriter(b, first.schema))
        writers[0].write_table(first)
        writers[1].write_table(second)
    for writer in writers:
        writer.close()
    return a, b


def _chunk(ids: np.ndarray, amount: np.ndarray) -> pa.Table:
    return pa.table(
        {
            "id": ids,
            "name": pa.array([f"customer {i % 50_000}" for i in ids.tolist()], pa.large_string()),
            "amount": amount,
            "quantity": (ids % 17).astype(np.int64),
            "day": pa.array((ids % 3650).astype(np.int32), pa.int32()).cast(pa.date32()),
        }
    )


def measure(a: str, b: str, keys: str, spill: str) -> None:
    """In the child: compare once and print seconds, peak RSS and the counts as JSON."""
    from runtime.results.comparison.rows import Side, compare_rows

    started = time.perf_counter()
    found = compare_rows(
        Side("run #1", Path(a)), Side("run #2", Path(b)), keys.split(","), spill_dir=Path(spill)
    )
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    counts = {part: found.get(part) for part in ("added", "removed", "changed", "unchanged")}
    print(json.dumps({"seconds": seconds, "peak_mib": peak, **counts}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--measure", nargs=4, help=argparse.SUPPRESS)
    arguments = parser.parse_args()
    if arguments.measure:
        measure(*arguments.measure)
        return
    table = []
    with tempfile.TemporaryDirectory() as folder:
        for rows in arguments.rows:
            a, b = write_pair(Path(folder), rows)
            for keys in ("id", "name,id"):
                runs = [
                    json.loads(
                        subprocess.run(
                            [sys.executable, __file__, "--measure", str(a), str(b), keys, folder],
                            check=True,
                            capture_output=True,
                            text=True,
                        ).stdout
                    )
                    for _ in range(arguments.repeat)
                ]
                best = min(runs, key=lambda run: run["seconds"])
                table.append(
                    [
                        f"{rows:,} rows by {keys}",
                        best["seconds"],
                        f"{max(run['peak_mib'] for run in runs):.0f}",
                        f"{best['added']:,}",
                        f"{best['removed']:,}",
                        f"{best['changed']:,}",
                    ]
                )
            a.unlink()
            b.unlink()
    print_table(["comparison", "seconds", "peak MiB", "added", "removed", "changed"], table)


if __name__ == "__main__":
    main()
