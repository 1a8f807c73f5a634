"""Data tests through the API: a bad check is a 4xx naming node and field, a check on an
unknown column is a problem of validate, and each run keeps its checks' results."""

from __future__ import annotations

import copy

import pytest

from editor.models import NodeRun
from tests.editor.conftest import SEED, post_json, wait_for_run

pytestmark = pytest.mark.django_db(transaction=True)


def with_checks(expect: list[dict]) -> dict:
    document = copy.deepcopy(SEED)
    document["nodes"][1]["expect"] = expect
    return document


def test_an_unknown_check_kind_is_refused_naming_node_and_field(client, data_root):
    response = post_json(client, "/api/pipelines", with_checks([{"check": "sorted"}]))
    assert response.status_code == 400
    body = response.json()
    assert (body["node"], body["field"]) == ("adults", "expect.0.check")
    assert "must be one of" in body["message"]


def test_a_catastrophic_pattern_is_refused_or_bounded_at_save(client, data_root):
    refused = with_checks([{"check": "matches", "column": "name", "pattern": r"(\w+)\1"}])
    response = post_json(client, "/api/pipelines", refused)
    assert response.status_code == 400
    assert (response.json()["node"], response.json()["field"]) == ("adults", "expect.0.pattern")
    bounded = with_checks([{"check": "matches", "column": "name", "pattern": "(a+)+$"}])
    assert post_json(client, "/api/pipelines", bounded).status_code == 201  # RE2: linear time


def test_validate_names_a_check_on_a_column_the_node_lacks(client, data_root):
    created = post_json(client, "/api/pipelines", with_checks([{"check": "not_null",
                        "column": "nmae"}])).json()  # fmt: skip
    answer = post_json(client, f"/api/pipelines/{created['id']}/validate", {}).json()
    (problem,) = answer["problems"]
    assert (problem["node"], problem["field"]) == ("adults", "expect.0.column")
    assert "nmae" in problem["message"]


def test_each_run_keeps_its_check_results(client, data_root):
    checks = [
        {"check": "in_range", "column": "age", "max": 40, "severity": "warn"},
        {"check": "unique", "columns": ["id"]},
    ]
    created = post_json(client, "/api/pipelines", with_checks(checks)).json()
    first = wait_for_run(post_json(client, f"/api/pipelines/{created['id']}/runs", {}).json()["id"])
    assert first.status == "succeeded", first.error
    shown = client.get(f"/api/runs/{first.pk}").json()["nodes"]["adults"]["metrics"]["checks"]
    assert [(c["check"], c["status"], c["failing"]) for c in shown] == [
        ("in_range", "warned", 1),
        ("unique", "passed", 0),
    ]
    assert shown[0]["sample"]["rows"] == [[85, 3, "Grace"]]  # the checked column first
    second = post_json(
        client, f"/api/pipelines/{created['id']}/runs", {"parameters": {"min_age": 90}}
    ).json()
    second = wait_for_run(second["id"])
    stored = NodeRun.objects.get(run=second, node_id="adults").metrics["checks"]
    assert stored[0]["status"] == "passed"  # no one over 40 is 90 or older
    kept = NodeRun.objects.get(run=first, node_id="adults").metrics["checks"]
    assert kept[0]["status"] == "warned"
