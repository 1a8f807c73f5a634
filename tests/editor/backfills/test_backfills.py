"""Backfills: a schedule's past intervals as runs, through the API and the claim that advances
them — concurrency held, cancel leaving nothing running, failed intervals retried, and the
attacks (ten years of days, a range past the limit, a viewer)."""

from __future__ import annotations

import io
import threading
from datetime import UTC, datetime

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from editor.backfills import actions, advance
from editor.models import Backfill, BackfillInterval, Membership, Pipeline, Role, Run
from editor.schedules import actions as schedule_actions
from editor.schedules import cron_times
from runtime.execution.statuses import RunStatus
from tests.editor.conftest import client_for, make_user, post_json

DAILY = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "Daily",
    "config": {"parameters": {"day": "2024-01-01", "until": "2024-01-02"}},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/${day}.csv"}},
    ],
    "edges": [{"source": "read", "target": "write"}],
}
BODY = {
    "start": "2024-01-01",
    "end": "2024-01-11",
    "start_parameter": "day",
    "end_parameter": "until",
    "value_format": "date",
    "concurrency": 3,
}


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    """No worker of this process takes the runs: the tests end them."""
    settings.PIPEWRIGHT_WORKERS = "service"


@pytest.fixture
def pipeline(client, data_root) -> Pipeline:
    return Pipeline.objects.get(pk=post_json(client, "/api/pipelines", DAILY).json()["id"])


@pytest.fixture
def schedule(pipeline, owner):
    fields = schedule_actions.ScheduleIn(cron="0 0 * * *", timezone="UTC", enabled=False)
    return schedule_actions.create_schedule(pipeline, owner, fields)


def url(schedule, tail: str = "") -> str:
    return f"/api/pipelines/{schedule.pipeline_id}/schedules/{schedule.pk}/backfills{tail}"


def running_count(backfill) -> int:
    return backfill.intervals.filter(status=BackfillInterval.Status.RUNNING).count()


def end_active_runs(status=RunStatus.SUCCEEDED) -> None:
    Run.objects.filter(status__in=RunStatus.ACTIVE).update(
        status=status, finished_at=timezone.now()
    )


@pytest.mark.django_db(transaction=True)
def test_a_backfill_runs_each_interval_with_its_dates_never_more_than_its_concurrency(
    client, schedule
):
    response = post_json(client, url(schedule), BODY)
    assert response.status_code == 201, response.content
    backfill = Backfill.objects.get(pk=response.json()["id"])
    assert response.json()["progress"]["waiting"] == 10
    rounds = 0
    while backfill.status == Backfill.Status.RUNNING and rounds < 10:
        advance.advance(backfill.pk)
        assert running_count(backfill) <= 3
        assert Run.objects.filter(status__in=RunStatus.ACTIVE).count() <= 3
        end_active_runs()
        backfill.refresh_from_db()
        rounds += 1
    assert backfill.status == Backfill.Status.FINISHED
    days = sorted(Run.objects.values_list("parameters__day", "parameters__until"))
    assert days[0] == ("2024-01-01", "2024-01-02") and days[-1] == ("2024-01-10", "2024-01-11")
    calendar = client.get(url(schedule, f"/{backfill.pk}/intervals")).json()["items"]
    assert [item["status"] for item in calendar] == ["succeeded"] * 10


@pytest.mark.django_db
def test_a_backfill_and_its_calendar_show_the_schedules_own_days(client, pipeline, owner):
    """Midnight in Paris is 23:00 the day before in UTC, which the database keeps: the API
    answers the schedule's time, so the calendar's days are the days its runs are given."""
    fields = schedule_actions.ScheduleIn(cron="0 0 * * *", timezone="Europe/Paris", enabled=False)
    paris = schedule_actions.create_schedule(pipeline, owner, fields)
    body = {**BODY, "end": "2024-01-04"}
    created = post_json(client, url(paris), body).json()
    assert (created["start"], created["end"]) == (
        "2024-01-01T00:00:00+01:00", "2024-01-04T00:00:00+01:00",
    )  # fmt: skip
    calendar = client.get(url(paris, f"/{created['id']}/intervals")).json()["items"]
    assert [(item["start"], item["end"]) for item in calendar] == [
        (f"2024-01-0{day}T00:00:00+01:00", f"2024-01-0{day + 1}T00:00:00+01:00")
        for day in (1, 2, 3)
    ]
    assert client.get(url(paris)).json()["items"][0]["start"] == "2024-01-01T00:00:00+01:00"


