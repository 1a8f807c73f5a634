"""Sub-pipelines in the editor: the palette's listing, runs at a pinned revision, and the
workspace boundary (a pipeline the user may not read is neither listed nor usable)."""

from __future__ import annotations

import pytest

from editor.models import Run
from editor.pipelines import actions
from runtime.document.spec import load_document
from tests.editor.conftest import client_for, post_json, wait_for_run

pytestmark = pytest.mark.django_db


def adults_of(minimum: str = "${min_age}") -> dict:
    """Declares input `people` and output `adults`: the people of at least `min_age`."""
    return {
        "name": "Adults of",
        "config": {"parameters": {"min_age": 18}},
        "nodes": [
            {"id": "people", "operator": "pipeline_input", "params": {"name": "people",
             "columns": [{"name": "age", "type": "integer"}]}},
            {"id": "keep", "operator": "filter", "params": {"condition": f"age >= {minimum}"}},
            {"id": "adults", "operator": "pipeline_output", "params": {"name": "adults"}},
        ],
        "edges": [{"source": "people", "target": "keep"}, {"source": "keep", "target": "adults"}],
    }  # fmt: skip


def outer(reference, **params) -> dict:
    return {
        "name": "People report",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
            {"id": "sub", "operator": "subpipeline", "params": {"pipeline": reference,
             "inputs": ["people"], "outputs": ["adults"], **params}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/report.csv"}},
        ],
        "edges": [
            {"source": "read", "target": "sub", "target_port": "people"},
            {"source": "sub", "source_port": "adults", "target": "write"},
        ],
    }  # fmt: skip


def create(user, document: dict, workspace=None):
    return actions.create_pipeline(user, load_document(document), workspace)


def test_the_listing_gives_ports_and_parameters_of_the_workspace_pipelines_only(
    owner, other, client
):
    inner = create(owner, adults_of())
    using = create(owner, outer(inner.pk))
    create(other, {**adults_of(), "name": "Other's"})  # another workspace: never listed

    response = client.get(f"/api/pipelines/{using.pk}/subpipelines")

    assert response.status_code == 200, response.content
    [entry] = response.json()
    assert entry == {
        "id": inner.pk, "name": "Adults of", "description": "", "revision": 1, "revisions": [1],
        "parameters": {"min_age": 18},
        "inputs": [{"name": "people", "columns": [{"name": "age", "type": "integer"}]}],
        "outputs": [{"name": "adults"}],
    }  # fmt: skip
    assert client_for(other).get(f"/api/pipelines/{using.pk}/subpipelines").status_code == 404


def test_a_pipeline_of_a_workspace_the_user_cannot_read_is_refused_at_the_node(
    owner, other, client, data_root
):
    secret = create(other, {**adults_of(), "name": "Secret rules"})
    using = create(owner, outer(secret.pk))

    response = post_json(client, f"/api/pipelines/{using.pk}/runs", {})

    assert response.status_code == 422, response.content
    body = response.json()
    assert (body["node"], body["field"]) == ("sub", "params.pipeline")
    assert f"has no pipeline {secret.pk}" in body["message"]
    assert "Secret" not in response.content.decode()
    assert client.get(f"/api/pipelines/{using.pk}/plan").status_code == 422
    assert not Run.objects.exists()


def test_the_plan_shows_the_inlined_nodes_under_the_sub_pipeline_node(owner, client, data_root):
    inner = create(owner, adults_of())
    using = create(owner, outer(inner.pk, parameters={"min_age": 30}))

    body = client.get(f"/api/pipelines/{using.pk}/plan?backend=duckdb").json()

    [segment] = body["segments"]
    assert segment["nodes"] == ["read", "sub__keep", "write"]
    assert body["subpipelines"] == {
        "sub": {
            "pipeline": "Adults of",
            "revision": 1,
            "nodes": ["sub__keep"],
            "outputs": {"adults": ["sub__keep", "out"]},
            "inputs": {
                "people": {"from": ["read", "out"], "columns": [{"name": "age", "type": "integer"}]}
            },
        }
    }
    assert "sub-pipeline sub ('Adults of' @ revision 1): sub__keep" in body["text"]


