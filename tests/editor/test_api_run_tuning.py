"""A run started with or without the figures of past runs: `tuning: false` in the start
body plans it with the fixed rules, and the run records and shows it (untuned); a schedule's
`tuning` does the same for its runs."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from editor.models import AuditEntry, Pipeline, Run
from editor.runs import launcher
from editor.schedules import scheduler
from runtime.document.spec import load_document
from runtime.plan import build_plan
from runtime.plan.tuned import node_shapes
from tests.editor.conftest import post_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


def test_an_untuned_run_keeps_and_shows_that_it_was_untuned(client, pipeline_id, monkeypatch):
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"tuning": False})
    assert response.status_code == 202, response.json()
    assert response.json()["tuning"] is False
    assert Run.objects.get(pk=response.json()["id"]).tuning is False
    listed = client.get(f"/api/pipelines/{pipeline_id}/runs").json()["items"][0]
    assert listed["tuning"] is False
    details = AuditEntry.objects.get(action="run.started").details
    assert details["untuned"] is True


def test_a_plain_run_is_tuned(client, pipeline_id, monkeypatch):
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    shown = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()
    assert shown["tuning"] is True


def test_a_malformed_tuning_switch_gets_422_naming_it(client, pipeline_id):
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"tuning": "maybe"})
    assert response.status_code == 422
    assert response.json()["field"] == "tuning"
    assert not Run.objects.exists()


def _nodes(client, pipeline_id, body: dict) -> dict:
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", body)
    assert response.status_code == 202, response.json()
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    return client.get(f"/api/runs/{run.pk}").json()["nodes"]


def test_a_tuned_run_leaves_out_a_slow_to_store_result_and_the_data_tab_recomputes_it(
    client, pipeline_id, data_root
):
    _nodes(client, pipeline_id, {})
    [path] = data_root.parent.glob(".pipewright/cache/*/profiles/*.json")
    profile = json.loads(path.read_text())
    shapes = node_shapes(build_plan(load_document(Run.objects.get().document)))
    adults, read = profile["nodes"][shapes["adults"]], profile["nodes"][shapes["read"]]
    slow_write = {"compute_s": 0.001, "store_s": 0.5, "stored_bytes": 1000}
    profile["nodes"][shapes["adults"]] = [{**one, **slow_write} for one in adults]
    quick_write = {"store_s": 0.001}  # kept whatever this machine measured (storing.py)
    profile["nodes"][shapes["read"]] = [{**one, **quick_write} for one in read]
    path.write_text(json.dumps(profile))
    untuned = _nodes(client, pipeline_id, {"fresh": True, "tuning": False})
    assert "results" in untuned["adults"]["metrics"]
    tuned = _nodes(client, pipeline_id, {"fresh": True})
    assert "results" not in tuned["adults"]["metrics"]
    run_id = Run.objects.latest("pk").pk
    body = client.get(f"/api/runs/{run_id}/nodes/adults/data").json()  # the Data tab
    assert body["source"] == "recomputed" and body["recomputed_from"] == ["read"]
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]


def test_a_schedule_without_past_runs_figures_starts_untuned_runs(client, pipeline_id, settings):
    settings.PIPEWRIGHT_WORKERS = "service"  # the runs stay queued: only what they record counts
    url = f"/api/pipelines/{pipeline_id}/schedules"
    made = post_json(client, url, {"cron": "0 9 * * *", "tuning": False})
    assert made.status_code == 201, made.json()
    assert made.json()["tuning"] is False
    assert client.get(url).json()["items"][0]["tuning"] is False
    Pipeline.objects.get(pk=pipeline_id).schedules.update(
        next_fire_at=datetime(2026, 5, 1, 9, tzinfo=UTC)
    )
    [started] = scheduler.tick(datetime(2026, 5, 1, 9, tzinfo=UTC))
    assert Run.objects.get(pk=started).tuning is False
