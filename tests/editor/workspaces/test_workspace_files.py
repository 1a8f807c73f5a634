"""Workspace files: one workspace never reaches another's, and the Files API lists, uploads,
downloads and deletes inside the workspace's folder only.

Each attack here is made for real through the API (previews, schemas, runs, uploads): a
second user reading or overwriting the first one's files, a pattern or a link leading out,
an upload leaving the folder or writing the read-only shared folder.
"""

from __future__ import annotations

import json
import os

import pytest

from editor.models import Run
from editor.workspaces.membership import personal_workspace
from tests.editor.conftest import SEED, client_for, post_json, wait_for_run

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
