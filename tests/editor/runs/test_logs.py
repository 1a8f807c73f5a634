"""A run's log: every line of it is kept (the run's own, nodes', retries, failures), bounded per
run, and the run API shows it with the parameters the run used."""

from __future__ import annotations

import pytest

from editor.models import Run
from editor.pipelines import actions
from editor.runs.recorder import RunRecorder
from runtime.document.spec import load_document
from runtime.execution.events import Emitter
from tests.editor.conftest import SEED, post_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run(owner, data_root) -> Run:
    """A run that nothing executes: the tests play its events into a recorder."""
    pipeline = actions.create_pipeline(owner, load_document(SEED))
    return Run.objects.create(
        pipeline=pipeline, document=SEED, parameters={"min_age": 40}, status="running"
    )


def record(run: Run, emit) -> Run:
    """Run `emit(emitter)` into a recorder of `run`; the run as recorded."""
    recorder = RunRecorder(run.pk)
    emit(Emitter([recorder], run_id=run.pk))
    recorder.close()
    run.refresh_from_db()
    return run


def test_the_run_api_shows_every_kind_of_log_line_and_the_parameters(client, run):
    def a_run_with_a_retry_and_a_failure(emitter):
        emitter.emit("run_started", name="Adults", nodes=["read", "adults", "write"])
        emitter.emit("node_log", node="read", level="info", message="read 3 rows")
        emitter.emit("node_status", node="adults", status="retrying", attempt=1,
                     error="database is locked", delay_s=0.5)  # fmt: skip
        emitter.emit("node_status", node="write", status="failed", attempt=1, error="disk full")
        emitter.emit("run_finished", status="failed", duration_s=1.25, totals={})

    record(run, a_run_with_a_retry_and_a_failure)
    body = client.get(f"/api/runs/{run.pk}").json()
    assert body["parameters"] == {"min_age": 40}
    assert [(line["level"], line["node"], line["message"]) for line in body["logs"]] == [
        ("info", None, "run started: 3 nodes"),
        ("info", "read", "read 3 rows"),
        ("warning", "adults", "attempt 1 failed: database is locked; retrying in 0.5 s"),
        ("error", "write", "failed: disk full"),
        ("error", None, "run failed after 1.25 s"),
    ]
    assert [line["seq"] for line in body["logs"]] == [1, 2, 3, 4, 5]
    assert body["logs_dropped"] == 0


def test_a_run_keeps_its_first_and_latest_lines_and_counts_those_dropped(client, run, settings):
    settings.PIPEWRIGHT_LOG_LINES = 10

    def chatty(emitter):
        for index in range(25):
            emitter.emit("node_log", node="adults", level="info", message=f"line {index}")

    run = record(run, chatty)
    body = client.get(f"/api/runs/{run.pk}").json()
    kept = [line["message"] for line in body["logs"]]
    assert kept == [f"line {index}" for index in (*range(5), *range(20, 25))]
    assert body["logs_dropped"] == run.logs_dropped == 15


def test_reopening_a_finished_run_shows_what_its_nodes_logged(client, pipeline_id, data_root):
    response = post_json(
        client, f"/api/pipelines/{pipeline_id}/runs", {"parameters": {"min_age": 30}}
    )
    wait_for_run(response.json()["id"])
    body = client.get(f"/api/runs/{response.json()['id']}").json()
    messages = [(line["node"], line["message"]) for line in body["logs"]]
    assert messages[0] == (None, "run started: 3 nodes")
    assert ("write", "wrote 2 rows to out/adults.csv") in messages
    assert messages[-1][0] is None and messages[-1][1].startswith("run succeeded after")
