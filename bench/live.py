"""Live view latency: from a run event's `time` to its arrival at websocket clients.

    python bench/live.py [--nodes 200] [--chains 4] [--seconds 0.01] [--runs 3]
                         [--clients 1,50] [--layers in-memory,redis]

Real daphne processes (started with the tests' tests/servers.py) over a fresh SQLite
database, in three shapes: one process with the in-memory channel layer, one over Redis, and
two over Redis (as behind a load balancer: the clients alternate between them, the runs start
and execute on the first). For 1 and for 50 clients watching the pipeline, runs of `nodes`
`pause` nodes (`seconds` each, in `chains` parallel chains, max_concurrency = chains) execute
one after another. Each client stamps
every frame on arrival and decodes it only after the run, so that the clients' own work
stays out of the figures. The table gives the latency of every event at every client
(p50/p95/p99), whether every client got every status event, and the frames per second the
server wrote.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.table import print_table  # noqa: E402
from tests.live_client import open_socket  # noqa: E402
from tests.servers import (  # noqa: E402
    DaphneServer,
    install_plugin,
    pause_pipeline,
    start_servers,
    stop_servers,
    write_input,
)

REDIS_URL = os.environ.get("PIPEWRIGHT_BENCH_REDIS_URL", "redis://127.0.0.1:6379/0")
STATUSES_PER_NODE = 3  # queued, running, succeeded


def setup_database(folder: Path) -> tuple[str, str, str]:
    """A migrated SQLite database with one user: `(DATABASE_URL, bearer token, cookie)`."""
    database = f"sqlite:///{folder / 'bench.sqlite3'}"
    os.environ["DATABASE_URL"] = database
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pipewright.settings")
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.core.management import call_command
    from django.test import Client

    from editor.workspaces.tokens import create_token
    from tests.live_client import session_cookie

    call_command("migrate", verbosity=0)
    user = get_user_model().objects.create_user("bench")
    client = Client()
    client.force_login(user)
    return database, create_token(user, "bench"), session_cookie(client)


async def watch(server, pipeline_id, cookie, ready: asyncio.Event, ends: list[asyncio.Event]):
    """One client: stamp every frame on arrival until every run in `ends` has finished."""
    arrivals: list[tuple[float, str]] = []
    async with open_socket(server, pipeline_id, cookie) as socket:
        await socket.recv()  # the snapshot
        ready.set()
        for end in ends:
            while True:
                text = await socket.recv()
                arrivals.append((time.time(), text))
                if '"run_finished"' in text:
                    end.set()
                    break
    return arrivals


@dataclass
class Result:
    """What every client of one configuration received."""

    latencies_ms: list[float] = field(default_factory=list)
    statuses: list[int] = field(default_factory=list)  # node_status events, per client
    frames: int = 0
    frame_bytes: int = 0
    first: float = float("inf")
    last: float = 0.0

    def add(self, arrivals: list[tuple[float, str]]) -> None:
        """Decode one client's frames (after the runs, so that decoding costs no latency)."""
        statuses = 0
        for arrived, text in arrivals:
            message = json.loads(text)
            if message["type"] != "events":
                continue
            self.frames += 1
            self.frame_bytes += len(text.encode())
            self.first, self.last = min(self.first, arrived), max(self.last, arrived)
            for item in message["events"]:
                emitted = datetime.fromisoformat(item["event"]["time"]).timestamp()
                self.latencies_ms.append((arrived - emitted) * 1e3)
                statuses += item["event"]["type"] == "node_status"
        self.statuses.append(statuses)


async def measure(servers, pipeline_id: int, token: str, cookie: str, clients: int, runs: int):
    """Connect `clients` watchers, in turn to each server, run the pipeline `runs` times on the
    first server, one after another."""
    server = servers[0]
    readies = [asyncio.Event() for _ in range(clients)]
    ends = [asyncio.Event() for _ in range(runs)]
    watchers = [
        asyncio.create_task(watch(servers[n % len(servers)], pipeline_id, cookie, ready, ends))
        for n, ready in enumerate(readies)
    ]
    await asyncio.gather(*(ready.wait() for ready in readies))
    for end in ends:  # the next run starts once a client has heard the last one finish
        path = f"/api/pipelines/{pipeline_id}/runs"
        status, body = await asyncio.to_thread(server.request, "POST", path, {}, token)
        assert status == 202, body
        await asyncio.wait_for(end.wait(), 60)
    result = Result()
    for arrivals in await asyncio.wait_for(asyncio.gather(*watchers), 60):
        result.add(arrivals)
    return result


