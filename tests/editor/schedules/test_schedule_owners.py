"""A schedule whose owner leaves the workspace (or falls below editor) is paused with the
reason, and the workspace's admins are told; it never runs with rights its owner lost."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import pytest

from editor.models import Role
from editor.schedules import scheduler
from editor.workspaces.membership import create_workspace, remove_member, set_member
from tests.editor.conftest import SEED, client_for, make_user, post_json
from tests.editor.schedules.helpers import make_schedule

START = datetime(2026, 5, 1, 8, tzinfo=UTC)


@pytest.fixture
def shared(owner, data_root, settings):
    """A workspace the owner administers, an editor in it owning a schedule of its pipeline."""
    settings.PIPEWRIGHT_WORKERS = "service"
    workspace = create_workspace("Team", admin=owner)
    (settings.PIPEWRIGHT_DATA_ROOT / workspace.slug / "people.csv").write_text("id,age\n1,30\n")
    editor = make_user("ed")
    set_member(workspace, editor, Role.EDITOR)
    body = {**SEED, "workspace": workspace.slug}
    pipeline_id = post_json(client_for(owner), "/api/pipelines", body).json()["id"]
    pipeline = workspace.pipelines.get(pk=pipeline_id)
    schedule = make_schedule(pipeline, editor, START, cron="0 9 * * *")
    return workspace, editor, schedule


@pytest.mark.django_db
def test_an_owner_removed_from_the_workspace_has_their_schedule_paused_and_admins_told(
    shared, owner, caplog
):
    workspace, editor, schedule = shared
    with caplog.at_level(logging.WARNING, logger="editor.schedules.actions"):
        remove_member(workspace, editor)

    schedule.refresh_from_db()
    assert schedule.enabled is False
    assert schedule.paused_reason.startswith("paused: its owner ed may no longer run pipelines")
    assert f"workspace {workspace.slug}: schedule {schedule.pk}" in caplog.text
    assert scheduler.tick(START + timedelta(hours=1)) == []
    listed = client_for(owner).get(f"/api/workspaces/{workspace.slug}").json()
    assert listed["paused_schedules"] == [
        {
            "id": schedule.pk,
            "pipeline": schedule.pipeline_id,
            "pipeline_name": "Adults",
            "cron": "0 9 * * *",
            "reason": schedule.paused_reason,
        }
    ]


@pytest.mark.django_db
def test_an_owner_whose_role_falls_to_viewer_has_their_schedule_paused(shared):
    workspace, editor, schedule = shared
    set_member(workspace, editor, Role.VIEWER)
    schedule.refresh_from_db()
    assert schedule.enabled is False and "ed may no longer run" in schedule.paused_reason


@pytest.mark.django_db
def test_a_role_change_that_keeps_the_right_to_run_leaves_the_schedule_alone(shared):
    workspace, editor, schedule = shared
    set_member(workspace, editor, Role.ADMIN)
    schedule.refresh_from_db()
    assert schedule.enabled is True and schedule.paused_reason == ""


@pytest.mark.django_db
def test_an_owner_who_lost_the_right_another_way_is_paused_when_the_schedule_fires(shared):
    _workspace, editor, schedule = shared
    editor.is_active = False  # deactivated: no membership changed
    editor.save()

    assert scheduler.tick(START + timedelta(hours=1)) == []
    schedule.refresh_from_db()
    assert schedule.enabled is False and "ed may no longer run" in schedule.paused_reason
    assert not schedule.runs.exists()


@pytest.mark.django_db
def test_an_editor_who_saves_a_paused_schedule_takes_it_over_and_it_fires_again(shared, owner):
    workspace, editor, schedule = shared
    remove_member(workspace, editor)
    url = f"/api/pipelines/{schedule.pipeline_id}/schedules/{schedule.pk}"
    body = {"cron": "0 9 * * *", "enabled": True}

    answer = client_for(owner).put(url, body, content_type="application/json").json()

    assert (answer["owner"], answer["enabled"], answer["paused_reason"]) == ("owner", True, "")
    assert (
        client_for(owner).get(f"/api/workspaces/{workspace.slug}").json()["paused_schedules"] == []
    )


@pytest.mark.django_db
def test_members_who_are_not_admins_are_not_shown_the_paused_schedules(shared):
    workspace, editor, _schedule = shared
    other_editor = make_user("eve")
    set_member(workspace, other_editor, Role.EDITOR)
    remove_member(workspace, editor)
    body = client_for(other_editor).get(f"/api/workspaces/{workspace.slug}").json()
    assert body.get("paused_schedules") is None
