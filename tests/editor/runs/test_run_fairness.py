"""Run fairness: per-user limits of queued and of running runs, and users taken in turn."""

from __future__ import annotations

import time

import pytest

from editor.models import Pipeline, Run
from editor.runs import actions
from tests.editor.conftest import client_for, make_user, post_json, wait_for_run
from tests.servers import pause_pipeline, write_input


def pipelines_of(user, count: int, seconds: float) -> list[Pipeline]:
    """`count` pipelines of `user`, each a single `pause` of `seconds` (one run each at once)."""
    client = client_for(user)
    made = []
    for index in range(count):
        document = pause_pipeline(f"{user.username} {index}", 1, seconds)
        response = post_json(client, "/api/pipelines", document)
        assert response.status_code == 201, response.content
        made.append(Pipeline.objects.get(pk=response.json()["id"]))
    return made


def start(client, pipeline: Pipeline):
    return post_json(client, f"/api/pipelines/{pipeline.pk}/runs", {})


def wait_until_running(run_id: int, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while Run.objects.get(pk=run_id).status == "queued":
        assert time.monotonic() < deadline, f"run {run_id} never started"
        time.sleep(0.02)


@pytest.mark.django_db
def test_a_user_over_the_limit_of_active_runs_is_refused_with_429(
    settings, tmp_path, pause_operator
):
    """Runs stay queued here: this test's transaction never commits, so none is launched."""
    settings.PIPEWRIGHT_DATA_ROOT = write_input(tmp_path)  # a run with a missing input is refused
    settings.PIPEWRIGHT_MAX_RUNS_PER_USER = 3
    alice, bob = make_user("alice"), make_user("bob")
    alices = client_for(alice)
    first, second, third, fourth = pipelines_of(alice, 4, 0)
    for pipeline in (first, second, third):
        assert start(alices, pipeline).status_code == 202
    refused = start(alices, fourth)
    assert refused.status_code == 429
    assert refused.json()["code"] == "too_many_runs"
    assert refused.json()["message"] == (
        "you already have 3 runs queued or running, the most allowed at once is 3; wait for "
        "one to finish, or cancel one, then start this run again"
    )
    assert not fourth.runs.exists()
    [bobs] = pipelines_of(bob, 1, 0)
    assert start(client_for(bob), bobs).status_code == 202  # the limit is per user
    actions.cancel_run(first.runs.get())
    assert start(alices, fourth).status_code == 202


@pytest.mark.django_db(transaction=True)
def test_another_users_run_starts_before_the_rest_of_a_users_queue(
    settings, tmp_path, pause_operator
):
    """Alice fills both workers and queues three more; Bob's one run is the next to start.

    Alice's first two runs pause until cancelled, so that everything is queued before a
    worker frees up; in order of arrival Bob's run would start after all of Alice's.
    """
    settings.PIPEWRIGHT_DATA_ROOT = write_input(tmp_path)
    settings.PIPEWRIGHT_MAX_RUNS = 2
    settings.PIPEWRIGHT_MAX_RUNNING_PER_USER = 2
    alice, bob = make_user("alice"), make_user("bob")
    alices, bobs = client_for(alice), client_for(bob)
    long_ones = pipelines_of(alice, 2, 60)
    queued = pipelines_of(alice, 3, 0)
    [bobs_pipeline] = pipelines_of(bob, 1, 0)

    blocking = [start(alices, pipeline).json()["id"] for pipeline in long_ones]
    for run_id in blocking:
        wait_until_running(run_id)
    alices_rest = [start(alices, pipeline).json()["id"] for pipeline in queued]
    bobs_run = start(bobs, bobs_pipeline).json()["id"]
    assert Run.objects.filter(pk__in=[*alices_rest, bobs_run], status="queued").count() == 4

    actions.cancel_run(Run.objects.get(pk=blocking[0]))
    wait_for_run(bobs_run)
    actions.cancel_run(Run.objects.get(pk=blocking[1]))
    finished = [wait_for_run(run_id) for run_id in [*alices_rest, bobs_run]]

    assert [run.status for run in finished] == ["succeeded"] * 4
    bob_started = finished[-1].started_at
    assert all(bob_started < run.started_at for run in finished[:-1])


@pytest.mark.django_db(transaction=True)
def test_one_users_long_runs_leave_a_slot_for_another_users_run(settings, tmp_path, pause_operator):
    """Two slots, one running slot per user (the default: half of them): Alice's second long
    run waits, and Bob's run takes the other slot at once instead of waiting hours."""
    settings.PIPEWRIGHT_DATA_ROOT = write_input(tmp_path)
    settings.PIPEWRIGHT_MAX_RUNS = 2
    settings.PIPEWRIGHT_MAX_RUNNING_PER_USER = 1
    alice, bob = make_user("alice"), make_user("bob")
    alices = [
        start(client_for(alice), pipeline).json()["id"] for pipeline in pipelines_of(alice, 2, 60)
    ]
    wait_until_running(alices[0])
    [bobs_pipeline] = pipelines_of(bob, 1, 0)

    bobs_run = wait_for_run(start(client_for(bob), bobs_pipeline).json()["id"])

    assert bobs_run.status == "succeeded"
    assert Run.objects.get(pk=alices[1]).status == "queued"
    actions.cancel_run(Run.objects.get(pk=alices[0]))
    wait_until_running(alices[1])
    actions.cancel_run(Run.objects.get(pk=alices[1]))
    assert wait_for_run(alices[1]).status == "cancelled"
