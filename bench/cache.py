"""The result store on the seed ETL: what a run costs cold, unchanged, and after edits.

    python bench/cache.py            # 10M rows (generated once under bench/.data/)
    python bench/cache.py --quick    # 2M rows
    python bench/cache.py --rows 30000000 --pairs 5   # cold runs only, store off and on

Each row is one `python -m runtime run` as a fresh process on the data root, whose store
(`.pipewright/cache/`) is emptied first: its wall seconds, CPU seconds (user and system, every
thread) and peak resident memory. "start-up" runs a two-row pipeline without the store: what
any run pays before its data work. The targets: a cold run with the store costs at most 5 %
more CPU and memory than without; editing the output's path costs at most start-up + 0.2 s;
the first edit of the transform re-reads the file and stores the filter's rows (the store
learns where the plan is edited, docs/cache.md); editing the transform again or the aggregate
re-runs from them, never the file.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
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
    parser.add_argument(
        "--pairs",
        type=int,
        help="only cold runs: this many pairs, store off then on, and their medians (under"
        " load, a pair sees the same load more than two runs apart do)",
    )
    args = parser.parse_args()
    rows = args.rows or (2_000_000 if args.quick else 10_000_000)
    folder = seed_etl.generate(rows)
    store = folder / ".pipewright" / "cache"
    document = copy.deepcopy(seed_etl.PIPELINE)
    write, transform, aggregate = document["nodes"][-1], document["nodes"][2], document["nodes"][3]
    write["params"]["path"] = "out/cache-bench.csv"
    if args.pairs:
        _pairs(folder, document, store, args.pairs)
        return
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
    transform["params"]["mappings"][0]["expression"] = "amount * 0.95"
    first = _fastest(folder, [copy.deepcopy(document)])
    results.append(("first edit of the transform (stores the filter's rows)", *first))
    factors = []
    for factor in ["0.9", "0.8", "0.7", "0.6"][: args.repeat]:
        transform["params"]["mappings"][0]["expression"] = f"amount * {factor}"
        factors.append(copy.deepcopy(document))
    results.append(("after editing the transform again", *_fastest(folder, factors)))
    edited = []
    for function in ["max", "min", "sum", "count"][: args.repeat]:
        aggregate["params"]["aggregations"][2]["function"] = function
        edited.append(copy.deepcopy(document))
    results.append(("after editing the aggregate", *_fastest(folder, edited)))
    print(f"seed ETL, {rows:,} rows, result store in DATA_ROOT/.pipewright/cache,")
    print(f"fastest of {args.repeat} runs each (a fresh process per run)")
    print_table(
        ["run", "seconds", "CPU s", "peak MiB", "nodes that ran"], [list(row) for row in results]
    )
    tiny, startup, off, on = results[0][1], results[1][1], results[2][1], results[3][1]
    edited = results[5][1]
    cpu, memory = results[3][2] / results[2][2] - 1, results[3][3] / results[2][3] - 1
    print(f"cold run with the store: CPU {cpu:+.0%}, peak memory {memory:+.0%} (target +5 %)")
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


def _pairs(folder: Path, document: dict, store: Path, pairs: int) -> None:
    """Cold runs in pairs, without the store then with it emptied: medians and each run."""
    runs = {"off": [], "on": []}
    for _ in range(pairs):
        runs["off"].append(_run(folder, document, "--no-cache"))
        shutil.rmtree(store, ignore_errors=True)
        runs["on"].append(_run(folder, document))
    medians = {}
    for side, timings in runs.items():
        medians[side] = [statistics.median(timing[index] for timing in timings) for index in (1, 2)]
        each = ", ".join(f"{timing[1]:.2f} s {timing[2]} MiB" for timing in timings)
        print(f"store {side}: median {medians[side][0]:.2f} CPU s, {medians[side][1]} MiB ({each})")
    cpu, memory = (medians["on"][index] / medians["off"][index] - 1 for index in (0, 1))
    print(f"cold run with the store: CPU {cpu:+.1%}, peak memory {memory:+.1%} (target +5 %)")


def _fastest(folder: Path, documents: list[dict], *options: str, clear=None, command="run"):
    """The fastest of runs of `documents` in turn (after emptying `clear` before each): its
    seconds, the least CPU seconds and peak MiB of them, and the nodes that did work in the
    last one. `command` explain: what a run pays before its data work (loading the engine,
    checking the document, its schemas, the plan)."""
    timings = []
    for document in documents:
        if clear is not None:
            shutil.rmtree(clear, ignore_errors=True)
        timings.append(_run(folder, document, *options, command=command))
    least = [min(timing[index] for timing in timings) for index in range(3)]
    return (*least, timings[-1][3])


def _run(folder: Path, document: dict, *options: str, command="run"):
    """Seconds, CPU seconds and peak MiB of one run as a fresh process, and the nodes that did
    work in it."""
    path = folder / "cache-bench.json"
    path.write_text(json.dumps(document))
    events = folder / "cache-bench-events.jsonl"
    events.unlink(missing_ok=True)
    line = [sys.executable, "-m", "runtime", command, str(path), "--data-root", str(folder)]
    line += ["--events", str(events)] if command == "run" else []
    started = time.perf_counter()
    process = subprocess.Popen(
        [*line, *options], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    said = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"run failed:\n{said}")
    cpu = round(usage.ru_utime + usage.ru_stime, 2)
    figures = (round(seconds, 2), cpu, round(usage.ru_maxrss / 1024))  # Linux: KiB
    if command != "run":
        return (*figures, "none")
    ran = [
        event["node"]
        for event in read_json_lines(events)
        if event.get("type") == "node_status"
        and event.get("status") == "succeeded"
        and not event.get("metrics", {}).get("cached")
    ]
    return (*figures, ", ".join(ran) or "none")


def _size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


if __name__ == "__main__":
    main()
