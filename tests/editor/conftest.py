"""Fixtures for the web app's tests: users, signed-in clients, pipelines, a data root."""

from __future__ import annotations

import json
import sys
import threading
import time
import traceback

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from editor.models import Run
from editor.notifications import limits
from editor.runs import launcher, watch

SEED = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "Adults",
    "config": {"parameters": {"min_age": 18}},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {"id": "adults", "operator": "filter", "params": {"condition": "age >= ${min_age}"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/adults.csv"}},
    ],
    "edges": [{"source": "read", "target": "adults"}, {"source": "adults", "target": "write"}],
}


RUNS_END_S = 60
"""How long the runs a test started may take to end after it."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    """The runs a test started end before its fixtures do. The embedded pool claims every
    queued run in the database: one left by an earlier test would execute this test's runs
    (those it keeps queued on purpose, say); and a run that outlived its fixtures would meet
    its Dask cluster gone, its rows flushed, or the database refused to a test that uses none,
    and could wait forever."""
    try:
        return (yield)
    finally:
        if not launcher.stop_embedded_pool(timeout=RUNS_END_S):
            pytest.fail(f"a run of the test did not end; its threads:\n{thread_stacks()}")


def thread_stacks() -> str:
    """Where each thread but this one is, for a failure to show what a run waits for."""
    frames = sys._current_frames()
    return "\n".join(
        f"--- {thread.name}\n{''.join(traceback.format_stack(frames[thread.ident]))}"
        for thread in threading.enumerate()
        if thread is not threading.current_thread() and thread.ident in frames
    )


@pytest.fixture(autouse=True)
def notifications_of_this_test_only():
    """A run's end starts its notifications and its follow-ups (`editor.runs.run_end`) on
    threads that read the database: the flush after the test must not meet them (on
    PostgreSQL, its join and TRUNCATE deadlocked)."""
    yield
    for thread in threading.enumerate():
        if thread.name.startswith(("pipewright-notify-", "pipewright-run-end-")):
            thread.join(10)


@pytest.fixture(autouse=True)
def runs_claimed_here_are_let_go():
    """A test that claims runs itself (`queue.claim_next`) executes none of them: this process
    must not go on holding their ids, which later tests' runs take again."""
    before = watch.held_runs()
    yield
    for run_id in watch.held_runs() - before:
        watch.release(run_id)


@pytest.fixture(autouse=True)
def test_messages_counted_per_test():
    """Users' ids come again in later tests: their count of test messages must not."""
    limits.forget()


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    """Users are made for almost every test; the production hasher is slow on purpose."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def data_root(tmp_path, settings):
    """The folder of the `owner` user's personal workspace (slug `owner`), with people.csv;
    the server's data root is its parent."""
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    folder = tmp_path / "owner"
    folder.mkdir()
    (folder / "people.csv").write_text("id,name,age\n1,Ada,36\n2,Linus,17\n3,Grace,85\n")
    return folder


def make_user(username: str, **extra):
    return get_user_model().objects.create_user(username, password="pw-secret-123", **extra)


@pytest.fixture
def owner(db):
    return make_user("owner")


@pytest.fixture
def other(db):
    return make_user("other")


@pytest.fixture
def staff(db):
    return make_user("staff", is_staff=True)


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def client(owner) -> Client:
    return client_for(owner)


def post_json(client: Client, url: str, body) -> object:
    data = body if isinstance(body, str | bytes) else json.dumps(body)
    return client.post(url, data, content_type="application/json")


def put_json(client: Client, url: str, body) -> object:
    return client.put(url, json.dumps(body), content_type="application/json")


@pytest.fixture
def token(owner) -> str:
    """A bearer token of `owner`, for servers in other processes."""
    from editor.workspaces.tokens import create_token

    return create_token(owner, "tests")


@pytest.fixture
def cookie(client) -> str:
    """The session cookie of `client` (the `owner` signed in), for websockets."""
    from tests.live_client import session_cookie

    return session_cookie(client)


@pytest.fixture
def pipeline_id(client, data_root) -> int:
    """The seed's pipeline, with its input file (a run of a pipeline with problems is refused)."""
    response = post_json(client, "/api/pipelines", SEED)
    assert response.status_code == 201, response.content
    return response.json()["id"]


def wait_for_run(run_id: int, timeout: float = 20) -> Run:
    """The run once it has finished (runs execute on background threads)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        run = Run.objects.get(pk=run_id)
        if run.status not in ("queued", "running"):
            return run
        time.sleep(0.05)
    raise AssertionError(f"run {run_id} did not finish in {timeout} s")
