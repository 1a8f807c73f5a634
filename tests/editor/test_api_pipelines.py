"""The pipelines API: round trips, optimistic locking, bad documents, export and import."""

from __future__ import annotations

import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editor.models import Pipeline, Run
from editor.pipelines import actions
from runtime.document.spec import load_document
from tests.editor.conftest import SEED, post_json, put_json

pytestmark = pytest.mark.django_db


def test_create_then_get_returns_the_document_with_read_only_fields(client, pipeline_id):
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    assert body["id"] == pipeline_id and body["revision"] == 1 and body["owner"] == "owner"
    assert [node["id"] for node in body["nodes"]] == ["adults", "read", "write"]
    assert body["nodes"][0]["params"] == {"condition": "age >= ${min_age}"}
    assert body["config"]["parameters"] == {"min_age": 18}


def test_a_client_can_send_back_what_it_got(client, pipeline_id):
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    body["name"] = "Renamed"
    saved = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert saved.status_code == 200, saved.content
    assert saved.json()["revision"] == 2 and saved.json()["name"] == "Renamed"


def test_a_stale_save_gets_409_with_the_current_revision_and_changes_nothing(client, pipeline_id):
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    assert put_json(client, f"/api/pipelines/{pipeline_id}", body).status_code == 200
    body["name"] = "Lost update"
    stale = put_json(client, f"/api/pipelines/{pipeline_id}", body)
    assert stale.status_code == 409
    assert stale.json()["code"] == "conflict" and stale.json()["revision"] == 2
    assert Pipeline.objects.get(pk=pipeline_id).name == "Adults"


def test_a_save_without_a_revision_is_refused(client, pipeline_id):
    response = put_json(client, f"/api/pipelines/{pipeline_id}", SEED)
    assert response.status_code == 400
    assert response.json()["code"] == "revision_required"


def test_a_half_built_graph_can_be_saved_but_a_cycle_cannot(client, pipeline_id):
    half = {**SEED, "nodes": [*SEED["nodes"], {"id": "draft", "operator": "not_chosen_yet"}]}
    assert post_json(client, "/api/pipelines", half).status_code == 201
    cyclic = {**SEED, "edges": [*SEED["edges"], {"source": "adults", "target": "adults"}]}
    response = post_json(client, "/api/pipelines", cyclic)
    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_document"
    assert body["problems"][0]["code"] == "cycle"
    assert body["message"] == "the pipeline cannot be saved: 2 problems"  # listed, not repeated


BAD_DOCUMENTS = {
    "malformed json": ("{not json", "invalid_json", "the body is not valid JSON"),
    "not an object": ("[1, 2]", "invalid_json", "the body must be a JSON object"),
    "bad node id": (
        {"name": "x", "nodes": [{"id": "1bad", "operator": "filter"}]},
        "invalid_document",
        "1bad: Id: must start with a letter or _",
    ),
    "newer version": ({"name": "x", "version": 9}, "invalid_document", "format version 9"),
    "duplicate ids": (
        {"name": "x", "nodes": [{"id": "a", "operator": "f"}, {"id": "a", "operator": "f"}]},
        "invalid_document",
        "2 nodes share the id 'a'",
    ),
    "dangling edge": (
        {
            "name": "x",
            "edges": [{"source": "a", "target": "b"}],
            "nodes": [{"id": "a", "operator": "f"}],
        },
        "invalid_document",
        "does not exist",
    ),
}


@pytest.mark.parametrize(("body", "code", "message"), BAD_DOCUMENTS.values(), ids=BAD_DOCUMENTS)
def test_bad_documents_get_a_4xx_with_a_message(client, body, code, message):
    response = post_json(client, "/api/pipelines", body)
    assert response.status_code == 400
    assert response.json()["code"] == code
    assert message in response.json()["message"]


