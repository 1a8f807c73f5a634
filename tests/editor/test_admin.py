"""The admin: every page renders, pipeline saves keep optimistic locking honest, the actions
go through `editor.actions`, runs are read-only, and secrets never come back out."""

from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from datetime import timedelta

import pytest
from django.conf import settings
from django.contrib.messages import get_messages
from django.db import connection as database
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from django.utils.html import escape
from pytest_django.asserts import assertInHTML

from editor import actions
from editor.admin.runs import ADMIN_CSS
from editor.documents import to_document
from editor.graph_image import STATUS_COLOURS
from editor.models import ApiToken, Connection, NodeRun, Pipeline, Run
from editor.tokens import create_token
from editor.workspaces import personal_workspace
from runtime.spec import dump_document, load_document, to_json_dict
from tests.editor.conftest import SEED, client_for, post_json, put_json

pytestmark = pytest.mark.django_db

SECRET = "hunter2-not-in-any-page"


@pytest.fixture
def pipeline(owner, data_root) -> Pipeline:
    return actions.create_pipeline(owner, load_document({**SEED, "description": "grown-ups"}))


@pytest.fixture
def run(pipeline, owner) -> Run:
    """A finished run with metrics, as the run recorder leaves it."""
    started = timezone.now() - timedelta(seconds=3)
    run = Run.objects.create(
        pipeline=pipeline,
        document=to_json_dict(to_document(pipeline)),
        status="failed",
        started_by=owner,
        started_at=started,
        finished_at=started + timedelta(seconds=2.5),
    )
    metrics = {"rows_in": {"in": 3}, "rows_out": 2, "duration_s": 0.25}
    NodeRun.objects.create(run=run, node_id="adults", status="succeeded", metrics=metrics)
    NodeRun.objects.create(run=run, node_id="write", status="failed", error="disk full")
    return run


@pytest.fixture
def connection(owner) -> Connection:
    connection = Connection(
        workspace=personal_workspace(owner),
        name="sales",
        url="postgresql://app@db.example.com/sales",
    )
    connection.set_password(SECRET)
    connection.save()
    return connection


@pytest.fixture
def token(owner) -> ApiToken:
    create_token(owner, "ci")
    return ApiToken.objects.get(user=owner)


def messages_of(response) -> list[str]:
    return [str(message) for message in get_messages(response.wsgi_request)]


def change_form_data(response) -> dict:
    """The POST body that submits an admin change page as it was rendered."""
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    data = {}
    for form in forms:
        for name in form.fields:
            value = form[name].value()
            if value is not None and value is not False:
                data[form.add_prefix(name)] = value
    return data


def act(client, action: str, *pipelines: Pipeline, follow: bool = True):
    selected = [pipeline.pk for pipeline in pipelines]
    body = {"action": action, "_selected_action": selected}
    return client.post("/admin/editor/pipeline/", body, follow=follow)


PAGES = [
    "/admin/",
    "/admin/editor/",
    "/admin/editor/pipeline/",
    "/admin/editor/pipeline/add/",
    "/admin/editor/pipeline/{pipeline}/change/",
    "/admin/editor/pipeline/{pipeline}/delete/",
    "/admin/editor/pipeline/{pipeline}/history/",
    "/admin/editor/run/",
    "/admin/editor/run/{run}/change/",
    "/admin/editor/connection/",
    "/admin/editor/connection/add/",
    "/admin/editor/connection/{connection}/change/",
    "/admin/editor/connection/{connection}/delete/",
    "/admin/editor/connection/{connection}/history/",
    "/admin/editor/apitoken/",
    "/admin/editor/apitoken/add/",
    "/admin/editor/apitoken/{token}/change/",
]


@pytest.mark.parametrize("page", PAGES)
def test_every_admin_page_renders_for_a_superuser(
    admin_client, page, pipeline, run, connection, token
):
    url = page.format(pipeline=pipeline.pk, run=run.pk, connection=connection.pk, token=token.pk)
    response = admin_client.get(url)
    assert response.status_code == 200, url
    assert SECRET.encode() not in response.content
    assert token.key_hash.encode() not in response.content


