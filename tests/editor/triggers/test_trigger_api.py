"""The triggers' API beyond the events: replacing and deleting need the editor role, a
trigger's kind stays, a trigger enabled again has missed nothing, and every change is in the
audit log."""

from __future__ import annotations

import pytest

from editor.models import AuditEntry, Membership, Role, Run, Trigger
from editor.triggers import watch
from tests.editor.conftest import client_for, post_json, put_json
from tests.editor.triggers.helpers import make_pipeline

PEOPLE = "id,name,age\n1,Ada,36\n"


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    settings.PIPEWRIGHT_WORKERS = "service"


@pytest.fixture
def file_trigger(client, data_root) -> dict:
    pipeline = make_pipeline(client)
    answer = post_json(
        client, f"/api/pipelines/{pipeline.pk}/triggers",
        {"kind": "file", "pattern": "in/*.csv", "parameters": {"source": "path"}},
    )  # fmt: skip
    assert answer.status_code == 201, answer.content
    return answer.json()


def url_of(trigger: dict) -> str:
    return f"/api/pipelines/{trigger['pipeline']}/triggers/{trigger['id']}"


@pytest.mark.django_db
def test_a_viewer_reads_triggers_but_may_not_change_them(client, file_trigger, other):
    pipeline = Trigger.objects.get(pk=file_trigger["id"]).pipeline
    Membership.objects.create(workspace=pipeline.workspace, user=other, role=Role.VIEWER)
    viewer = client_for(other)
    body = {"kind": "file", "pattern": "*.csv"}

    assert viewer.get(url_of(file_trigger)).json()["pattern"] == "in/*.csv"
    assert put_json(viewer, url_of(file_trigger), body).status_code == 403
    assert viewer.delete(url_of(file_trigger)).status_code == 403
    assert post_json(viewer, f"/api/pipelines/{pipeline.pk}/triggers", body).status_code == 403


@pytest.mark.django_db
def test_a_triggers_kind_cannot_change(client, file_trigger):
    answer = put_json(client, url_of(file_trigger), {"kind": "webhook"})
    assert (answer.status_code, answer.json()["field"]) == (400, "kind")


@pytest.mark.django_db(transaction=True)
def test_a_trigger_enabled_again_fires_nothing_for_files_that_came_while_it_was_off(
    client, data_root, file_trigger
):
    (data_root / "in").mkdir()
    watch.tick()
    body = {"kind": "file", "pattern": "in/*.csv", "parameters": {"source": "path"}}
    put_json(client, url_of(file_trigger), {**body, "enabled": False})
    (data_root / "in" / "while-off.csv").write_text(PEOPLE)
    assert watch.tick() == []

    put_json(client, url_of(file_trigger), {**body, "enabled": True})
    assert watch.tick() == []
    (data_root / "in" / "after.csv").write_text(PEOPLE)
    [run_id] = watch.tick()

    assert Run.objects.get(pk=run_id).parameters == {"source": "in/after.csv"}


@pytest.mark.django_db
def test_trigger_changes_are_in_the_audit_log_without_the_secret(client, file_trigger):
    hook = post_json(client, f"/api/pipelines/{file_trigger['pipeline']}/triggers",
                     {"kind": "webhook"}).json()  # fmt: skip
    put_json(client, url_of(file_trigger), {"kind": "file", "pattern": "*.csv"})
    assert client.delete(url_of(file_trigger)).status_code == 204

    entries = AuditEntry.objects.filter(object_type="trigger").order_by("id")
    assert [entry.action for entry in entries] == [
        "trigger.created", "trigger.created", "trigger.updated", "trigger.deleted",
    ]  # fmt: skip
    assert entries[2].details == {"kind": "file", "enabled": True, "pattern": "*.csv"}
    assert all(hook["secret"] not in str(entry.details) for entry in entries)
    assert not Trigger.objects.filter(pk=file_trigger["id"]).exists()
