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


def reader_of_adults(client, workspace: str | None = None) -> int:
    """A pipeline reading what the seed writes (out/adults.csv) and writing report.csv."""
    document = {
        **SEED,
        "name": "Report",
        "nodes": [
            {"id": "adults_in", "operator": "csv_input", "params": {"path": "out/adults.csv"}},
            {"id": "report", "operator": "csv_output", "params": {"path": "report.csv"}},
        ],
        "edges": [{"source": "adults_in", "target": "report"}],
        **({"workspace": workspace} if workspace else {}),
    }
    response = post_json(client, "/api/pipelines", document)
    assert response.status_code == 201, response.content
    return response.json()["id"]


@pytest.fixture
def adults_written(data_root):
    (data_root / "out").mkdir()
    (data_root / "out" / "adults.csv").write_text("id,name,age\n1,Ada,36\n")
    return data_root


def test_a_column_read_from_another_pipelines_output_goes_on_into_that_pipeline(
    client, pipeline_id, adults_written
):
    report = reader_of_adults(client)
    body = lineage_of(client, report, "?node=report&column=name").json()
    assert body["selected"]["nodes"] == ["report", "adults_in"]
    [hop] = body["upstream"]["hops"]
    assert (hop["pipeline"], hop["name"], hop["via"]) == (pipeline_id, "Adults", "out/adults.csv")
    assert (hop["reader"], hop["input"], hop["output"], hop["column"]) == (
        report, "adults_in", "write", "name"
    )  # fmt: skip
    assert hop["path"]["nodes"] == ["write", "adults", "read"]
    assert body["upstream"]["stops"] == []


def test_a_pipeline_of_another_workspace_writing_the_same_path_is_no_hop(
    client, other, adults_written
):
    stranger = post_json(client_for(other), "/api/pipelines", SEED)
    assert stranger.status_code == 201, stranger.content
    report = reader_of_adults(client)
    body = lineage_of(client, report, "?node=report&column=name").json()
    assert body["upstream"] == {"hops": [], "stops": []}
    assert "Adults" not in str(body)


def test_a_stranger_gets_404_for_the_lineage_of_a_pipeline_with_upstream_hops(
    client, other, pipeline_id, adults_written
):
    report = reader_of_adults(client)
    response = lineage_of(client_for(other), report, "?node=report&column=name")
    assert response.status_code == 404
    assert "Adults" not in response.content.decode()


def test_a_viewer_of_the_workspace_sees_the_hop_as_its_members_do(owner, other, settings, tmp_path):
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    team = create_workspace("Team", admin=owner)
    set_member(team, other, Role.VIEWER)
    (tmp_path / team.slug / "out").mkdir(parents=True)
    (tmp_path / team.slug / "people.csv").write_text("id,name,age\n1,Ada,36\n")
    (tmp_path / team.slug / "out" / "adults.csv").write_text("id,name,age\n1,Ada,36\n")
    post_json(client_for(owner), "/api/pipelines", {**SEED, "workspace": team.slug})
    report = reader_of_adults(client_for(owner), team.slug)
    response = lineage_of(client_for(other), report, "?node=report&column=age")
    assert response.status_code == 200, response.content
    assert [hop["name"] for hop in response.json()["upstream"]["hops"]] == ["Adults"]


def test_pipelines_reading_each_others_outputs_stop_at_the_cycle(client, adults_written):
    looping = {
        **SEED,
        "name": "Loop",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": "report.csv"}},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/adults.csv"}},
        ],
        "edges": [{"source": "read", "target": "write"}],
    }
    (adults_written / "report.csv").write_text("id,name,age\n1,Ada,36\n")
    assert post_json(client, "/api/pipelines", looping).status_code == 201
    report = reader_of_adults(client)
    body = lineage_of(client, report, "?node=report&column=name").json()
    assert [hop["name"] for hop in body["upstream"]["hops"]] == ["Loop"]
    assert body["upstream"]["stops"] == [
        "cycle of pipelines Report → Loop → Report: not followed further"
    ]


def test_an_output_lists_the_pipelines_downstream_that_read_it(
    client, other, pipeline_id, adults_written
):
    report = reader_of_adults(client)
    post_json(client_for(other), "/api/pipelines", {**SEED, "name": "Not yours"})
    body = lineage_of(client, pipeline_id).json()
    assert body["nodes"]["write"]["read_by"] == [
        {"pipeline": report, "name": "Report", "input": "adults_in", "via": "out/adults.csv"}
    ]
    assert lineage_of(client, report).json()["nodes"]["report"]["read_by"] is None
