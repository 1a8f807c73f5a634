"""The schedules API: editors add, change and delete a pipeline's schedules, viewers read
them, other users get 404; bad expressions, zones and parameters are refused naming the
field; the next five fire times come with each schedule and from the preview."""

from __future__ import annotations

from datetime import datetime

import pytest

from editor.models import Pipeline, Role, Schedule
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json

GOOD = {"cron": "0 6 * * MON-FRI", "timezone": "Europe/Paris", "parameters": {"min_age": 21}}


@pytest.fixture
def team(owner, data_root, settings):
    """A shared workspace with the owner as admin, an editor and a viewer, and a pipeline."""
    workspace = create_workspace("Team", admin=owner)
    (settings.PIPEWRIGHT_DATA_ROOT / workspace.slug / "people.csv").write_text("id,age\n1,30\n")
    editor, viewer = make_user("ed"), make_user("vi")
    set_member(workspace, editor, Role.EDITOR)
    set_member(workspace, viewer, Role.VIEWER)
    body = {**SEED, "workspace": workspace.slug}
    pipeline_id = post_json(client_for(owner), "/api/pipelines", body).json()["id"]
    return {"workspace": workspace, "editor": editor, "viewer": viewer, "pipeline": pipeline_id}


def url(team, schedule_id=None) -> str:
    tail = "" if schedule_id is None else f"/{schedule_id}"
    return f"/api/pipelines/{team['pipeline']}/schedules{tail}"


@pytest.mark.django_db
def test_an_editor_adds_a_schedule_and_becomes_its_owner_with_its_next_five_times(team):
    response = post_json(client_for(team["editor"]), url(team), GOOD)

    assert response.status_code == 201, response.content
    body = response.json()
    assert (body["owner"], body["cron"], body["enabled"]) == ("ed", "0 6 * * MON-FRI", True)
    assert (body["missed"], body["overlap"]) == ("skip", "skip")
    times = [datetime.fromisoformat(moment) for moment in body["next_times"]]
    assert len(times) == 5 and times == sorted(times)
    assert all(moment.weekday() < 5 for moment in times)
    assert body["next_fire_at"] == body["next_times"][0]


@pytest.mark.django_db
def test_viewers_read_schedules_but_may_not_change_them(team, owner):
    made = post_json(client_for(owner), url(team), GOOD).json()
    viewer = client_for(team["viewer"])

    assert [item["id"] for item in viewer.get(url(team)).json()["items"]] == [made["id"]]
    assert viewer.get(url(team, made["id"])).status_code == 200
    refused = post_json(viewer, url(team), GOOD)
    assert refused.status_code == 403 and "you need the editor role" in refused.json()["message"]
    assert put_json(viewer, url(team, made["id"]), GOOD).status_code == 403
    assert viewer.delete(url(team, made["id"])).status_code == 403


@pytest.mark.django_db
def test_another_user_gets_404_for_every_schedule_call(team, owner, other):
    made = post_json(client_for(owner), url(team), GOOD).json()
    stranger = client_for(other)

    assert stranger.get(url(team)).status_code == 404
    assert stranger.get(url(team, made["id"])).status_code == 404
    assert post_json(stranger, url(team), GOOD).status_code == 404
    assert put_json(stranger, url(team, made["id"]), GOOD).status_code == 404
    assert stranger.delete(url(team, made["id"])).status_code == 404
    assert Schedule.objects.get(pk=made["id"]).cron == GOOD["cron"]


@pytest.mark.django_db
def test_a_schedule_of_another_pipeline_is_not_reached_through_this_one(team, owner, client):
    made = post_json(client_for(owner), url(team), GOOD).json()
    mine = post_json(client, "/api/pipelines", SEED).json()["id"]
    assert client.get(f"/api/pipelines/{mine}/schedules/{made['id']}").status_code == 404


@pytest.mark.django_db
def test_an_edit_replaces_the_settings_and_the_editor_becomes_owner(team, owner):
    made = post_json(client_for(owner), url(team), GOOD).json()
    changed = {**GOOD, "cron": "*/15 * * * *", "overlap": "queue", "missed": "run_once"}

    body = put_json(client_for(team["editor"]), url(team, made["id"]), changed).json()

    assert (body["cron"], body["overlap"], body["missed"], body["owner"]) == (
        "*/15 * * * *", "queue", "run_once", "ed"
    )  # fmt: skip


@pytest.mark.django_db
def test_a_paused_schedule_has_no_next_times_and_a_delete_removes_it(team, owner):
    client = client_for(owner)
    made = post_json(client, url(team), {**GOOD, "enabled": False}).json()
    assert made["next_times"] == [] and made["enabled"] is False

    assert client.delete(url(team, made["id"])).status_code == 204
    assert not Schedule.objects.filter(pk=made["id"]).exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "status", "field", "message"),
    [
        ({"cron": "61 * * * *"}, 400, "cron", "the minute field '61' is not valid"),
        ({"cron": "* * * * * *"}, 400, "cron", "a minute is the finest step"),
        ({"cron": "0 0 30 2 *"}, 400, "cron", "never fires"),
        ({"timezone": "Mars/Olympus"}, 400, "timezone", "not an IANA time zone"),
        ({"parameters": {"nope": 1}}, 422, "parameters.nope", "unknown parameter 'nope'"),
        ({"missed": "always"}, 422, "missed", ""),
        ({"overlap": "parallel"}, 422, "overlap", ""),
        ({"cron": "1," * 300}, 422, "cron", "at most 200 characters"),
        ({"owner": "someone"}, 422, "owner", ""),
    ],
    ids=[
        "minute", "seconds", "never", "zone", "parameter", "missed", "overlap", "huge", "owner",
    ],
)  # fmt: skip
def test_a_bad_schedule_is_refused_naming_its_field(team, owner, change, status, field, message):
    response = post_json(client_for(owner), url(team), {**GOOD, **change})

    assert response.status_code == status, response.content
    body = response.json()
    assert body["field"] == field and message in body["message"]
    assert not Schedule.objects.exists()


@pytest.mark.django_db
def test_the_preview_gives_the_next_five_times_or_names_the_wrong_field(client):
    body = post_json(client, "/api/schedules/preview", {"cron": "30 2 * * *", "timezone": "UTC"})
    assert len(body.json()["next_times"]) == 5
    assert all(moment.endswith("02:30:00+00:00") for moment in body.json()["next_times"])

    bad = post_json(client, "/api/schedules/preview", {"cron": "0 0 * * *", "timezone": "Nowhere"})
    assert bad.status_code == 400 and bad.json()["field"] == "timezone"
    huge = post_json(client, "/api/schedules/preview", {"cron": "* " * 10_000, "timezone": "UTC"})
    assert huge.status_code == 400 and huge.json()["field"] == "cron"


@pytest.mark.django_db
def test_a_pipeline_takes_at_most_50_schedules(team, owner):
    pipeline = Pipeline.objects.get(pk=team["pipeline"])
    Schedule.objects.bulk_create(
        Schedule(pipeline=pipeline, owner=owner, cron="0 6 * * *") for _ in range(49)
    )
    client = client_for(owner)
    assert post_json(client, url(team), GOOD).status_code == 201

    refused = post_json(client, url(team), GOOD)

    assert refused.status_code == 400
    assert refused.json()["code"] == "too_many_schedules"
    assert "at most 50 schedules" in refused.json()["message"]
    assert Schedule.objects.filter(pipeline=pipeline).count() == 50
    made = Schedule.objects.filter(pipeline=pipeline).latest("pk")
    assert put_json(client, url(team, made.pk), GOOD).status_code == 200  # changes still save