def percentiles(values: list[float]) -> tuple[float, float, float]:
    cuts = statistics.quantiles(values, n=100, method="inclusive")
    return cuts[49], cuts[94], cuts[98]


def bench_layer(name, env, processes, args, database, token, cookie, folder, site, rows):
    data_root = write_input(folder / "data")
    servers = [
        DaphneServer(
            database=database,
            data_root=data_root,
            log_path=folder / f"daphne-{name}-{number}.log",
            env=env,
            python_path=[site],
        )
        for number in range(processes)
    ]
    start_servers(servers)
    server = servers[0]
    try:
        document = pause_pipeline(
            f"live bench ({name})", args.nodes, args.seconds, args.chains, args.chains
        )
        status, body = server.request("POST", "/api/pipelines", document, token)
        assert status == 201, body
        expected = STATUSES_PER_NODE * (args.nodes + 1) * args.runs
        for clients in args.clients:
            result = asyncio.run(measure(servers, body["id"], token, cookie, clients, args.runs))
            p50, p95, p99 = percentiles(result.latencies_ms)
            rows.append([
                name, processes, clients, len(result.latencies_ms) // clients,
                f"{min(result.statuses)}/{expected}",
                "yes" if min(result.statuses) == max(result.statuses) == expected else "NO",
                round(result.frames / (result.last - result.first)),
                f"{result.frame_bytes / result.frames / 1024:.1f}",
                f"{p50:.1f}", f"{p95:.1f}", f"{p99:.1f}",
            ])  # fmt: skip
    finally:
        stop_servers(servers)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=200)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=0.01)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--clients", type=lambda text: [int(n) for n in text.split(",")],
                        default=[1, 50])  # fmt: skip
    parser.add_argument("--layers", type=lambda text: text.split(","),
                        default=["in-memory", "redis"])  # fmt: skip
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="pipewright-live-bench-") as tmp:
        folder = Path(tmp)
        database, token, cookie = setup_database(folder)
        site = install_plugin(folder / "site")
        prefix = f"pwbench-{uuid.uuid4().hex[:12]}"
        redis = {"REDIS_URL": REDIS_URL, "PIPEWRIGHT_CHANNEL_PREFIX": prefix}
        shapes = [("in-memory", {}, 1), ("redis", redis, 1), ("redis", redis, 2)]
        rows: list[list] = []
        try:
            for name, env, processes in shapes:
                if name in args.layers:
                    bench_layer(name, env, processes, args, database, token, cookie, folder,
                                site, rows)  # fmt: skip
        finally:
            _forget_redis_keys(prefix)
    print(
        f"{args.nodes} pause nodes of {args.seconds * 1e3:g} ms + 1 csv_input, "
        f"{args.chains} chains, max_concurrency {args.chains}; {args.runs} runs per row; "
        "latency = arrival at the client - the event's `time`, in ms"
    )
    print_table(
        ["layer", "processes", "clients", "events/client", "status events", "all", "frames/s",
         "KB/frame", "p50 ms", "p95 ms", "p99 ms"],
        rows,
    )  # fmt: skip


def _forget_redis_keys(prefix: str) -> None:
    import redis

    client = redis.Redis.from_url(REDIS_URL)
    for key in client.scan_iter(f"{prefix}*"):
        client.delete(key)
    client.close()


if __name__ == "__main__":
    main()


def seed_server(rows: int, prefix: str, **environment: str):
    """A started daphne server over a fresh SQLite database whose user `bench` holds the seed
    ETL's data (`rows` rows, bench/seed_etl.py) in its workspace: `(server, bearer token)`.
    `environment`: settings for the server, e.g. PIPEWRIGHT_MAX_RUNS="2"."""
    from bench.run_processes import fernet_key, linked
    from bench.seed_etl import generate

    folder = Path(tempfile.mkdtemp(prefix=prefix))
    data = folder / "data"
    linked(generate(rows), "users.csv", "countries.csv", folder=data / "bench")
    os.environ.update(PIPEWRIGHT_DATA_ROOT=str(data), **environment)
    for name in ("PIPEWRIGHT_SECRET_KEY", "PIPEWRIGHT_ENCRYPTION_KEY"):
        os.environ.setdefault(name, fernet_key())
    database, token, _ = setup_database(folder)
    server = DaphneServer(database=database, data_root=data, log_path=folder / "daphne.log")
    server.start().wait_until_ready()
    return server, token
