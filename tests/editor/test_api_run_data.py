"""A run's node results through the API: pages, statistics, permissions, errors, recomputing."""

from __future__ import annotations

import hashlib
import os
import shutil
import time

import pyarrow as pa
import pytest

from editor.models import NodeRun, Run
from editor.workspaces.membership import cache_folder
from runtime.cache.store import ResultStore
from tests.editor.conftest import client_for, post_json, wait_for_run

KEY = hashlib.sha256(b"adults").hexdigest()
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def run(client, data_root, pipeline_id) -> Run:
    """A finished run of the seed pipeline whose `adults` node stored its result (as a run
    with the result store records it: the key in its metrics, the file in the store)."""
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    run = wait_for_run(started.json()["id"])
    assert run.status == "succeeded"
    table = pa.table({"id": [1, 3, 4], "name": ["Ada", "Grace", "Zoë"], "age": [36, 85, None]})
    ResultStore(cache_folder(run.pipeline.workspace)).put_arrow(KEY, table)
    node = NodeRun.objects.get(run=run, node_id="adults")
    node.metrics = {**node.metrics, "results": {"out": KEY}, "cached": True}
    node.save()
    return run


def data(client, run, node="adults", **query):
    return client.get(f"/api/runs/{run.pk}/nodes/{node}/data", query)


def stats(client, run, node="adults", **query):
    return client.get(f"/api/runs/{run.pk}/nodes/{node}/stats", query)


def test_a_stored_result_is_paged_from_the_store(client, run):
    answer = data(client, run, offset=1, limit=1)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["source"] == "stored" and body["cached"] is True and body["port"] == "out"
    assert body["rows"] == [[3, "Grace", 85]] and body["total_rows"] == 3
    assert [column["name"] for column in body["columns"]] == ["id", "name", "age"]


def test_a_stored_result_is_sorted_and_filtered(client, run):
    body = data(client, run, sort="-age", filter="name != 'Ada'").json()
    assert body["rows"] == [[3, "Grace", 85], [4, "Zoë", None]]
    assert body["total_rows"] == 2


def test_statistics_of_a_stored_result(client, run):
    answer = stats(client, run, filter="id > 1")
    assert answer.status_code == 200, answer.content
    columns = {column["name"]: column for column in answer.json()["columns"]}
    assert columns["age"]["count"] == 1 and columns["age"]["nulls"] == 1
    assert columns["name"]["histogram"] == [
        {"value": "Grace", "count": 1}, {"value": "Zoë", "count": 1}
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("query", "status", "field"),
    [
        ({"sort": "nope"}, 400, "sort"),
        ({"filter": "1; ATTACH 'x.db' AS x"}, 400, "filter"),
        ({"filter": "nope = 1"}, 400, "filter"),
        ({"filter": "'" * 20_000}, 400, "filter"),
        ({"limit": 5000}, 422, "limit"),
        ({"limit": "ten"}, 422, "limit"),
        ({"offset": -1}, 422, "offset"),
        ({"port": "nope"}, 400, "port"),
    ],
    ids=["sort", "attach", "unknown-column", "huge", "limit", "not-a-number", "offset", "port"],
)
def test_a_bad_request_is_refused_naming_its_field(client, run, query, status, field):
    answer = data(client, run, **query)
    assert answer.status_code == status, answer.content
    assert answer.json()["field"] == field
    assert "/" not in answer.json()["message"].replace("a/b", "")  # no server path


def test_an_unknown_node_is_refused_naming_it(client, run):
    answer = data(client, run, node="nope")
    assert answer.status_code == 400
    assert answer.json()["field"] == "node" and "no node 'nope'" in answer.json()["message"]


def test_a_huge_offset_gives_an_empty_page(client, run):
    body = data(client, run, offset=999_999_999).json()
    assert body["rows"] == [] and body["total_rows"] == 3


def test_another_users_run_is_not_found(run, other):
    stranger = client_for(other)
    assert data(stranger, run).status_code == 404
    assert stats(stranger, run).status_code == 404


def test_signing_in_is_required(run):
    from django.test import Client

    assert data(Client(), run).status_code == 401


def test_the_result_a_run_stored_is_paged_as_it_ran(client, data_root, pipeline_id):
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    run = wait_for_run(started.json()["id"])
    body = data(client, run, sort="-age").json()
    assert body["source"] == "stored" and body["cached"] is False
    assert body["rows"] == [[3, "Grace", 85], [1, "Ada", 36]]


def test_a_port_the_run_did_not_store_is_recomputed_from_the_runs_document(client, run):
    NodeRun.objects.filter(run=run, node_id="read").update(metrics={})
    answer = data(client, run, node="read", limit=2)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["source"] == "recomputed" and body["cached"] is False
    assert body["rows"] == [[1, "Ada", 36], [2, "Linus", 17]]
    assert body["recomputed_rows"] == 10_000 and body["changed_inputs"] == []


