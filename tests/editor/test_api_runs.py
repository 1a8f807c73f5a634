"""Runs through the API: start, finish in the background, history, conflicts, cancel, pruning."""

from __future__ import annotations

import pytest
from django.db import transaction

from editor.live.relay import frame_events
from editor.models import NodeRun, Pipeline, Run
from editor.runs import actions as run_actions
from editor.runs import launcher
from editor.runs.recorder import RunRecorder
from runtime.execution.statuses import NodeStatus, RunStatus
from tests.editor.conftest import SEED, client_for, post_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_executes_in_the_background_and_records_every_node(client, pipeline_id, data_root):
    response = post_json(
        client, f"/api/pipelines/{pipeline_id}/runs", {"parameters": {"min_age": 30}}
    )
    assert response.status_code == 202
    assert response.json()["status"] == "queued"
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    body = client.get(f"/api/runs/{run.pk}").json()
    assert {node: state["status"] for node, state in body["nodes"].items()} == dict.fromkeys(
        ["read", "adults", "write"], "succeeded"
    )
    assert body["nodes"]["adults"]["metrics"]["rows_in"] == {"in": 3}
    assert body["nodes"]["adults"]["metrics"]["rows_out"] == 2
    writes = [(line["level"], line["message"]) for line in body["logs"] if line["node"] == "write"]
    assert writes[-1] == ("info", "wrote 2 rows to out/adults.csv")
    assert body["parameters"] == {"min_age": 30} and body["started_by"] == "owner"
    assert body["last_seq"] > 0 and body["duration_s"] >= 0
    assert (data_root / "out" / "adults.csv").read_text() == "id,name,age\n1,Ada,36\n3,Grace,85\n"
    assert run.document["nodes"][0]["id"] == "adults"  # the snapshot of what ran


def test_a_failed_node_fails_the_run_and_names_the_node(
    client, pipeline_id, settings, tmp_path, staff, data_root
):
    checked = run_actions.check_start(Pipeline.objects.get(pk=pipeline_id), staff)
    (data_root / "people.csv").unlink()  # gone between the check and the run
    with transaction.atomic():
        run_id = run_actions.queue_checked(checked).pk
    run = wait_for_run(run_id)
    assert run.status == "failed"
    assert run.error.startswith("read: input file 'people.csv' not found")
    nodes = client.get(f"/api/runs/{run_id}").json()["nodes"]
    assert nodes["read"]["status"] == "failed" and nodes["adults"]["status"] == "cancelled"
    assert nodes["read"]["traceback"] == ""  # it names the server's files: staff only
    as_staff = client_for(staff).get(f"/api/runs/{run_id}").json()["nodes"]
    assert "Traceback" in as_staff["read"]["traceback"]


def test_an_invalid_pipeline_cannot_start_and_gets_422_with_problems(client):
    broken = {**SEED, "nodes": [*SEED["nodes"], {"id": "loose", "operator": "filter"}]}
    pipeline_id = post_json(client, "/api/pipelines", broken).json()["id"]
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_pipeline" and body["node"] == "loose"
    assert {problem["field"] for problem in body["problems"]} == {"params.condition", "inputs.in"}
    assert not Run.objects.exists()


def test_an_unknown_run_parameter_is_refused(client, pipeline_id):
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"parameters": {"nope": 1}})
    assert response.status_code == 422
    assert response.json()["field"] == "parameters.nope"


def test_one_active_run_per_pipeline(client, pipeline_id, monkeypatch):
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)  # keep the first one queued
    first = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()
    second = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert second.status_code == 409
    assert second.json()["code"] == "run_in_progress" and second.json()["run_id"] == first["id"]


def test_cancelling_a_queued_run_cancels_it_before_it_starts(client, pipeline_id, monkeypatch):
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    body = client.post(f"/api/runs/{run_id}/cancel").json()
    assert body["status"] == "cancelled"
    assert {state["status"] for state in body["nodes"].values()} == {"cancelled"}


def test_cancelling_a_finished_run_changes_nothing(client, pipeline_id, data_root):
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    wait_for_run(run_id)
    assert client.post(f"/api/runs/{run_id}/cancel").json()["status"] == "succeeded"


