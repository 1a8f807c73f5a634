"""Notes, groups and the version-2 settings survive import, save, GET and export unchanged."""

from __future__ import annotations

import json

import pytest

from editor.models import Node, Pipeline
from tests.editor.admin.forms import change_form_data
from tests.editor.conftest import SEED, post_json, put_json

pytestmark = pytest.mark.django_db

NOTES = [
    {"id": "how", "text": "# Adults\nKeeps *everyone* of `min_age` or more.",
     "position": {"x": -40.0, "y": 120.0}, "width": 240.0, "height": 90.0, "color": "blue"},
    {"id": "todo", "text": "", "position": {"x": 0.0, "y": 0.0}, "width": None, "height": None,
     "color": "yellow"},
]  # fmt: skip
GROUPS = [
    {"id": "inputs", "label": "Inputs", "position": {"x": -20.0, "y": -20.0},
     "width": 300.0, "height": 200.0, "nodes": ["adults", "read"]},
]  # fmt: skip
VERSION_2 = {
    **SEED,
    "version": 2,
    "config": {**SEED["config"], "backend": "duckdb", "cache": False},
    "notes": NOTES,
    "groups": GROUPS,
}


def imported(client, document) -> int:
    response = post_json(client, "/api/pipelines/import", json.dumps(document))
    assert response.status_code == 201, response.content
    return response.json()["id"]


def test_import_then_get_and_export_keep_notes_groups_and_settings(client):
    pipeline_id = imported(client, VERSION_2)
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    exported = json.loads(client.get(f"/api/pipelines/{pipeline_id}/export").content)
    for document in (body, exported):
        assert document["version"] == 2
        assert document["notes"] == NOTES and document["groups"] == GROUPS
        assert (document["config"]["backend"], document["config"]["cache"]) == ("duckdb", False)


def test_a_save_of_what_a_get_gave_changes_nothing_in_the_export(client):
    pipeline_id = imported(client, VERSION_2)
    before = client.get(f"/api/pipelines/{pipeline_id}/export").content
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    assert put_json(client, f"/api/pipelines/{pipeline_id}", body).status_code == 200
    assert client.get(f"/api/pipelines/{pipeline_id}/export").content == before


def test_a_version_1_import_exports_as_version_2_with_the_defaults(client):
    pipeline_id = imported(client, SEED)
    exported = json.loads(client.get(f"/api/pipelines/{pipeline_id}/export").content)
    assert exported["version"] == 2
    assert (exported["config"]["backend"], exported["config"]["cache"]) == ("auto", True)
    assert exported["notes"] == [] and exported["groups"] == []


def test_moving_a_note_writes_the_pipeline_row_and_no_node_row(client):
    pipeline_id = imported(client, VERSION_2)
    nodes_before = list(Node.objects.filter(pipeline=pipeline_id).values())
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    body["notes"][0]["position"] = {"x": 500.0, "y": 10.0}
    assert put_json(client, f"/api/pipelines/{pipeline_id}", body).status_code == 200
    assert Pipeline.objects.get(pk=pipeline_id).notes[0]["position"] == {"x": 500.0, "y": 10.0}
    assert list(Node.objects.filter(pipeline=pipeline_id).values()) == nodes_before


def test_a_save_whose_group_frames_a_removed_node_is_refused_naming_the_group(client):
    pipeline_id = imported(client, VERSION_2)
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    body["nodes"] = [node for node in body["nodes"] if node["id"] != "read"]
    body["edges"] = [edge for edge in body["edges"] if edge["source"] != "read"]
    response = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert response.status_code == 400
    [problem] = response.json()["problems"]
    assert problem["field"] == "groups.0.nodes.1"
    assert problem["message"] == (
        "Groups, item 1, Nodes, item 2: group 'inputs' frames 'read', which is no node of "
        "this pipeline; remove it"
    )
    assert Pipeline.objects.get(pk=pipeline_id).revision == 1


def test_a_version_3_import_is_refused_with_upgrade(client):
    response = post_json(client, "/api/pipelines/import", json.dumps({**SEED, "version": 3}))
    assert response.status_code == 400
    assert "upgrade Pipewright to open it" in response.json()["message"]


def test_an_admin_save_keeps_notes_groups_and_settings(admin_client, client):
    pipeline_id = imported(client, VERSION_2)
    before = client.get(f"/api/pipelines/{pipeline_id}/export").content
    url = f"/admin/editor/pipeline/{pipeline_id}/change/"
    data = change_form_data(admin_client.get(url))
    data["description"] = "edited in the admin"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["errors"]
    after = json.loads(client.get(f"/api/pipelines/{pipeline_id}/export").content)
    assert after == {**json.loads(before), "description": "edited in the admin"}