def test_a_recomputed_result_uses_the_runs_document_not_the_pipelines_now(client, run, pipeline_id):
    """The pipeline's filter changes after the run; the run's result is its own."""
    document = client.get(f"/api/pipelines/{pipeline_id}").json()
    document["nodes"][1]["params"]["condition"] = "age < 0"
    saved = client.put(f"/api/pipelines/{pipeline_id}", document, content_type="application/json")
    assert saved.status_code == 200, saved.content
    NodeRun.objects.filter(run=run, node_id="adults").update(metrics={})
    body = data(client, run).json()
    assert body["source"] == "recomputed"
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]


def changed_since_the_run(data_root, text="id,name,age\n9,Nobody,99\n") -> None:
    (data_root / "people.csv").write_text(text)
    later = time.time() + 5
    os.utime(data_root / "people.csv", (later, later))


def test_an_evicted_result_is_recomputed_from_the_stored_result_above_it(client, run, data_root):
    """`read`'s result is still stored: the rows are the run's though people.csv changed."""
    ResultStore(cache_folder(run.pipeline.workspace)).path_of(KEY).unlink()  # as eviction does
    changed_since_the_run(data_root)
    body = data(client, run).json()
    assert body["source"] == "recomputed" and body["recomputed_from"] == ["read"]
    assert body["changed_inputs"] == []
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]


def test_with_every_result_evicted_the_inputs_are_read_again_saying_which_changed(
    client, run, data_root
):
    shutil.rmtree(cache_folder(run.pipeline.workspace))
    changed_since_the_run(data_root, "id,name,age\n1,Ada,36\n3,Grace,85\n")
    body = data(client, run).json()
    assert body["source"] == "recomputed" and body["recomputed_from"] == []
    assert body["changed_inputs"] == ["people.csv"]
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]


def test_another_workspaces_result_is_never_read(client, run, data_root, other):
    """A run's metrics naming a key that only another workspace's store holds: the result is
    recomputed from this workspace's inputs, never read from there."""
    foreign = hashlib.sha256(b"foreign").hexdigest()
    table = pa.table({"id": [7], "name": ["Mallory"], "age": [99]})
    ResultStore(cache_folder(other.personal_workspace)).put_arrow(
        foreign, table, columns=["id", "name", "age"]
    )
    shutil.rmtree(cache_folder(run.pipeline.workspace))
    NodeRun.objects.filter(run=run, node_id="read").update(metrics={"results": {"out": foreign}})
    NodeRun.objects.filter(run=run, node_id="adults").update(metrics={})
    body = data(client, run).json()
    assert body["source"] == "recomputed" and body["recomputed_from"] == []
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]


def test_a_recomputed_result_cannot_be_sorted_filtered_or_summarised(client, run):
    NodeRun.objects.filter(run=run, node_id="read").update(metrics={})
    for answer, field in (
        (data(client, run, node="read", sort="age"), "sort"),
        (data(client, run, node="read", filter="age > 1"), "filter"),
        (stats(client, run, node="read"), "stats"),
    ):
        assert answer.status_code == 422, answer.content
        assert answer.json()["code"] == "result_not_stored"
        assert answer.json()["field"] == field
        assert "was not stored by the run" in answer.json()["message"]


def test_an_output_node_shows_what_it_wrote_under_its_input_port(client, run):
    body = data(client, run, node="write").json()
    assert body["port"] == "in" and body["source"] == "stored"
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]
    NodeRun.objects.filter(run=run, node_id="write").update(metrics={})
    body = data(client, run, node="write").json()
    assert body["port"] == "in" and body["source"] == "recomputed"
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]


def test_reads_past_the_web_processs_limit_wait_then_answer_busy(client, run, monkeypatch):
    from editor.api import run_data

    monkeypatch.setattr(run_data, "READER_WAIT_S", 0.05)
    for _ in range(run_data.READERS):
        run_data._readers.acquire()
    try:
        answer = data(client, run)
    finally:
        for _ in range(run_data.READERS):
            run_data._readers.release()
    assert answer.status_code == 429 and answer.json()["code"] == "results_busy"
    assert data(client, run).status_code == 200


def test_an_output_reused_from_the_cache_still_shows_what_it_wrote(client, data_root, pipeline_id):
    for _ in range(2):
        started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
        run = wait_for_run(started.json()["id"])
    assert NodeRun.objects.get(run=run, node_id="write").metrics["cached"] is True
    body = data(client, run, node="write").json()
    assert (body["port"], body["source"]) == ("in", "stored")
    assert [row[1] for row in body["rows"]] == ["Ada", "Grace"]