@pytest.mark.django_db
def test_a_backfill_whose_zone_the_system_no_longer_knows_is_listed_in_utc(
    client, schedule, monkeypatch
):
    created = post_json(client, url(schedule), BODY).json()

    def unknown(name):
        raise cron_times.CronError(f"'{name}' is not an IANA time zone", "timezone")

    monkeypatch.setattr(cron_times, "check_zone", unknown)
    listed = client.get(url(schedule))
    assert listed.status_code == 200
    assert listed.json()["items"][0]["start"] == created["start"] == "2024-01-01T00:00:00+00:00"


@pytest.mark.django_db(transaction=True)
def test_cancel_mid_way_leaves_no_interval_running_and_cancels_the_runs(client, schedule):
    backfill = Backfill.objects.get(pk=post_json(client, url(schedule), BODY).json()["id"])
    started = advance.advance(backfill.pk)
    assert len(started) == 3
    response = post_json(client, url(schedule, f"/{backfill.pk}/cancel"), {})
    assert response.status_code == 200, response.content
    assert response.json()["progress"]["running"] == 0
    assert response.json()["progress"]["cancelled"] == 10
    assert not Run.objects.filter(pk__in=started, status__in=RunStatus.ACTIVE).exists()
    assert advance.advance(backfill.pk) == []


@pytest.mark.django_db(transaction=True)
def test_an_interval_claimed_then_cancelled_before_its_run_is_queued_starts_nothing(
    client, schedule, owner
):
    backfill = Backfill.objects.get(pk=post_json(client, url(schedule), BODY).json()["id"])
    claimed = advance.claim(backfill.pk, timezone.now())
    actions.cancel_backfill(backfill, owner)
    assert [advance.start_claimed(interval) for interval in claimed] == [None, None, None]
    assert not Run.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_failed_intervals_are_retried(client, schedule):
    backfill = Backfill.objects.get(pk=post_json(client, url(schedule), BODY).json()["id"])
    advance.advance(backfill.pk)
    end_active_runs(RunStatus.FAILED)
    advance.advance(backfill.pk)
    assert actions.progress(backfill)["failed"] == 3
    response = post_json(client, url(schedule, f"/{backfill.pk}/retry"), {})
    assert response.json()["progress"]["failed"] == 0
    assert response.json()["progress"]["waiting"] == 10 - 3


@pytest.mark.django_db(transaction=True)
def test_ten_years_of_days_are_inserted_in_a_few_statements(client, schedule):
    """3,652 intervals: the inserts are batched, a statement for at least 100 intervals
    (SQLite's limit of bound values makes batches of ~120 rows; PostgreSQL's of 1,000)."""
    body = BODY | {"start": "2014-01-01", "end": "2024-01-01"}
    with CaptureQueriesContext(connection) as queries:
        response = post_json(client, url(schedule), body)
    assert response.status_code == 201, response.content
    assert response.json()["progress"]["total"] == 3652
    inserts = [q for q in queries.captured_queries if "backfillinterval" in q["sql"].lower()]
    assert len(inserts) <= 3652 // 100
    assert len(queries.captured_queries) < 60
    backfill = Backfill.objects.get(pk=response.json()["id"])
    advance.advance(backfill.pk)
    assert running_count(backfill) == 3