def test_the_pipeline_list_shows_node_count_and_a_badge_for_the_last_run(
    admin_client, pipeline, run
):
    response = admin_client.get("/admin/editor/pipeline/")
    listed = response.context["cl"].result_list
    assert [(item.name, item.node_count, item.last_run_status) for item in listed] == [
        ("Adults", 3, "failed")
    ]
    assert b'<td class="field-node_count">3</td>' in response.content
    assert b'<span class="pw-badge pw-badge-failed">failed</span>' in response.content


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("q=grown", ["Adults"]),
        ("q=other", ["Other's"]),
        ("q=Other%27s", ["Other's"]),
        ("q=nothing-like-it", []),
        ("owner__id__exact={other}", ["Other's"]),
    ],
    ids=["description", "owner username", "name", "no match", "owner filter"],
)
def test_pipelines_can_be_searched_and_filtered(admin_client, pipeline, other, query, found):
    actions.create_pipeline(other, load_document({**SEED, "name": "Other's"}))
    response = admin_client.get(f"/admin/editor/pipeline/?{query.format(other=other.pk)}")
    assert [item.name for item in response.context["cl"].result_list] == found


def test_pipelines_can_be_filtered_by_when_they_were_updated(admin_client, pipeline, other):
    old = actions.create_pipeline(other, load_document({**SEED, "name": "Old"}))
    Pipeline.objects.filter(pk=old.pk).update(updated_at=timezone.now() - timedelta(days=400))
    changelist = admin_client.get("/admin/editor/pipeline/").context["cl"]
    updated = next(spec for spec in changelist.filter_specs if spec.title == "updated at")
    links = {choice["display"]: choice["query_string"] for choice in updated.choices(changelist)}
    for period, found in (("Today", ["Adults"]), ("Any date", ["Adults", "Old"])):
        response = admin_client.get(f"/admin/editor/pipeline/{links[period]}")
        assert [item.name for item in response.context["cl"].result_list] == found


def test_runs_can_be_filtered_by_status_and_pipeline(admin_client, run, pipeline, owner):
    second = actions.duplicate_pipeline(pipeline, owner)
    Run.objects.create(pipeline=second, document=run.document, status="succeeded")

    def listed(query: str) -> list[tuple[str, str]]:
        response = admin_client.get(f"/admin/editor/run/?{query}")
        return [(item.pipeline.name, item.status) for item in response.context["cl"].result_list]

    assert listed("status__exact=failed") == [("Adults", "failed")]
    assert listed(f"pipeline__id__exact={second.pk}") == [("Adults (copy)", "succeeded")]
    today = timezone.now()
    assert len(listed(f"created_at__year={today.year}&created_at__month={today.month}")) == 2


def test_the_change_page_shows_the_graph_as_an_image_in_the_latest_run_colours(
    admin_client, pipeline, run
):
    """An image, not inlined SVG: whatever a user wrote into the graph, this page holds none of
    it, and the picture is served with its own restrictive policy."""
    page = admin_client.get(f"/admin/editor/pipeline/{pipeline.pk}/change/").content.decode()
    url = f"/api/pipelines/{pipeline.pk}/graph.svg"
    assertInHTML(f'<img src="{url}" alt="graph of {pipeline.name}">', page)
    assert 'class="graph"' not in page
    svg = admin_client.get(url).content.decode()
    assert "filter · succeeded" in svg and "csv_output · failed" in svg
    assert "csv_input · idle" in svg


def test_edge_ends_are_chosen_among_the_pipelines_own_nodes(admin_client, pipeline, owner):
    actions.create_pipeline(owner, load_document({**SEED, "name": "Elsewhere"}))
    response = admin_client.get(f"/admin/editor/pipeline/{pipeline.pk}/change/")
    edges = next(
        inline.formset
        for inline in response.context["inline_admin_formsets"]
        if inline.formset.prefix == "edges"
    )
    for end in ("source", "target"):
        assert set(edges.form.base_fields[end].queryset) == set(pipeline.nodes.all())


