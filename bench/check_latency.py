"""How quickly does the editor's feedback follow typing? The latency of
`POST /api/pipelines/{id}/check` on the seed ETL (target: 300 ms or less).

    python bench/check_latency.py [--rows 100000] [--calls 50]

A daphne server over a fresh SQLite database checks the seed ETL, unsaved, `--calls` times in a
row, its filter's condition changed at each call as a user's typing changes it (so nothing is
answered from a cache of the same text). Prints the median, p95 and worst latency, the first
call apart (the job process starts then). The seed's data is generated once under bench/.data
(bench/seed_etl.py).
"""

from __future__ import annotations

import argparse
import copy
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 300


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--calls", type=int, default=50)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.live import seed_server
    from bench.seed_etl import PIPELINE
    from bench.table import print_table

    server, token = seed_server(args.rows, "pw-check-")
    try:
        status, made = server.request("POST", "/api/pipelines", PIPELINE, token)
        assert status == 201, made
        path = f"/api/pipelines/{made['id']}/check"
        first, *others = [
            _timed(server, path, _typed(PIPELINE, call), token) for call in range(args.calls + 1)
        ]
    finally:
        server.stop()
    print(f"POST {path} on the seed ETL ({args.rows:,} rows), {args.calls} calls in a row")
    print_table(
        ["calls", "median ms", "p95 ms", "worst ms"],
        [["first", *[round(first * 1000, 1)] * 3], [f"next {args.calls}", *_summary(others)]],
    )
    print(f"target: p95 <= {TARGET_MS} ms")


def _typed(document: dict, call: int) -> dict:
    """The document with its filter's condition as typed at call `call` (one more digit)."""
    changed = copy.deepcopy(document)
    for node in changed["nodes"]:
        if node["operator"] == "filter":
            node["params"]["condition"] = f"{node['params']['condition']} or {call} < 0"
    return changed


def _timed(server, path: str, document: dict, token: str) -> float:
    started = time.perf_counter()
    status, body = server.request("POST", path, document, token)
    elapsed = time.perf_counter() - started
    assert status == 200 and not body["problems"], body
    return elapsed


def _summary(seconds: list[float]) -> list[float]:
    ordered = sorted(seconds)
    p95 = ordered[max(int(len(ordered) * 0.95) - 1, 0)]
    return [round(value * 1000, 1) for value in (statistics.median(ordered), p95, ordered[-1])]


if __name__ == "__main__":
    main()
