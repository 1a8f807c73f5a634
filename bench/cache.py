"""The result store on the seed ETL: what a run costs cold, unchanged, and after edits.

    python bench/cache.py            # 10M rows (generated once under bench/.data/)
    python bench/cache.py --quick    # 2M rows

Each row is one `python -m runtime run` as a fresh process on the data root, whose store
(`.pipewright/cache/`) is emptied first. "start-up" runs a two-row pipeline without the store:
what any run pays before its data work. The targets: editing the output's path costs at most
start-up + 0.2 s; editing the aggregate runs only it and what follows.
"""

from __future__ import annotations

import argparse
import copy
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

from bench import seed_etl
from bench.table import print_table
from runtime.events import read_json_lines

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2M rows instead of 10M")
    parser.add_argument("--rows", type=int, help="any number of rows")
    args = parser.parse_args()
    rows = args.rows or (2_000_000 if args.quick else 10_000_000)
    folder = seed_etl.generate(rows)
    shutil.rmtree(folder / ".pipewright" / "cache", ignore_errors=True)
    document = copy.deepcopy(seed_etl.PIPELINE)
    document["nodes"][-1]["params"]["path"] = "out/cache-bench.csv"
    tiny = {
        "format": "pipewright.pipeline",
        "version": 2,
        "name": "start-up",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "countries.csv"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/tiny.csv"}},
        ],
        "edges": [{"source": "read", "target": "write"}],
    }
    results = [("start-up (2-row pipeline, no store)", *_run(folder, tiny, "--no-cache"))]
    results.append(("cold run, store off", *_run(folder, document, "--no-cache")))
    results.append(("cold run, store on (empty)", *_run(folder, document)))
    results.append(("re-run, unchanged", *_run(folder, document)))
    document["nodes"][-1]["params"]["path"] = "out/cache-bench-renamed.csv"
    results.append(("after editing the output's path", *_run(folder, document)))
    aggregate = next(node for node in document["nodes"] if node["id"] == "by_country")
    aggregate["params"]["aggregations"][2]["function"] = "max"
    results.append(("after editing the aggregate", *_run(folder, document)))
    print(f"seed ETL, {rows:,} rows, result store in DATA_ROOT/.pipewright/cache")
    print_table(["run", "seconds", "nodes that ran"], [list(row) for row in results])
    startup = results[0][1]
    overhead = results[2][1] - results[1][1]
    print(f"\nediting the output's path: start-up + {results[4][1] - startup:.2f} s")
    print(f"first-run cost of storing: {overhead:+.2f} s ({overhead / results[1][1]:+.0%})")
    print(f"store size: {_size(folder / '.pipewright' / 'cache') / 2**20:.1f} MiB")


def _run(folder: Path, document: dict, *options: str) -> tuple[float, str]:
    """Seconds of one run as a fresh process, and the nodes that did work in it."""
    path = folder / "cache-bench.json"
    path.write_text(json.dumps(document))
    events = folder / "cache-bench-events.jsonl"
    command = [sys.executable, "-m", "runtime", "run", str(path), "--data-root", str(folder)]
    command += ["--events", str(events), *options]
    started = time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"run failed:\n{done.stdout}\n{done.stderr}")
    ran = [
        event["node"]
        for event in read_json_lines(events)
        if event.get("type") == "node_status"
        and event.get("status") == "succeeded"
        and not event.get("metrics", {}).get("cached")
    ]
    return round(seconds, 2), ", ".join(ran) or "none"


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


if __name__ == "__main__":
    main()
