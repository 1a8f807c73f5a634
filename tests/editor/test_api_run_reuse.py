"""Starting a run that reuses stored results, ignores them, or runs part of the pipeline."""

from __future__ import annotations

import pytest

from editor import launcher
from editor.models import Run
from tests.editor.conftest import post_json

pytestmark = pytest.mark.django_db(transaction=True)


def test_a_run_keeps_and_shows_what_it_was_asked_to_reuse(client, pipeline_id, monkeypatch):
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    body = {"fresh": True, "up_to": "adults"}
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", body)
    assert response.status_code == 202, response.json()
    shown = response.json()
    assert (shown["fresh"], shown["up_to"], shown["from_node"]) == (True, "adults", None)
    run = Run.objects.get(pk=shown["id"])
    assert (run.fresh, run.up_to, run.from_node) == (True, "adults", "")
    listed = client.get(f"/api/pipelines/{pipeline_id}/runs").json()["items"][0]
    assert (listed["fresh"], listed["up_to"], listed["from_node"]) == (True, "adults", None)


def test_a_plain_run_reuses_and_runs_everything(client, pipeline_id, monkeypatch):
    monkeypatch.setattr(launcher, "submit", lambda run_id: None)
    shown = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()
    assert (shown["fresh"], shown["up_to"], shown["from_node"]) == (False, None, None)


@pytest.mark.parametrize("field", ["up_to", "from_node"])
def test_running_from_or_up_to_an_unknown_node_is_refused_naming_the_field(
    client, pipeline_id, field
):
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {field: "ghost"})
    assert response.status_code == 400
    body = response.json()
    assert body["field"] == field and "ghost" in body["message"]
    assert not Run.objects.exists()


@pytest.mark.parametrize("body", [{"fresh": "yes please"}, {"up_to": ["a"]}, {"from_node": 3}])
def test_malformed_run_options_get_422_naming_the_field(client, pipeline_id, body):
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", body)
    assert response.status_code == 422
    assert response.json()["field"] == next(iter(body))
    assert not Run.objects.exists()
