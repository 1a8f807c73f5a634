"""On PostgreSQL: a run whose worker service loses the database mid-run is recorded whole once
it is back, and a live view's snapshot is the run as of its `seq`.

`manage.py runworkers` reaches a database of this module's own through a `TcpProxy`, which
the tests cut for 3, 10 and 20 seconds while a run executes (its connections dropped, new
ones refused); a web process reads the same database directly. Both take a heartbeat for
stale after `STALE_AFTER_S` (the least `PIPEWRIGHT_RUN_STALE_AFTER` allows), so that the
longest cut outlasts it. However long the cut, every
node row ends final with one attempt, every log line is there once, and the run's status is
its true one: `succeeded`, never `interrupted` by a reaper while its process was alive.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from types import SimpleNamespace

import psycopg
import pytest
from websockets.exceptions import ConnectionClosed

from editor.database.outage_responses import MESSAGE, TRY_AGAIN_LATER
from editor.live.snapshots import SNAPSHOT_SPANS
from tests.editor.live.test_live_server import succeeded, wait_for
from tests.live_client import (
    LiveView,
    RunState,
    assert_complete_stream,
    follow,
    open_socket,
    websocket_transport,
)
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
STALE_AFTER_S = 15
NEW_USER = """
from importlib import import_module
from django.conf import settings
from django.contrib import auth
from django.contrib.auth.models import User
from editor.workspaces.tokens import create_token
user = User.objects.create_user("cuts", password="not used here 1")
session = import_module(settings.SESSION_ENGINE).SessionStore()
session[auth.SESSION_KEY] = str(user.pk)
session[auth.BACKEND_SESSION_KEY] = "django.contrib.auth.backends.ModelBackend"
session[auth.HASH_SESSION_KEY] = user.get_session_auth_hash()
session.save()
print(create_token(user, "cuts"), session.session_key)
"""
"""A user with an API token and a signed-in session (for websockets)."""


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
    """A fresh PostgreSQL database, a web process and a worker service each reaching it
    through a proxy of its own; fails (never skips) without PostgreSQL."""
    name = f"pw_cuts_{os.getpid()}"
    server = f"postgresql://postgres@{POSTGRES[0]}:{POSTGRES[1]}"
    try:
        admin = psycopg.connect(f"{server}/postgres", autocommit=True)
    except psycopg.OperationalError as error:
        pytest.fail(f"PostgreSQL is needed at {server}: {error}")
    admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    admin.execute(f'CREATE DATABASE "{name}"')
    proxy, web_proxy = TcpProxy(*POSTGRES), TcpProxy(*POSTGRES)
    started = []
    try:
        manage(f"{server}/{name}", "migrate", "--noinput")
        token, session = manage(f"{server}/{name}", "shell", "--no-imports", "-c", NEW_USER).split()
        folder = tmp_path_factory.mktemp("cuts")
        data_root = write_input(folder / "data")

        def process(kind, database: str, env: dict):
            log_path = folder / f"{kind.__name__}.log"
            started.append(
                kind(database=database, data_root=data_root, log_path=log_path, env=env,
                     python_path=[plugin_site])
            )  # fmt: skip
            return started[-1]

        web_database = f"postgres://postgres@127.0.0.1:{web_proxy.port}/{name}"
        env = {**redis_layer, "PIPEWRIGHT_RUN_STALE_AFTER": str(STALE_AFTER_S)}
        web = process(DaphneServer, web_database, {**env, "PIPEWRIGHT_WORKERS": "service"})
        through_proxy = f"postgres://postgres@127.0.0.1:{proxy.port}/{name}"
        workers = process(WorkerService, through_proxy, env)
        start_servers([web])
        workers.start().wait_until_ready()
        yield SimpleNamespace(
            web=web, workers=workers, proxy=proxy, web_proxy=web_proxy, token=token,
            cookie=f"sessionid={session}", data=data_root,
        )  # fmt: skip
    finally:
        stop_servers(started)
        proxy.close()
        web_proxy.close()
        admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.close()


async def run_through_a_cut(setup, cut_s: float) -> dict:
    """Start a run, cut the workers' database once a few nodes have succeeded, restore it after
    `cut_s` seconds; the run's API answer once it ended."""
    web, token = setup.web, setup.token
    pipeline = pause_pipeline(f"cut for {cut_s} s", PAUSES, PAUSE_S, chains=2)
    pipeline_id = await create_pipeline(web, token, pipeline)
    run_id = (await api(web, "POST", f"/api/pipelines/{pipeline_id}/runs", token, {}))["id"]
    await wait_for(web, token, run_id, lambda body: succeeded(body) >= 3, timeout=30)
    setup.proxy.cut()
    await asyncio.sleep(cut_s)
    setup.proxy.restore()
    return await wait_for(
        web, token, run_id, lambda body: body["status"] not in ("queued", "running"), timeout=60
    )