FUSED = {
    "format": "pipewright.pipeline",
    "version": 1,
    "name": "Ages",
    "config": {"backend": "duckdb"},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "people.csv"}},
        {"id": "adults", "operator": "filter", "params": {"condition": "age >= 18"}},
        {
            "id": "by_age",
            "operator": "aggregate",
            "params": {
                "group_by": ["age"],
                "aggregations": [{"column": "id", "function": "count", "name": "people"}],
            },
        },
        {"id": "counted", "operator": "filter", "params": {"condition": "people > 0"}},
        {"id": "write", "operator": "csv_output", "params": {"path": "out/ages.csv"}},
    ],
    "edges": [
        {"source": "read", "target": "adults"},
        {"source": "adults", "target": "by_age"},
        {"source": "by_age", "target": "counted"},
        {"source": "counted", "target": "write"},
    ],
}
"""One DuckDB segment: it stores `adults` (the aggregate's input, only the columns the
aggregate reads) and `counted` (what the output writes); `by_age` stays inside."""


@pytest.fixture
def fused_run(client, data_root) -> Run:
    created = post_json(client, "/api/pipelines", FUSED)
    assert created.status_code == 201, created.content
    started = post_json(client, f"/api/pipelines/{created.json()['id']}/runs", {})
    run = wait_for_run(started.json()["id"])
    assert run.status == "succeeded"
    return run


def test_an_interior_port_is_recomputed_from_the_stored_boundary_with_the_input_gone(
    client, fused_run, data_root
):
    assert "results" not in NodeRun.objects.get(run=fused_run, node_id="by_age").metrics
    (data_root / "people.csv").unlink()
    answer = data(client, fused_run, node="by_age")
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["source"] == "recomputed" and body["recomputed_from"] == ["adults"]
    assert body["changed_inputs"] == []
    assert sorted(body["rows"]) == [[36, 1], [85, 1]]


def test_an_evicted_boundary_falls_back_to_the_inputs_with_the_warning(
    client, fused_run, data_root
):
    key = NodeRun.objects.get(run=fused_run, node_id="adults").metrics["results"]["out"]
    ResultStore(cache_folder(fused_run.pipeline.workspace)).path_of(key).unlink()
    changed_since_the_run(data_root, "id,name,age\n1,Ada,36\n4,Zoë,36\n")
    body = data(client, fused_run, node="by_age").json()
    assert body["recomputed_from"] == [] and body["changed_inputs"] == ["people.csv"]
    assert body["rows"] == [[36, 2]]


def test_a_stored_result_names_the_columns_the_run_did_not_keep(client, fused_run):
    body = data(client, fused_run, node="adults").json()
    assert body["source"] == "stored"
    assert sorted(column["name"] for column in body["columns"]) == ["age", "id"]
    assert body["missing_columns"] == ["name"]
    body = data(client, fused_run, node="counted").json()
    assert body["source"] == "stored" and body["missing_columns"] == []


def test_a_stored_result_is_recomputed_on_request_with_every_column(client, fused_run):
    body = data(client, fused_run, node="adults", recompute="true").json()
    assert body["source"] == "recomputed" and body["missing_columns"] is None
    assert [column["name"] for column in body["columns"]] == ["id", "name", "age"]
    assert body["rows"] == [[1, "Ada", 36], [3, "Grace", 85]]
    answer = data(client, fused_run, node="adults", recompute="true", sort="age")
    assert answer.status_code == 422 and answer.json()["field"] == "sort"
    assert "is recomputed on request" in answer.json()["message"]
    assert data(client, fused_run, node="adults", sort="age").status_code == 200


def test_a_port_inside_a_segment_says_how_to_keep_it_and_that_advice_works(client, fused_run):
    """`by_age` runs inside the DuckDB segment and is not stored: sorting it is refused saying
    to run up to it, the recomputed page names those run options, and a run started with
    them serves the port sorted and summarised."""
    refused = data(client, fused_run, node="by_age", sort="-age")
    assert refused.status_code == 422
    advice = "run up to 'by_age' (\"Run up to here\" in its panel) to keep it whole"
    assert advice in refused.json()["message"]
    recomputed = data(client, fused_run, node="by_age").json()
    assert recomputed["source"] == "recomputed" and recomputed["kept_by"] == {"up_to": "by_age"}
    pipeline = fused_run.pipeline_id
    started = post_json(client, f"/api/pipelines/{pipeline}/runs", recomputed["kept_by"])
    assert started.status_code == 202, started.content
    kept = wait_for_run(started.json()["id"])
    assert kept.status == "succeeded"
    body = data(client, kept, node="by_age", sort="-age").json()
    assert body["source"] == "stored" and body["missing_columns"] == []
    assert body["rows"] == [[85, 1], [36, 1]]
    summary = stats(client, kept, node="by_age")
    assert summary.status_code == 200, summary.content
    assert [column["count"] for column in summary.json()["columns"]] == [2, 2]