def test_saving_in_the_admin_bumps_the_revision_so_an_editor_holding_the_old_one_gets_409(
    admin_client, client, pipeline
):
    url = f"/admin/editor/pipeline/{pipeline.pk}/change/"
    held_by_editor = client.get(f"/api/pipelines/{pipeline.pk}").json()
    data = change_form_data(admin_client.get(url))
    data.update({"name": "Renamed in the admin", "nodes-0-label": "Keep adults"})
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["errors"]
    pipeline.refresh_from_db()
    assert (pipeline.name, pipeline.revision) == ("Renamed in the admin", 2)
    assert pipeline.nodes.get(node_id="adults").label == "Keep adults"
    stale = put_json(client, f"/api/pipelines/{pipeline.pk}", held_by_editor)
    assert stale.status_code == 409 and stale.json()["revision"] == 2


def test_an_admin_save_over_a_newer_editor_save_is_refused(admin_client, client, pipeline):
    url = f"/admin/editor/pipeline/{pipeline.pk}/change/"
    data = change_form_data(admin_client.get(url))
    document = client.get(f"/api/pipelines/{pipeline.pk}").json()
    assert put_json(client, f"/api/pipelines/{pipeline.pk}", document).status_code == 200
    response = admin_client.post(url, {**data, "name": "Lost update"})
    assert response.status_code == 200
    assert "Someone saved this pipeline meanwhile (now revision 2)" in response.content.decode()
    assert Pipeline.objects.get(pk=pipeline.pk).name == "Adults"


def test_node_rows_the_runtime_document_would_refuse_are_not_saved(admin_client, pipeline):
    url = f"/admin/editor/pipeline/{pipeline.pk}/change/"
    data = change_form_data(admin_client.get(url))
    data.update({"nodes-0-node_id": "1bad", "nodes-0-params": "[1]", "config": '{"bogus": 1}'})
    response = admin_client.post(url, data)
    assert response.status_code == 200
    page = response.content.decode()
    assert "Id: must start with a letter or _" in page
    assert "Settings: must be an object" in page
    assert "bogus: unknown field; remove it or check its spelling" in page
    assert Pipeline.objects.get(pk=pipeline.pk).revision == 1


GRAPH_MISTAKES = {
    "cycle": (("adults", "out"), ("adults", "in")),
    "double input": (("read", "out"), ("write", "in")),
    "unknown port": (("read", "out"), ("adults", "bogus")),
}


@pytest.mark.parametrize(("source", "target"), GRAPH_MISTAKES.values(), ids=GRAPH_MISTAKES)
def test_an_admin_save_the_api_would_refuse_is_refused_with_the_apis_messages(
    admin_client, client, pipeline, source, target
):
    url = f"/admin/editor/pipeline/{pipeline.pk}/change/"
    data = change_form_data(admin_client.get(url))
    node_pk = dict(pipeline.nodes.values_list("node_id", "pk"))
    data.update({"edges-TOTAL_FORMS": 3, "edges-2-source": node_pk[source[0]],
                 "edges-2-source_port": source[1], "edges-2-target": node_pk[target[0]],
                 "edges-2-target_port": target[1]})  # fmt: skip
    response = admin_client.post(url, data)
    assert response.status_code == 200
    edge = {"source": source[0], "source_port": source[1], "target": target[0],
            "target_port": target[1]}  # fmt: skip
    document = {**SEED, "edges": [*SEED["edges"], edge]}
    refused = post_json(client, "/api/pipelines", document)
    assert refused.status_code == 400
    page = response.content.decode()
    for problem in refused.json()["problems"]:
        assert escape(problem["message"]) in page
    pipeline.refresh_from_db()
    assert pipeline.revision == 1 and pipeline.edges.count() == 2


