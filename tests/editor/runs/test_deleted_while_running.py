"""A pipeline deleted while its run starts or executes (the API cancels the run, then deletes
both): the thread that executes it ends quietly, never logging a crash."""

from __future__ import annotations

import logging
import threading
import time

import pytest
from django.db import connection, transaction
from django.db.models.signals import post_init
from django.utils import timezone

from editor.models import Pipeline, Run, RunLog
from editor.pipelines import actions as pipeline_actions
from editor.runs import actions as run_actions
from editor.runs import launcher
from editor.runs.recorder import RunRecorder
from runtime.execution.events import Emitter
from tests.editor.conftest import SEED, post_json

pytestmark = pytest.mark.django_db(transaction=True)


def claimed_run(client) -> int:
    """A run of the seed pipeline, queued in the foreground and claimed by this process."""
    pipeline_id = post_json(client, "/api/pipelines", SEED).json()["id"]
    with launcher.foreground():
        run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    Run.objects.filter(pk=run_id).update(status="running", started_at=timezone.now())
    return run_id


def errors_in(caplog) -> list[str]:
    return [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR]


def test_a_run_whose_pipeline_is_deleted_before_it_starts_is_dropped_quietly(
    client, data_root, caplog
):
    run_id = claimed_run(client)
    Pipeline.objects.filter(runs=run_id).delete()

    with caplog.at_level(logging.INFO, logger="editor.runs.launcher"):
        assert launcher.execute(run_id) is None

    assert not errors_in(caplog)
    assert f"run {run_id} was deleted with its pipeline" in caplog.text


def test_a_run_whose_pipeline_is_deleted_once_it_started_ends_without_a_crash(
    client, data_root, caplog
):
    run_id = claimed_run(client)
    deleted_at = []

    def delete_the_pipeline(event) -> None:
        if not deleted_at:
            deleted_at.append(event["type"])
            Pipeline.objects.filter(runs=run_id).delete()

    with caplog.at_level(logging.INFO, logger="editor.runs.launcher"):
        launcher.execute(run_id, [delete_the_pipeline])

    assert deleted_at == ["run_started"]
    assert not Run.objects.filter(pk=run_id).exists()
    assert not errors_in(caplog)


def test_a_run_whose_pipeline_is_deleted_just_after_the_run_is_read_ends_without_a_crash(
    client, data_root, caplog
):
    """The pipeline, its workspace and the user come with the run: nothing is looked up
    later that a deletion in between would leave missing."""
    run_id = claimed_run(client)
    pipeline = Pipeline.objects.get(runs=run_id)
    deleted = []

    def delete_the_pipeline(sender, instance, **kwargs) -> None:
        if instance.pk == run_id and not deleted:
            deleted.append(run_id)  # once: the deletion reads the run again
            Pipeline.objects.filter(pk=pipeline.pk).delete()

    post_init.connect(delete_the_pipeline, sender=Run)
    try:
        with caplog.at_level(logging.INFO, logger="editor.runs.launcher"):
            launcher.execute(run_id)
    finally:
        post_init.disconnect(delete_the_pipeline, sender=Run)

    assert not Pipeline.objects.filter(pk=pipeline.pk).exists()
    assert not errors_in(caplog)


def test_a_log_line_recorded_while_the_pipeline_is_deleted_goes_with_it(client, data_root, caplog):
    """The recorder writes a line between the deletion of the run's lines and of the run: it
    waits for the deletion (a second at most here) and then finds the run gone, where the
    deletion failed its foreign key check on PostgreSQL (a 500 from the API)."""
    run_id = claimed_run(client)
    recorder = RunRecorder(run_id)
    recording = threading.Thread(target=log_a_line, args=(recorder, run_id))

    def record_once_the_lines_are_deleted(execute, sql, params, many, context):
        result = execute(sql, params, many, context)
        if sql.startswith('DELETE FROM "editor_runlog"') and not recording.is_alive():
            recording.start()
            recording.join(timeout=1.0)  # the line commits here unless the run is locked
        return result

    with (
        caplog.at_level(logging.INFO),
        connection.execute_wrapper(record_once_the_lines_are_deleted),
    ):
        Pipeline.objects.filter(runs=run_id).delete()
    recording.join()

    assert not Run.objects.filter(pk=run_id).exists()
    assert not RunLog.objects.filter(run_id=run_id).exists()
    assert not errors_in(caplog)


def log_a_line(recorder: RunRecorder, run_id: int) -> None:
    Emitter([recorder], run_id=run_id).emit("node_log", node="read", level="info", message="hi")
    recorder.close()


def test_a_start_whose_pipeline_is_deleted_while_it_is_checked_is_refused_as_not_found(
    client, data_root, monkeypatch
):
    """Checking a start reads the inputs, outside any transaction: the pipeline may be
    deleted meanwhile (by another editor). The start says so (404), never a 500."""
    pipeline_id = post_json(client, "/api/pipelines", SEED).json()["id"]
    check_start = run_actions.check_start

    def deleted_once_checked(pipeline, *args, **kwargs):
        checked = check_start(pipeline, *args, **kwargs)
        Pipeline.objects.filter(pk=pipeline.pk).delete()
        return checked

    monkeypatch.setattr(run_actions, "check_start", deleted_once_checked)
    with launcher.foreground():
        answer = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})

    assert answer.status_code == 404
    assert answer.json()["message"] == "the pipeline was deleted while its run was starting"
    assert not Run.objects.exists()


def test_a_pipeline_deleted_while_a_run_of_it_is_queued_goes_with_that_run(client, data_root):
    """A run queued in the moment a deletion begins: the deletion waits for it and deletes
    it too, where on PostgreSQL it failed its foreign key check at commit (a 500)."""
    pipeline_id = post_json(client, "/api/pipelines", SEED).json()["id"]
    pipeline = Pipeline.objects.get(pk=pipeline_id)
    checked = run_actions.check_start(pipeline, pipeline.owner)
    queued, deleting = threading.Event(), threading.Event()

    def queue_and_hold() -> None:
        try:
            with transaction.atomic():
                run_actions.queue_checked(checked)
                queued.set()
                deleting.wait(timeout=10)
                wait_for_a_blocked_session()  # the deletion, while this run is uncommitted
        finally:
            connection.close()

    queueing = threading.Thread(target=queue_and_hold)
    queueing.start()
    assert queued.wait(timeout=10)
    deletion = threading.Thread(target=delete_in_its_own_connection, args=(pipeline, deleting))
    deletion.start()
    queueing.join()
    deletion.join()

    assert not Pipeline.objects.filter(pk=pipeline_id).exists()
    assert not Run.objects.exists()


def delete_in_its_own_connection(pipeline: Pipeline, started: threading.Event) -> None:
    try:
        started.set()
        pipeline_actions.delete_pipeline(pipeline)
    finally:
        connection.close()


def wait_for_a_blocked_session() -> None:
    """Until another session waits for a lock (PostgreSQL), or a second (SQLite, whose
    IMMEDIATE transactions wait for each other as they begin)."""
    if connection.vendor != "postgresql":
        time.sleep(1.0)
        return
    for _ in range(200):
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_stat_clear_snapshot()")  # else read once per transaction
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock'")
            if cursor.fetchone()[0]:
                return
        time.sleep(0.05)
