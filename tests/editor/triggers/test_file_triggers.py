"""File triggers seen by the scheduler's watch step: files present when the trigger is saved
fire nothing, a new or changed file fires once with its path as a parameter, a storm of files
starts runs one at a time with a bounded queue, and ticks racing fire each event once."""

from __future__ import annotations

import os
import threading

import pytest
from django.db import connection
from django.db.models import Count

from editor.models import Run, Trigger, TriggerEvent
from editor.triggers import events, files, watch
from runtime.execution.statuses import RunStatus
from tests.editor.triggers.helpers import make_pipeline, make_trigger

PEOPLE = "id,name,age\n1,Ada,36\n2,Linus,17\n"


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    """No worker of this process takes the runs the triggers start: the tests end them."""
    settings.PIPEWRIGHT_WORKERS = "service"


def finish_runs() -> None:
    Run.objects.filter(status__in=RunStatus.ACTIVE).update(status=RunStatus.SUCCEEDED)


@pytest.mark.django_db(transaction=True)
def test_files_present_when_saved_fire_nothing_and_a_new_file_fires_once(client, data_root, owner):
    (data_root / "incoming").mkdir()
    (data_root / "incoming" / "old.csv").write_text(PEOPLE)
    pipeline = make_pipeline(client)
    trigger = make_trigger(
        pipeline, owner, kind="file", pattern="incoming/*.csv", parameters={"source": "path"}
    )
    assert watch.tick() == []
    (data_root / "incoming" / "new.csv").write_text(PEOPLE)

    [run_id] = watch.tick()
    assert watch.tick() == []

    run = Run.objects.get(pk=run_id)
    assert run.parameters == {"source": "incoming/new.csv"}
    assert run.trigger == "trigger"
    assert run.triggered_by == (
        f"trigger {trigger.pk} (file): file incoming/new.csv appeared or changed"
    )
    statuses = dict(trigger.events.values_list("fields__name", "status"))
    assert statuses == {"old.csv": "present", "new.csv": "started"}


@pytest.mark.django_db(transaction=True)
def test_a_changed_file_fires_again_once_its_size_or_time_changes(client, data_root, owner):
    pipeline = make_pipeline(client)
    make_trigger(pipeline, owner, kind="file", pattern="*.csv", parameters={"source": "name"})
    watch.tick()
    (data_root / "people.csv").write_text(PEOPLE + "3,Grace,85\n")
    [first] = watch.tick()
    finish_runs()
    assert watch.tick() == []
    stat = (data_root / "people.csv").stat()
    os.utime(data_root / "people.csv", ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))

    [second] = watch.tick()

    assert first != second
    assert Run.objects.get(pk=second).parameters == {"source": "people.csv"}


@pytest.mark.django_db(transaction=True)
def test_a_storm_of_1000_files_starts_one_run_at_a_time_and_keeps_at_most_100_waiting(
    client, data_root, owner
):
    pipeline = make_pipeline(client)
    trigger = make_trigger(
        pipeline, owner, kind="file", pattern="storm/*.csv", parameters={"source": "path"}
    )
    watch.tick()
    (data_root / "storm").mkdir()
    for index in range(1000):
        (data_root / "storm" / f"{index:04}.csv").write_text(PEOPLE)

    started = watch.tick() + watch.tick() + watch.tick()

    assert len(started) == 1  # the pipeline runs once at a time: the others wait
    by_status = trigger.events.values("status").annotate(n=Count("id"))
    counts = dict(by_status.values_list("status", "n"))
    assert counts == {"started": 1, "waiting": events.MAX_WAITING - 1, "dropped": 900}
    assert Run.objects.get(pk=started[0]).parameters == {"source": "storm/0000.csv"}
    dropped = trigger.events.filter(status="dropped").order_by("fields__path").first()
    assert (dropped.fields["path"], dropped.message) == (
        "storm/0100.csv",
        "at most 100 events of a trigger wait for a run",
    )
    trigger.refresh_from_db()
    assert trigger.dropped == 900
    finish_runs()
    [following] = watch.tick()  # the next waiting event's run, once the pipeline is free
    assert Run.objects.get(pk=following).parameters == {"source": "storm/0001.csv"}


