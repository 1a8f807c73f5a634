"""The scheduler driven by a fake clock through its own seam (it never sleeps): daylight
saving, times missed while no scheduler ran, overlap, exactly once per fire time, and runs
marked scheduled in history."""

from __future__ import annotations

import threading
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.utils import timezone

from editor.models import AuditEntry, Pipeline, Run
from editor.runs import actions as run_actions
from editor.runs import queue
from editor.schedules import actions, scheduler
from editor.schedules.scheduler import Scheduler
from runtime.execution.statuses import RunStatus
from tests.editor.conftest import SEED, post_json
from tests.editor.schedules.helpers import FakeClock, fire_times, make_schedule

PARIS = ZoneInfo("Europe/Paris")
NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    """No worker of this process takes the runs the schedules start: the tests end them."""
    settings.PIPEWRIGHT_WORKERS = "service"


@pytest.fixture
def pipeline(client, data_root) -> Pipeline:
    return Pipeline.objects.get(pk=post_json(client, "/api/pipelines", SEED).json()["id"])


def run_clock(start: datetime, until: datetime, tick_s: float, **options) -> FakeClock:
    """The scheduler's loop from `start` to `until` (it closes its connection between ticks,
    as a service must: these tests are transactional)."""
    clock = FakeClock(start, until, **options)
    Scheduler(clock, tick_s=tick_s).run()
    return clock


@pytest.mark.parametrize(
    ("zone", "start", "expected"),
    [
        (PARIS, datetime(2026, 3, 28, tzinfo=UTC), ["03-28 02:30 CET", "03-30 02:30 CEST"]),
        (NEW_YORK, datetime(2026, 3, 7, 5, tzinfo=UTC), ["03-07 02:30 EST", "03-09 02:30 EDT"]),
    ],
    ids=["paris", "new-york"],
)
@pytest.mark.django_db(transaction=True)
def test_clocks_going_forward_skip_the_day_whose_fire_time_does_not_exist(
    pipeline, owner, zone, start, expected
):
    schedule = make_schedule(pipeline, owner, start, cron="30 2 * * *", timezone=zone.key)
    run_clock(start, start + timedelta(days=2, hours=12), 600)
    assert fire_times(schedule, zone) == expected


@pytest.mark.parametrize(
    ("zone", "start", "expected"),
    [
        (
            PARIS,
            datetime(2026, 10, 24, 22, tzinfo=UTC),
            ["10-25 02:00 CEST", "10-25 02:30 CEST", "10-25 03:00 CET", "10-25 03:30 CET"],
        ),
        (
            NEW_YORK,
            datetime(2026, 11, 1, 4, tzinfo=UTC),
            ["11-01 01:00 EDT", "11-01 01:30 EDT", "11-01 02:00 EST", "11-01 02:30 EST"],
        ),
    ],
    ids=["paris", "new-york"],
)
@pytest.mark.django_db(transaction=True)
def test_clocks_going_back_fire_a_repeated_time_once(pipeline, owner, zone, start, expected):
    hour = 2 if zone is PARIS else 1
    cron = f"*/30 {hour},{hour + 1} * * *"
    schedule = make_schedule(pipeline, owner, start, cron=cron, timezone=zone.key)
    run_clock(start, start + timedelta(hours=6), 60)
    assert fire_times(schedule, zone) == expected


@pytest.mark.django_db
def test_times_missed_while_no_scheduler_ran_start_nothing_under_skip(pipeline, owner):
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="0 * * * *", missed="skip")

    assert scheduler.tick(start + timedelta(hours=5, minutes=30)) == []

    schedule.refresh_from_db()
    assert not schedule.runs.exists()
    assert schedule.next_fire_at == datetime(2026, 5, 1, 14, tzinfo=UTC)
    assert "skipped the times missed since 2026-05-01 09:00 UTC" in schedule.last_outcome


@pytest.mark.django_db
def test_times_missed_while_no_scheduler_ran_start_one_run_under_run_once(pipeline, owner):
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="0 * * * *", missed="run_once")

    [run_id] = scheduler.tick(start + timedelta(hours=5, minutes=30))
    assert scheduler.tick(start + timedelta(hours=5, minutes=31)) == []

    schedule.refresh_from_db()
    assert fire_times(schedule) == ["05-01 09:00"]
    assert schedule.last_run_id == run_id
    assert schedule.next_fire_at == datetime(2026, 5, 1, 14, tzinfo=UTC)
    assert schedule.last_outcome.startswith("ran once for the times missed since 2026-05-01 09:00")


@pytest.mark.django_db
def test_a_time_seen_within_the_grace_after_it_is_on_time_not_missed(pipeline, owner):
    start = datetime(2026, 5, 1, 8, 59, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="0 9 * * *", missed="skip")
    scheduler.tick(datetime(2026, 5, 1, 9, 1, 30, tzinfo=UTC))
    assert fire_times(schedule) == ["05-01 09:00"]


@pytest.mark.django_db(transaction=True)
def test_overlap_skip_records_the_time_skipped_while_a_run_is_going(pipeline, owner):
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="*/5 * * * *", overlap="skip")

    run_clock(start, start + timedelta(minutes=12), 60, finish_runs=False)

    schedule.refresh_from_db()
    assert fire_times(schedule) == ["05-01 08:05"]
    assert schedule.last_outcome.startswith("skipped the time 2026-05-01 08:10 UTC: run ")
    assert "still queued" in schedule.last_outcome


