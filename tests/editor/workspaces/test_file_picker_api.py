"""What the file picker asks of the Files API: every file's path (for search and completion)
and a file's first rows, read as an input would read them, inside the workspace only."""

from __future__ import annotations

import pytest

from editor.workspaces import files
from tests.editor.conftest import SEED, client_for, post_json

PATHS = "/api/workspaces/{slug}/files/paths"
PREVIEW = "/api/workspaces/{slug}/files/preview"


@pytest.fixture
def shared(data_root, settings):
    folder = data_root.parent / "shared"
    folder.mkdir(exist_ok=True)
    (folder / "rates.csv").write_text("currency,rate\nEUR,1\n")
    return folder


@pytest.mark.django_db
def test_every_file_is_listed_by_the_path_a_pipeline_names_it(client, data_root, shared):
    (data_root / "sales").mkdir()
    (data_root / "sales" / "2026.csv").write_text("a\n1\n")
    (data_root / ".hidden.csv").write_text("a\n1\n")
    (data_root / ".pipewright").mkdir(exist_ok=True)
    (data_root / ".pipewright" / "x.csv").write_text("a\n1\n")
    answer = client.get(PATHS.format(slug="owner")).json()
    assert answer == {
        "items": ["people.csv", "sales/2026.csv", "shared/rates.csv"],
        "truncated": False,
    }


@pytest.mark.django_db
def test_the_listing_stops_at_its_bound_and_says_so(client, data_root, monkeypatch):
    monkeypatch.setattr(files, "MAX_LISTED_FILES", 1)
    (data_root / "more.csv").write_text("a\n1\n")
    assert client.get(PATHS.format(slug="owner")).json() == {
        "items": ["more.csv"],
        "truncated": True,
    }


@pytest.mark.django_db
def test_folders_without_a_visible_file_count_toward_the_bound_too(client, data_root, monkeypatch):
    monkeypatch.setattr(files, "MAX_WALKED_FOLDERS", 3)
    for index in range(5):  # visible folders holding only a hidden one
        (data_root / f"a{index}" / ".h").mkdir(parents=True)
        (data_root / f"a{index}" / ".h" / "x.csv").write_text("a\n1\n")
    assert client.get(PATHS.format(slug="owner")).json()["truncated"] is True


@pytest.mark.django_db
def test_a_link_leading_out_of_the_workspace_is_not_listed(client, data_root, other):
    outside = data_root.parent / "elsewhere.csv"
    outside.write_text("secret\n1\n")
    (data_root / "link.csv").symlink_to(outside)
    assert "link.csv" not in client.get(PATHS.format(slug="owner")).json()["items"]


@pytest.mark.django_db(transaction=True)
def test_a_file_previews_its_first_twenty_rows_with_their_types(client, data_root):
    rows = "\n".join(f"{n},name {n}" for n in range(50))
    (data_root / "many.csv").write_text(f"id,name\n{rows}\n")
    answer = client.get(PREVIEW.format(slug="owner"), {"path": "many.csv"})
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert [column["name"] for column in body["columns"]] == ["id", "name"]
    assert body["columns"][0]["type"] == "integer"
    assert len(body["rows"]) == 20 and body["rows"][0] == [0, "name 0"]


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        ("nope.csv", 404, "not_found"),
        ("notes.txt.bak", 400, "not_previewable"),
        ("../other/secret.csv", 400, "unsafe_path"),
        ("*.csv", 404, "not_found"),
    ],
)
def test_what_cannot_be_previewed_is_a_4xx_naming_the_path(client, data_root, path, status, code):
    (data_root / "notes.txt.bak").write_text("x")
    answer = client.get(PREVIEW.format(slug="owner"), {"path": path})
    assert (answer.status_code, answer.json()["code"]) == (status, code), answer.content
    assert answer.json()["field"] == "path"


@pytest.mark.django_db
def test_another_workspaces_files_are_neither_listed_nor_previewed(other, data_root):
    stranger = client_for(other)
    assert stranger.get(PATHS.format(slug="owner")).status_code == 404
    assert stranger.get(PREVIEW.format(slug="owner"), {"path": "people.csv"}).status_code == 404


@pytest.mark.django_db(transaction=True)
def test_a_misspelt_input_file_is_a_problem_of_its_path_field_with_the_closest_name(
    client, data_root
):
    document = {
        **SEED,
        "name": "typo",
        "config": {},
        "nodes": [{"id": "read", "operator": "csv_input", "params": {"path": "peple.csv"}}],
        "edges": [],
    }
    pipeline_id = post_json(client, "/api/pipelines", document).json()["id"]
    answer = client.get(f"/api/pipelines/{pipeline_id}/schemas")
    assert answer.status_code == 200, answer.content
    [problem] = answer.json()["nodes"]["read"]["problems"]
    assert (problem["field"], problem["field_title"]) == ("params.path", "Path")
    assert problem["message"] == (
        "Path: input file 'peple.csv' not found under the workspace folder; "
        "did you mean 'people.csv'?"
    )
