"""`GET /api/runs/compare`: two real runs side by side (of one pipeline with an edit between,
or of two pipelines), rows of an output compared by keys, "data not kept" when the store lost
a result, and refusals that name their field: other users' and unknown runs, bad keys and
nodes, malformed numbers. Never a 500."""

from __future__ import annotations

import shutil

import pytest

from editor.workspaces.membership import create_workspace, personal_workspace
from tests.editor.conftest import SEED, client_for, post_json, put_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)

PEOPLE = "id,name,age\n1,Ada,36\n2,Linus,17\n3,Grace,85\n4,Alan,41\n"


def run_once(client, pipeline_id: int) -> int:
    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert response.status_code == 202, response.content
    run = wait_for_run(response.json()["id"], timeout=60)
    assert run.status == "succeeded", run.error
    return run.pk


def edited(client, pipeline_id: int, condition: str) -> None:
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    for node in body["nodes"]:
        if node["id"] == "adults":
            node["params"]["condition"] = condition
    assert put_json(client, f"/api/pipelines/{pipeline_id}", body).status_code == 200


@pytest.fixture
def two_runs(client, pipeline_id, data_root):
    """Run 1 keeps adults (age >= 18); the filter is edited to age >= 40; run 2."""
    (data_root / "people.csv").write_text(PEOPLE)
    first = run_once(client, pipeline_id)
    edited(client, pipeline_id, "age >= 40")
    return first, run_once(client, pipeline_id)


def compare(client, a: int, b: int, **query) -> object:
    extra = "".join(f"&{name}={value}" for name, value in query.items())
    return client.get(f"/api/runs/compare?a={a}&b={b}{extra}")


def by_id(body: dict) -> dict[str, dict]:
    return {node["id"]: node for node in body["nodes"]}


def test_two_runs_of_a_pipeline_compare_node_by_node(client, two_runs):
    a, b = two_runs
    response = compare(client, a, b)
    assert response.status_code == 200, response.json()
    body = response.json()
    assert (body["a"]["number"], body["b"]["number"]) == (1, 2)
    assert (body["a"]["revision"], body["b"]["revision"]) == (1, 2)
    assert body["a"]["started_by"] == "owner" and body["b"]["status"] == "succeeded"
    assert body["a"]["duration_s"] is not None and body["a"]["pipeline_name"] == "Adults"
    assert [node["id"] for node in body["nodes"]] == ["read", "adults", "write"]
    adults = by_id(body)["adults"]
    assert adults["changes"] == ["params.condition"]
    assert (adults["a"]["rows_in"], adults["a"]["rows_out"]) == (4, 3)
    assert (adults["b"]["rows_in"], adults["b"]["rows_out"]) == (4, 2)
    assert adults["a"]["status"] == adults["b"]["status"] == "succeeded"
    (written,) = by_id(body)["write"]["results"]
    assert written["a"]["kept"] and written["b"]["kept"]
    assert [column["name"] for column in written["a"]["columns"]] == ["id", "name", "age"]
    assert written["column_changes"] == {"added": [], "removed": [], "changed": []}
    assert by_id(body)["write"]["rows"] is None


def test_with_keys_an_outputs_rows_added_removed_and_changed_are_counted(client, two_runs):
    a, b = two_runs
    response = compare(client, a, b, keys="id", node="write")
    assert response.status_code == 200, response.json()
    rows = by_id(response.json())["write"]["rows"]
    assert rows["status"] == "compared"
    assert (rows["added"], rows["removed"], rows["changed"], rows["unchanged"]) == (0, 1, 0, 2)
    assert rows["samples"]["removed"] == [{"id": 1, "name": "Ada", "age": 36}]
    backwards = by_id(compare(client, b, a, keys="id").json())["write"]["rows"]
    assert (backwards["added"], backwards["removed"]) == (1, 0)


def test_runs_of_two_pipelines_compare_and_name_their_pipelines(client, data_root, two_runs):
    renamed = post_json(client, "/api/pipelines", {**SEED, "name": "Grown-ups"}).json()["id"]
    other = run_once(client, renamed)
    response = compare(client, two_runs[1], other, keys=" id ")
    assert response.status_code == 200, response.json()
    body = response.json()
    assert body["b"]["pipeline_name"] == "Grown-ups" and body["keys"] == ["id"]
    rows = by_id(body)["write"]["rows"]
    assert (rows["added"], rows["removed"], rows["changed"]) == (1, 0, 0)


