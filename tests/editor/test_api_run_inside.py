"""`GET /api/runs/{id}/inside/{path}`: the pipeline that ran inside a sub-pipeline node, as the
run used it (its revision then, the params the run gave its nodes), for readers of the run only;
nested sub-pipelines and a loop's iterations by their run ids."""

from __future__ import annotations

import pytest

from editor.pipelines import actions
from runtime.document.spec import load_document
from tests.editor.conftest import client_for, post_json, wait_for_run
from tests.editor.test_api_for_each import ADULTS_IN, looping, teams  # noqa: F401 (a fixture)
from tests.editor.test_api_subpipelines import adults_of, create, outer

pytestmark = pytest.mark.django_db(transaction=True)


def ran(client, pipeline) -> int:
    response = post_json(client, f"/api/pipelines/{pipeline.pk}/runs", {})
    assert response.status_code == 202, response.content
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    return run.pk


def test_the_inner_pipeline_is_shown_as_the_run_used_it(owner, other, client, data_root):
    inner = create(owner, adults_of())
    using = create(owner, outer(inner.pk, parameters={"min_age": 30}))
    run_id = ran(client, using)
    # Saved after the run: "latest" then was revision 1, and the view shows that one.
    actions.save_pipeline(inner, load_document(adults_of("80")), 1, other)
    assert inner.revisions.count() == 2

    response = client.get(f"/api/runs/{run_id}/inside/sub")

    assert response.status_code == 200, response.content
    body = response.json()
    assert body["run"]["id"] == run_id and body["run"]["status"] == "succeeded"
    assert body["pipeline"] == {"id": using.pk, "name": "People report"}
    assert (body["path"], body["prefix"], body["labels"]) == ("sub", "sub__", ["sub"])
    assert body["inner"] == {"id": inner.pk, "name": "Adults of", "revision": 1}
    assert body["loop"] is None
    nodes = {node["id"]: node for node in body["document"]["nodes"]}
    assert set(nodes) == {"people", "keep", "adults"}  # its ports too, as the user drew them
    assert nodes["keep"]["params"] == {"condition": "age >= 30"}  # the run's value


def test_a_user_who_cannot_read_the_run_sees_nothing_inside(owner, other, client, data_root):
    inner = create(owner, {**adults_of(), "name": "Secret rules"})
    run_id = ran(client, create(owner, outer(inner.pk)))

    response = client_for(other).get(f"/api/runs/{run_id}/inside/sub")

    assert response.status_code == 404
    assert "Secret" not in response.content.decode()
    assert "keep" not in response.content.decode()


def test_a_path_the_run_has_no_sub_pipeline_at_is_refused_naming_it(owner, client, data_root):
    run_id = ran(client, create(owner, outer(create(owner, adults_of()).pk)))

    for path in ("read", "nothing", "sub__keep", "x" * 2000):
        response = client.get(f"/api/runs/{run_id}/inside/{path}")
        assert response.status_code == 404, (path, response.content)
        assert "has no sub-pipeline node" in response.json()["message"]


def test_a_nested_sub_pipeline_is_reached_through_its_run_ids(owner, client, data_root):
    inner = create(owner, adults_of())
    middle = create(owner, {
        "name": "Middle",
        "nodes": [
            {"id": "people", "operator": "pipeline_input", "params": {"name": "people"}},
            {"id": "deep", "operator": "subpipeline", "label": "Deep adults", "params": {
             "pipeline": inner.pk, "inputs": ["people"], "outputs": ["adults"]}},
            {"id": "adults", "operator": "pipeline_output", "params": {"name": "adults"}},
        ],
        "edges": [{"source": "people", "target": "deep", "target_port": "people"},
                  {"source": "deep", "source_port": "adults", "target": "adults"}],
    })  # fmt: skip
    run_id = ran(client, create(owner, outer(middle.pk)))

    body = client.get(f"/api/runs/{run_id}/inside/sub__deep").json()

    assert (body["prefix"], body["labels"]) == ("sub__deep__", ["sub", "Deep adults"])
    assert body["inner"]["name"] == "Adults of"
    assert client.get(f"/api/runs/{run_id}/inside/sub").json()["inner"]["name"] == "Middle"


def test_a_loop_shows_the_iteration_asked_for_and_how_many_ran(owner, client, teams):  # noqa: F811
    run_id = ran(client, create(owner, looping(create(owner, ADULTS_IN).pk)))

    second = client.get(f"/api/runs/{run_id}/inside/each__1").json()
    first = client.get(f"/api/runs/{run_id}/inside/each").json()

    assert second["loop"] == {
        "node": "each", "iteration": 1, "iterations": 2,
        "labels": ["teams/blue.csv", "teams/red.csv"],
    }  # fmt: skip
    assert second["prefix"] == "each__1__"
    [read] = [node for node in second["document"]["nodes"] if node["id"] == "read"]
    assert read["params"]["path"] == "teams/red.csv"  # the file of that iteration
    assert (first["prefix"], first["loop"]["iteration"]) == ("each__0__", 0)
    for beyond in ("each__2", "each__1__x", "each__x"):
        assert client.get(f"/api/runs/{run_id}/inside/{beyond}").status_code == 404, beyond


def test_a_loop_whose_file_is_only_part_of_a_param_has_unnamed_iterations(owner, client, teams):  # noqa: F811
    inner = {**ADULTS_IN, "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "./${path}"}},
        *ADULTS_IN["nodes"][1:],
    ]}  # fmt: skip
    run_id = ran(client, create(owner, looping(create(owner, inner).pk)))

    loop = client.get(f"/api/runs/{run_id}/inside/each").json()["loop"]

    assert (loop["iterations"], loop["labels"]) == (2, [None, None])


def test_a_run_drawn_has_its_sub_pipeline_nodes_with_the_params_it_ran_with(
    owner, other, client, data_root
):
    using = create(owner, outer(create(owner, adults_of()).pk, parameters={"min_age": 30}))
    run_id = ran(client, using)

    response = client.get(f"/api/runs/{run_id}/drawn")

    assert response.status_code == 200, response.content
    nodes = {node["id"]: node for node in response.json()["document"]["nodes"]}
    assert set(nodes) == {"read", "sub", "write"}  # the run's own document has sub__keep
    assert nodes["sub"]["params"]["parameters"] == {"min_age": 30}
    assert client_for(other).get(f"/api/runs/{run_id}/drawn").status_code == 404


def test_an_inner_pipeline_moved_to_a_workspace_the_user_cannot_read_stays_hidden(
    owner, other, client, data_root
):
    inner = create(owner, {**adults_of(), "name": "Secret rules"})
    run_id = ran(client, create(owner, outer(inner.pk)))
    inner.workspace = create(other, {**adults_of(), "name": "Theirs"}).workspace
    inner.save(update_fields=["workspace"])

    response = client.get(f"/api/runs/{run_id}/inside/sub")

    assert response.status_code == 404, response.content
    assert "Secret" not in response.content.decode()
    assert "keep" not in response.content.decode()
