"""Previews and checks wait in a fair line for a process instead of failing after 5 s.

With every process of `PIPEWRIGHT_MAX_PREVIEWS` busy, a job waits for up to
PIPEWRIGHT_PREVIEW_TIMEOUT, users taking turns, and `GET /api/previews/line` says where the
asking user's next job is. Before, 20 users previewing at once: 2 answered, 18 got 429
`previews_busy` after 5 s. The line is tried with real threads holding its slots.
"""

from __future__ import annotations

import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.db import connection

from editor.errors import ActionError
from editor.runs import jobs
from tests.editor.conftest import client_for, make_user, post_json
from tests.editor.runs.test_jobs import (
    WAITING,
    chain,
    created,
    in_background,
    job_processes,
    preview_of,
)
from tests.editor.runs.test_run_processes import wait_until

JOB = jobs._Job("preview", "the preview of node 'x'", "advice", "x")


class Holder:
    """A job of `user` that holds its slot in `line` until released; `served` records the
    order in which jobs got a slot."""

    def __init__(self, line: jobs._Line, user: str, served: list):
        self.holding = threading.Event()
        self.released = threading.Event()
        self.error: ActionError | None = None

        def hold():
            try:
                with line.taken(JOB, user):
                    served.append(user)
                    self.holding.set()
                    self.released.wait(20)
            except ActionError as error:
                self.error = error

        self.thread = threading.Thread(target=hold)
        self.thread.start()

    def release(self) -> None:
        self.released.set()
        self.thread.join(20)


def release_all(holders: list[Holder]) -> None:
    """Release every job at once, then wait for them: one released while another holds the
    slot would wait for it."""
    for holder in holders:
        holder.released.set()
    for holder in holders:
        holder.thread.join(20)


def queue_up(line: jobs._Line, users: list[str], served: list) -> list[Holder]:
    """A job of each user in turn, each one in line before the next comes."""
    holders = []
    for user in users:
        expected = line.waiting() + 1
        holders.append(Holder(line, user, served))
        wait_until(lambda: line.waiting() == expected)  # noqa: B023 (waited for right here)
    return holders


def test_waiting_users_take_turns_whatever_order_their_jobs_came_in(settings):
    settings.PIPEWRIGHT_MAX_PREVIEWS = 1
    line, served = jobs._Line(), []
    first = Holder(line, "first", served)
    first.holding.wait(20)
    holders = queue_up(line, ["alice", "alice", "alice", "bob", "carol"], served)
    assert [line.position(user) for user in ("alice", "bob", "carol", "dave")] == [1, 2, 3, None]

    first.release()
    for _ in holders:
        wait_until(lambda: any(h.holding.is_set() and not h.released.is_set() for h in holders))
        next(h for h in holders if h.holding.is_set() and not h.released.is_set()).release()

    assert served == ["first", "alice", "bob", "carol", "alice", "alice"]


def test_a_job_waits_up_to_the_time_limit_then_is_refused_with_429(settings):
    settings.PIPEWRIGHT_MAX_PREVIEWS = 1
    settings.PIPEWRIGHT_PREVIEW_TIMEOUT_S = 0.3
    line, served = jobs._Line(), []
    busy = Holder(line, "busy", served)
    busy.holding.wait(20)
    [late] = queue_up(line, ["late"], served)
    late.thread.join(20)
    busy.release()

    assert late.error.status == 429 and late.error.code == "previews_busy"
    assert late.error.message == (
        "the preview of node 'x' waited 0.3 s for a process: all 1 that PIPEWRIGHT_MAX_PREVIEWS "
        "allows were busy all along; try again later"
    )
    assert served == ["busy"] and line.waiting() == 0


def test_a_user_with_too_many_jobs_waiting_is_refused_at_once(settings):
    settings.PIPEWRIGHT_MAX_PREVIEWS = 1
    line, served = jobs._Line(), []
    busy = Holder(line, "busy", served)
    busy.holding.wait(20)
    waiting = queue_up(line, ["greedy"] * jobs.WAITING_PER_USER, served)
    one_more = Holder(line, "greedy", served)
    one_more.thread.join(20)
    other = queue_up(line, ["other"], served)

    assert one_more.error.status == 429
    assert one_more.error.message == (
        "the preview of node 'x' was not started: 10 previews and checks of yours already "
        "wait for a process; wait for their answers, then try again"
    )
    assert line.position("other") == 2
    release_all([busy, *waiting, *other])


@pytest.mark.django_db(transaction=True)
def test_twenty_users_previewing_at_once_are_all_answered(settings, tmp_path, pause_operator):
    """Each preview pauses 1 s, two at a time: the last waits about 10 s for its turn."""
    settings.PIPEWRIGHT_MAX_PREVIEWS = 2
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    document = chain(("read", "slow_source", {"seconds": 0}), ("wait", "pause", {"seconds": 1}))
    clients = []
    for index in range(20):
        client = client_for(make_user(f"user{index}"))
        answer = post_json(client, "/api/pipelines", {**document, "name": f"p{index}"})
        clients.append((client, answer.json()["id"]))

    def preview(client_and_id):
        try:
            return preview_of(*client_and_id, "wait").status_code
        finally:
            connection.close()

    with ThreadPoolExecutor(20) as pool:
        statuses = list(pool.map(preview, clients))

    assert statuses == [200] * 20


@pytest.mark.django_db(transaction=True)
def test_the_api_says_where_the_callers_waiting_preview_is_in_line(
    client, owner, other, pipeline_id, data_root, pause_operator, settings
):
    settings.PIPEWRIGHT_MAX_PREVIEWS = 1
    slow = created(client, WAITING)
    busy, _ = in_background(lambda: preview_of(client_for(owner), slow, "wait"))
    wait_until(lambda: len(job_processes()) == 1)
    queued, shown = in_background(lambda: preview_of(client_for(owner), pipeline_id, "adults"))
    wait_until(lambda: jobs.place_in_line(owner) is not None)

    assert client.get("/api/previews/line").json() == {"place": 1}
    assert client_for(other).get("/api/previews/line").json() == {"place": None}
    os.kill(job_processes()[0], signal.SIGKILL)
    queued.join(20)
    busy.join(20)
    assert shown[0].status_code == 200
    assert client.get("/api/previews/line").json() == {"place": None}