def test_an_admin_save_renames_a_node_with_its_edges_and_writes_only_what_changed(
    admin_client, pipeline
):
    url = f"/admin/editor/pipeline/{pipeline.pk}/change/"
    data = change_form_data(admin_client.get(url))
    index = next(i for i in range(3) if data[f"nodes-{i}-node_id"] == "adults")
    data[f"nodes-{index}-node_id"] = "grown_ups"
    with CaptureQueriesContext(database) as queries:
        response = admin_client.post(url, data)
    assert response.status_code == 302, response.context["errors"]
    document = to_json_dict(to_document(Pipeline.objects.get(pk=pipeline.pk)))
    assert [(edge["source"], edge["target"]) for edge in document["edges"]] == [
        ("grown_ups", "write"),
        ("read", "grown_ups"),
    ]
    node_writes = [
        q["sql"] for q in queries if re.match(r'(INSERT|DELETE).*"editor_node"', q["sql"])
    ]
    assert len(node_writes) == 2  # the renamed node is a new row; the others stay as they were


def test_a_pipeline_added_in_the_admin_is_created_through_the_actions(admin_client, owner):
    page = admin_client.get("/admin/editor/pipeline/add/")
    data = change_form_data(page)
    workspace = personal_workspace(owner)
    data.update({"name": "Made here", "owner": owner.pk, "workspace": workspace.pk})
    node = {
        "node_id": "read",
        "operator": "csv_input",
        "params": '{"path": "a.csv"}',
        "x": 0,
        "y": 0,
    }
    data.update({f"nodes-0-{name}": value for name, value in node.items()})
    data["nodes-TOTAL_FORMS"] = 1
    response = admin_client.post("/admin/editor/pipeline/add/", data)
    assert response.status_code == 302, response.context["errors"]
    made = Pipeline.objects.get(name="Made here")
    assert (made.revision, made.owner, made.workspace) == (1, owner, workspace)
    assert to_json_dict(to_document(made))["nodes"][0]["params"] == {"path": "a.csv"}


def test_the_run_action_queues_a_run_and_refuses_while_one_is_active(admin_client, pipeline):
    response = act(admin_client, "run", pipeline)
    queued = Run.objects.get(pipeline=pipeline)
    assert queued.status == "queued"
    assert messages_of(response) == [f"Queued run {queued.pk} of “Adults”."]
    response = act(admin_client, "run", pipeline)
    assert Run.objects.filter(pipeline=pipeline).count() == 1
    [refusal] = messages_of(response)
    assert refusal.startswith(f"Adults: run {queued.pk} of this pipeline is still queued")
    assert b'class="error"' in response.content


def test_exporting_one_pipeline_downloads_the_exact_document(admin_client, pipeline):
    response = act(admin_client, "export_json", pipeline, follow=False)
    assert response.content == dump_document(to_document(pipeline)).encode()
    assert response["Content-Disposition"] == 'attachment; filename="adults.json"'


def test_exporting_several_pipelines_downloads_a_zip_of_documents(admin_client, pipeline, owner):
    copy = actions.duplicate_pipeline(pipeline, owner)
    response = act(admin_client, "export_json", pipeline, copy, follow=False)
    assert response["Content-Type"] == "application/zip"
    archive = zipfile.ZipFile(io.BytesIO(response.content))
    assert {name: archive.read(name).decode() for name in archive.namelist()} == {
        f"{pipeline.pk}-adults.json": dump_document(to_document(pipeline)),
        f"{copy.pk}-adults-copy.json": dump_document(to_document(copy)),
    }


def test_duplicating_copies_the_graph_for_the_same_owner(admin_client, pipeline, owner):
    response = act(admin_client, "duplicate", pipeline)
    copy = Pipeline.objects.get(name="Adults (copy)")
    assert messages_of(response) == ["Created “Adults (copy)”."]
    assert copy.owner == owner
    original, copied = to_json_dict(to_document(pipeline)), to_json_dict(to_document(copy))
    assert {**copied, "name": "Adults"} == original


