"""Starting a run that reuses stored results, ignores them, or runs part of the pipeline."""

from __future__ import annotations

import pytest

from editor.models import Run
from editor.runs import launcher
from tests.editor.conftest import SEED, client_for, post_json, put_json, wait_for_run

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


def _run(client, pipeline_id, body=None) -> dict:
    """Start a run, wait for its end, and give its node runs by node id."""
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", body or {})
    assert response.status_code == 202, response.json()
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    return client.get(f"/api/runs/{run.pk}").json()["nodes"]


def _cached(nodes: dict) -> set[str]:
    return {node for node, state in nodes.items() if state["metrics"].get("cached")}


def test_a_second_run_of_an_unchanged_pipeline_reuses_every_node(client, pipeline_id, data_root):
    first = _run(client, pipeline_id)
    assert _cached(first) == set()
    assert set(first["adults"]["metrics"]["results"]) == {"out"}
    again = _run(client, pipeline_id)
    assert _cached(again) == {"read", "adults", "write"}
    assert again["adults"]["metrics"]["rows_out"] == 2
    assert (data_root / "out" / "adults.csv").read_text() == "id,name,age\n1,Ada,36\n3,Grace,85\n"


def test_other_parameters_rerun_the_node_that_reads_them_and_what_follows(
    client, pipeline_id, data_root
):
    _run(client, pipeline_id)
    nodes = _run(client, pipeline_id, {"parameters": {"min_age": 40}})
    assert _cached(nodes) == {"read"}
    assert nodes["adults"]["metrics"]["rows_out"] == 1


def test_a_fresh_run_reuses_nothing_and_the_next_run_reuses_what_it_stored(
    client, pipeline_id, data_root
):
    _run(client, pipeline_id)
    assert _cached(_run(client, pipeline_id, {"fresh": True})) == set()
    assert _cached(_run(client, pipeline_id)) == {"read", "adults", "write"}


def test_running_up_to_a_node_leaves_out_what_is_below_it(client, pipeline_id, data_root):
    nodes = _run(client, pipeline_id, {"up_to": "adults"})
    assert nodes["write"]["status"] == "skipped"
    assert nodes["adults"]["status"] == "succeeded"
    assert not (data_root / "out" / "adults.csv").exists()
    after = _run(client, pipeline_id)
    assert _cached(after) == {"read", "adults"}


def test_running_from_a_node_reruns_it_and_what_is_below(client, pipeline_id, data_root):
    _run(client, pipeline_id)
    nodes = _run(client, pipeline_id, {"from_node": "adults"})
    assert _cached(nodes) == {"read"}
    assert {nodes[node]["status"] for node in ("adults", "write")} == {"succeeded"}


def test_a_pipeline_that_does_not_reuse_results_stores_none(client, pipeline_id, data_root):
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    body["config"]["cache"] = False
    saved = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert saved.status_code == 200, saved.json()
    _run(client, pipeline_id)
    nodes = _run(client, pipeline_id)
    assert _cached(nodes) == set()
    assert all("results" not in state["metrics"] for state in nodes.values())


def test_workspaces_never_reuse_each_others_results(client, pipeline_id, data_root, other):
    _run(client, pipeline_id)
    theirs = client_for(other)
    folder = data_root.parent / "other"
    folder.mkdir(exist_ok=True)
    (folder / "people.csv").write_bytes((data_root / "people.csv").read_bytes())
    their_pipeline = post_json(theirs, "/api/pipelines", SEED).json()["id"]
    assert _cached(_run(theirs, their_pipeline)) == set()
    stores = data_root.parent / ".pipewright" / "cache"
    assert {path.name for path in stores.iterdir()} == {"owner", "other"}
