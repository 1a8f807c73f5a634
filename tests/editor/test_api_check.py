"""`POST /api/pipelines/{id}/check`: an unsaved document's problems and columns, as a save would
answer them, with nothing saved; and where in an expression each of its problems is."""

from __future__ import annotations

import pytest

from editor.models import Pipeline
from tests.editor.conftest import SEED, client_for, post_json, put_json

pytestmark = pytest.mark.django_db


def with_condition(condition: str) -> dict:
    """The seed with another filter condition."""
    adults = {**SEED["nodes"][1], "params": {"condition": condition}}
    return {**SEED, "nodes": [SEED["nodes"][0], adults, SEED["nodes"][2]]}


def check(client, pipeline_id: int, body):
    return post_json(client, f"/api/pipelines/{pipeline_id}/check", body)


def with_node(document: dict, node: dict, edge: dict | None = None) -> dict:
    edges = [*document["edges"], edge] if edge else document["edges"]
    return {**document, "nodes": [*document["nodes"], node], "edges": edges}


GROUPED = with_node(
    SEED,
    {"id": "by_age", "operator": "aggregate", "params": {"group_by": ["age"],
     "aggregations": [{"function": "size"}]}},
    {"source": "adults", "target": "by_age"},
)  # fmt: skip


def test_an_unsaved_document_gets_the_columns_of_its_new_nodes_and_nothing_is_saved(
    client, pipeline_id, data_root
):
    response = check(client, pipeline_id, GROUPED)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"problems", "schemas"}
    assert body["problems"] == []
    columns = body["schemas"]["by_age"]["inputs"]["in"]
    assert [(c["name"], c["type"]) for c in columns] == [
        ("id", "integer"),
        ("name", "string"),
        ("age", "integer"),
    ]
    stored = Pipeline.objects.get(pk=pipeline_id)
    assert stored.revision == 1 and stored.nodes.count() == 3


def test_a_check_answers_what_a_save_of_the_same_document_answers(client, pipeline_id, data_root):
    checked = check(client, pipeline_id, GROUPED).json()
    saved = put_json(client, f"/api/pipelines/{pipeline_id}", {**GROUPED, "revision": 1}).json()
    assert checked == {"problems": saved["problems"], "schemas": saved["schemas"]}


def test_the_revision_in_the_body_is_ignored_even_when_stale(client, pipeline_id, data_root):
    response = check(client, pipeline_id, {**SEED, "revision": 99})
    assert response.status_code == 200, response.content
    assert Pipeline.objects.get(pk=pipeline_id).revision == 1


def test_an_expression_problem_carries_its_line_and_columns(client, pipeline_id, data_root):
    typo = with_condition("age >= 18 and\n  upper(agee) = 'X'")
    problems = check(client, pipeline_id, typo).json()["problems"]
    assert problems == [
        {"code": "schema", "node": "adults", "field": "params.condition",
         "field_title": "Condition",
         "message": "Condition: unknown column 'agee' at 2:9; did you mean 'age'?",
         "line": 2, "column": 9, "end_column": 13}
    ]  # fmt: skip


def test_a_syntax_error_carries_the_position_of_its_token(client, pipeline_id, data_root):
    broken = with_condition("age >= )")
    (problem,) = check(client, pipeline_id, broken).json()["problems"]
    assert (problem["field"], problem["line"], problem["column"], problem["end_column"]) == (
        "params.condition",
        1,
        8,
        9,
    )


def test_a_problem_not_in_an_expression_has_no_position(client, pipeline_id, data_root):
    grouped = with_node(
        SEED,
        {"id": "by_age", "operator": "aggregate",
         "params": {"group_by": ["agee"], "aggregations": [{"function": "size"}]}},
        {"source": "adults", "target": "by_age"},
    )  # fmt: skip
    (problem,) = check(client, pipeline_id, grouped).json()["problems"]
    assert problem["field"] == "params.group_by"
    assert (problem["line"], problem["column"], problem["end_column"]) == (None, None, None)


def test_another_users_pipeline_is_not_found(other, pipeline_id):
    response = check(client_for(other), pipeline_id, SEED)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_an_unknown_pipeline_is_not_found(client):
    assert check(client, 2**40, SEED).status_code == 404


def test_a_document_with_bad_fields_is_a_400_naming_them(client, pipeline_id):
    bad = {**SEED, "nodes": [{**SEED["nodes"][0], "operator": 3}, *SEED["nodes"][1:]]}
    response = check(client, pipeline_id, bad)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_document"
    assert [(problem["node"], problem["field"]) for problem in body["problems"]] == [
        ("read", "operator")
    ]


@pytest.mark.parametrize(
    "body", ["not json", "[1, 2]", '{"nodes": NaN}'], ids=["text", "array", "nan"]
)
def test_a_body_that_is_not_a_document_is_a_400(client, pipeline_id, body):
    response = check(client, pipeline_id, body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_json"


def test_an_oversized_body_is_refused_with_413(client, pipeline_id, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    huge = {**SEED, "name": "x" * 2000}
    assert check(client, pipeline_id, huge).status_code == 413
