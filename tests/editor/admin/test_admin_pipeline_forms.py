"""The pipeline change page: the graph shown as an image, and saves that go through
`editor.pipelines.actions`, keeping optimistic locking honest and refusing what the API refuses.
"""

from __future__ import annotations

import re

import pytest
from django.db import connection as database
from django.test.utils import CaptureQueriesContext
from django.utils.html import escape
from pytest_django.asserts import assertInHTML

from editor.models import Pipeline
from editor.pipelines import actions
from editor.pipelines.documents import to_document
from editor.workspaces.membership import personal_workspace
from runtime.document.spec import load_document, to_json_dict
from tests.editor.admin.forms import change_form_data
from tests.editor.conftest import SEED, post_json, put_json

pytestmark = pytest.mark.django_db


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


def test_an_admin_save_is_kept_in_history_as_its_authors_and_listed_on_the_page(
    admin_client, pipeline, admin_user
):
    url = f"/admin/editor/pipeline/{pipeline.pk}/change/"
    data = change_form_data(admin_client.get(url))
    data.update({"nodes-0-label": "Keep <b>adults</b>"})
    assert admin_client.post(url, data).status_code == 302
    newest = pipeline.revisions.first()
    assert (newest.revision, newest.author, newest.kind) == (2, admin_user, "saved")
    assert newest.summary == "changed adults (label)"
    page = admin_client.get(url).content.decode()
    assert f"<td>{escape(newest.summary)}</td>" in page and "<td>created</td>" in page


def test_the_admin_files_a_pipeline_as_the_api_does_and_refuses_what_it_refuses(
    admin_client, pipeline
):
    url = f"/admin/editor/pipeline/{pipeline.pk}/change/"
    data = change_form_data(admin_client.get(url))
    response = admin_client.post(url, {**data, "folder": "a/../b", "tags": '["kpi"]'})
    assert response.status_code == 200 and "not folder names" in str(response.context["errors"])
    response = admin_client.post(url, {**data, "folder": " sales / q1 ", "tags": '["KPI", "kpi"]'})
    assert response.status_code == 302, response.context["errors"]
    pipeline.refresh_from_db()
    assert (pipeline.folder, pipeline.tags) == ("sales/q1", ["kpi"])
