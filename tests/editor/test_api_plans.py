"""The plan endpoint: what a run of the saved pipeline would do, for those who may see it."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from editor.models import Role, Run
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import SEED, client_for, post_json, wait_for_run

pytestmark = pytest.mark.django_db


def plan_of(client, pipeline_id: int, query: str = ""):
    return client.get(f"/api/pipelines/{pipeline_id}/plan{query}")


def test_the_owner_gets_the_plan_with_its_text(client, pipeline_id, data_root):
    response = plan_of(client, pipeline_id)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {
        "segments", "pandas", "fallbacks", "eliminated", "pinned", "merged", "notes", "reuse",
        "reused_from", "subpipelines", "tuning", "text",
    }  # fmt: skip
    assert body["text"].startswith("Plan of 'Adults'")
    assert body["tuning"] == [
        {"choice": "not tuned", "because": "no successful run of this plan yet"}
    ]
    assert not Run.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_after_a_run_the_plan_says_each_node_is_reused_from_that_run_and_why(
    client, pipeline_id, data_root
):
    first = plan_of(client, pipeline_id).json()
    assert set(first["reuse"]) == {"read", "adults", "write"}
    assert not any(why.startswith("reused") for why in first["reuse"].values())
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    assert wait_for_run(run_id).status == "succeeded"

    body = plan_of(client, pipeline_id).json()

    assert body["reuse"]["write"].startswith("reused from the cache")
    assert body["reused_from"]["write"] == 1
    assert "result store:" in body["text"]


@pytest.mark.django_db(transaction=True)
def test_after_a_run_the_plan_is_tuned_from_its_figures(client, pipeline_id, data_root):
    """The run's worker process adds its figures to the workspace store's profile, which the
    plan's job process reads."""
    run_id = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}).json()["id"]
    assert wait_for_run(run_id).status == "succeeded"

    body = plan_of(client, pipeline_id).json()

    [concurrency] = [one for one in body["tuning"] if one["choice"].startswith("max_concurrency")]
    assert concurrency["because"].startswith("the last run made ")
    assert "tuning from past runs:\n  max_concurrency " in body["text"]


def test_backend_pandas_puts_every_node_on_pandas_and_says_so(client, pipeline_id, data_root):
    body = plan_of(client, pipeline_id, "?backend=pandas").json()
    assert body["segments"] == []
    assert body["pandas"] == ["read", "adults", "write"]
    assert body["notes"] == ["backend pandas: every node runs on pandas"]
    assert "on pandas: read, adults, write" in body["text"]


def test_backend_duckdb_answers_the_segments_the_planner_made(client, pipeline_id, data_root):
    body = plan_of(client, pipeline_id, "?backend=duckdb").json()
    in_segments = [node for segment in body["segments"] for node in segment["nodes"]]
    assert sorted(in_segments + body["pandas"]) == ["adults", "read", "write"]
    for segment in body["segments"]:
        assert segment["backend"] == "duckdb"
        assert f"{segment['id']} on duckdb" in body["text"]


def test_a_column_duckdb_cannot_read_leaves_only_its_reader_on_pandas_and_says_why(
    client, data_root
):
    tags = pa.array([[("a", 1.5)], None, []], pa.map_(pa.string(), pa.float64()))
    pq.write_table(
        pa.table({"id": [1, 2, 3], "age": [36, 17, 85], "tags": tags}), data_root / "tagged.parquet"
    )
    reader = {"id": "read", "operator": "parquet_input", "params": {"path": "tagged.parquet"}}
    document = {**SEED, "nodes": [reader, *SEED["nodes"][1:]]}
    pipeline_id = post_json(client, "/api/pipelines", document).json()["id"]
    body = plan_of(client, pipeline_id, "?backend=duckdb").json()
    why = (
        "column 'tags' of 'tagged.parquet' is map<string, double ('tags')>, whose JSON text pandas "
        "writes its own way (floats, dates and bytes in lists and maps)"
    )
    assert body["fallbacks"] == {"read": why}
    assert body["pandas"] == ["read"]
    assert [segment["nodes"] for segment in body["segments"]] == [["adults", "write"]]
    assert f"read runs on pandas: {why}" in body["text"]


def test_an_unknown_backend_is_refused_naming_the_field(client, pipeline_id):
    response = plan_of(client, pipeline_id, "?backend=spark")
    assert response.status_code == 422
    assert response.json()["field"] == "backend"


def test_parameters_are_given_as_name_value_pairs(client, pipeline_id, data_root):
    response = plan_of(client, pipeline_id, "?param=min_age=abc")
    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["node"]) == ("invalid_pipeline", "adults")
    assert "'abc' is string" in body["message"]
    assert plan_of(client, pipeline_id, "?param=min_age=21").status_code == 200
    malformed = plan_of(client, pipeline_id, "?param=min_age")
    assert malformed.status_code == 400
    assert malformed.json()["field"] == "param"


def test_a_document_that_does_not_build_answers_its_problems(client, data_root):
    draft = {**SEED, "nodes": [*SEED["nodes"], {"id": "draft", "operator": "not_chosen_yet"}]}
    pipeline_id = post_json(client, "/api/pipelines", draft).json()["id"]
    response = plan_of(client, pipeline_id)
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_pipeline"
    assert body["message"].startswith("the pipeline cannot be planned")
    assert "draft" in {problem["node"] for problem in body["problems"]}


def test_another_user_gets_404_as_for_a_pipeline_that_does_not_exist(other, pipeline_id, data_root):
    response = plan_of(client_for(other), pipeline_id)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_a_viewer_of_the_workspace_may_see_the_plan(owner, other, data_root):
    team = create_workspace("Team", admin=owner)
    set_member(team, other, Role.VIEWER)
    created = post_json(client_for(owner), "/api/pipelines", {**SEED, "workspace": team.slug})
    response = plan_of(client_for(other), created.json()["id"])
    assert response.status_code == 200, response.content
    assert response.json()["text"].startswith("Plan of 'Adults'")