def test_a_result_the_store_no_longer_holds_reads_data_not_kept(client, data_root, two_runs):
    shutil.rmtree(data_root.parent / ".pipewright" / "cache")
    response = compare(client, *two_runs, keys="id")
    assert response.status_code == 200, response.json()
    write = by_id(response.json())["write"]
    assert write["results"][0]["note"] == "data not kept for run #1 and run #2"
    assert write["results"][0]["a"] == {"kept": False, "columns": None}
    assert write["rows"] == {
        **dict.fromkeys(write["rows"]),
        "status": "not_kept",
        "message": "data not kept for run #1",
    }


def test_a_key_that_is_not_a_column_is_refused_naming_the_key_and_the_run(client, two_runs):
    response = compare(client, *two_runs, keys="id,nope")
    assert response.status_code == 422
    body = response.json()
    assert (body["code"], body["field"], body["node"]) == ("cannot_compare", "keys", "write")
    assert body["message"].startswith(
        "key 'nope' is not a column of the result of 'write' in run #1"
    )
    assert "/" not in body["message"]  # no server path


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ({"keys": "id,,name"}, "keys"),
        ({"keys": ""}, "keys"),
        ({"keys": "x" * 5000}, "keys"),
        ({"keys": "id", "node": "adults"}, "node"),
        ({"keys": "id", "node": "ghost"}, "node"),
        ({"node": "write"}, "keys"),
    ],
    ids=["empty-name", "empty", "huge", "not-an-output", "unknown-node", "node-without-keys"],
)
def test_bad_keys_or_node_are_refused_naming_the_field(client, two_runs, query, field):
    response = compare(client, *two_runs, **query)
    assert response.status_code == 422, response.json()
    assert response.json()["field"] == field


@pytest.mark.parametrize(
    "query",
    ["a=x&b=1", "a=1", "a=0&b=1", f"a=1&b={2**64}"],
    ids=["text", "missing", "zero", "huge"],
)
def test_malformed_run_ids_are_refused_naming_the_field(client, query):
    response = client.get(f"/api/runs/compare?{query}")
    assert response.status_code == 422
    assert response.json()["field"] in ("a", "b")


def test_another_users_run_and_an_unknown_run_are_not_found(client, other, two_runs):
    a, b = two_runs
    assert compare(client_for(other), a, b).status_code == 404
    mine = personal_workspace(other)
    assert mine.slug == "other"
    stranger = compare(client, a, 10**9)
    assert stranger.status_code == 404
    assert stranger.json()["field"] == "b"
    their = post_json(client_for(other), "/api/pipelines", SEED).json()["id"]
    from editor.models import Run  # a run of theirs, recorded (it need not execute)

    theirs = Run.objects.create(pipeline_id=their, document=SEED, status="succeeded").pk
    response = compare(client, a, theirs)
    assert response.status_code == 404 and response.json()["field"] == "b"
    assert "Adults" not in response.content.decode()


def test_signed_out_callers_are_refused(two_runs):
    from django.test import Client

    assert Client().get(f"/api/runs/compare?a={two_runs[0]}&b={two_runs[1]}").status_code == 401


def test_hostile_key_names_are_refused_as_columns_not_run_as_sql(client, two_runs):
    hostile = "id\") FROM read_parquet('/etc/passwd'); --"
    keys = f"{hostile},é\"'"
    response = client.get("/api/runs/compare", {"a": two_runs[0], "b": two_runs[1], "keys": keys})
    assert response.status_code == 422
    assert response.json()["message"].startswith(f"key '{hostile}' is not a column of the result")


def test_no_answer_names_a_server_folder(client, data_root, two_runs):
    body = compare(client, *two_runs, keys="id").content.decode()
    assert str(data_root.parent) not in body and ".pipewright" not in body


def test_runs_of_two_workspaces_each_bring_their_own_stored_results(
    client, owner, data_root, two_runs
):
    team = create_workspace("Team", admin=owner)
    (data_root.parent / team.slug / "people.csv").write_text(PEOPLE)
    created = post_json(client, "/api/pipelines", {**SEED, "workspace": team.slug})
    assert created.status_code == 201, created.content
    theirs = run_once(client, created.json()["id"])
    response = compare(client, two_runs[0], theirs, keys="id")
    assert response.status_code == 200, response.json()
    (written,) = by_id(response.json())["write"]["results"]
    assert written["a"]["kept"] and written["b"]["kept"]
    assert by_id(response.json())["write"]["rows"]["unchanged"] == 3