def test_an_import_reports_every_problem_of_the_file_and_says_each_once(client):
    """Bad fields and a bad graph are reported together; the message counts them, the list
    says them, so that nothing is shown twice."""
    document = {
        "name": "x",
        "nodes": [
            {"id": "a", "operator": "filter", "retries": "x"},
            {"id": "b", "operator": "filter", "label": 5},
        ],
        "edges": [{"source": "a", "target": "a"}, {"source": "b", "target": "gone"}],
    }
    response = post_json(client, "/api/pipelines/import", document)
    assert response.status_code == 400
    body = response.json()
    assert body["message"] == "the document is not valid: 4 problems"
    assert (body["node"], body["field"]) == ("a", "retries")
    assert [(problem["node"], problem["code"]) for problem in body["problems"]] == [
        ("a", "invalid"),
        ("b", "invalid"),
        (None, "dangling_edge"),
        ("a", "cycle"),
    ]
    assert body["problems"][1]["message"] == "Label: must be text"
    assert body["problems"][1]["field_title"] == "Label"
    assert not Pipeline.objects.exists()


def test_a_bad_request_body_names_every_field_as_titled(client, pipeline_id):
    response = post_json(client, f"/api/pipelines/{pipeline_id}/preview", {"limit": "many"})
    assert response.status_code == 422
    body = response.json()
    assert body["code"] == "invalid_request" and body["field"] == "node"
    assert [problem["message"] for problem in body["problems"]] == [
        "Node: required",
        "Limit: must be a whole number",
    ]


