"""Workspaces: who may do what, and that one workspace never reaches another's files.

Each attack here is made for real through the API (previews, schemas, runs, uploads): a
second user reading or overwriting the first one's files, a viewer saving or running, a
stranger naming a workspace or connection that is not theirs.
"""

from __future__ import annotations

import json
import os

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from editor.models import Connection, Pipeline, Role, Run, Workspace
from editor.workspaces.membership import create_workspace, personal_workspace, set_member
from editor.workspaces.tokens import create_token, user_for_token
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json, wait_for_run

SECRET_ROWS = "id,secret\n1,the other team's numbers\n"


def pipeline_reading(path: str, *, write: str = "out/copy.csv") -> dict:
    return {
        **SEED,
        "name": f"reads {path}",
        "config": {},
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": path}},
            {"id": "write", "operator": "csv_output", "params": {"path": write}},
        ],
        "edges": [{"source": "read", "target": "write"}],
    }


@pytest.fixture
def victim_folder(other, data_root):
    """The other user's workspace folder, holding a file nobody else may read."""
    folder = data_root.parent / personal_workspace(other).slug
    folder.mkdir(exist_ok=True)
    (folder / "secret.csv").write_text(SECRET_ROWS)
    return folder


@pytest.fixture
def team(owner, other, data_root):
    """A shared workspace where `owner` is an admin and `other` a viewer."""
    workspace = create_workspace("Team", admin=owner)
    set_member(workspace, other, Role.VIEWER)
    return workspace


# every user has a workspace of their own


@pytest.mark.django_db
def test_every_new_user_gets_a_personal_workspace_they_administer():
    user = get_user_model().objects.create_user("ada.lovelace@example.com")
    workspace = Workspace.objects.get(personal_of=user)
    assert workspace.slug == "adalovelaceexamplecom"
    assert workspace.memberships.get().role == Role.ADMIN


@pytest.mark.django_db
def test_a_token_only_user_lists_and_creates_in_their_workspace(data_root):
    user = get_user_model().objects.create_user("bot")  # no password: only a token
    token = create_token(user, "ci")
    assert user_for_token(token) == user
    client = client_for(user)
    listed = client.get("/api/workspaces", HTTP_AUTHORIZATION=f"Bearer {token}").json()
    assert listed["items"] == [
        {"slug": "bot", "name": "bot", "personal": True, "mine": True, "role": "admin"}
    ]
    created = post_json(client, "/api/pipelines", SEED).json()
    assert Pipeline.objects.get(pk=created["id"]).workspace.slug == "bot"


@pytest.mark.django_db
def test_slugs_never_take_the_reserved_names():
    for name in ("shared", ".pipewright", "Shared"):
        user = get_user_model().objects.create_user(name)
        slug = personal_workspace(user).slug
        assert slug not in ("shared", ".pipewright") and not slug.startswith(".")


# roles


@pytest.mark.django_db
def test_a_viewer_opens_previews_and_exports_but_neither_saves_nor_runs(
    owner, other, team, data_root
):
    team_folder = data_root.parent / team.slug
    (team_folder / "people.csv").write_text((data_root / "people.csv").read_text())
    created = post_json(client_for(owner), "/api/pipelines", {**SEED, "workspace": team.slug})
    assert created.status_code == 201, created.content
    pipeline_id = created.json()["id"]
    viewer = client_for(other)
    assert viewer.get(f"/api/pipelines/{pipeline_id}").status_code == 200
    assert viewer.get(f"/api/pipelines/{pipeline_id}/export").status_code == 200
    preview = post_json(viewer, f"/api/pipelines/{pipeline_id}/preview", {"node": "adults"})
    assert preview.status_code == 200 and len(preview.json()["rows"]) == 2
    saved = put_json(viewer, f"/api/pipelines/{pipeline_id}", {**SEED, "revision": 1})
    assert saved.status_code == 403
    assert saved.json()["message"] == (
        "you are a viewer in workspace 'team'; to edit there you need the editor role "
        "(ask one of its admins)"
    )
    assert post_json(viewer, f"/api/pipelines/{pipeline_id}/runs", {}).status_code == 403
    assert viewer.delete(f"/api/pipelines/{pipeline_id}").status_code == 403
    assert not Run.objects.exists()
    refused = post_json(viewer, "/api/pipelines", {**SEED, "workspace": team.slug})
    assert refused.status_code == 403 and Pipeline.objects.count() == 1


