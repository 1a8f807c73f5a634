"""Is the web server still quick while runs execute? The sign-in page's latency, idle and
while two heavy runs execute.

    python bench/signin_latency.py [--rows 2000000] [--samples 300] [--backend pandas]

A daphne server over a fresh SQLite database (the embedded default, `PIPEWRIGHT_MAX_RUNS=2`)
serves `GET /accounts/login/` every 20 ms: first with nothing running, then while two
pipelines run the seed ETL over and over (each run is started again as soon as it ends).
Prints the median, p95 and worst latency of each phase, and how many runs ended meanwhile.
The seed's data is generated once under bench/.data (bench/seed_etl.py).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import threading
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIGN_IN = "/accounts/login/"
INTERVAL_S = 0.02


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--backend", default="pandas", help="the runs' backend (pandas: heavier)")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    from bench.live import seed_server
    from bench.seed_etl import PIPELINE
    from bench.table import print_table

    server, token = seed_server(args.rows, "pw-signin-", PIPEWRIGHT_MAX_RUNS="2")
    try:
        document = {**PIPELINE, "config": {"backend": args.backend}}
        pipelines = []
        for index in range(2):
            status, made = server.request(
                "POST", "/api/pipelines", {**document, "name": f"heavy {index}"}, token
            )
            assert status == 201, made
            pipelines.append(made["id"])
        time.sleep(2)  # the pre-started server loads the engine meanwhile
        idle = _latencies(server.url, args.samples)
        running = threading.Event()
        stop = threading.Event()
        ended: list[int] = []
        runners = [
            threading.Thread(
                target=_run_again_and_again, args=(server, token, p, running, stop, ended)
            )
            for p in pipelines
        ]
        for runner in runners:
            runner.start()
        running.wait(60)
        loaded = _latencies(server.url, args.samples)
        stop.set()
        for runner in runners:
            runner.join()
    finally:
        server.stop()
    print(
        f"GET {SIGN_IN} every {INTERVAL_S * 1000:g} ms, {args.samples} times; heavy runs: the "
        f"seed ETL on {args.rows:,} rows ({args.backend}), two at once, {len(ended)} ended"
    )
    print_table(
        ["phase", "median ms", "p95 ms", "worst ms"],
        [["idle", *_summary(idle)], ["two heavy runs", *_summary(loaded)]],
    )


def _latencies(url: str, samples: int) -> list[float]:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    seconds = []
    for _ in range(samples):
        started = time.perf_counter()
        with opener.open(url + SIGN_IN, timeout=10) as response:
            response.read()
            assert response.status == 200
        seconds.append(time.perf_counter() - started)
        time.sleep(INTERVAL_S)
    return seconds


def _run_again_and_again(server, token, pipeline_id, running, stop, ended) -> None:
    """Start a run of `pipeline_id`, wait for its end, and again, until `stop`."""
    while not stop.is_set():
        status, run = server.request("POST", f"/api/pipelines/{pipeline_id}/runs", {}, token)
        assert status == 202, run
        while run["status"] in ("queued", "running"):
            if run["status"] == "running":
                running.set()
            time.sleep(0.1)
            _, run = server.request("GET", f"/api/runs/{run['id']}", None, token)
        assert run["status"] == "succeeded", run
        ended.append(run["id"])


def _summary(seconds: list[float]) -> list[float]:
    ordered = sorted(seconds)
    p95 = ordered[int(len(ordered) * 0.95) - 1]
    return [round(value * 1000, 1) for value in (statistics.median(ordered), p95, ordered[-1])]


if __name__ == "__main__":
    main()
