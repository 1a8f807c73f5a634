"""The audit log: an entry per change with who, when and from where; no secret in any; kept
after pruning and deletion; append-only; listed read-only in the admin; CSV that no
spreadsheet evaluates."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command
from django.test import Client

from editor.audit.csv import cell
from editor.models import AppendOnly, AuditEntry, Connection, Role
from editor.pipelines import actions
from editor.runs.actions import cancel_run, start_run
from editor.workspaces.membership import create_workspace, set_member
from editor.workspaces.tokens import create_token
from runtime.document.spec import load_document
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json

pytestmark = pytest.mark.django_db

EDITOR = {"HTTP_X_PIPEWRIGHT_CLIENT": "editor"}
PASSWORD = "hunter2-very-secret"


def entries(action: str | None = None) -> list[AuditEntry]:
    found = AuditEntry.objects.order_by("id")
    return list(found.filter(action=action) if action else found)


def test_the_editor_and_a_token_script_are_told_apart(owner):
    browser = client_for(owner)
    created = browser.post(
        "/api/pipelines", json.dumps(SEED), content_type="application/json", **EDITOR
    ).json()
    script = Client(HTTP_AUTHORIZATION=f"Bearer {create_token(owner, 'ci')}")
    saved = put_json(script, f"/api/pipelines/{created['id']}", {**SEED, "revision": 1})
    assert saved.status_code == 200
    unmarked = post_json(client_for(owner), f"/api/pipelines/{created['id']}/duplicate", {})
    assert unmarked.status_code == 201
    rows = [(e.action, e.source, e.username, e.revision) for e in entries()]
    assert ("pipeline.created", "editor", "owner", 1) in rows
    assert ("pipeline.saved", "api", "owner", 2) in rows
    assert ("pipeline.duplicated", "api", "owner", 1) in rows


def test_each_change_to_a_pipeline_is_recorded_with_its_revision(client, owner):
    made = post_json(client, "/api/pipelines", SEED).json()
    url = f"/api/pipelines/{made['id']}"
    assert put_json(client, url, {**SEED, "name": "Grown-ups", "revision": 1}).status_code == 200
    assert put_json(client, url, {**SEED, "name": "Grown-ups", "revision": 2}).status_code == 200
    assert post_json(client, f"{url}/revisions/1/restore", {"revision": 3}).status_code == 200
    assert post_json(client, "/api/pipelines/import", SEED).status_code == 201
    assert client.delete(url).status_code == 204
    rows = [(e.action, e.object_id, e.revision) for e in entries() if e.object_type == "pipeline"]
    pid = made["id"]
    assert rows[:5] == [
        ("pipeline.created", pid, 1), ("pipeline.renamed", pid, 2), ("pipeline.saved", pid, 3),
        ("pipeline.restored", pid, 4), ("pipeline.imported", pid + 1, 1),
    ]  # fmt: skip
    assert rows[5] == ("pipeline.deleted", pid, 4)
    assert entries("pipeline.renamed")[0].details == {"renamed_from": "Adults"}
    assert entries("pipeline.restored")[0].details == {"restored": 1}  # the name is kept


def test_runs_started_and_cancelled_are_recorded_and_outlive_pruning(owner, data_root, settings):
    settings.PIPEWRIGHT_KEEP_RUNS = 1
    pipeline = actions.create_pipeline(owner, load_document(SEED))
    first = start_run(pipeline, owner, {"min_age": 3})
    cancel_run(first)
    second = start_run(pipeline, owner)
    cancel_run(second)
    start_run(pipeline, owner)  # prunes the first two runs
    assert pipeline.runs.count() == 1
    started = entries("run.started")
    assert [(e.object_id, e.object_name, e.source) for e in started[:2]] == [
        (first.pk, "run #1 of Adults", "cli"),
        (second.pk, "run #2 of Adults", "cli"),
    ]
    assert started[0].details == {
        "pipeline_id": pipeline.pk, "number": 1, "parameter_names": ["min_age"],
    }  # fmt: skip
    assert [e.object_id for e in entries("run.cancelled")] == [first.pk, second.pk]


def test_entries_outlive_the_pipeline_the_user_and_the_workspace(owner, staff):
    workspace = create_workspace("Team", admin=staff, slug="team")
    pipeline = actions.create_pipeline(owner, load_document(SEED), workspace)
    actions.delete_pipeline(pipeline)
    workspace.delete()
    owner.delete()
    kept = entries("pipeline.created")[0]
    assert (kept.username, kept.object_name, kept.workspace_slug) == ("owner", "Adults", "team")
    assert kept.user_id is not None and kept.workspace_id is not None


def test_connections_members_and_their_changes_are_recorded_without_secrets(owner, staff):
    workspace = create_workspace("Team", admin=staff, slug="team")
    admin = client_for(staff)
    base = "/api/workspaces/team"
    body = {"url": "postgresql+psycopg://app@db.example.com/sales", "password": PASSWORD}
    assert put_json(admin, f"{base}/connections/sales", body).status_code == 200
    changed = {"url": body["url"], "read_only": False}  # the password is kept
    assert put_json(admin, f"{base}/connections/sales", changed).status_code == 200
    call_command("rotatekeys", stdout=io.StringIO())
    assert admin.delete(f"{base}/connections/sales").status_code == 204
    assert put_json(admin, f"{base}/members/owner", {"role": "viewer"}).status_code == 200
    assert put_json(admin, f"{base}/members/owner", {"role": "editor"}).status_code == 200
    assert admin.delete(f"{base}/members/owner").status_code == 204
    actions_seen = [e.action for e in entries() if e.workspace_id == workspace.pk]
    assert actions_seen[1:] == [
        "connection.created", "connection.updated", "connection.key_rotated",
        "connection.deleted", "member.added", "member.role_changed", "member.removed",
    ]  # fmt: skip
    assert entries("connection.updated")[0].details == {
        "url": body["url"], "read_only": False, "prefix": "", "credentials_changed": False,
    }  # fmt: skip
    changed = entries("member.role_changed")[0]
    assert (changed.object_name, changed.details) == (
        "owner", {"role": "editor", "previous_role": "viewer"},
    )  # fmt: skip
    everything = json.dumps([[e.details, e.object_name] for e in entries()])
    assert PASSWORD not in everything
    assert not Connection.objects.exists()


def test_a_details_key_that_names_a_secret_is_never_stored(owner):
    from editor.audit import log as audit_log

    pipeline = actions.create_pipeline(owner, load_document(SEED))
    entry = audit_log.record("pipeline.saved", pipeline, details={"password": PASSWORD, "ok": 1})
    assert entry.details == {"ok": 1}


def test_the_log_is_append_only(owner):
    actions.create_pipeline(owner, load_document(SEED))
    entry = entries()[-1]
    entry.action = "pipeline.forged"
    with pytest.raises(AppendOnly):
        entry.save()
    with pytest.raises(AppendOnly):
        entry.delete()
    with pytest.raises(AppendOnly):
        AuditEntry.objects.all().delete()
    with pytest.raises(AppendOnly):
        AuditEntry.objects.update(action="pipeline.forged")


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"),
        ("+1", "'+1"), ("-2", "'-2"), ("@SUM(A1)", "'@SUM(A1)"),
        ("\tx", "'\tx"), ("\rx", "'\rx"), ("plain", "plain"), ("a=b", "a=b"),
    ],
    ids=["equals", "plus", "minus", "at", "tab", "cr", "plain", "inner"],
)  # fmt: skip
def test_csv_cells_a_spreadsheet_would_evaluate_are_quoted(text, written):
    assert cell(text) == written


def test_the_workspace_audit_api_is_for_its_admins_and_its_csv_is_escaped(owner, other, staff):
    workspace = create_workspace("Team", admin=staff, slug="team")
    set_member(workspace, owner, Role.EDITOR)
    actions.create_pipeline(owner, load_document({**SEED, "name": "=cmd|' /C calc'!A0"}), workspace)
    admin = client_for(staff)
    listed = admin.get("/api/workspaces/team/audit?limit=2").json()
    assert listed["count"] == 3 and len(listed["items"]) == 2
    assert listed["items"][0]["action"] == "pipeline.created"
    download = admin.get("/api/workspaces/team/audit.csv")
    text = b"".join(download.streaming_content).decode()
    rows = list(csv.DictReader(io.StringIO(text)))
    assert rows[-1]["object_name"] == "'=cmd|' /C calc'!A0"
    assert client_for(owner).get("/api/workspaces/team/audit").status_code == 403
    assert client_for(other).get("/api/workspaces/team/audit").status_code == 404
    assert client_for(other).get("/api/workspaces/team/audit.csv").status_code == 404


def test_the_admin_lists_entries_read_only_and_exports_them(owner):
    superuser = make_user("root", is_staff=True, is_superuser=True)
    admin = client_for(superuser)
    actions.create_pipeline(owner, load_document({**SEED, "name": "@risky"}))
    entry = entries()[-1]
    listing = admin.get("/admin/editor/auditentry/?source__exact=cli&q=risky")
    assert listing.status_code == 200 and b"@risky" in listing.content
    assert admin.get("/admin/editor/auditentry/add/").status_code == 403
    assert admin.get(f"/admin/editor/auditentry/{entry.pk}/delete/").status_code == 403
    posted = admin.post(f"/admin/editor/auditentry/{entry.pk}/change/", {"action": "forged"})
    assert posted.status_code == 403
    exported = admin.post(
        "/admin/editor/auditentry/",
        {"action": "export_csv", "_selected_action": [entry.pk]},
    )
    text = b"".join(exported.streaming_content).decode()
    assert "'@risky" in text
    assert AuditEntry.objects.get(pk=entry.pk).action == "pipeline.created"


def test_admin_changes_are_recorded_as_the_admin_s(owner):
    superuser = make_user("root", is_staff=True, is_superuser=True)
    pipeline = actions.create_pipeline(owner, load_document(SEED))
    admin = client_for(superuser)
    answer = admin.post(
        "/admin/editor/pipeline/", {"action": "duplicate", "_selected_action": [pipeline.pk]}
    )
    assert answer.status_code == 302
    copied = entries("pipeline.duplicated")[0]
    assert (copied.source, copied.username) == ("admin", "root")


def test_importpipeline_records_an_import(owner, tmp_path):
    document = tmp_path / "adults.json"
    document.write_text(json.dumps(SEED))
    call_command("importpipeline", str(document), "--owner", "owner", stdout=io.StringIO())
    imported = entries("pipeline.imported")[0]
    assert (imported.source, imported.username, imported.revision) == ("import", "owner", 1)
