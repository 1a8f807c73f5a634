"""The database as the queue of runs: claims that never collide, users in turn, held runs
left alone, and cancels that reach a run from another process."""

from __future__ import annotations

import os
import threading
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from editor.models import Pipeline, Run
from editor.runs import launcher, queue, watch
from tests.editor.conftest import SEED, client_for, make_user, post_json, wait_for_run
from tests.editor.runs.test_run_fairness import pipelines_of, start, wait_until_running
from tests.servers import write_input


def queued(user, pipeline: Pipeline, count: int = 1, **fields) -> list[int]:
    """`count` queued runs of `pipeline` by `user`, made as `start_run` makes them."""
    made = [
        Run.objects.create(pipeline=pipeline, document={}, started_by=user, **fields)
        for _ in range(count)
    ]
    return [run.pk for run in made]


@pytest.fixture
def pipeline(client) -> Pipeline:
    return Pipeline.objects.get(pk=post_json(client, "/api/pipelines", SEED).json()["id"])


@pytest.mark.django_db(transaction=True)
def test_concurrent_claimers_take_every_queued_run_exactly_once(owner, pipeline):
    waiting = queued(owner, pipeline, 40)
    claimed: list[int] = []
    lock = threading.Lock()
    errors: list[BaseException] = []

    def claimer():
        try:
            while (run_id := queue.claim_next()) is not None:
                with lock:
                    claimed.append(run_id)
        except BaseException as error:  # reported below: a thread's failure must fail the test
            errors.append(error)
        finally:
            connection.close()

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("django.conf.settings.PIPEWRIGHT_MAX_RUNNING_PER_USER", 1000)
        threads = [threading.Thread(target=claimer) for _ in range(4)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    assert not errors
    assert sorted(claimed) == sorted(waiting)
    runs = Run.objects.filter(pk__in=waiting)
    assert {(run.status, run.pid) for run in runs} == {("running", os.getpid())}


@pytest.mark.django_db
def test_the_next_claim_serves_the_user_with_fewest_runs_going(owner, pipeline, settings):
    settings.PIPEWRIGHT_MAX_RUNNING_PER_USER = 5
    bob = make_user("bob")
    queued(owner, pipeline, status="running", started_at=timezone.now())
    owners_rest = queued(owner, pipeline, 3)
    [bobs] = queued(bob, pipeline)

    assert queue.claim_next() == bobs
    assert queue.claim_next() == owners_rest[0]


@pytest.mark.django_db
def test_among_users_with_as_many_runs_going_the_one_served_longest_ago_comes_first(
    owner, pipeline
):
    bob = make_user("bob")
    long_ago, lately = timezone.now() - timedelta(hours=1), timezone.now()
    queued(owner, pipeline, status="succeeded", started_at=lately)
    queued(bob, pipeline, status="succeeded", started_at=long_ago)
    [owners] = queued(owner, pipeline)
    [bobs] = queued(bob, pipeline)

    assert queue.claim_next() == bobs
    assert queue.claim_next() == owners


@pytest.mark.django_db
def test_a_user_whose_running_slots_are_taken_on_any_worker_waits_while_others_are_served(
    owner, pipeline, settings
):
    settings.PIPEWRIGHT_MAX_RUNNING_PER_USER = 1
    bob = make_user("bob")
    queued(owner, pipeline, status="running", started_at=timezone.now(), host="other", pid=4242)
    [owners_next] = queued(owner, pipeline)
    [bobs] = queued(bob, pipeline)

    assert queue.claim_next() == bobs
    assert queue.claim_next() is None
    Run.objects.filter(status="running", started_by=owner).update(status="succeeded")
    assert queue.claim_next() == owners_next


@pytest.mark.django_db
def test_a_claim_recounts_the_running_slots_another_worker_took_since_the_queue_was_read(
    owner, pipeline, settings
):
    """Between reading the queue in fair order and claiming, another worker may claim a run
    of the same user: the claim counts again, under the user's lock, and leaves the run."""
    settings.PIPEWRIGHT_MAX_RUNNING_PER_USER = 1
    first, second = queued(owner, pipeline, 2)
    run_id, user_id = next(queue._in_fair_order())
    assert run_id == first
    Run.objects.filter(pk=second).update(status="running", host="other", pid=4242)

    assert queue._claim(run_id, user_id) is False
    assert Run.objects.get(pk=first).status == "queued"


@pytest.mark.django_db
def test_queued_runs_a_process_holds_or_that_are_cancelled_are_never_claimed(owner, pipeline):
    queued(owner, pipeline, host="elsewhere", pid=4242)
    queued(owner, pipeline, cancel_requested=True)
    assert queue.claim_next() is None


@pytest.mark.django_db
def test_the_reaper_leaves_a_queued_run_nobody_holds_waiting_for_a_worker(owner, pipeline):
    [waiting] = queued(owner, pipeline)
    [orphan] = queued(owner, pipeline, host="elsewhere", pid=4242)
    long_ago = timezone.now() - timedelta(seconds=watch.stale_after_s() * 2)
    Run.objects.update(created_at=long_ago)

    assert watch.reap_interrupted_runs() == [orphan]
    assert Run.objects.get(pk=waiting).status == "queued"


@pytest.mark.django_db
def test_the_reaper_never_takes_a_run_this_process_is_claiming_for_one_it_left(owner, pipeline):
    """A claim writes this process's pid before the run's thread holds it: the reaper used to
    read what was held first, then the runs, and mark a run claimed in between interrupted
    (a worker service's first round at its start met its first claim)."""
    [claimed] = queued(owner, pipeline)
    assert queue.claim_next() == claimed

    assert watch.reap_interrupted_runs() == []
    assert Run.objects.get(pk=claimed).status == "running"


@pytest.mark.django_db
def test_a_run_claimed_again_after_the_reaper_read_it_is_left_to_its_new_process(owner, pipeline):
    [run_id] = queued(owner, pipeline, status="running", host="elsewhere", pid=4242)
    Run.objects.update(heartbeat_at=timezone.now() - timedelta(seconds=watch.stale_after_s() * 2))
    read = Run.objects.get(pk=run_id)
    Run.objects.filter(pk=run_id).update(host="another", pid=4343, heartbeat_at=timezone.now())

    assert watch._interrupt(read) is False
    assert Run.objects.get(pk=run_id).status == "running"


@pytest.mark.django_db(transaction=True)
def test_a_run_started_in_the_foreground_is_held_by_its_process(client, data_root):
    pipeline_id = post_json(client, "/api/pipelines", SEED).json()["id"]
    with launcher.foreground():
        run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    run = Run.objects.get(pk=run_id)
    assert (run.status, run.pid) == ("queued", os.getpid())
    assert queue.claim_next() is None

    launcher.run_now(run_id)
    assert wait_for_run(run_id).status == "succeeded"


@pytest.mark.django_db(transaction=True)
def test_a_cancel_asked_in_another_process_stops_the_run_here(settings, tmp_path, pause_operator):
    """Another process can only set `cancel_requested`: this process's run must see it."""
    settings.PIPEWRIGHT_DATA_ROOT = write_input(tmp_path)
    alice = make_user("alice")
    [slow] = pipelines_of(alice, 1, 60)

    run_id = start(client_for(alice), slow).json()["id"]
    wait_until_running(run_id)
    Run.objects.filter(pk=run_id).update(cancel_requested=True)  # as another process does

    run = wait_for_run(run_id)
    assert run.status == "cancelled"
    assert run.node_runs.get(node_id="p0").status == "cancelled"
