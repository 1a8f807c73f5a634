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
from runtime.execution.events import read_json_lines

ROOT = Path(__file__).resolve().parent.parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="2M rows instead of 10M")
    parser.add_argument("--rows", type=int, help="any number of rows")
    parser.add_argument(
        "--repeat", type=int, default=3, help="runs per row; the table shows the fastest"
    )
    args = parser.parse_args()
    rows = args.rows or (2_000_000 if args.quick else 10_000_000)
    folder = seed_etl.generate(rows)
    store = folder / ".pipewright" / "cache"
    document = copy.deepcopy(seed_etl.PIPELINE)
    write, aggregate = document["nodes"][-1], document["nodes"][3]
    write["params"]["path"] = "out/cache-bench.csv"
    repeat = range(args.repeat)
    results = [
        (
            "start-up (2-row pipeline, no store)",
            *_fastest(folder, [_TINY] * args.repeat, "--no-cache"),
        )
    ]
    explained = _fastest(folder, [document] * args.repeat, "--no-cache", command="explain")
    results.append(("start-up of the seed ETL (explain)", *explained))
    results.append(
        ("cold run, store off", *_fastest(folder, [document] * args.repeat, "--no-cache"))
    )
    results.append(
        ("cold run, store on (empty)", *_fastest(folder, [document] * args.repeat, clear=store))
    )
    results.append(("re-run, unchanged", *_fastest(folder, [document] * args.repeat)))
    renamed = []
    for index in repeat:
        write["params"]["path"] = f"out/cache-bench-{index}.csv"
        renamed.append(copy.deepcopy(document))
    results.append(("after editing the output's path", *_fastest(folder, renamed)))
    edited = []
    for function in ["max", "min", "sum", "count"][: args.repeat]:
        aggregate["params"]["aggregations"][2]["function"] = function
        edited.append(copy.deepcopy(document))
    results.append(("after editing the aggregate", *_fastest(folder, edited)))
    print(f"seed ETL, {rows:,} rows, result store in DATA_ROOT/.pipewright/cache,")
    print(f"fastest of {args.repeat} runs each (a fresh process per run)")
    print_table(["run", "seconds", "nodes that ran"], [list(row) for row in results])
    tiny, startup, off, on = results[0][1], results[1][1], results[2][1], results[3][1]
    edited = results[5][1]
    print(
        f"\nediting the output's path: a run's start-up + {edited - tiny:.2f} s"
        f" (the ETL's own start-up, without running anything, + {edited - startup:.2f} s)"
    )
    print(f"first-run cost of storing: {on - off:+.2f} s ({(on - off) / off:+.0%})")
    print(f"store size: {_size(store) / 2**20:.1f} MiB")


_TINY = {
    "format": "pipewright.pipeline",
    "version": 2,
    "name": "start-up",
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "countries.csv"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/tiny.csv"}},
    ],
    "edges": [{"source": "read", "target": "write"}],
}


def _fastest(folder: Path, documents: list[dict], *options: str, clear=None, command="run"):
    """The fastest of runs of `documents` in turn (after emptying `clear` before each), and
    the nodes that did work in the last one. `command` explain: what a run pays before its
    data work (loading the engine, checking the document, its schemas, the plan)."""
    timings = []
    for document in documents:
        if clear is not None:
            shutil.rmtree(clear, ignore_errors=True)
        timings.append(_run(folder, document, *options, command=command))
    return min(seconds for seconds, _ in timings), timings[-1][1]


def _run(folder: Path, document: dict, *options: str, command="run") -> tuple[float, str]:
    """Seconds of one run as a fresh process, and the nodes that did work in it."""
    path = folder / "cache-bench.json"
    path.write_text(json.dumps(document))
    events = folder / "cache-bench-events.jsonl"
    events.unlink(missing_ok=True)
    line = [sys.executable, "-m", "runtime", command, str(path), "--data-root", str(folder)]
    line += ["--events", str(events)] if command == "run" else []
    started = time.perf_counter()
    done = subprocess.run([*line, *options], cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(f"run failed:\n{done.stdout}\n{done.stderr}")
    if command != "run":
        return round(seconds, 2), "none"
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
