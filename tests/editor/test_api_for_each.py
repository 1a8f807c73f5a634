"""`for_each` in the editor: a run unrolls the loop over the workspace folder's files and stacks
their rows; the plan lists the iterations under the node; a loop over more files than its
bound is refused at the node."""

from __future__ import annotations

import pytest

from tests.editor.conftest import post_json, wait_for_run
from tests.editor.test_api_subpipelines import create

pytestmark = pytest.mark.django_db

ADULTS_IN = {
    "name": "Adults in",
    "config": {"parameters": {"path": "people.csv"}},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "${path}"}},
        {"id": "keep", "operator": "filter", "params": {"condition": "age >= 18"}},
        {"id": "adults", "operator": "pipeline_output", "params": {"name": "adults"}},
    ],
    "edges": [{"source": "read", "target": "keep"}, {"source": "keep", "target": "adults"}],
}


def looping(reference: int, **params) -> dict:
    loop = {"pipeline": reference, "pattern": "teams/*.csv", "parameter": "path",
            "max_iterations": 5, "key_column": "team", "outputs": ["adults"], **params}  # fmt: skip
    return {
        "name": "All teams",
        "nodes": [
            {"id": "each", "operator": "for_each", "params": loop},
            {"id": "write", "operator": "csv_output", "params": {"path": "out/teams.csv"}},
        ],
        "edges": [{"source": "each", "source_port": "adults", "target": "write"}],
    }


@pytest.fixture
def teams(data_root):
    (data_root / "teams").mkdir()
    (data_root / "teams" / "blue.csv").write_text("name,age\nAda,36\nLinus,17\n")
    (data_root / "teams" / "red.csv").write_text("name,age\nGrace,85\n")
    return data_root


@pytest.mark.django_db(transaction=True)
def test_a_run_of_a_loop_stacks_each_files_rows_with_its_file(owner, client, teams):
    using = create(owner, looping(create(owner, ADULTS_IN).pk))

    response = post_json(client, f"/api/pipelines/{using.pk}/runs", {})

    assert response.status_code == 202, response.content
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    assert (teams / "out" / "teams.csv").read_text() == (
        "name,age,team\nAda,36,teams/blue.csv\nGrace,85,teams/red.csv\n"
    )
    assert "each__1__keep" in set(run.node_runs.values_list("node_id", flat=True))


def test_the_plan_lists_the_iterations_under_the_loop_node(owner, client, teams):
    using = create(owner, looping(create(owner, ADULTS_IN).pk))

    body = client.get(f"/api/pipelines/{using.pk}/plan").json()

    loop = body["subpipelines"]["each"]["loop"]
    assert [each["file"] for each in loop["iterations"]] == ["teams/blue.csv", "teams/red.csv"]
    assert "  2. teams/red.csv: each__1__" in body["text"]


def test_more_files_than_the_bound_is_refused_at_the_node(owner, client, teams):
    using = create(owner, looping(create(owner, ADULTS_IN).pk, max_iterations=1))

    response = post_json(client, f"/api/pipelines/{using.pk}/runs", {})

    assert response.status_code == 422, response.content
    [problem] = response.json()["problems"]
    assert (problem["node"], problem["field"]) == ("each", "params.max_iterations")
    assert "matches 2 files, more than the 1 iterations" in problem["message"]