@pytest.mark.django_db(transaction=True)
def test_a_run_uses_the_pinned_revision_and_snapshots_the_inlined_document(
    owner, other, client, data_root
):
    inner = create(owner, adults_of())
    # A save by someone else keeps revision 1 in history, as it was.
    actions.save_pipeline(inner, load_document(adults_of("80")), 1, other)
    using = create(owner, outer(inner.pk, revision=1, parameters={"min_age": 30}))

    response = post_json(client, f"/api/pipelines/{using.pk}/runs", {})

    assert response.status_code == 202, response.content
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    [keep] = [node for node in run.document["nodes"] if node["id"] == "sub__keep"]
    assert keep["params"] == {"condition": "age >= 30"}  # revision 1's, with the node's value
    assert (data_root / "out" / "report.csv").read_text() == "id,name,age\n1,Ada,36\n3,Grace,85\n"
    assert set(run.node_runs.values_list("node_id", flat=True)) == {"read", "sub__keep", "write"}

    latest = create(owner, {**outer(inner.pk), "name": "Latest"})
    body = client.get(f"/api/pipelines/{latest.pk}/plan").json()
    assert body["subpipelines"]["sub"]["revision"] == 2


def test_a_revision_history_does_not_keep_is_refused_naming_the_field(owner, client, data_root):
    inner = create(owner, adults_of())
    using = create(owner, outer(inner.pk, revision=7))
    body = client.get(f"/api/pipelines/{using.pk}/plan").json()
    assert (body["node"], body["field"]) == ("sub", "params.pipeline")
    assert "revision 7 of 'Adults of' is not kept" in body["message"]


def test_validate_shows_problems_inside_the_sub_pipeline_at_its_node(owner, client, data_root):
    inner = create(owner, adults_of("${min_age} + agee"))
    using = create(owner, outer(inner.pk))
    body = client.post(f"/api/pipelines/{using.pk}/validate").json()
    [problem] = body["problems"]
    assert (problem["node"], problem["field"], problem["line"]) == ("sub", "params.pipeline", None)
    assert problem["message"].startswith("sub__keep: Condition: unknown column 'agee'")

    unknown = create(owner, outer(inner.pk, parameters={"max_age": 3}))
    body = client.post(f"/api/pipelines/{unknown.pk}/validate").json()
    assert body["problems"] == [
        {"code": "unknown_parameter", "node": "sub", "field": "params.parameters.max_age",
         "field_title": None, "line": None, "column": None, "end_column": None,
         "message": "'Adults of' has no parameter 'max_age' (it declares: min_age)"}
    ]  # fmt: skip


def test_a_sub_pipeline_node_that_cannot_be_inlined_leaves_the_others_without_problems(
    owner, client, data_root
):
    inner = create(owner, adults_of())
    document = outer(inner.pk)
    document["nodes"].append(
        {"id": "loose", "operator": "subpipeline",
         "params": {"pipeline": inner.pk, "inputs": ["people"], "outputs": ["adults"]}}
    )  # fmt: skip
    using = create(owner, document)
    body = client.post(f"/api/pipelines/{using.pk}/validate").json()
    assert [(p["node"], p["message"]) for p in body["problems"]] == [
        ("loose", "input 'people' of the sub-pipeline is not connected")
    ]


def test_a_preview_of_the_sub_pipeline_node_shows_its_output(owner, client, data_root):
    inner = create(owner, adults_of())
    using = create(owner, outer(inner.pk, parameters={"min_age": 30}))
    response = post_json(client, f"/api/pipelines/{using.pk}/preview", {"node": "sub"})
    assert response.status_code == 200, response.content
    body = response.json()
    assert (body["node"], body["port"]) == ("sub", "adults")
    assert body["rows"] == [[1, "Ada", 36], [3, "Grace", 85]]


def test_the_sub_pipeline_node_shows_its_columns_and_what_its_input_lacks(owner, client, data_root):
    inner = create(owner, adults_of())
    using = create(owner, outer(inner.pk))
    found = client.get(f"/api/pipelines/{using.pk}/schemas").json()
    sub = found["nodes"]["sub"]
    assert [column["name"] for column in sub["inputs"]["people"]] == ["id", "name", "age"]
    assert [column["name"] for column in sub["outputs"]["adults"]] == ["id", "name", "age"]
    assert found["problems"] == []

    expecting = adults_of()
    expecting["nodes"][0]["params"]["columns"] = [
        {"name": "age", "type": "string"},
        {"name": "email", "type": "string"},
    ]
    strict = create(owner, {**expecting, "name": "Strict"})
    body = client.post(f"/api/pipelines/{create(owner, outer(strict.pk)).pk}/validate").json()
    assert [(p["node"], p["field"], p["message"]) for p in body["problems"]] == [
        ("sub", "params.inputs", "input 'people': column 'age' is an integer, the sub-pipeline "
         "expects a string"),
        ("sub", "params.inputs", "input 'people' has no column 'email' the sub-pipeline expects"),
    ]  # fmt: skip
