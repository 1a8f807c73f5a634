"""Runs in processes of their own: what they cost and what they buy.

    python bench/run_processes.py start [--repeat 30]
    python bench/run_processes.py cancel [--rows 2000000]
    python bench/run_processes.py web [--rows 2000000] [--runs 20] [--root /path/to/checkout]

- start: a tiny run (3 rows: read, filter, write) executed on a thread of this process, as the
  launcher did before, and in a process forked by the pre-started server: until its
  `run_finished` event arrives (what a live view waits for), and until the call returned (the
  process has exited); median and p95.
- cancel: a pandas sort of the seed's users by email, cancelled once it runs: click → every
  node final, and click → the work stopped (thread: the sort's thread ended; process: the
  process gone). Once more with the process frozen (SIGSTOP), which only the supervisor's
  terminate can end.
- web: a daphne server over a fresh SQLite database runs the seed ETL `--runs` times in a row,
  then previews its aggregate (which reads the whole input) as many times; its RSS after start,
  after the first run, after the runs and after the previews, and the pre-started server's RSS.
  `--root` runs it on another checkout's code (an older one, whose runs, previews or run checks
  are done in the server).

The seed's data is generated once under bench/.data (bench/seed_etl.py).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TINY = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "tiny",
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {"id": "adults", "operator": "filter", "params": {"condition": "age >= 18"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/adults.csv"}},
    ],
    "edges": [{"source": "read", "target": "adults"}, {"source": "adults", "target": "write"}],
}
SORT = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "sort",
    "config": {"backend": "pandas"},
    "nodes": [
        {"id": "users", "operator": "csv_input", "params": {"path": "users.csv"}},
        {"id": "sort", "operator": "sort", "params": {"by": [{"column": "email"}]}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/sorted.csv"}},
    ],
    "edges": [{"source": "users", "target": "sort"}, {"source": "sort", "target": "write"}],
}


def order_of(document: dict, area, run_id: int):
    from runtime.budget import Budget
    from runtime.worker.wire import RunOrder

    return RunOrder(
        document, {}, area, {}, Budget.from_environment(), list(sys.path), run_id=run_id
    )


def on_thread(document: dict, area, run_id: int, cancel: threading.Event, sinks=()):
    """A run as the launcher executed it before: prepared and executed in this process."""
    from runtime.document.spec import load_document
    from runtime.execution.executor import execute
    from runtime.plan import build_plan
    from runtime.plan.prepare import prepare

    plan = prepare(build_plan(load_document(document), {}), data_root=area)
    return execute(plan, sinks=sinks, run_id=run_id, cancel_event=cancel, data_root=area)


def in_process(document: dict, area, run_id, cancel: threading.Event, sinks=(), supervise=None):
    """A run as the launcher executes it now: supervised, in a process of its own (or where
    `supervise`, a `Supervisor`'s `supervise`, executes it)."""
    from editor.runs import local
    from runtime.document.spec import load_document
    from runtime.plan import build_plan

    plan = build_plan(load_document(document), {})
    order = order_of(document, area, run_id)
    supervise = supervise or local.LocalSupervisor().supervise
    return supervise(order, plan, sinks, cancel, timeout_s=3600)


def bench_start(repeat: int) -> None:
    print_start({"thread of the server (before)": on_thread, "own process": in_process}, repeat)


def print_start(ways: dict, repeat: int) -> None:
    """The start figures of each way of running (name → function), as a table."""
    from bench.table import print_table
    from editor.runs import local

    local.fork_server.start()
    print(f"a tiny run, {repeat} times each: until its run_finished event, and until it returned")
    print_table(["runs as", "finished: median ms", "p95 ms", "returned: median ms", "p95 ms"],
                start_rows(ways, repeat))  # fmt: skip


def start_rows(ways: dict, repeat: int) -> list[list]:
    """For each way of running (name → function), the tiny run's times: until its
    run_finished event, and until the call returned (median and p95 of each)."""
    from runtime.io.paths import FileArea

    folder = Path(tempfile.mkdtemp(prefix="pw-start-"))
    (folder / "people.csv").write_text("id,name,age\n1,Ada,36\n2,Linus,17\n3,Grace,85\n")
    area = FileArea(folder)
    rows = []
    for name, way in ways.items():
        way(TINY, area, 0, threading.Event())  # warm: imports, the first fork, the first task
        shown, whole = [], []
        for run_id in range(1, repeat + 1):
            finished: list[float] = []

            def sink(event: dict, finished=finished) -> None:
                if event["type"] == "run_finished":
                    finished.append(time.perf_counter())

            started = time.perf_counter()
            way(TINY, area, run_id, threading.Event(), [sink])
            whole.append(time.perf_counter() - started)
            shown.append(finished[0] - started)
        rows.append([name, *_median_p95(shown), *_median_p95(whole)])
    return rows


def _median_p95(seconds: list[float]) -> list[str]:
    p95 = statistics.quantiles(seconds, n=20, method="inclusive")[-1]
    return [f"{statistics.median(seconds) * 1e3:.1f}", f"{p95 * 1e3:.1f}"]


def bench_cancel(rows: int) -> None:
    from bench.seed_etl import generate
    from bench.table import print_table
    from editor.runs import local
    from runtime.io.paths import FileArea

    area = FileArea(linked(generate(rows), "users.csv"))
    local.fork_server.start()
    table = []
    for name, way, freeze in (
        ("thread of the server (before)", on_thread, False),
        ("own process", in_process, False),
        ("own process, frozen (SIGSTOP)", in_process, True),
    ):
        final, stopped = _cancel_once(way, area, freeze)
        table.append([name, f"{final * 1e3:.0f}", f"{stopped * 1e3:.0f}"])
    print(f"cancel of a pandas sort of {rows:,} users by email, once it runs")
    print_table(["runs on", "click → all final ms", "click → work stopped ms"], table)


def _cancel_once(way, area, freeze: bool) -> tuple[float, float]:
    run_id = 900 + freeze + (way is in_process)

    def freezing() -> None:
        os.kill(_pid_of(run_id), signal.SIGSTOP)

    marks = cancelled_run(way, SORT, area, run_id, before_click=freezing if freeze else None)
    if way is not in_process:  # the sort goes on in its thread until it is done
        while any(thread.name == "pipewright-node" for thread in threading.enumerate()):
            time.sleep(0.005)
    # else `supervise` returned once the process was gone
    stopped = time.perf_counter()
    return marks["final"] - marks["click"], stopped - marks["click"]


def cancelled_run(way, document: dict, area, run_id, before_click=None) -> dict[str, float]:
    """Execute `document` the `way` given, cancelled 0.3 s after its node `sort` starts
    (`before_click` called first): when the click came (`click`), and when the run_finished
    event did (`final`), on the `perf_counter` clock."""
    cancel = threading.Event()
    marks: dict[str, float] = {}

    def sink(event: dict) -> None:
        if event.get("node") == "sort" and event.get("status") == "running":
            threading.Timer(0.3, click).start()
        if event["type"] == "run_finished":
            marks["final"] = time.perf_counter()

    def click() -> None:
        if before_click is not None:
            before_click()
        marks["click"] = time.perf_counter()
        cancel.set()

    way(document, area, run_id, cancel, [sink])
    return marks


def linked(source: Path, *names: str, folder: Path | None = None) -> Path:
    """A new folder (or `folder`) holding hard links to `names` in `source`: runs write their
    outputs there, not beside the generated data."""
    folder = folder or Path(tempfile.mkdtemp(prefix="pw-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    for name in names:
        os.link(source / name, folder / name)
    return folder


def _pid_of(run_id: int) -> int:
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if (entry / "comm").read_text().strip() == f"pw-run-{run_id}":
                    return int(entry.name)
            except OSError:
                continue
    raise LookupError(f"no process runs {run_id}")


def bench_web(rows: int, runs: int, root: Path) -> None:
    """The web server's memory: after start, and after `runs` runs of the seed ETL."""
    sys.path.insert(0, str(root))
    from bench.live import setup_database
    from bench.seed_etl import PIPELINE, generate
    from bench.table import print_table
    from tests.servers import DaphneServer

    folder = Path(tempfile.mkdtemp(prefix="pw-web-"))
    data = folder / "data"
    linked(generate(rows), "users.csv", "countries.csv", folder=data / "bench")  # its workspace
    os.environ["PIPEWRIGHT_DATA_ROOT"] = str(data)
    for name in ("PIPEWRIGHT_SECRET_KEY", "PIPEWRIGHT_ENCRYPTION_KEY"):  # else written to `root`
        os.environ.setdefault(name, fernet_key())
    database, token, _ = setup_database(folder)
    server = DaphneServer(database=database, data_root=data, log_path=folder / "daphne.log")
    server.start().wait_until_ready()
    try:
        status, pipeline = server.request("POST", "/api/pipelines", PIPELINE, token)
        assert status == 201, pipeline
        time.sleep(2)  # the pre-started server loads the engine meanwhile
        after_start = _rss_mib(server.process.pid)
        durations = []
        for _ in range(runs):
            started = time.perf_counter()
            status, run = server.request("POST", f"/api/pipelines/{pipeline['id']}/runs", {}, token)
            assert status == 202, run
            while run["status"] in ("queued", "running"):
                time.sleep(0.05)
                _, run = server.request("GET", f"/api/runs/{run['id']}", None, token)
            assert run["status"] == "succeeded", run
            durations.append(time.perf_counter() - started)
            if len(durations) == 1:
                after_first = _rss_mib(server.process.pid)
        after_runs = _rss_mib(server.process.pid)
        for _ in range(runs):
            preview = {"node": "by_country"}
            url = f"/api/pipelines/{pipeline['id']}/preview"
            status, shown = server.request("POST", url, preview, token)
            assert status == 200, shown
        after_previews = _rss_mib(server.process.pid)
        helpers = _children_rss_mib(server.process.pid)
    finally:
        server.stop()
    print(f"the web server ({root}) running the seed ETL on {rows:,} rows {runs} times, then "
          f"previewing its aggregate {runs} times")  # fmt: skip
    print_table(
        ["web RSS MiB: after start", "after 1 run", f"after {runs} runs", "growth",
         f"after {runs} previews", "run s (median)", "its other processes MiB"],
        [[after_start, after_first, after_runs, round(after_runs - after_start, 1),
          after_previews, statistics.median(durations), helpers]],
    )  # fmt: skip


def fernet_key() -> str:
    import base64

    return base64.urlsafe_b64encode(os.urandom(32)).decode()


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return round(int(status.split("VmRSS:")[1].split()[0]) / 1024, 1)


def _children_rss_mib(pid: int) -> float:
    """The RSS of `pid`'s child processes (the pre-started server), together."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[1]
            except OSError:
                continue
            if int(parent) == pid:
                total += _rss_mib(int(entry.name))
    return round(total, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("figure", choices=["start", "cancel", "web"])
    parser.add_argument("--repeat", type=int, default=30)
    parser.add_argument("--rows", type=int, default=2_000_000)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--root", type=Path, default=ROOT)
    args = parser.parse_args()
    if args.figure == "web":
        bench_web(args.rows, args.runs, args.root.resolve())
        return
    sys.path.insert(0, str(ROOT))
    if args.figure == "start":
        bench_start(args.repeat)
    else:
        bench_cancel(args.rows)


if __name__ == "__main__":
    main()