def test_an_oversized_body_is_refused_with_413(client, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    response = post_json(client, "/api/pipelines", {**SEED, "description": "x" * 2000})
    assert response.status_code == 413
    assert response.json()["code"] == "too_large"


def test_export_import_export_is_byte_identical_but_for_a_taken_name(client, pipeline_id):
    first = client.get(f"/api/pipelines/{pipeline_id}/export")
    assert first["Content-Disposition"] == 'attachment; filename="adults.json"'
    imported = post_json(client, "/api/pipelines/import", first.content)
    assert imported.status_code == 201
    second = client.get(f"/api/pipelines/{imported.json()['id']}/export")
    name = json.loads(first.content)["name"]
    assert second.content == first.content.replace(
        f'"name": "{name}"'.encode(), f'"name": "{name} (2)"'.encode(), 1
    )
    assert "id" not in json.loads(first.content) and "revision" not in json.loads(first.content)


def test_an_import_whose_name_the_workspace_has_is_numbered(client):
    names = [
        post_json(client, "/api/pipelines/import", {**SEED, "name": "ETL"}).json()["name"]
        for _ in range(3)
    ]
    assert names == ["ETL", "ETL (2)", "ETL (3)"]


def test_the_list_answers_items_and_count_with_paging(client):
    for index in range(3):
        post_json(client, "/api/pipelines", {**SEED, "name": f"P{index}"})
    body = client.get("/api/pipelines?limit=2&offset=1").json()
    assert body["count"] == 3
    assert [item["name"] for item in body["items"]] == ["P1", "P0"]
    assert body["items"][0]["last_run"] is None


def test_deleting_a_pipeline_deletes_it(client, pipeline_id):
    assert client.delete(f"/api/pipelines/{pipeline_id}").status_code == 204
    assert client.get(f"/api/pipelines/{pipeline_id}").status_code == 404


def test_duplicate_makes_a_copy_named_copy(client, pipeline_id):
    response = client.post(f"/api/pipelines/{pipeline_id}/duplicate")
    assert response.status_code == 201
    assert response.json()["name"] == "Adults (copy)"
    assert len(response.json()["nodes"]) == 3


def test_the_operator_catalog_lists_operators_with_ports_and_schemas(client):
    body = client.get("/api/operators").json()
    by_name = {item["name"]: item for item in body["items"]}
    assert body["count"] == len(body["items"])
    assert by_name["filter"]["inputs"][0]["name"] == "in"
    assert "condition" in by_name["filter"]["params_schema"]["properties"]


def test_the_catalog_names_the_words_analysts_search_an_operator_by(client):
    by_name = {item["name"]: item for item in client.get("/api/operators").json()["items"]}
    assert "crosstab" in by_name["pivot"]["keywords"]
    assert "melt" in by_name["unpivot"]["keywords"]
    assert {"exists", "not in"} <= set(by_name["join"]["keywords"])
    assert by_name["filter"]["keywords"] == []


def test_the_palette_finds_an_operator_by_the_words_other_tools_use(client):
    """The palette's search (catalog.js paletteGroups): every word in the title, name,
    description or keywords. Words a Node-RED, n8n or KNIME user types first."""
    items = client.get("/api/operators").json()["items"]

    def found(word):
        return {
            item["name"]
            for item in items
            if word
            in " ".join(
                [item["title"], item["name"], item["description"], *item["keywords"]]
            ).lower()
        }

    for word in ("map", "formula", "calc", "upper"):
        assert "transform" in found(word), word
    assert "join" in found("lookup")
    for word in ("sqlite", "postgres"):
        assert {"sql_input", "sql_output"} <= found(word), word


def test_validate_schemas_and_preview(client, pipeline_id, data_root):
    valid = client.post(f"/api/pipelines/{pipeline_id}/validate").json()
    assert valid == {"valid": True, "problems": []}
    schemas = client.get(f"/api/pipelines/{pipeline_id}/schemas").json()
    assert [c["name"] for c in schemas["nodes"]["adults"]["outputs"]["out"]] == [
        "id",
        "name",
        "age",
    ]
    shown = post_json(
        client, f"/api/pipelines/{pipeline_id}/preview", {"node": "adults", "limit": 5}
    ).json()
    assert shown["rows"] == [[1, "Ada", 36], [3, "Grace", 85]]
    assert (shown["total_rows"], shown["rows_read"]) == (2, 3)
    assert not (data_root / "out").exists()


def test_validate_reports_schema_problems_at_node_and_field(client, data_root):
    broken = {
        **SEED,
        "nodes": [
            SEED["nodes"][0],
            {**SEED["nodes"][1], "params": {"condition": "agee > 1"}},
            SEED["nodes"][2],
        ],
    }
    pipeline_id = post_json(client, "/api/pipelines", broken).json()["id"]
    body = client.post(f"/api/pipelines/{pipeline_id}/validate").json()
    assert body["valid"] is False
    assert body["problems"] == [
        {"code": "schema", "node": "adults", "field": "params.condition",
         "field_title": "Condition",
         "message": "Condition: unknown column 'agee' at 1:1; did you mean 'age'?",
         "line": 1, "column": 1, "end_column": 5}
    ]  # fmt: skip


def test_a_preview_of_a_failing_node_is_a_422_naming_it(client, pipeline_id, data_root):
    (data_root / "people.csv").unlink()
    response = post_json(client, f"/api/pipelines/{pipeline_id}/preview", {"node": "adults"})
    assert response.status_code == 422
    assert response.json()["code"] == "node_failed" and response.json()["node"] == "read"


def test_graph_pictures_and_layout(client, pipeline_id):
    svg = client.get(f"/api/pipelines/{pipeline_id}/graph.svg")
    assert svg["Content-Type"] == "image/svg+xml" and b"<svg" in svg.content
    png = client.get(f"/api/pipelines/{pipeline_id}/graph.png")
    assert png.content.startswith(b"\x89PNG")
    positions = client.post(f"/api/pipelines/{pipeline_id}/layout").json()["positions"]
    assert set(positions) == {"read", "adults", "write"}
    assert positions["read"]["x"] < positions["adults"]["x"] < positions["write"]["x"]


def test_the_list_costs_the_same_queries_however_many_pipelines_and_runs(client, owner):
    """The latest run of each listed pipeline comes with the list, not one query each."""

    def listing_queries() -> int:
        with CaptureQueriesContext(connection) as queries:
            body = client.get("/api/pipelines").json()
        assert all(item["last_run"]["status"] == "failed" for item in body["items"])
        return len(queries)

    def add_pipeline_with_runs():
        pipeline = actions.create_pipeline(owner, load_document(SEED))
        for status in ("succeeded", "failed"):
            Run.objects.create(pipeline=pipeline, document={}, status=status)

    add_pipeline_with_runs()
    one = listing_queries()
    for _ in range(4):
        add_pipeline_with_runs()
    assert listing_queries() == one


def test_an_output_path_outside_the_workspace_is_refused_before_any_run(client, data_root):
    """At design time (validate, schemas) and when a run would start, not by a failing node."""
    document = {
        **SEED,
        "nodes": [*SEED["nodes"][:2], {**SEED["nodes"][2], "params": {"path": "../x.csv"}}],
    }
    pipeline_id = post_json(client, "/api/pipelines", document).json()["id"]
    validated = post_json(client, f"/api/pipelines/{pipeline_id}/validate", {}).json()
    schemas = client.get(f"/api/pipelines/{pipeline_id}/schemas").json()
    for problems in (validated["problems"], schemas["problems"]):
        [problem] = problems
        assert (problem["node"], problem["field"], problem["code"]) == (
            "write",
            "params.path",
            "unsafe_path",
        )
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert started.status_code == 422
    assert (started.json()["node"], started.json()["field"]) == ("write", "params.path")
    assert not Run.objects.exists()


@pytest.mark.parametrize("node", [0, 2], ids=["input", "output"])
def test_a_5000_character_path_is_a_problem_of_its_field_not_a_500(client, data_root, node):
    """The file system refuses such a name (ENAMETOOLONG): the answer names the node and the
    field, and never the server's data folder."""
    nodes = [dict(item) for item in SEED["nodes"]]
    nodes[node]["params"] = {**nodes[node]["params"], "path": "a" * 5000 + ".csv"}
    document = {**SEED, "nodes": nodes}
    pipeline_id = post_json(client, "/api/pipelines", document).json()["id"]
    answers = [
        post_json(client, f"/api/pipelines/{pipeline_id}/validate", {}),
        client.get(f"/api/pipelines/{pipeline_id}/schemas"),
        post_json(client, f"/api/pipelines/{pipeline_id}/check", document),
        post_json(client, f"/api/pipelines/{pipeline_id}/runs", {}),
    ]
    for answer in answers:
        assert answer.status_code in (200, 422), answer.content[:300]
        assert str(data_root) not in answer.content.decode()
        problems = answer.json().get("problems") or [answer.json()]
        assert (problems[0]["node"], problems[0]["field"]) == (nodes[node]["id"], "params.path")
        assert "too long" in problems[0]["message"]
    assert not Run.objects.exists()


@pytest.mark.parametrize("path", [".adults.csv", "out/.hidden/adults.csv"])
def test_an_output_named_with_a_leading_dot_is_refused_before_any_run(client, data_root, path):
    """The Files page hides dot-led names (`.pipewright` is the system's), so such an output
    could never be listed, downloaded or deleted: a problem of its field instead."""
    nodes = [*SEED["nodes"][:2], {**SEED["nodes"][2], "params": {"path": path}}]
    pipeline_id = post_json(client, "/api/pipelines", {**SEED, "nodes": nodes}).json()["id"]
    [problem] = post_json(client, f"/api/pipelines/{pipeline_id}/validate", {}).json()["problems"]
    assert (problem["node"], problem["field"]) == ("write", "params.path")
    assert "starts with '.'" in problem["message"]
    started = post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})
    assert started.status_code == 422
    assert (started.json()["node"], started.json()["field"]) == ("write", "params.path")
    assert not Run.objects.exists()


