"""A run whose worker service loses PostgreSQL mid-run is recorded whole once it is back.

`manage.py runworkers` reaches a database of this module's own through a `TcpProxy`, which
the tests cut for 3, 10, 30 and 70 seconds while a run executes (its connections dropped, new
ones refused); a web process reads the same database directly. However long the cut, every
node row ends final with one attempt, every log line is there once, and the run's status is
its true one: `succeeded`, never `interrupted` by a reaper while its process was alive.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest

from tests.servers import (
    ROOT,
    DaphneServer,
    WorkerService,
    api,
    create_pipeline,
    pause_pipeline,
    start_servers,
    stop_servers,
    write_input,
)
from tests.tcp_proxy import TcpProxy

pytestmark = [pytest.mark.asyncio, pytest.mark.server]
POSTGRES = ("127.0.0.1", 5432)
PAUSES, PAUSE_S = 24, 0.3
"""A run of 12 steps of two `pause` nodes: about 4 s, with a log line from each."""
NEW_USER = """
from django.contrib.auth.models import User
from editor.tokens import create_token
print(create_token(User.objects.create_user("cuts", password="not used here 1"), "cuts"))
"""


def manage(database: str, *arguments: str) -> str:
    """Run `manage.py` against `database`; what it printed."""
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "pipewright.settings", "DATABASE_URL": database}
    done = subprocess.run(
        [sys.executable, "manage.py", *arguments], cwd=ROOT, env=env, capture_output=True,
        text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def behind_a_proxy(plugin_site, redis_layer, tmp_path_factory):
    """A fresh PostgreSQL database, a web process on it and a worker service reaching it
    through a proxy; fails (never skips) without PostgreSQL."""
    name = f"pw_cuts_{os.getpid()}"
    server = f"postgresql://postgres@{POSTGRES[0]}:{POSTGRES[1]}"
    try:
        admin = psycopg.connect(f"{server}/postgres", autocommit=True)
    except psycopg.OperationalError as error:
        pytest.fail(f"PostgreSQL is needed at {server}: {error}")
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.execute(f'CREATE DATABASE "{name}"')
    proxy = TcpProxy(*POSTGRES)
    started = []
    try:
        manage(f"{server}/{name}", "migrate", "--noinput")
        token = manage(f"{server}/{name}", "shell", "--no-imports", "-c", NEW_USER).strip()
        folder = tmp_path_factory.mktemp("cuts")
        data_root = write_input(folder / "data")

        def process(kind, database: str, env: dict):
            log_path = folder / f"{kind.__name__}.log"
            started.append(
                kind(database=database, data_root=data_root, log_path=log_path, env=env,
                     python_path=[plugin_site])
            )  # fmt: skip
            return started[-1]

        web = process(
            DaphneServer, f"{server}/{name}", {**redis_layer, "PIPEWRIGHT_WORKERS": "service"}
        )
        through_proxy = f"postgres://postgres@127.0.0.1:{proxy.port}/{name}"
        workers = process(WorkerService, through_proxy, redis_layer)
        start_servers([web])
        workers.start().wait_until_ready()
        yield SimpleNamespace(web=web, workers=workers, proxy=proxy, token=token, data=data_root)
    finally:
        stop_servers(started)
        proxy.close()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


async def run_through_a_cut(setup, cut_s: float) -> dict:
    """Start a run, cut the workers' database once a few nodes have succeeded, restore it after
    `cut_s` seconds; the run's API answer once it ended."""
    web, token = setup.web, setup.token
    pipeline = pause_pipeline(f"cut for {cut_s} s", PAUSES, PAUSE_S, chains=2)
    pipeline_id = await create_pipeline(web, token, pipeline)
    run_id = (await api(web, "POST", f"/api/pipelines/{pipeline_id}/runs", token, {}))["id"]
    await until(web, token, run_id, lambda body: succeeded(body) >= 3, timeout=30)
    setup.proxy.cut()
    await asyncio.sleep(cut_s)
    setup.proxy.restore()
    return await until(
        web, token, run_id, lambda body: body["status"] not in ("queued", "running"), timeout=60
    )


async def until(web, token: str, run_id: int, done, timeout: float) -> dict:
    async with asyncio.timeout(timeout):
        while not done(body := await api(web, "GET", f"/api/runs/{run_id}", token)):
            await asyncio.sleep(0.1)
    return body


def succeeded(body: dict) -> int:
    return sum(node["status"] == "succeeded" for node in body["nodes"].values())


def assert_recorded_whole(body: dict, setup) -> None:
    """Every node final with its one attempt, every log line once, the run's true status."""
    assert (body["status"], body["error"]) == ("succeeded", "")
    nodes = body["nodes"]
    assert {node: state["status"] for node, state in nodes.items()} == dict.fromkeys(
        ["read", *(f"p{index}" for index in range(PAUSES))], "succeeded"
    )
    assert all(len(state["attempt_spans"]) == 1 for state in nodes.values()), nodes
    lines = body["logs"]
    seqs = [line["seq"] for line in lines]
    assert seqs == sorted(set(seqs))
    assert lines[0]["message"] == f"run started: {PAUSES + 1} nodes"
    paused = sorted(line["node"] for line in lines if line["message"] == f"paused {PAUSE_S} s")
    assert paused == sorted(f"p{index}" for index in range(PAUSES))
    assert lines[-1]["message"].startswith("run succeeded") and lines[-1]["seq"] == body["last_seq"]
    assert len(lines) == PAUSES + 2 and body["logs_dropped"] == 0
    assert "wait for the database" in setup.workers.log()  # the cut reached the recorder
    assert not list(Path(setup.data, ".pipewright", "unrecorded").glob("*"))


@pytest.mark.parametrize("cut_s", [3, 10])
async def test_a_run_whose_database_is_cut_mid_run_is_recorded_whole(behind_a_proxy, cut_s):
    assert_recorded_whole(await run_through_a_cut(behind_a_proxy, cut_s), behind_a_proxy)


async def test_runs_cut_off_for_30_and_70_seconds_are_recorded_whole_and_never_reaped(
    behind_a_proxy,
):
    """Longer than a heartbeat stays fresh (60 s): the worker service's own reaper runs
    meanwhile, and the run it still executes is not `interrupted`."""
    for cut_s in (30, 70):
        assert_recorded_whole(await run_through_a_cut(behind_a_proxy, cut_s), behind_a_proxy)