@pytest.mark.django_db(transaction=True)
def test_ticks_racing_start_each_file_events_run_exactly_once(client, data_root, owner, settings):
    """Threads here (SQLite's write transaction, or PostgreSQL's row locks and SKIP LOCKED with
    `DATABASE_URL=postgres://…`)."""
    settings.PIPEWRIGHT_MAX_RUNS_PER_USER = 100
    pipelines = [make_pipeline(client, f"p{index}") for index in range(4)]
    for index, pipeline in enumerate(pipelines):
        make_trigger(pipeline, owner, kind="file", pattern=f"in{index}/*.csv")
        (data_root / f"in{index}").mkdir()
    watch.tick()
    for index in range(4):
        for name in ("a", "b", "c"):
            (data_root / f"in{index}" / f"{name}.csv").write_text(PEOPLE)
    errors: list[BaseException] = []

    def ticker():
        try:
            for _ in range(4):
                watch.tick()
                finish_runs()
        except BaseException as error:  # reported below: a thread's failure must fail the test
            errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=ticker) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    while watch.tick():  # what the racing ticks left waiting
        finish_runs()

    assert not errors
    started = TriggerEvent.objects.filter(status="started")
    assert started.count() == 12
    assert Run.objects.filter(trigger="trigger").count() == 12
    assert sorted(started.values_list("run_id", flat=True)) == sorted(
        Run.objects.filter(trigger="trigger").values_list("pk", flat=True)
    )
    assert set(Trigger.objects.values_list("dropped", flat=True)) == {0}


@pytest.mark.django_db
def test_a_glob_leaving_the_workspace_folder_is_refused_naming_the_field(client, data_root):
    pipeline = make_pipeline(client)
    from tests.editor.conftest import post_json

    for pattern in ("../other/*.csv", "/etc/*", ""):
        answer = post_json(
            client, f"/api/pipelines/{pipeline.pk}/triggers", {"kind": "file", "pattern": pattern}
        )
        assert answer.status_code == 400, answer.content
        assert answer.json()["field"] == "pattern"


@pytest.mark.parametrize(
    ("pattern", "expected"),
    [
        ("in/*.csv", ["in/a.csv"]),
        ("**/*.csv", ["in/a.csv", "in/deep/b.csv", "top.csv"]),
        ("in/**/*.csv", ["in/a.csv", "in/deep/b.csv"]),
        ("*.csv", ["top.csv"]),
    ],
    ids=["one-folder", "everywhere", "under-in", "top"],
)
def test_a_glob_matches_as_pathlib_does_leaving_hidden_files_and_outside_links_out(
    tmp_path, pattern, expected
):
    root = tmp_path / "workspace"
    (root / "in" / "deep").mkdir(parents=True)
    (root / ".hidden").mkdir()
    for path in ("in/a.csv", "in/deep/b.csv", "top.csv", ".hidden/c.csv", "in/.d.csv"):
        (root / path).write_text("x\n")
    (tmp_path / "outside.csv").write_text("secret\n")
    (root / "in" / "link.csv").symlink_to(tmp_path / "outside.csv")

    found, whole = files.scan(root, pattern)

    assert sorted(seen.path for seen in found) == expected
    assert whole


def test_a_look_stops_at_its_folder_budget_and_says_it_did_not_read_everything(
    tmp_path, monkeypatch
):
    monkeypatch.setattr(files, "MAX_WALKED_FOLDERS", 3)
    for index in range(10):
        (tmp_path / f"f{index}").mkdir()
        (tmp_path / f"f{index}" / "a.csv").write_text("x\n")

    found, whole = files.scan(tmp_path, "**/*.csv")

    assert (len(found), whole) == (2, False)


@pytest.mark.django_db(transaction=True)
def test_a_file_arriving_between_the_save_and_the_first_tick_fires(client, data_root, owner):
    pipeline = make_pipeline(client)
    make_trigger(pipeline, owner, kind="file", pattern="*.csv", parameters={"source": "path"})
    (data_root / "arrived.csv").write_text(PEOPLE)

    [run_id] = watch.tick()

    assert Run.objects.get(pk=run_id).parameters == {"source": "arrived.csv"}
