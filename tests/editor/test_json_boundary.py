"""The JSON boundary under attack: every hostile body is a 4xx naming the problem, nothing saved.

Each test sends what an attacker would: nesting that overflows Python's stack, `NaN` that no
JSON column stores, text longer than its column (SQLite keeps it, PostgreSQL raised a
`DataError`, so a 500), 100,000 nodes, paging numbers past any database integer.
"""

from __future__ import annotations

import json

import pytest
from django.conf import settings

from editor import models
from editor.models import Pipeline
from runtime.document import spec
from runtime.document.json_text import MAX_DEPTH
from tests.editor.conftest import SEED, post_json, put_json

pytestmark = pytest.mark.django_db


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def with_params(value: str) -> str:
    """SEED with the filter's params replaced by raw JSON text."""
    return json.dumps(
        {**SEED, "nodes": [*SEED["nodes"][:1], "PARAMS", *SEED["nodes"][2:]]}
    ).replace(
        '"PARAMS"', '{"id": "adults", "operator": "filter", "params": {"condition": ' + value + "}}"
    )


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, response.content[:300]
    body = response.json()
    assert body["code"] == code
    return body


HOSTILE_BODIES = {
    "100k deep array": (nested(100_000), "nested deeper than 64 levels"),
    "deep params": (with_params(nested(2_000)), "nested deeper than 64 levels"),
    "65 deep params": (with_params(nested(MAX_DEPTH)), "nested deeper than 64 levels"),
    "NaN position": (
        json.dumps(SEED).replace('"params": {"path": "people.csv"}', '"position": {"x": NaN}'),
        "NaN is not a JSON number",
    ),
    "Infinity param": (with_params("Infinity"), "Infinity is not a JSON number"),
    "-Infinity param": (with_params("-Infinity"), "-Infinity is not a JSON number"),
    "1e999 param": (with_params("1e999"), "the number 1e999 is too large"),
    "NUL in a label": (
        json.dumps(
            {**SEED, "nodes": [{**SEED["nodes"][0], "label": "a\x00b"}, *SEED["nodes"][1:]]}
        ),
        "NUL character",
    ),
    "lone surrogate": (with_params('"\\udc00"'), "lone surrogate"),
    "a JSON array": ("[1, 2]", "must be a JSON object"),
}


@pytest.mark.parametrize(("body", "message"), HOSTILE_BODIES.values(), ids=HOSTILE_BODIES)
def test_a_hostile_document_is_a_400_and_nothing_is_saved(client, pipeline_id, body, message):
    created = post_json(client, "/api/pipelines", body)
    assert message in refused(created, 400, "invalid_json")["message"]
    saved = client.put(f"/api/pipelines/{pipeline_id}", body, content_type="application/json")
    assert message in refused(saved, 400, "invalid_json")["message"]
    assert Pipeline.objects.count() == 1
    assert Pipeline.objects.get().revision == 1


def test_too_deep_params_name_the_field_they_are_in(client):
    body = refused(
        post_json(client, "/api/pipelines", with_params(nested(100))), 400, "invalid_json"
    )
    assert body["field"].startswith("nodes.1.params.condition.0.0")


def test_nesting_a_document_needs_is_accepted(client):
    response = post_json(client, "/api/pipelines", with_params(json.dumps([[[["ok"]]]])))
    assert response.status_code == 201, response.content


def test_a_body_over_the_upload_limit_is_a_413_before_it_is_parsed(client):
    huge = "[" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1)
    refused(post_json(client, "/api/pipelines", huge), 413, "too_large")
    assert not Pipeline.objects.exists()


def test_100k_nodes_within_the_size_limit_are_refused_at_once(client):
    nodes = [{"id": f"n{index}", "operator": "filter"} for index in range(100_000)]
    body = json.dumps({"name": "big", "nodes": nodes})
    assert len(body) < settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    problems = refused(post_json(client, "/api/pipelines", body), 400, "invalid_document")
    assert problems["field"] == "nodes"
    assert f"at most {spec.MAX_NODES} items" in problems["message"]
    assert not Pipeline.objects.exists()


def long_text(field: str) -> dict:
    """SEED with one text field one character longer than its column."""
    read, adults, write = (dict(node) for node in SEED["nodes"])
    edges = [dict(edge) for edge in SEED["edges"]]
    if field == "name":
        return {**SEED, "name": "n" * (spec.NAME_MAX_LENGTH + 1)}
    if field == "label":
        adults["label"] = "l" * (spec.LABEL_MAX_LENGTH + 1)
    if field == "operator":
        adults["operator"] = "o" * (spec.OPERATOR_MAX_LENGTH + 1)
    if field == "id":
        adults["id"] = "i" * (spec.NODE_ID_MAX_LENGTH + 1)
    if field in ("source_port", "target_port"):
        edges[0][field] = "p" * (spec.PORT_MAX_LENGTH + 1)
    return {**SEED, "nodes": [read, adults, write], "edges": edges}