def test_a_parameter_that_does_not_fit_where_it_is_used_is_refused_before_the_run(
    client, pipeline_id, data_root
):
    started = post_json(
        client, f"/api/pipelines/{pipeline_id}/runs", {"parameters": {"min_age": "abc"}}
    )
    assert started.status_code == 422
    body = started.json()
    assert (body["code"], body["node"], body["field"]) == (
        "invalid_pipeline",
        "adults",
        "params.condition",
    )
    assert "'abc' is string" in body["message"]
    assert not Run.objects.exists()


def test_validate_gives_each_problem_its_field_title(client, pipeline_id):
    document = client.get(f"/api/pipelines/{pipeline_id}").json()
    document["nodes"][0]["params"] = {"condition": ""}  # adults, sorted first
    assert put_json(client, f"/api/pipelines/{pipeline_id}", document).status_code == 200
    problems = post_json(client, f"/api/pipelines/{pipeline_id}/validate", {}).json()["problems"]
    assert {
        "code": "invalid_params",
        "node": "adults",
        "field": "params.condition",
        "field_title": "Condition",
        "message": "Condition: unexpected end of expression at 1:1; expected an expression",
        "line": 1,
        "column": 1,
        "end_column": None,
    } in problems


# Filing and search (issue 30, "Many pipelines")


def _filed(client, pipeline_id, body):
    return put_json(client, f"/api/pipelines/{pipeline_id}/filing", body)


def _found(client, query: str = "", sort: str = "updated") -> list[str]:
    answer = client.get("/api/pipelines", {"q": query, "sort": sort})
    assert answer.status_code == 200, answer.content
    return [item["name"] for item in answer.json()["items"]]