@pytest.mark.django_db
def test_an_editor_saves_and_runs_but_only_an_admin_manages_members(owner, other, team):
    set_member(team, other, Role.EDITOR)
    editor = client_for(other)
    added = put_json(editor, f"/api/workspaces/{team.slug}/members/other", {"role": "admin"})
    assert added.status_code == 403
    connection = put_json(
        editor, f"/api/workspaces/{team.slug}/connections/db", {"url": "sqlite:///x.db"}
    )
    assert connection.status_code == 403 and not Connection.objects.exists()
    admin = client_for(owner)
    promoted = put_json(admin, f"/api/workspaces/{team.slug}/members/other", {"role": "admin"})
    assert promoted.status_code == 200
    assert team.memberships.get(user=other).role == Role.ADMIN


@pytest.mark.django_db
def test_a_workspace_keeps_its_last_admin(owner, team):
    admin = client_for(owner)
    demoted = put_json(admin, f"/api/workspaces/{team.slug}/members/owner", {"role": "viewer"})
    assert demoted.status_code == 409 and demoted.json()["code"] == "last_admin"
    assert admin.delete(f"/api/workspaces/{team.slug}/members/owner").status_code == 409


@pytest.mark.django_db
def test_strangers_cannot_tell_a_workspace_exists(other, team):
    stranger = make_user("stranger")
    for url in (f"/api/workspaces/{team.slug}", "/api/workspaces/nope"):
        answer = client_for(stranger).get(url)
        assert answer.status_code == 404 and answer.json()["message"] == "no such workspace"
    listed = client_for(stranger).get("/api/workspaces").json()["items"]
    assert [item["slug"] for item in listed] == ["stranger"]


@pytest.mark.django_db
def test_only_staff_create_shared_workspaces(client, staff):
    assert post_json(client, "/api/workspaces", {"name": "Finance"}).status_code == 403
    created = post_json(client_for(staff), "/api/workspaces", {"name": "Finance"})
    assert created.status_code == 201 and created.json()["slug"] == "finance"
    reserved = post_json(client_for(staff), "/api/workspaces", {"name": "X", "slug": "shared"})
    assert reserved.status_code == 400 and reserved.json()["field"] == "slug"


# files: one workspace never reaches another's


@pytest.mark.django_db
@pytest.mark.parametrize(
    "path",
    ["../other/secret.csv", "{root}/other/secret.csv", "shared/../other/secret.csv"],
    ids=["dot-dot", "absolute", "through shared"],
)
def test_a_preview_cannot_read_another_workspaces_file(client, victim_folder, path):
    path = path.format(root=victim_folder.parent)
    created = post_json(client, "/api/pipelines", pipeline_reading(path)).json()
    answer = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "read"})
    assert answer.status_code == 422
    assert "is outside the" in answer.json()["message"]
    assert "numbers" not in answer.content.decode()
    if not path.startswith("/"):  # a path the document gave is named as it gave it
        assert str(victim_folder.parent) not in answer.json()["message"]
    schemas = client.get(f"/api/pipelines/{created['id']}/schemas").json()
    assert "is outside the" in json.dumps(schemas)