@pytest.mark.django_db
def test_a_range_past_the_interval_limit_is_refused(client, schedule):
    schedule.cron = "*/5 * * * *"
    schedule.save()
    response = post_json(client, url(schedule), BODY | {"end": "2024-03-01"})
    assert response.status_code == 400
    assert response.json()["code"] == "too_many_intervals"
    assert not Backfill.objects.exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"start_parameter": "nope"}, "start_parameter"),
        ({"end_parameter": "day"}, "end_parameter"),
        ({"end": "2023-01-01"}, "end"),
    ],
    ids=["undeclared-parameter", "same-parameter", "end-before-start"],
)
def test_a_backfill_that_cannot_run_is_refused_naming_its_field(client, schedule, change, field):
    response = post_json(client, url(schedule), BODY | change)
    assert response.status_code == 400, response.content
    assert response.json()["field"] == field


@pytest.mark.django_db
def test_a_viewer_cannot_start_a_backfill_but_sees_them(client, schedule, pipeline):
    viewer = make_user("viewer")
    Membership.objects.create(workspace=pipeline.workspace, user=viewer, role=Role.VIEWER)
    response = post_json(client_for(viewer), url(schedule), BODY)
    assert response.status_code == 403
    assert not Backfill.objects.exists()
    assert client_for(viewer).get(url(schedule)).status_code == 200


@pytest.mark.django_db
def test_a_stranger_does_not_find_the_schedule(schedule, other):
    assert post_json(client_for(other), url(schedule), BODY).status_code == 404


def test_times_between_counts_ten_years_of_days():
    from editor.schedules.cron_times import check_zone, times_between

    found = list(
        times_between(
            "0 0 * * *",
            check_zone("UTC"),
            datetime(2014, 1, 1, tzinfo=UTC),
            datetime(2024, 1, 1, tzinfo=UTC),
        )
    )
    assert len(found) == 3653 and found[0] == datetime(2014, 1, 1, tzinfo=UTC)


@pytest.mark.django_db
def test_the_backfill_command_creates_the_intervals(schedule):
    out = io.StringIO()
    call_command(
        "backfill", str(schedule.pipeline_id), "--schedule", str(schedule.pk),
        "--start", "2024-01-01", "--end", "2024-02-01", "--start-parameter", "day",
        "--end-parameter", "until", "--format", "date", "--concurrency", "2", stdout=out,
    )  # fmt: skip
    assert "31 intervals from 2024-01-01 00:00 to 2024-02-01 00:00 UTC" in out.getvalue()
    assert Backfill.objects.get().concurrency == 2


@pytest.mark.django_db
def test_the_backfill_command_says_what_is_wrong(schedule):
    with pytest.raises(CommandError, match="declares no parameter 'interval_start'"):
        call_command(
            "backfill", str(schedule.pipeline_id), "--schedule", str(schedule.pk),
            "--start", "2024-01-01", "--end", "2024-02-01",
        )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_the_scheduler_tick_moves_backfills_on(client, schedule):
    from editor.schedules import scheduler

    post_json(client, url(schedule), BODY)
    assert len(scheduler.tick(timezone.now())) == 3
    assert scheduler.tick(timezone.now()) == []  # the limit is reached until runs end
    end_active_runs()
    assert len(scheduler.tick(timezone.now())) == 3


@pytest.mark.django_db(transaction=True)
def test_two_processes_advancing_at_once_start_no_interval_twice_nor_pass_the_limit(
    client, schedule
):
    """Two schedulers tick together (threads with connections of their own): the claim holds
    the backfill's row, so together they start the concurrency's worth of runs, once each."""
    backfill = Backfill.objects.get(pk=post_json(client, url(schedule), BODY).json()["id"])
    barrier = threading.Barrier(2)
    started: list[int] = []

    def tick() -> None:
        try:
            barrier.wait()
            started.extend(advance.advance(backfill.pk))
        finally:
            connection.close()

    threads = [threading.Thread(target=tick) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(started) == len(set(started)) == 3
    assert running_count(backfill) == 3
    assert Run.objects.count() == 3
