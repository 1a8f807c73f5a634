"""Schedules in the admin: listed, added and edited through `editor.schedules.actions`, with the
messages the API gives at the field that is wrong."""

from __future__ import annotations

import pytest

from editor.models import Schedule

FORM = {
    "name": "",
    "cron": "0 6 * * *",
    "timezone": "Europe/Paris",
    "parameters": "{}",
    "enabled": "on",
    "missed": "skip",
    "overlap": "skip",
}


@pytest.mark.django_db
def test_a_schedule_added_in_the_admin_is_saved_as_the_api_saves_it(admin_client, pipeline):
    response = admin_client.post(
        "/admin/editor/schedule/add/", {**FORM, "pipeline": pipeline.pk, "cron": " 0  6 * * *"}
    )

    assert response.status_code == 302, response.content.decode()[-2000:]
    schedule = Schedule.objects.get()
    assert schedule.cron == "0 6 * * *" and schedule.owner.username == "admin"
    assert schedule.next_fire_at is not None
    listed = admin_client.get("/admin/editor/schedule/?enabled__exact=1")
    assert "0 6 * * *" in listed.content.decode()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"cron": "0 25 * * *"}, "the hour field &#x27;25&#x27; is not valid"),
        ({"timezone": "Mars/Olympus"}, "is not an IANA time zone"),
        ({"parameters": '{"nope": 1}'}, "unknown parameter &#x27;nope&#x27;"),
    ],
    ids=["cron", "zone", "parameters"],
)
def test_the_admin_refuses_a_bad_schedule_with_the_apis_message(
    admin_client, pipeline, change, message
):
    response = admin_client.post(
        "/admin/editor/schedule/add/", {**FORM, "pipeline": pipeline.pk, **change}
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Schedule.objects.exists()


@pytest.mark.django_db
def test_the_admin_refuses_a_schedule_past_the_pipelines_50(admin_client, pipeline, admin_user):
    Schedule.objects.bulk_create(
        Schedule(pipeline=pipeline, owner=admin_user, cron="0 6 * * *") for _ in range(50)
    )
    response = admin_client.post("/admin/editor/schedule/add/", {**FORM, "pipeline": pipeline.pk})
    assert response.status_code == 200
    assert "a pipeline has at most 50 schedules" in response.content.decode()
    assert Schedule.objects.count() == 50