LONG_FIELDS = {
    "name": (None, "name"),
    "label": ("adults", "label"),
    "operator": ("adults", "operator"),
    "id": ("i" * (spec.NODE_ID_MAX_LENGTH + 1), "id"),
    "source_port": (None, "edges.0.source_port"),
    "target_port": (None, "edges.0.target_port"),
}


@pytest.mark.parametrize(("field", "place"), LONG_FIELDS.items(), ids=LONG_FIELDS)
def test_text_longer_than_its_column_is_a_400_naming_node_and_field(client, field, place):
    response = post_json(client, "/api/pipelines", long_text(field))
    body = refused(response, 400, "invalid_document")
    assert (body["node"], body["field"]) == place
    assert "must be at most" in body["problems"][0]["message"]
    assert not Pipeline.objects.exists()


def test_text_as_long_as_its_column_is_stored_on_every_backend(client):
    at_limit = long_text("label")
    at_limit["nodes"][1]["label"] = "é" * spec.LABEL_MAX_LENGTH
    response = post_json(client, "/api/pipelines", at_limit)
    assert response.status_code == 201, response.content
    assert models.Node.objects.get(node_id="adults").label == "é" * spec.LABEL_MAX_LENGTH


def test_the_model_columns_are_as_long_as_the_document_allows():
    def length(model, field: str) -> int:
        return model._meta.get_field(field).max_length

    assert length(models.Pipeline, "name") == spec.NAME_MAX_LENGTH
    assert length(models.Node, "node_id") == spec.NODE_ID_MAX_LENGTH
    assert length(models.NodeRun, "node_id") == spec.NODE_ID_MAX_LENGTH
    assert length(models.Node, "operator") == spec.OPERATOR_MAX_LENGTH
    assert length(models.Node, "label") == spec.LABEL_MAX_LENGTH
    assert length(models.Edge, "source_port") == spec.PORT_MAX_LENGTH
    assert length(models.Edge, "target_port") == spec.PORT_MAX_LENGTH


BAD_NUMBERS = ["-1", "0", "99999999999999999999", "abc", "1.5", "1e3"]


@pytest.mark.parametrize("value", BAD_NUMBERS)
@pytest.mark.parametrize("name", ["limit", "offset"])
def test_paging_out_of_range_or_not_an_integer_is_a_422_naming_it(client, pipeline_id, name, value):
    if name == "offset" and value == "0":
        return  # offset 0 is the first page
    for url in ("/api/pipelines", f"/api/pipelines/{pipeline_id}/runs"):
        body = refused(client.get(f"{url}?{name}={value}"), 422, "invalid_request")
        assert body["field"] == name, url


@pytest.mark.parametrize("limit", [-1, 0, 10**30, "abc", 1.5, 10**9])
def test_a_preview_limit_out_of_range_is_a_422_naming_it(client, pipeline_id, data_root, limit):
    response = post_json(
        client, f"/api/pipelines/{pipeline_id}/preview", {"node": "read", "limit": limit}
    )
    assert refused(response, 422, "invalid_request")["field"] == "limit"


@pytest.mark.parametrize("url", ["/api/pipelines/{}", "/api/pipelines/{}/runs", "/api/runs/{}"])
def test_an_id_past_any_database_integer_is_a_422_not_an_overflow(client, url):
    body = refused(client.get(url.format(2**64)), 422, "invalid_request")
    assert body["field"] in ("pipeline_id", "run_id")


def test_a_save_of_a_hostile_body_leaves_the_pipeline_as_it_was(client, pipeline_id):
    document = client.get(f"/api/pipelines/{pipeline_id}").json()
    document["nodes"][0]["label"] = "x" * (spec.LABEL_MAX_LENGTH + 1)
    refused(put_json(client, f"/api/pipelines/{pipeline_id}", document), 400, "invalid_document")
    assert Pipeline.objects.get().revision == 1
    assert not models.Node.objects.exclude(label="").exists()


def test_a_form_body_with_a_broken_boundary_is_a_json_400(client):
    response = client.generic(
        "POST", "/api/pipelines", b"--x\r\n", content_type="multipart/form-data"
    )
    assert refused(response, 400, "invalid_json")
