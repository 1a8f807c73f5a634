"""A run of a pipeline with the problems the editor shows is refused with their list, unless
started with `allow_problems`: then the nodes with problems and everything below them are left
out, and the rest runs."""

from __future__ import annotations

import pytest

from tests.editor.conftest import SEED, post_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)

TWO_BRANCHES = {
    **SEED,
    "nodes": [
        *SEED["nodes"],
        {"id": "typo", "operator": "filter", "label": "Typo", "params": {"condition": "agee > 1"}},
        {"id": "write_typo", "operator": "csv_output", "params": {"path": "out/typo.csv"}},
    ],
    "edges": [
        *SEED["edges"],
        {"source": "read", "target": "typo"},
        {"source": "typo", "target": "write_typo"},
    ],
}


def test_a_pipeline_with_problems_is_refused_with_each_problem_by_node_label_and_field(
    client, data_root
):
    missing = {"id": "extra", "operator": "csv_input", "label": "Extra"}
    document = {
        **TWO_BRANCHES,
        "nodes": [*TWO_BRANCHES["nodes"], {**missing, "params": {"path": "nobody.csv"}}],
    }
    pipeline_id = post_json(client, "/api/pipelines", document).json()["id"]

    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})

    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "pipeline_has_problems"
    assert body["message"].endswith("2 problems")
    found = {(p["node"], p["label"], p["field"]) for p in body["problems"]}
    assert found == {("extra", "Extra", "params.path"), ("typo", "Typo", "params.condition")}
    assert any("'nobody.csv' not found" in p["message"] for p in body["problems"])
    assert not client.get(f"/api/pipelines/{pipeline_id}/runs").json()["items"]


def test_allow_problems_runs_the_branches_that_do_not_depend_on_a_node_with_problems(
    client, data_root
):
    pipeline_id = post_json(client, "/api/pipelines", TWO_BRANCHES).json()["id"]

    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"allow_problems": True})

    assert response.status_code == 202, response.content
    assert response.json()["left_out"] == ["typo"]
    run = wait_for_run(response.json()["id"])
    assert run.status == "succeeded", run.error
    nodes = client.get(f"/api/runs/{run.pk}").json()["nodes"]
    statuses = {node: state["status"] for node, state in nodes.items()}
    assert statuses == {
        "read": "succeeded",
        "adults": "succeeded",
        "write": "succeeded",
        "typo": "skipped",
        "write_typo": "skipped",
    }
    assert (data_root / "out" / "adults.csv").exists()
    assert not (data_root / "out" / "typo.csv").exists()


def test_allow_problems_still_refuses_problems_no_run_can_start_with(client, data_root):
    broken = {**SEED, "nodes": [*SEED["nodes"], {"id": "loose", "operator": "filter"}]}
    pipeline_id = post_json(client, "/api/pipelines", broken).json()["id"]

    response = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {"allow_problems": True})

    assert response.status_code == 422
    assert response.json()["code"] == "invalid_pipeline"
