"""Workspaces and their members: every user has a workspace of their own, roles decide who
may read, save, run and manage members, and strangers cannot tell a workspace exists.

Each check is made for real through the API, as a viewer, an editor, an admin or a stranger.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from editor.models import Connection, Pipeline, Role, Run, Workspace
from editor.workspaces.membership import create_workspace, personal_workspace, set_member
from editor.workspaces.tokens import create_token, user_for_token
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json


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
