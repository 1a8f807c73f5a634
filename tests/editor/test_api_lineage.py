"""The lineage endpoint: where each column of a saved pipeline comes from, for its readers."""

from __future__ import annotations

import pytest

from editor.models import Role
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import SEED, client_for, post_json

pytestmark = pytest.mark.django_db


def lineage_of(client, pipeline_id: int, query: str = ""):
    return client.get(f"/api/pipelines/{pipeline_id}/lineage{query}")


def test_the_owner_gets_every_nodes_columns_and_which_inputs_reach_the_output(
    client, pipeline_id, data_root
):
    response = lineage_of(client, pipeline_id)
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["problems"] == []
    assert body["selected"] is None
    age = next(c for c in body["nodes"]["adults"]["ports"]["out"] if c["column"] == "age")
    assert age["inputs"] == [{"node": "read", "port": "out", "column": "age"}]
    assert age["origins"] == [{"node": "read", "column": "age"}]
    assert body["nodes"]["write"]["reached_by"] == [
        {"node": "read", "source": "people.csv", "columns": ["age", "id", "name"]}
    ]
    assert body["nodes"]["adults"]["conditions"][0]["why"] == "kept rows where age >= 18"


def test_a_column_asked_by_output_path_gives_its_path_for_the_canvas(
    client, pipeline_id, data_root
):
    body = lineage_of(client, pipeline_id, "?node=adults.csv&column=name").json()
    assert body["selected"]["nodes"] == ["write", "adults", "read"]
    assert body["selected"]["edges"] == [
        {"source": "adults", "source_port": "out", "target": "write"},
        {"source": "read", "source_port": "out", "target": "adults"},
    ]


def test_an_unknown_column_is_404_naming_the_columns_there_are(client, pipeline_id, data_root):
    response = lineage_of(client, pipeline_id, "?node=write&column=nope")
    assert response.status_code == 404
    assert response.json()["code"] == "unknown_column"
    assert "it has: age, id, name" in response.json()["message"]


def test_a_node_without_a_column_is_refused(client, pipeline_id, data_root):
    response = lineage_of(client, pipeline_id, "?node=write")
    assert response.status_code == 400
    assert response.json()["field"] == "column"


def test_another_user_gets_404_as_for_a_pipeline_that_does_not_exist(other, pipeline_id, data_root):
    assert lineage_of(client_for(other), pipeline_id).status_code == 404


def test_a_viewer_of_the_workspace_may_see_the_lineage(owner, other, data_root):
    team = create_workspace("Team", admin=owner)
    set_member(team, other, Role.VIEWER)
    created = post_json(client_for(owner), "/api/pipelines", {**SEED, "workspace": team.slug})
    response = lineage_of(client_for(other), created.json()["id"])
    assert response.status_code == 200, response.content


def test_the_lineage_docs_page_is_served_to_a_signed_in_user(client):
    page = client.get("/docs/lineage/")
    assert page.status_code == 200
    assert "Which inputs reach it?" in page.content.decode()


def test_a_bad_expression_is_a_problem_naming_its_node_not_an_error(client, data_root):
    broken = {"id": "adults", "operator": "filter", "params": {"condition": "age >"}}
    document = {**SEED, "nodes": [SEED["nodes"][0], broken, SEED["nodes"][2]]}
    pipeline_id = post_json(client, "/api/pipelines", document).json()["id"]
    response = lineage_of(client, pipeline_id)
    assert response.status_code == 200, response.content
    body = response.json()
    assert [problem["node"] for problem in body["problems"]] == ["adults"]
    assert set(body["nodes"]) == {"read"}