@pytest.mark.django_db
def test_a_symlink_to_another_workspace_is_refused(client, victim_folder, data_root):
    os.symlink(victim_folder / "secret.csv", data_root / "innocent.csv")
    created = post_json(client, "/api/pipelines", pipeline_reading("innocent.csv")).json()
    answer = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "read"})
    assert answer.status_code == 422 and "numbers" not in answer.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "refusal"),
    [
        ("../other/*.csv", "goes up a folder"),
        ("../*/secret.csv", "goes up a folder"),
        ("shared/../other/*.csv", "goes up a folder"),
        ("{root}/other/*.csv", "is outside the workspace folder"),
        ("{root}/*/secret.csv", "is outside the workspace folder"),
    ],
    ids=["dot-dot", "dot-dot star", "through shared", "absolute", "absolute star"],
)
def test_a_pattern_cannot_reach_another_workspaces_files(client, victim_folder, path, refusal):
    path = path.format(root=victim_folder.parent)
    created = post_json(client, "/api/pipelines", pipeline_reading(path)).json()
    answer = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "read"})
    assert answer.status_code == 422 and refusal in answer.json()["message"]
    assert "numbers" not in answer.content.decode()
    schemas = client.get(f"/api/pipelines/{created['id']}/schemas").json()
    assert refusal in json.dumps(schemas) and "numbers" not in json.dumps(schemas)


@pytest.mark.django_db(transaction=True)
def test_a_pattern_over_the_whole_workspace_reads_its_own_files_only(
    client, victim_folder, data_root
):
    os.symlink(victim_folder, data_root / "team")  # `**` does not follow it; `*` meets it
    (data_root / "more").mkdir()
    (data_root / "more" / "people.csv").write_text("id,name,age\n4,Alan,41\n")
    created = post_json(client, "/api/pipelines", pipeline_reading("**/*.csv")).json()
    answer = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "read"})
    assert answer.status_code == 200, answer.json()
    assert [row[1] for row in answer.json()["rows"]] == ["Alan", "Ada", "Linus", "Grace"]
    created = post_json(client, "/api/pipelines", pipeline_reading("*/*.csv")).json()
    refused = post_json(client, f"/api/pipelines/{created['id']}/runs", {})
    assert refused.status_code == 422 and refused.json()["field"] == "params.path"
    assert "'team/secret.csv' (named by '*/*.csv') leads outside" in refused.json()["message"]
    assert "numbers" not in refused.content.decode() and not Run.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_pattern_that_matches_nothing_stops_a_run_before_it_starts(client, data_root):
    created = post_json(client, "/api/pipelines", pipeline_reading("sales/2026-*.csv")).json()
    refused = post_json(client, f"/api/pipelines/{created['id']}/runs", {})
    assert refused.status_code == 422 and refused.json()["field"] == "params.path"
    assert refused.json()["message"].endswith("read: Path: no files match 'sales/2026-*.csv'")
    assert not Run.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_run_cannot_overwrite_another_workspaces_file(client, victim_folder, data_root):
    document = pipeline_reading("people.csv", write="../other/secret.csv")
    created = post_json(client, "/api/pipelines", document).json()
    refused = post_json(client, f"/api/pipelines/{created['id']}/runs", {})
    assert refused.status_code == 422 and refused.json()["field"] == "params.path"
    assert "is outside the workspace folder" in refused.json()["message"]
    assert not Run.objects.exists()
    assert (victim_folder / "secret.csv").read_text() == SECRET_ROWS
    assert sorted(path.name for path in victim_folder.iterdir()) == ["secret.csv"]


@pytest.mark.django_db(transaction=True)
def test_everyone_reads_the_shared_folder_but_only_staff_write_it(
    owner, staff, data_root, settings
):
    shared = data_root.parent / "shared"
    shared.mkdir()
    (shared / "rates.csv").write_text("id,rate\n1,0.5\n")
    for user in (owner, staff):
        document = pipeline_reading("shared/rates.csv", write=f"shared/{user.username}.csv")
        client = client_for(user)
        created = post_json(client, "/api/pipelines", document).json()
        preview = post_json(client, f"/api/pipelines/{created['id']}/preview", {"node": "read"})
        assert preview.json()["rows"] == [[1, 0.5]]
        started = post_json(client, f"/api/pipelines/{created['id']}/runs", {})
        if user == owner:  # refused before the run, at the field
            assert started.status_code == 422 and started.json()["field"] == "params.path"
            assert "shared folder, which is read-only" in started.json()["message"]
        else:
            run = wait_for_run(started.json()["id"])
            assert run.status == "succeeded", run.error
    assert not Run.objects.filter(started_by=owner).exists()
    assert sorted(path.name for path in shared.iterdir()) == ["rates.csv", "staff.csv"]


# the Files API


