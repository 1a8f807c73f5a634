"""Saving a pipeline: one answer with the saved document's problems and schemas, and only the
rows that changed are written, in one transaction."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editor.models import Edge, Node, Pipeline
from editor.pipelines import actions
from editor.pipelines.documents import to_document
from runtime.document.spec import load_document, to_json_dict
from tests.editor.conftest import SEED, post_json, put_json

pytestmark = pytest.mark.django_db


def chain(length: int) -> dict:
    """A CSV input feeding `length` filters one after the other."""
    nodes = [{"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}}]
    edges = []
    for index in range(length):
        nodes.append({"id": f"f{index}", "operator": "filter", "params": {"condition": "age > 1"}})
        edges.append({"source": f"f{index - 1}" if index else "read", "target": f"f{index}"})
    return {**SEED, "nodes": nodes, "edges": edges}


def save(client, pipeline_id: int, change) -> tuple[object, list[str]]:
    """PUT the pipeline after `change(body)`; the answer and the SQL statements it ran."""
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    change(body)
    with CaptureQueriesContext(connection) as queries:
        response = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert response.status_code == 200, response.content
    return response, [query["sql"] for query in queries.captured_queries]


def writes(statements: list[str], table: str) -> list[str]:
    """The INSERT, UPDATE and DELETE statements among `statements` that touch `table`."""
    pattern = re.compile(rf'^(INSERT INTO|UPDATE|DELETE FROM) "?{table}"?\b')
    return [statement for statement in statements if pattern.match(statement)]


def move(node_id: str, x: float):
    def change(body):
        node = next(node for node in body["nodes"] if node["id"] == node_id)
        node["position"] = {"x": x, "y": 5}

    return change


@pytest.fixture
def chain_of(owner, data_root):
    def make(length: int) -> int:
        return actions.create_pipeline(owner, load_document(chain(length))).pk

    return make


def test_a_save_answers_the_saved_document_with_its_problems_and_schemas(client, chain_of):
    def break_one(body):
        body["nodes"][0]["params"] = {"condition": "agee > 1"}

    response, _ = save(client, chain_of(2), break_one)
    body = response.json()
    assert body["revision"] == 2 and body["nodes"][0]["params"] == {"condition": "agee > 1"}
    assert body["problems"] == [
        {"code": "schema", "node": "f0", "field": "params.condition", "field_title": "Condition",
         "message": "Condition: unknown column 'agee' at 1:1; did you mean 'age'?",
         "line": 1, "column": 1, "end_column": 5}
    ]  # fmt: skip
    assert [column["name"] for column in body["schemas"]["read"]["outputs"]["out"]] == [
        "id",
        "name",
        "age",
    ]
    assert body["schemas"]["f0"]["problems"] == body["problems"]


def test_moving_one_node_writes_one_node_row_and_no_edge(client, chain_of):
    pipeline_id = chain_of(20)
    _, statements = save(client, pipeline_id, move("f7", 300))
    [update] = writes(statements, "editor_node")
    assert update.startswith("UPDATE")
    assert writes(statements, "editor_edge") == []
    assert Node.objects.get(pipeline=pipeline_id, node_id="f7").x == 300


def test_the_queries_of_a_save_do_not_grow_with_the_pipeline(client, chain_of):
    small = len(save(client, chain_of(5), move("f1", 10))[1])
    large = len(save(client, chain_of(200), move("f1", 10))[1])
    assert small == large


def test_a_save_adds_removes_and_rewires_only_what_changed(client, chain_of, owner):
    pipeline_id = chain_of(3)
    kept_edge = Edge.objects.get(pipeline=pipeline_id, target__node_id="f1").pk

    def rewire(body):
        body["nodes"] = [node for node in body["nodes"] if node["id"] != "f2"]
        body["nodes"].append({"id": "extra", "operator": "filter", "params": {}})
        body["edges"] = [edge for edge in body["edges"] if edge["target"] != "f2"]
        body["edges"].append({"source": "f1", "target": "extra"})

    response, statements = save(client, pipeline_id, rewire)
    expected = to_json_dict(to_document(Pipeline.objects.get(pk=pipeline_id)))
    answered = {key: response.json()[key] for key in expected}
    for node in answered["nodes"]:  # the API lists a node's checks even when there are none
        assert node.pop("expect") == []
    assert answered == expected
    assert [node["id"] for node in expected["nodes"]] == ["extra", "f0", "f1", "read"]
    assert [(edge["source"], edge["target"]) for edge in expected["edges"]] == [
        ("f0", "f1"),
        ("f1", "extra"),
        ("read", "f0"),
    ]
    assert Edge.objects.filter(pk=kept_edge).exists()
    assert not any(
        statement.startswith("UPDATE") for statement in writes(statements, "editor_node")
    )


def test_a_refused_save_writes_nothing(client, chain_of):
    pipeline_id = chain_of(2)
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    body["nodes"][0]["position"] = {"x": 999, "y": 0}
    body["edges"].append({"source": "f1", "target": "f0"})
    response = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert response.status_code == 400 and response.json()["problems"][0]["code"] == "cycle"
    assert not Node.objects.filter(pipeline=pipeline_id, x=999).exists()
    assert Edge.objects.filter(pipeline=pipeline_id).count() == 2


def test_a_second_edge_into_a_one_edge_port_is_refused_like_a_cycle(client, chain_of):
    pipeline_id = chain_of(2)
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    body["edges"].append({"source": "read", "target": "f1"})
    response = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert response.status_code == 400
    [problem] = response.json()["problems"]
    assert problem["code"] == "too_many_edges" and problem["field"] == "inputs.in"
    assert Edge.objects.filter(pipeline=pipeline_id).count() == 2


def test_a_save_answers_when_some_inputs_of_a_many_edge_port_have_no_schema(client, data_root):
    """A union fed by inputs whose files are missing: their schemas are unknown (None)."""
    document = {
        **SEED,
        "config": {},
        "nodes": [
            {"id": f"read_{i}", "operator": "csv_input", "params": {"path": f"missing_{i}.csv"}}
            for i in range(2)
        ]
        + [{"id": "all", "operator": "union", "params": {}}],
        "edges": [{"source": f"read_{i}", "target": "all"} for i in range(2)],
    }
    created = post_json(client, "/api/pipelines", document).json()
    answer = put_json(client, f"/api/pipelines/{created['id']}", created)
    assert answer.status_code == 200, answer.content
    assert answer.json()["schemas"]["all"]["inputs"] == {"in": [None, None]}
    assert client.get(f"/api/pipelines/{created['id']}/schemas").status_code == 200
