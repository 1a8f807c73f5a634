"""Run in a child process by test_duckdb_resources: an aggregate and a join over a Parquet file
whose state exceeds the memory budget; prints one JSON line of what it measured."""

from __future__ import annotations

import json
import resource
import sys
import threading
import time
from pathlib import Path

from runtime import relational as r
from runtime.backends.duckdb import run_segment
from runtime.budget import Budget


def spilled_bytes(folder: Path) -> int:
    try:
        return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())
    except OSError:  # a spill file removed while counting
        return 0


def main(root: Path, spill: Path, memory_mib: int) -> None:
    scan = r.Scan("parquet", "data/big.parquet")
    totals = r.Aggregate(scan, ("k",), (r.AggregateCall("sum", "v", "total"),))
    columns = (
        r.JoinColumn("key", "k", "k"),
        r.JoinColumn("left", "v", "v"),
        r.JoinColumn("right", "total", "total"),
    )
    joined = r.Join(scan, totals, "inner", (("k", "k"),), columns)
    calls = (r.AggregateCall("size", None, "rows"), r.AggregateCall("sum", "total", "sum"))
    final = r.Aggregate(joined, (), calls)
    members = {"s": {"out": scan}, "a": {"out": totals}, "j": {"out": joined}, "f": {"out": final}}
    most = [0]

    def watch() -> None:
        while True:
            most[0] = max(most[0], spilled_bytes(spill))
            time.sleep(0.01)

    threading.Thread(target=watch, daemon=True).start()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result = run_segment(
        members,
        [("f", "out")],
        {},
        files=root,
        spill_dir=spill,
        budget=Budget(memory_mib * 2**20, threads=2),
    )
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    row = result.frames[("f", "out")].iloc[0]
    print(
        json.dumps(
            {
                "rows": int(row["rows"]),
                "sum": float(row["sum"]),
                "grown": peak - before,
                "spilled": most[0],
                "spill_left": spill.exists(),
            }
        )
    )


if __name__ == "__main__":
    main(Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3]))