@pytest.mark.django_db
def test_files_are_listed_uploaded_downloaded_and_deleted(client, data_root):
    url = "/api/workspaces/owner/files"
    upload = client.post(url, {"file": _upload("orders.csv", b"id\n1\n"), "folder": "in"})
    assert upload.status_code == 201 and upload.json() == {"path": "in/orders.csv"}
    assert (data_root / "in" / "orders.csv").read_bytes() == b"id\n1\n"
    listing = client.get(url).json()["items"]
    assert [(item["name"], item["kind"]) for item in listing] == [
        ("shared", "folder"),
        ("in", "folder"),
        ("people.csv", "file"),
    ]
    assert client.get(url, {"folder": "in"}).json()["items"][0]["path"] == "in/orders.csv"
    download = client.get(f"{url}/content", {"path": "in/orders.csv"})
    assert download.status_code == 200 and b"".join(download.streaming_content) == b"id\n1\n"
    assert client.delete(f"{url}?path=in/orders.csv").status_code == 204
    assert not (data_root / "in" / "orders.csv").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "folder", "status"),
    [
        ("x.csv", "../other", 400),
        (".hidden", "", 400),
        ("x.csv", "shared", 403),
    ],
    ids=["escape", "dot file", "shared"],
)
def test_an_upload_cannot_leave_the_workspace(client, victim_folder, name, folder, status):
    answer = client.post(
        "/api/workspaces/owner/files", {"file": _upload(name, b"evil"), "folder": folder}
    )
    assert answer.status_code == status, answer.content
    assert sorted(path.name for path in victim_folder.iterdir()) == ["secret.csv"]


@pytest.mark.django_db
def test_an_upload_over_an_existing_name_needs_replace_true_and_says_which_file(client, data_root):
    """As a user uploads a newer people.csv: refused naming it, the old bytes kept, until the
    upload says `replace=true` (it replaced the file without asking)."""
    url = "/api/workspaces/owner/files"
    before = (data_root / "people.csv").read_bytes()
    refused = client.post(url, {"file": _upload("people.csv", b"id\n9\n")})
    assert refused.status_code == 409, refused.content
    assert refused.json()["code"] == "file_exists"
    assert "'people.csv' exists already" in refused.json()["message"]
    assert (data_root / "people.csv").read_bytes() == before
    assert sorted(path.name for path in data_root.iterdir()) == ["people.csv"]  # no leftover

    replaced = client.post(url, {"file": _upload("people.csv", b"id\n9\n"), "replace": "true"})
    assert replaced.status_code == 201, replaced.content
    assert (data_root / "people.csv").read_bytes() == b"id\n9\n"
    fresh = client.post(url, {"file": _upload("new.csv", b"id\n1\n"), "replace": "false"})
    assert fresh.status_code == 201, fresh.content
    odd = client.post(url, {"file": _upload("odd.csv", b"id\n1\n"), "replace": "yes"})
    assert odd.status_code == 400 and odd.json()["field"] == "replace"


@pytest.mark.django_db
def test_another_user_cannot_download_or_delete_a_workspaces_files(other, data_root):
    stranger = client_for(other)
    url = "/api/workspaces/owner/files"
    assert stranger.get(f"{url}/content", {"path": "people.csv"}).status_code == 404
    assert stranger.delete(f"{url}?path=people.csv").status_code == 404
    assert (data_root / "people.csv").exists()


@pytest.mark.django_db
def test_an_oversized_upload_is_refused_before_it_is_stored(client, data_root, settings):
    settings.PIPEWRIGHT_MAX_UPLOAD_BYTES = 1000
    answer = client.post("/api/workspaces/owner/files", {"file": _upload("big.csv", b"x" * 5000)})
    assert answer.status_code == 413 and answer.json()["code"] == "too_large"
    assert not (data_root / "big.csv").exists()


def _upload(name: str, content: bytes):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, content)


# connections


