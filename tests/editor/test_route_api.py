"""`route` through the web API: the catalog says how its ports follow its params, saves and
checks treat its ports as real, and its picture names them."""

from __future__ import annotations

import pytest

from editor.pipelines.graph_image import render
from runtime.document.spec import load_document
from tests.editor.conftest import client_for, make_user, post_json, put_json
from tests.editor.pipelines.test_graph_image import assert_inert

pytestmark = pytest.mark.django_db

ROUTED = {
    "format": "pipewright.pipeline",
    "version": 2,
    "name": "Routed",
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {
            "id": "split",
            "operator": "route",
            "params": {
                "conditions": [
                    {"name": "adults", "condition": "age >= 18"},
                    {"name": "élèves", "condition": "age < 12"},
                ]
            },
        },
        {"id": "w1", "operator": "csv_output", "params": {"path": "adults.csv"}},
        {"id": "w2", "operator": "csv_output", "params": {"path": "pupils.csv"}},
        {"id": "w3", "operator": "csv_output", "params": {"path": "rest.csv"}},
    ],
    "edges": [
        {"source": "read", "target": "split"},
        {"source": "split", "source_port": "adults", "target": "w1"},
        {"source": "split", "source_port": "élèves", "target": "w2"},
        {"source": "split", "source_port": "otherwise", "target": "w3"},
    ],
}


def test_the_catalog_says_how_route_ports_follow_its_params_and_others_are_static(client):
    items = {item["name"]: item for item in client.get("/api/operators").json()["items"]}
    route = items["route"]
    assert route["outputs_from"] == {"param": "conditions", "key": "name", "after": ["otherwise"]}
    assert [port["name"] for port in route["outputs"]] == ["otherwise"]
    assert [port["name"] for port in route["inputs"]] == ["in"]
    conditions = route["params_schema"]["properties"]["conditions"]
    assert conditions["minItems"] == 1 and conditions["maxItems"] == 100
    assert items["filter"]["outputs_from"] is None
    assert [port["name"] for port in items["validate"]["outputs"]] == ["valid", "invalid"]


def test_a_pipeline_with_route_ports_saves_and_checks_clean(client):
    created = post_json(client, "/api/pipelines", ROUTED)
    assert created.status_code == 201, created.content
    body = created.json()
    assert {(edge["source_port"], edge["target"]) for edge in body["edges"]} >= {
        ("adults", "w1"),
        ("élèves", "w2"),
        ("otherwise", "w3"),
    }


def test_saving_after_removing_a_condition_with_its_edge_left_names_node_and_port(client):
    created = post_json(client, "/api/pipelines", ROUTED).json()
    created["nodes"][1]["params"]["conditions"].pop()
    saved = put_json(client, f"/api/pipelines/{created['id']}", created)
    assert saved.status_code == 400, saved.content
    [problem] = [p for p in saved.json()["problems"] if p["code"] == "unknown_port"]
    assert (problem["node"], problem["field"]) == ("split", "outputs.élèves")
    assert problem["message"] == (
        "there is no output port 'élèves'; its output ports are: adults, otherwise"
    )


def test_another_user_cannot_see_a_route_pipeline(client):
    created = post_json(client, "/api/pipelines", ROUTED).json()
    stranger = client_for(make_user("stranger"))
    assert stranger.get(f"/api/pipelines/{created['id']}").status_code == 404
    assert stranger.get(f"/api/pipelines/{created['id']}/graph.svg").status_code == 404


def test_the_graph_image_names_each_route_port_on_its_edge():
    texts = assert_inert(render(load_document(ROUTED)))
    assert {"adults", "élèves", "otherwise"} <= set(texts)
    assert "split" in texts and "route · idle" in texts