def test_a_pipeline_deleted_in_the_admin_goes_with_its_active_run(admin_client, pipeline, owner):
    run = actions.start_run(pipeline, owner, {})
    response = admin_client.post(f"/admin/editor/pipeline/{pipeline.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Pipeline.objects.filter(pk=pipeline.pk).exists()
    assert not Run.objects.filter(pk=run.pk).exists()


def test_a_run_is_read_only_and_shows_its_node_runs_and_snapshot(admin_client, run):
    url = f"/admin/editor/run/{run.pk}/change/"
    response = admin_client.get(url)
    page = response.content.decode()
    assert "View run" in page and 'name="_save"' not in page
    assert escape(json.dumps(run.document, indent=2, sort_keys=True)) in page
    assert "2.50 s" in page and "0.25 s" in page and "disk full" in page
    assertInHTML('<td class="field-rows_in"><p>3</p></td>', page)
    assert admin_client.post(url, {"status": "succeeded"}).status_code == 403
    assert admin_client.get("/admin/editor/run/add/").status_code == 403
    assert Run.objects.get(pk=run.pk).status == "failed"


def test_the_connection_password_is_write_only(admin_client, connection):
    url = f"/admin/editor/connection/{connection.pk}/change/"
    page = admin_client.get(url).content.decode()
    assert SECRET not in page and "Leave empty to keep the current one." in page
    body = {
        "workspace": connection.workspace_id,
        "name": "sales",
        "url": connection.url,
        "description": "reporting",
        "password": "",
        "read_only": "on",
    }
    assert admin_client.post(url, body).status_code == 302
    connection.refresh_from_db()
    assert connection.description == "reporting"
    assert SECRET in connection.full_url() and SECRET not in connection.encrypted_password
    assert admin_client.post(url, {**body, "password": "rotated"}).status_code == 302
    connection.refresh_from_db()
    assert "rotated" in connection.full_url()
    for page in ("", "?q=sales", f"{connection.pk}/history/", f"{connection.pk}/delete/"):
        assert b"rotated" not in admin_client.get(f"/admin/editor/connection/{page}").content


def test_a_password_inside_the_connection_url_is_refused(admin_client):
    body = {"name": "leaky", "url": f"postgresql://app:{SECRET}@db/sales", "password": ""}
    response = admin_client.post("/admin/editor/connection/add/", body)
    assert "put the password in the password field, not in the URL" in response.content.decode()
    assert not Connection.objects.exists()


def test_staff_without_permissions_cannot_manage_connections(staff, connection):
    response = client_for(staff).get("/admin/editor/connection/")
    assert response.status_code == 403


def test_a_new_token_is_shown_once_and_only_its_hash_is_stored(admin_client, owner):
    response = admin_client.post(
        "/admin/editor/apitoken/add/", {"user": owner.pk, "name": "ci"}, follow=True
    )
    key = re.search(r"pw_[A-Za-z0-9_-]{43}", response.content.decode())[0]
    token = ApiToken.objects.get(user=owner, name="ci")
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert token.prefix == key[:8]
    assert key not in json.dumps(list(ApiToken.objects.values()), default=str)
    for page in ("", f"{token.pk}/change/"):
        content = admin_client.get(f"/admin/editor/apitoken/{page}").content
        assert key.encode() not in content and token.key_hash.encode() not in content


@pytest.mark.parametrize("url", ["/admin/", "/admin/editor/pipeline/", "/admin/editor/run/"])
def test_a_user_who_is_not_staff_is_sent_to_the_admin_login(client, url):
    response = client.get(url)
    assert response.status_code == 302
    assert response["Location"].startswith("/admin/login/?next=")


def test_the_admin_badges_are_coloured_as_the_graph_picture():
    """The admin's stylesheet spells the picture's colours (no inline style under the CSP)."""
    css = (settings.BASE_DIR / "static" / ADMIN_CSS).read_text()
    rules = dict(re.findall(r"\.pw-badge-([a-z_]+) \{ background: (#[0-9a-f]{6}); \}", css))
    assert rules == STATUS_COLOURS