@pytest.mark.django_db
def test_connections_are_named_per_workspace_and_their_passwords_never_shown(client, other, owner):
    url = "/api/workspaces/owner/connections/warehouse"
    body = {"url": "postgresql+psycopg://app@db.example.com/sales", "password": "hunter2-x"}
    assert put_json(client, url, body).status_code == 200
    connection = Connection.objects.get()
    assert "hunter2" not in connection.encrypted_password and "hunter2" in connection.full_url()
    listed = client.get("/api/workspaces/owner/connections").content.decode()
    assert "hunter2" not in listed and '"has_password": true' in listed
    other_view = client_for(other).get("/api/workspaces/owner/connections")
    assert other_view.status_code == 404
    assert client_for(other).get("/api/workspaces/other/connections").json() == {"items": []}


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("postgresql://app:hunter2@db/sales", "not in the URL"),
        ("postgresql://app@db/sales?password=hunter2", "not in the URL's options"),
        ("sqlite:////work/main/db.sqlite3", "inside the workspace's folder"),
        ("sqlite:///../other/shop.db", "inside the workspace's folder"),
        ("sqlite:///file:shop.db?mode=ro&uri=true", "takes no options"),
        ("sqlite://", "is a file in the workspace"),
    ],
    ids=["user-info", "query", "absolute", "dot-dot", "uri", "memory"],
)
def test_connection_urls_that_leak_or_escape_are_refused(client, url, message):
    answer = put_json(client, "/api/workspaces/owner/connections/db", {"url": url})
    assert answer.status_code == 400 and message in answer.json()["message"]
    assert "hunter2" not in answer.content.decode()
    assert not Connection.objects.exists()


@pytest.mark.django_db
def test_rotatekeys_reencrypts_with_the_newest_key_and_old_keys_still_read(owner, settings):
    from cryptography.fernet import Fernet

    from editor import encryption

    old = settings.PIPEWRIGHT_ENCRYPTION_KEYS[0]
    connection = Connection(
        workspace=personal_workspace(owner), name="db", url="postgresql://a@b/c"
    )
    connection.set_password("s3cret-pw")
    connection.save()
    new = Fernet.generate_key().decode()
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [new, old]
    call_command("rotatekeys")
    connection.refresh_from_db()
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [new]
    assert "s3cret-pw" in connection.full_url()
    settings.PIPEWRIGHT_ENCRYPTION_KEYS = [old]
    with pytest.raises(encryption.UnreadableSecret):
        connection.full_url()


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url",
    ["sqlite:////work/main/db.sqlite3", "sqlite:///file:db.sqlite3?uri=true", "sqlite:///../x.db"],
)
def test_the_admin_refuses_sqlite_files_outside_the_workspace(admin_client, owner, url):
    body = {
        "workspace": personal_workspace(owner).pk,
        "name": "escape",
        "url": url,
        "password": "",
        "read_only": "on",
    }
    page = admin_client.post("/admin/editor/connection/add/", body)
    assert page.status_code == 200 and "errorlist" in page.content.decode()
    assert not Connection.objects.exists()


@pytest.mark.django_db
def test_file_requests_the_file_system_refuses_are_4xx_not_500(client, data_root):
    url = "/api/workspaces/owner/files"
    too_long = client.post(url, {"file": _upload("é" * 200 + ".csv", b"1")})  # 404 bytes
    assert too_long.status_code == 400 and "255 bytes" in too_long.json()["message"]
    over_a_file = client.post(url, {"file": _upload("a.csv", b"1"), "folder": "people.csv"})
    assert over_a_file.status_code == 409
    assert client.get(url, {"folder": "a\x00b"}).status_code == 400
    assert client.get(f"{url}/content", {"path": "x" * 5000}).status_code == 400
    assert str(data_root) not in too_long.content.decode() + over_a_file.content.decode()


@pytest.mark.django_db
def test_links_that_lead_out_or_nowhere_are_not_listed(client, victim_folder, data_root):
    os.symlink(victim_folder, data_root / "their-folder")
    os.symlink(data_root / "gone.csv", data_root / "dangling.csv")
    listing = client.get("/api/workspaces/owner/files").json()["items"]
    assert [item["name"] for item in listing] == ["shared", "people.csv"]
    assert client.get("/api/workspaces/owner/files", {"folder": "their-folder"}).status_code == 400