@pytest.mark.django_db(transaction=True)
def test_overlap_queue_waits_behind_the_run_going_and_one_run_waits_at_most(pipeline, owner):
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="*/5 * * * *", overlap="queue")

    run_clock(start, start + timedelta(minutes=17), 60, finish_runs=False)

    first, second = schedule.runs.order_by("scheduled_for")
    assert fire_times(schedule) == ["05-01 08:05", "05-01 08:10"]
    assert second.queued_behind_id == first.pk
    schedule.refresh_from_db()
    assert schedule.last_outcome.startswith("skipped the time 2026-05-01 08:15 UTC")
    assert queue.claim_next() == first.pk
    assert queue.claim_next() is None  # the second waits for the first to end

    Run.objects.filter(pk=first.pk).update(status=RunStatus.SUCCEEDED)
    assert queue.claim_next() == second.pk


@pytest.mark.django_db
def test_a_manual_start_still_answers_409_while_a_scheduled_run_is_going(client, pipeline, owner):
    minute = timezone.now().replace(second=0, microsecond=0)
    make_schedule(pipeline, owner, minute - timedelta(seconds=1), cron="* * * * *")
    assert len(scheduler.tick(minute + timedelta(seconds=1))) == 1

    response = post_json(client, f"/api/pipelines/{pipeline.pk}/runs", {})
    assert response.status_code == 409
    assert response.json()["code"] == "run_in_progress"


@pytest.mark.django_db
def test_scheduled_runs_are_marked_in_the_runs_json_and_use_the_schedules_parameters(
    client, pipeline, owner
):
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="0 9 * * *", parameters={"min_age": 30})
    [run_id] = scheduler.tick(datetime(2026, 5, 1, 9, tzinfo=UTC))

    body = client.get(f"/api/runs/{run_id}").json()
    assert (body["trigger"], body["schedule"]) == ("schedule", schedule.pk)
    assert body["parameters"] == {"min_age": 30} and body["started_by"] == "owner"
    [listed] = client.get(f"/api/pipelines/{pipeline.pk}/runs").json()["items"]
    assert listed["trigger"] == "schedule"


@pytest.mark.django_db
def test_a_schedule_that_cannot_start_says_why_and_moves_on(pipeline, owner):
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="0 9 * * *")
    (pipeline.schedules.model.objects.filter(pk=schedule.pk).update(parameters={"nope": 1}))

    [run_id] = scheduler.tick(datetime(2026, 5, 1, 9, tzinfo=UTC))
    schedule.refresh_from_db()
    assert "failed at once" in schedule.last_outcome
    assert "unknown parameter 'nope'" in schedule.last_outcome
    assert schedule.next_fire_at == datetime(2026, 5, 2, 9, tzinfo=UTC)
    assert Run.objects.get(pk=run_id).status == RunStatus.FAILED


@pytest.mark.django_db(transaction=True)
def test_a_scheduled_run_of_a_pipeline_with_problems_fails_at_once_listing_them_and_notifies(
    client, data_root, owner, monkeypatch
):
    typo = {**SEED["nodes"][1], "label": "Adults only", "params": {"condition": "agee > 1"}}
    document = {**SEED, "nodes": [SEED["nodes"][0], typo, SEED["nodes"][2]]}
    pipeline = Pipeline.objects.get(pk=post_json(client, "/api/pipelines", document).json()["id"])
    ended = []
    monkeypatch.setattr(run_actions.dispatch, "run_ended", ended.append)
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    make_schedule(pipeline, owner, start, cron="0 9 * * *")

    [run_id] = scheduler.tick(datetime(2026, 5, 1, 9, tzinfo=UTC))

    run = Run.objects.get(pk=run_id)
    assert (run.status, run.trigger) == (RunStatus.FAILED, "schedule")
    first, *problems = run.error.splitlines()
    assert first.startswith("the pipeline has problems")
    assert problems == [
        "- Adults only (adults): Condition: unknown column 'agee' at 1:1; did you mean 'age'?"
    ]
    assert not run.node_runs.exists()  # nothing executed
    assert not (data_root / "out" / "adults.csv").exists()
    assert ended == [run_id]


@pytest.mark.django_db(transaction=True)
def test_concurrent_ticks_fire_each_due_time_exactly_once(client, data_root, owner, settings):
    """Threads here (SQLite's write transaction, or PostgreSQL's row locks with
    `DATABASE_URL`); test_scheduler_processes races real processes."""
    settings.PIPEWRIGHT_MAX_RUNS_PER_USER = 100
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    pipelines = [
        Pipeline.objects.get(pk=post_json(client, "/api/pipelines", SEED).json()["id"])
        for _ in range(6)
    ]
    made = [make_schedule(pipeline, owner, start, cron="0 9 * * *") for pipeline in pipelines]
    errors: list[BaseException] = []

    def ticker():
        try:
            scheduler.tick(datetime(2026, 5, 1, 9, tzinfo=UTC))
        except BaseException as error:  # reported below: a thread's failure must fail the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ticker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert not errors
    assert [fire_times(schedule) for schedule in made] == [["05-01 09:00"]] * 6


@pytest.mark.django_db(transaction=True)
def test_schedule_changes_and_the_runs_they_start_are_in_the_audit_log(pipeline, owner):
    start = datetime(2026, 5, 1, 8, tzinfo=UTC)
    schedule = make_schedule(pipeline, owner, start, cron="0 9 * * *")
    [run_id] = scheduler.tick(datetime(2026, 5, 1, 9, tzinfo=UTC))
    actions.delete_schedule(schedule, owner)
    entries = AuditEntry.objects.order_by("id")
    created = entries.get(action="schedule.created")
    assert (created.object_type, created.username, created.details["cron"]) == (
        "schedule",
        "owner",
        "0 9 * * *",
    )
    started = entries.get(action="run.started", object_id=run_id)
    assert (started.source, started.username) == ("schedule", "owner")
    assert entries.filter(action="schedule.deleted").count() == 1
