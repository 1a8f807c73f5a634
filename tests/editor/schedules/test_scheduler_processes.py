"""Two `manage.py runscheduler` processes racing over one database fire each due time
exactly once: PostgreSQL's row locks skipped by the other (run with `DATABASE_URL=postgres://…`)
and SQLite's write transaction (the default)."""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.utils import timezone

from editor.models import Run, Schedule
from editor.pipelines import actions
from runtime.document.spec import load_document
from tests.servers import SchedulerService, pause_pipeline, stop_servers

SCHEDULES = 12


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_two_scheduler_processes_start_exactly_one_run_per_fire_time(new_server, owner):
    minute = timezone.now().replace(second=0, microsecond=0)
    made = []
    for index in range(SCHEDULES):
        pipeline = actions.create_pipeline(owner, load_document(pause_pipeline(f"p{index}", 1, 0)))
        made.append(
            Schedule.objects.create(
                pipeline=pipeline,
                owner=owner,
                cron=f"{minute.minute} {minute.hour} * * *",  # once a day, at this minute
                next_fire_at=minute,
            )
        )
    env = {"PIPEWRIGHT_MAX_RUNS_PER_USER": "100"}
    services = [new_server(env, None, SchedulerService) for _ in range(2)]
    for service in services:
        service.start()
    try:
        for service in services:
            service.wait_until_ready()
        deadline = time.monotonic() + 60
        while Schedule.objects.filter(next_fire_at=minute).exists():
            assert time.monotonic() < deadline, "\n".join(s.log() for s in services)
            time.sleep(0.1)
        time.sleep(0.5)  # a late duplicate would show now
    finally:
        stop_servers(services)

    logs = [service.log() for service in services]
    assert [service.process.returncode for service in services] == [0, 0], logs
    assert all("runscheduler: stopped" in log for log in logs), logs
    assert not any("Traceback" in log for log in logs), logs
    runs = Run.objects.filter(schedule__in=made)
    assert sorted(runs.values_list("schedule_id", flat=True)) == [s.pk for s in made]
    assert set(runs.values_list("scheduled_for", flat=True)) == {minute}
    # not their status: another process's embedded pool of this session may run them
    assert set(runs.values_list("trigger", flat=True)) == {"schedule"}
    started = [log.count("started run #1") for log in logs]
    print(f"{connection.vendor}: runs started by each process: {started}")


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_the_web_process_fires_schedules_and_executes_their_runs_on_the_embedded_default(
    start_server, owner
):
    minute = timezone.now().replace(second=0, microsecond=0)
    pipeline = actions.create_pipeline(owner, load_document(pause_pipeline("nightly", 1, 0)))
    schedule = Schedule.objects.create(
        pipeline=pipeline, owner=owner, cron=f"{minute.minute} {minute.hour} * * *",
        next_fire_at=minute,
    )  # fmt: skip
    [web] = start_server(1, {"PIPEWRIGHT_SCHEDULER": "embedded"})  # test servers default to none

    deadline = time.monotonic() + 60
    while not Run.objects.filter(schedule=schedule, status="succeeded").exists():
        assert time.monotonic() < deadline, web.errors()
        time.sleep(0.2)
    run = Run.objects.get(schedule=schedule)
    assert (run.trigger, run.scheduled_for, run.started_by_id) == ("schedule", minute, owner.pk)
