"""Dependencies between pipelines through the API: the workspace's graph (detected and
declared edges, never a pipeline of another workspace), declaring and removing, and the
upstream run a run records."""

from __future__ import annotations

import pytest
from django.utils import timezone

from editor.models import Membership, Role, Run
from editor.runs.actions import start_run
from editor.workspaces.permissions import pipeline_for
from runtime.execution.statuses import RunStatus
from tests.editor.conftest import client_for, make_user, post_json


def pipeline(name: str, reads: str, writes: str) -> dict:
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": name,
        "config": {"parameters": {"day": "d1"}},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": reads}},
            {"id": "write", "operator": "csv_output", "params": {"path": writes}},
        ],
        "edges": [{"source": "read", "target": "write"}],
    }


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    settings.PIPEWRIGHT_WORKERS = "service"


def make(client, name, reads, writes) -> int:
    response = post_json(client, "/api/pipelines", pipeline(name, reads, writes))
    assert response.status_code == 201, response.content
    return response.json()["id"]


@pytest.fixture
def chain(client, data_root):
    """Extract writes clean/<day>.csv, Report reads clean/*.csv; Lone reads people.csv."""
    (data_root / "clean").mkdir()
    (data_root / "clean" / "d1.csv").write_text("id,name,age\n1,Ada,36\n")
    return {
        "extract": make(client, "Extract", "people.csv", "clean/${day}.csv"),
        "report": make(client, "Report", "clean/*.csv", "report.csv"),
        "lone": make(client, "Lone", "people.csv", "lone.csv"),
    }


@pytest.mark.django_db
def test_the_graph_links_a_reader_of_a_glob_to_its_writer(client, chain):
    graph = client.get("/api/workspaces/owner/pipeline-graph").json()
    assert {node["name"] for node in graph["nodes"]} == {"Extract", "Report", "Lone"}
    assert [
        (e["upstream"], e["downstream"], e["detected"], e["declared"]) for e in graph["edges"]
    ] == [(chain["extract"], chain["report"], True, False)]
    assert graph["edges"][0]["via"] == [{"kind": "file", "name": "clean/*.csv"}]
    picture = client.get("/api/workspaces/owner/pipeline-graph.svg")
    assert picture["Content-Type"] == "image/svg+xml" and b"Extract" in picture.content


@pytest.mark.django_db
def test_a_pipeline_of_another_workspace_is_never_in_the_graph(client, chain, other, tmp_path):
    (tmp_path / "other").mkdir(exist_ok=True)
    (tmp_path / "other" / "people.csv").write_text("id,name,age\n1,Ada,36\n")
    stranger = client_for(other)
    theirs = make(stranger, "Theirs", "clean/*.csv", "clean/x.csv")
    graph = client.get("/api/workspaces/owner/pipeline-graph").json()
    assert theirs not in {node["id"] for node in graph["nodes"]}
    assert all(theirs not in (e["upstream"], e["downstream"]) for e in graph["edges"])
    assert stranger.get("/api/workspaces/owner/pipeline-graph").status_code == 404
    refused = post_json(
        stranger, f"/api/pipelines/{theirs}/dependencies", {"upstream": chain["extract"]}
    )
    assert refused.status_code == 404
    mine = post_json(client, f"/api/pipelines/{chain['lone']}/dependencies", {"upstream": theirs})
    assert mine.status_code == 404


@pytest.mark.django_db
def test_a_declared_dependency_is_an_edge_until_removed(client, chain):
    url = f"/api/pipelines/{chain['lone']}/dependencies"
    response = post_json(client, url, {"upstream": chain["report"], "note": "reads its view"})
    assert response.status_code == 201, response.content
    assert response.json()["upstream"][0]["declared"] is True
    assert response.json()["upstream"][0]["note"] == "reads its view"
    assert post_json(client, url, {"upstream": chain["report"]}).status_code == 400
    assert post_json(client, url, {"upstream": chain["lone"]}).json()["field"] == "upstream"
    assert client.delete(f"{url}?upstream={chain['report']}").status_code == 204
    assert client.get(url).json()["upstream"] == []


@pytest.mark.django_db
def test_a_viewer_cannot_declare_a_dependency(client, chain, owner):
    viewer = make_user("viewer")
    workspace = pipeline_for(owner, chain["lone"]).workspace
    Membership.objects.create(workspace=workspace, user=viewer, role=Role.VIEWER)
    url = f"/api/pipelines/{chain['lone']}/dependencies"
    assert post_json(client_for(viewer), url, {"upstream": chain["report"]}).status_code == 403
    assert client_for(viewer).get("/api/workspaces/owner/pipeline-graph").status_code == 200


@pytest.mark.django_db(transaction=True)
def test_a_run_records_the_latest_succeeded_run_of_each_pipeline_it_reads(client, chain, owner):
    extract = pipeline_for(owner, chain["extract"])
    first = start_run(extract, owner, {"day": "d1"})
    Run.objects.filter(pk=first.pk).update(status=RunStatus.SUCCEEDED, finished_at=timezone.now())
    report = start_run(pipeline_for(owner, chain["report"]), owner)
    details = client.get(f"/api/runs/{report.pk}").json()
    assert details["upstream_runs"] == [
        {
            "pipeline": extract.pk,
            "pipeline_name": "Extract",
            "run": first.pk,
            "number": first.number,
            "via": "clean/*.csv",
        }
    ]