def test_history_lists_runs_newest_first_and_old_runs_are_pruned(
    client, pipeline_id, data_root, settings
):
    settings.PIPEWRIGHT_KEEP_RUNS = 2
    ids = []
    for _ in range(3):
        ids.append(post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"])
        wait_for_run(ids[-1])
    history = client.get(f"/api/pipelines/{pipeline_id}/runs").json()
    assert history["count"] == 2
    assert [item["id"] for item in history["items"]] == [ids[2], ids[1]]
    assert "nodes" not in history["items"][0]


def test_deleting_a_pipeline_deletes_its_runs(client, pipeline_id, data_root):
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    wait_for_run(run_id)
    client.delete(f"/api/pipelines/{pipeline_id}")
    assert not Run.objects.filter(pk=run_id).exists()


def test_live_frames_never_carry_a_traceback():
    """Every watcher of a pipeline gets the same frame; a traceback names server files."""
    failed = {
        "run_id": 1,
        "seq": 3,
        "type": "node_status",
        "node": "read",
        "status": "failed",
        "error": "boom",
        "traceback": 'File "/srv/pipewright/runtime/executor.py"',
    }
    [item] = frame_events([failed])
    assert "traceback" not in item["event"] and item["event"]["error"] == "boom"


def test_the_catalog_sends_node_and_run_statuses_with_their_sets(client):
    statuses = client.get("/api/operators").json()["statuses"]
    assert statuses["run"] == [str(status) for status in RunStatus]
    assert "timed_out" in statuses["node"] and "retrying" in statuses["node"]
    assert statuses["sets"]["run"]["ACTIVE"] == ["queued", "running"]
    assert statuses["sets"]["node"]["FAILURES"] == ["failed", "timed_out"]
    assert set(statuses["sets"]["node"]["FINAL"]) == set(NodeStatus.FINAL)


def test_the_recorder_writes_the_outcome_run_finished_carries(client, pipeline_id, monkeypatch):
    """The runtime settles a run's outcome; the recorder does not work it out again."""
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    recorder = RunRecorder(run_id)
    recorder({"run_id": run_id, "seq": 1, "time": "", "type": "node_status", "node": "write",
              "status": "failed", "attempt": 1, "error": "not the first"})  # fmt: skip
    recorder({"run_id": run_id, "seq": 2, "time": "", "type": "run_finished", "status": "failed",
              "duration_s": 0.1, "totals": {}, "error": "read: the first"})  # fmt: skip
    recorder.close()
    run = Run.objects.get(pk=run_id)
    assert (run.status, run.error) == ("failed", "read: the first")


def test_the_recorder_goes_on_when_a_node_row_was_deleted_meanwhile(
    client, pipeline_id, monkeypatch
):
    """A pruned run, a flushed database: the rows that remain are still written."""
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    NodeRun.objects.filter(run_id=run_id, node_id="write").delete()
    recorder = RunRecorder(run_id)
    for seq, node in enumerate(["write", "read"], 1):
        recorder({"run_id": run_id, "seq": seq, "time": "2026-12-02T10:00:00+00:00",
                  "type": "node_status", "node": node, "status": "running",
                  "attempt": 1})  # fmt: skip
    recorder.close()
    nodes = client.get(f"/api/runs/{run_id}").json()["nodes"]
    assert set(nodes) == {"read", "adults"}
    assert nodes["read"]["status"] == "running" and nodes["read"]["attempts"] == 1
    assert nodes["read"]["attempt_spans"][0]["started_at"] == "2026-12-02T10:00:00+00:00"
    assert Run.objects.get(pk=run_id).last_seq == 2


def test_a_batch_sends_one_progress_event_per_node_keeping_rows_and_share():
    def progress(seq: int, node: str, **fields) -> dict:
        return {"run_id": 1, "seq": seq, "type": "node_progress", "node": node, **fields}

    batch = [
        progress(1, "read", rows=10),
        progress(2, "join", share=0.25),
        progress(3, "read", share=0.5),
        progress(4, "join", share=0.75),
    ]
    sent = {item["event"]["node"]: item["event"] for item in frame_events(batch)}
    assert [item["seq"] for item in frame_events(batch)] == [3, 4]
    assert (sent["read"]["rows"], sent["read"]["share"]) == (10, 0.5)
    assert sent["join"]["share"] == 0.75 and "rows" not in sent["join"]


def test_the_recorder_keeps_a_running_nodes_rows_and_share_done(client, pipeline_id, monkeypatch):
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    recorder = RunRecorder(run_id)
    for seq, (node, fields) in enumerate(
        [("read", {"rows": 120}), ("adults", {"share": 0.25}), ("adults", {"share": 0.5})], 1
    ):
        recorder({"run_id": run_id, "seq": seq, "time": "", "type": "node_progress",
                  "node": node, **fields})  # fmt: skip
    recorder.close()
    nodes = client.get(f"/api/runs/{run_id}").json()["nodes"]
    assert nodes["read"]["metrics"] == {"rows_so_far": 120}
    assert nodes["adults"]["metrics"] == {"share_done": 0.5}
