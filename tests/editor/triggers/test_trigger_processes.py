"""Two `manage.py runscheduler` processes racing over one database and one workspace folder
start each file event's run exactly once: PostgreSQL's row locks and SKIP LOCKED (run with
`DATABASE_URL=postgres://…`) or SQLite's write transaction (the default)."""

from __future__ import annotations

import time

import pytest

from editor.models import Run, Trigger, TriggerEvent
from editor.pipelines import actions
from runtime.document.spec import load_document
from tests.servers import SchedulerService, pause_pipeline, stop_servers

PIPELINES = 8


@pytest.mark.server
@pytest.mark.django_db(transaction=True)
def test_two_scheduler_processes_start_each_file_events_run_exactly_once(
    new_server, owner, tmp_path
):
    data_root = tmp_path / "data"
    triggers = []
    for index in range(PIPELINES):
        pipeline = actions.create_pipeline(owner, load_document(pause_pipeline(f"p{index}", 1, 0)))
        triggers.append(
            Trigger.objects.create(
                pipeline=pipeline, owner=owner, kind="file", pattern=f"in{index}/*.csv",
                primed=True,  # as if saved before the files came
            )
        )  # fmt: skip
        folder = data_root / pipeline.workspace.slug / f"in{index}"
        folder.mkdir(parents=True)
        (folder / "new.csv").write_text("id,name\n1,Ada\n")
    env = {"PIPEWRIGHT_MAX_RUNS_PER_USER": "100"}
    services = [new_server(env, data_root, SchedulerService) for _ in range(2)]
    for service in services:
        service.start()
    try:
        for service in services:
            service.wait_until_ready()
        deadline = time.monotonic() + 60
        while TriggerEvent.objects.filter(status="started").count() < PIPELINES:
            assert time.monotonic() < deadline, "\n".join(s.log() for s in services)
            time.sleep(0.1)
        time.sleep(0.5)  # a late duplicate would show now
    finally:
        stop_servers(services)

    logs = [service.log() for service in services]
    assert not any("Traceback" in log for log in logs), logs
    assert TriggerEvent.objects.count() == PIPELINES
    runs = Run.objects.filter(trigger="trigger")
    assert sorted(runs.values_list("pipeline_id", flat=True)) == sorted(
        trigger.pipeline_id for trigger in triggers
    )
    started = [log.count("started run #1") for log in logs]
    print(f"runs started by each process: {started}")