def _pipeline(client, name: str, nodes: list[dict]) -> int:
    answer = post_json(client, "/api/pipelines", {"name": name, "nodes": nodes})
    assert answer.status_code == 201, answer.content
    return answer.json()["id"]


def test_folder_and_tags_are_set_cleaned_and_kept_by_a_save_of_the_document(client, pipeline_id):
    answer = _filed(
        client, pipeline_id, {"folder": " sales / monthly/ ", "tags": ["KPI", "kpi", " daily "]}
    )
    assert answer.status_code == 200, answer.content
    assert answer.json()["folder"] == "sales/monthly" and answer.json()["tags"] == ["kpi", "daily"]
    body = client.get(f"/api/pipelines/{pipeline_id}").json()
    assert body["revision"] == 1 and body["tags"] == ["kpi", "daily"]
    body["tags"] = ["ignored"]  # read-only in the document: the filing endpoint sets them
    assert put_json(client, f"/api/pipelines/{pipeline_id}", body).status_code == 200
    assert Pipeline.objects.get(pk=pipeline_id).tags == ["kpi", "daily"]
    copy = post_json(client, f"/api/pipelines/{pipeline_id}/duplicate", {}).json()
    assert (copy["folder"], copy["tags"]) == ("sales/monthly", ["kpi", "daily"])


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"tags": "kpi"}, "tags"),
        ({"tags": ["a/b"]}, "tags"),
        ({"tags": ["x" * 41]}, "tags"),
        ({"folder": 3}, "folder"),
        ({"folder": "a/../b"}, "folder"),
    ],
)
def test_bad_filing_is_a_400_naming_the_field(client, pipeline_id, body, field):
    answer = _filed(client, pipeline_id, body)
    assert answer.status_code == 400 and answer.json()["field"] == field


def test_another_user_cannot_file_a_pipeline_they_cannot_see(pipeline_id, other):
    from tests.editor.conftest import client_for

    assert _filed(client_for(other), pipeline_id, {"tags": ["x"]}).status_code == 404


def test_search_finds_by_name_tag_folder_operator_file_and_connection(client):
    files = _pipeline(
        client,
        "Monthly files",
        [
            {"id": "read", "operator": "csv_input", "params": {"path": "sales/2026.csv"}},
        ],
    )
    sql = _pipeline(
        client,
        "Warehouse",
        [
            {
                "id": "query",
                "operator": "sql_input",
                "params": {"connection": "warehouse_ro", "query": "select 1"},
            },
        ],
    )
    _filed(client, files, {"tags": ["kpi"], "folder": "finance/monthly"})
    _filed(client, sql, {"tags": ["kpis-old"]})
    assert _found(client, "monthly") == ["Monthly files"]
    assert _found(client, "2026.csv") == ["Monthly files"]
    assert _found(client, "warehouse_ro") == ["Warehouse"]
    assert _found(client, "operator:sql_input") == ["Warehouse"]
    assert _found(client, "tag:kpi") == ["Monthly files"]  # a whole tag, not a part
    assert sorted(_found(client, "kpi")) == ["Monthly files", "Warehouse"]
    assert _found(client, "folder:finance") == ["Monthly files"]
    assert _found(client, "tag:kpi warehouse") == []  # every word must match


def test_a_search_of_too_many_words_is_a_400_naming_q_and_repeated_words_count_once(client):
    answer = client.get("/api/pipelines", {"q": " ".join(f"w{n}" for n in range(11))})
    assert answer.status_code == 400
    assert answer.json()["field"] == "q" and "10 different words" in answer.json()["message"]
    assert client.get("/api/pipelines", {"q": "a " * 99}).status_code == 200  # one word
    assert client.get("/api/pipelines", {"q": "a" * 201}).status_code == 400


def test_sorting_by_last_run_puts_the_latest_run_first_and_never_run_last(client, pipeline_id):
    never = _pipeline(client, "Never run", [])
    ran = Pipeline.objects.get(pk=pipeline_id)
    Run.objects.create(pipeline=ran, number=1, status="cancelled", document={})
    assert _found(client, sort="last_run") == ["Adults", "Never run"]
    item = client.get("/api/pipelines", {"sort": "last_run"}).json()["items"][0]
    assert item["last_run"]["status"] == "cancelled" and item["last_run"]["created_at"]
    assert client.get("/api/pipelines", {"sort": "size"}).json()["field"] == "sort"
    assert never
