"""Each attempt of a node is recorded with its start and end, from a real run whose node is
retried; the run's API answer and the live view's snapshot carry them, the snapshot bounded."""

from __future__ import annotations

import json

import pytest

from editor.live.snapshots import SNAPSHOT_SPANS, latest_run_snapshot
from editor.models import NodeRun, Run
from editor.pipelines import actions
from editor.runs.attempt_spans import with_event
from runtime.document.spec import load_document
from tests.editor.conftest import SEED, post_json, wait_for_run
from tests.editor.runs.helpers import chain, start


def status(name: str, attempt: int, time: str) -> dict:
    return {"type": "node_status", "node": "n", "status": name, "attempt": attempt, "time": time}


def test_a_span_opens_when_an_attempt_runs_and_closes_when_it_ends():
    spans = []
    for event in [
        status("queued", 1, "t0"), status("running", 1, "t1"), status("retrying", 1, "t2"),
        status("running", 2, "t3"), status("succeeded", 2, "t4"),
    ]:  # fmt: skip
        spans = with_event(spans, event)
    assert spans == [
        {"attempt": 1, "started_at": "t1", "finished_at": "t2", "status": "retrying"},
        {"attempt": 2, "started_at": "t3", "finished_at": "t4", "status": "succeeded"},
    ]


@pytest.mark.parametrize("final", ["skipped", "cancelled"])
def test_a_node_that_never_ran_has_no_span(final):
    assert with_event(with_event([], status("queued", 0, "t0")), status(final, 0, "t1")) == []


def test_a_running_attempt_has_an_open_span():
    assert with_event([], status("running", 1, "t1")) == [
        {"attempt": 1, "started_at": "t1", "finished_at": None, "status": "running"}
    ]


@pytest.mark.django_db(transaction=True)
def test_a_retried_node_records_each_attempt_with_its_start_and_end(client, data_root):
    # Its last row breaks every read; the check before the run reads only the first rows.
    (data_root / "bad.csv").write_text("a,b\n" + "1,2\n" * 400_000 + "3,4,5\n")
    document = chain(("read", "csv_input", {"path": "bad.csv"}), retry_delay_s=0.05)
    document["nodes"][0]["retries"] = 2
    run = wait_for_run(start(client, document))
    assert run.status == "failed"
    spans = client.get(f"/api/runs/{run.pk}").json()["nodes"]["read"]["attempt_spans"]
    assert [(span["attempt"], span["status"]) for span in spans] == [
        (1, "retrying"), (2, "retrying"), (3, "failed"),
    ]  # fmt: skip
    times = [time for span in spans for time in (span["started_at"], span["finished_at"])]
    assert times == sorted(times)
    assert run.started_at.isoformat() <= times[0] and times[-1] <= run.finished_at.isoformat()


@pytest.mark.django_db(transaction=True)
def test_the_run_api_gives_the_document_as_it_ran(client, pipeline_id, data_root):
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    wait_for_run(run_id)
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    trimmed = {**body, "nodes": body["nodes"][:1], "edges": []}
    assert client.put(
        f"/api/pipelines/{pipeline_id}", trimmed, content_type="application/json"
    ).json()["revision"] == 2  # fmt: skip
    ran = client.get(f"/api/runs/{run_id}").json()
    assert sorted(node["id"] for node in ran["document"]["nodes"]) == ["adults", "read", "write"]
    assert (ran["number"], ran["revision"]) == (1, 1)


@pytest.mark.django_db(transaction=True)
def test_the_snapshot_of_a_thousand_retried_nodes_stays_bounded(owner):
    """Every node retried 100 times: the snapshot keeps each node's latest attempts only."""
    pipeline = actions.create_pipeline(owner, load_document(SEED))
    run = Run.objects.create(pipeline=pipeline, document=SEED, status="running")
    spans = [
        {"attempt": attempt, "started_at": "2026-12-01T10:00:00.000000+00:00",
         "finished_at": "2026-12-01T10:00:01.000000+00:00", "status": "retrying"}
        for attempt in range(1, 102)
    ]  # fmt: skip
    nodes = [f"node_{index:04}" for index in range(1000)]
    NodeRun.objects.bulk_create(
        NodeRun(run=run, node_id=node, status="retrying", attempts=101, attempt_spans=spans)
        for node in nodes
    )
    seq, snapshot = latest_run_snapshot(pipeline.pk)
    assert len(snapshot["nodes"]) == 1000
    spans = snapshot["nodes"]["node_0999"]["spans"]
    assert [span["attempt"] for span in spans] == list(range(102 - SNAPSHOT_SPANS, 102))
    assert len(json.dumps({"type": "snapshot", "seq": seq, "run": snapshot})) < 600_000
