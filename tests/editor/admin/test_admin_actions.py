"""The pipeline list's actions (run, export, duplicate) and deleting, through
`editor.pipelines.actions` and `editor.runs.actions`.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from editor.models import Pipeline, Run
from editor.pipelines import actions
from editor.pipelines.documents import to_document
from editor.runs.actions import start_run
from runtime.document.spec import dump_document, to_json_dict
from tests.editor.admin.forms import act, messages_of

pytestmark = pytest.mark.django_db


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
    run = start_run(pipeline, owner, {})
    response = admin_client.post(f"/admin/editor/pipeline/{pipeline.pk}/delete/", {"post": "yes"})
    assert response.status_code == 302
    assert not Pipeline.objects.filter(pk=pipeline.pk).exists()
    assert not Run.objects.filter(pk=run.pk).exists()