def assert_recorded_whole(body: dict, setup) -> None:
    """Every node final with its one attempt, every log line once, the run's true status."""
    assert (body["status"], body["error"]) == ("succeeded", "")
    nodes = body["nodes"]
    assert {node: state["status"] for node, state in nodes.items()} == dict.fromkeys(
        ["read", *(f"p{index}" for index in range(PAUSES))], "succeeded"
    )
    spans = {node: state["attempt_spans"] for node, state in nodes.items()}
    assert all(len(attempts) == 1 for attempts in spans.values()), spans
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


async def test_a_run_cut_off_for_longer_than_a_heartbeat_stays_fresh_is_never_reaped(
    behind_a_proxy,
):
    """The worker service's own reaper runs meanwhile (every half of `STALE_AFTER_S`), and
    the run it still executes is not `interrupted`."""
    cut_s = STALE_AFTER_S + 5
    assert_recorded_whole(await run_through_a_cut(behind_a_proxy, cut_s), behind_a_proxy)


async def test_every_snapshot_is_the_run_as_of_its_seq_while_the_recorder_writes(behind_a_proxy):
    """Watchers ask for snapshots over and over while a run of many short nodes commits a
    batch every few milliseconds: each snapshot's nodes are exactly what the events up to its
    `seq` make of them (read in READ COMMITTED, a batch committed between reading the run's
    `last_seq` and its nodes put newer rows under an older `seq`: phantom attempt spans once
    the client applied the events after it)."""
    web, token = behind_a_proxy.web, behind_a_proxy.token
    pipeline = pause_pipeline("snapshots", 120, 0.05, chains=6)  # 20 steps, each of 6 nodes
    pipeline_id = await create_pipeline(web, token, pipeline)
    stream, snapshots, stop = LiveView(), [], asyncio.Event()

    async def ask_for_snapshots():
        async with open_socket(web, pipeline_id, behind_a_proxy.cookie) as socket:
            while not stop.is_set():
                await socket.send(json.dumps({"type": "snapshot_request"}))
                async with asyncio.timeout(5):
                    while (message := json.loads(await socket.recv()))["type"] != "snapshot":
                        pass
                snapshots.append(message)
                await asyncio.sleep(0.06)  # within the socket's 20 messages a second

    async with open_socket(web, pipeline_id, behind_a_proxy.cookie) as socket:
        transport = websocket_transport(socket)
        await follow(stream, *transport, until=lambda view: view.snapshots)
        askers = [asyncio.create_task(ask_for_snapshots()) for _ in range(3)]
        run_id = (await api(web, "POST", f"/api/pipelines/{pipeline_id}/runs", token, {}))["id"]
        await follow(stream, *transport, until=lambda view: view.finished(run_id), timeout=60)
        stop.set()
        await asyncio.gather(*askers)

    assert_complete_stream(stream, run_id)
    events = [event for event in stream.applied if event["run_id"] == run_id]
    during = [s for s in snapshots if s["run"] and s["run"]["id"] == run_id and s["seq"]]
    assert len(during) >= 10  # asked about 40 times a second while the run lasts (seconds)
    for snapshot in during:
        expected = RunState()
        for event in events:
            if event["seq"] <= snapshot["seq"]:
                expected.apply(event)
        assert {
            node: (state["status"], state["spans"])
            for node, state in snapshot["run"]["nodes"].items()
        } == {
            node: (
                expected.nodes.get(node, {}).get("status", "pending"),
                expected.nodes.get(node, {}).get("spans", [])[-SNAPSHOT_SPANS:],
            )
            for node in snapshot["run"]["nodes"]
        }, f"snapshot at seq {snapshot['seq']}"


async def test_while_its_database_is_cut_the_web_answers_503_with_retry_after(behind_a_proxy):
    """The API with JSON, a page in plain text; the same requests answer again once the
    database is back. A live view connecting meanwhile is told to come back later (4503)."""
    web, token = behind_a_proxy.web, behind_a_proxy.token
    behind_a_proxy.web_proxy.cut()
    try:
        api_answer = await asyncio.to_thread(web.request, "GET", "/api/pipelines", None, token)
        page = await asyncio.to_thread(signed_in_page, web, behind_a_proxy.cookie)
        async with open_socket(web, 1, behind_a_proxy.cookie) as socket:
            with pytest.raises(ConnectionClosed) as closed:
                await asyncio.wait_for(socket.recv(), 10)
    finally:
        behind_a_proxy.web_proxy.restore()
    assert api_answer == (503, {"code": "database_unavailable", "message": MESSAGE,
                                "node": None, "field": None})  # fmt: skip
    assert page.status == 503 and page.headers["Retry-After"] == "5"
    assert b"Try again shortly" in page.read()
    assert closed.value.rcvd.code == TRY_AGAIN_LATER
    assert (await asyncio.to_thread(web.request, "GET", "/api/pipelines", None, token))[0] == 200


def signed_in_page(web, cookie: str) -> urllib.error.HTTPError:
    """The answer to a signed-in browser asking for the home page (an error answer, here)."""
    request = urllib.request.Request(f"{web.url}/", headers={"Cookie": cookie})
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with pytest.raises(urllib.error.HTTPError) as answer:
        opener.open(request, timeout=10)
    return answer.value
