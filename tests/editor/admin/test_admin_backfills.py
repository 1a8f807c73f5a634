"""Pins and backfills in the admin: listed, searched and filtered, never edited by hand; a
running backfill cancelled by an admin action, as the API cancels it."""

from __future__ import annotations

import pytest

from editor.backfills import actions as backfill_actions
from editor.backfills import advance
from editor.models import AuditEntry, Backfill, BackfillInterval, Pin, Pipeline, Run
from editor.pipelines import actions, pins
from editor.schedules import actions as schedule_actions
from runtime.document.spec import load_document
from runtime.execution.statuses import RunStatus
from tests.editor.admin.forms import messages_of
from tests.editor.backfills.test_backfills import (
    BODY,
    DAILY,
    runs_stay_queued,  # noqa: F401  (a fixture)
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def daily(owner, data_root) -> Pipeline:
    return actions.create_pipeline(owner, load_document(DAILY))


def backfill_of(pipeline: Pipeline, owner, start: str = "2024-01-01") -> Backfill:
    fields = schedule_actions.ScheduleIn(cron="0 0 * * *", timezone="UTC", enabled=False)
    schedule = schedule_actions.create_schedule(pipeline, owner, fields)
    body = backfill_actions.BackfillIn(**{**BODY, "start": start, "concurrency": 2})
    return backfill_actions.create_backfill(schedule, owner, body)


def listed(admin_client, path: str) -> list:
    return list(admin_client.get(path).context["cl"].result_list)


def test_pins_are_listed_searched_and_filtered_by_workspace(admin_client, pipeline, owner, other):
    pins.pin_from_rows(pipeline, owner, "adults", [{"id": 1, "name": "Ada", "age": 36}])
    theirs = actions.create_pipeline(other, load_document(DAILY))
    pins.pin_from_rows(theirs, other, "read", [{"id": 2}])

    everything = listed(admin_client, "/admin/editor/pin/")
    assert sorted((pin.pipeline.name, pin.node_id, pin.rows) for pin in everything) == [
        ("Adults", "adults", 1), ("Daily", "read", 1)
    ]  # fmt: skip
    assert [pin.node_id for pin in listed(admin_client, "/admin/editor/pin/?q=daily")] == ["read"]
    workspace = f"pipeline__workspace__id__exact={pipeline.workspace_id}"
    assert [pin.node_id for pin in listed(admin_client, f"/admin/editor/pin/?{workspace}")] == [
        "adults"
    ]


def test_a_pin_cannot_be_added_or_changed_by_hand(admin_client, pipeline, owner):
    pin = pins.pin_from_rows(pipeline, owner, "adults", [{"id": 1, "name": "Ada", "age": 36}])
    assert admin_client.get("/admin/editor/pin/add/").status_code == 403
    page = admin_client.get(f"/admin/editor/pin/{pin.pk}/change/")
    assert page.status_code == 200 and b'name="rows"' not in page.content
    admin_client.post(f"/admin/editor/pin/{pin.pk}/change/", {"rows": "999", "file": "x"})
    pin.refresh_from_db()
    assert pin.rows == 1 and pin.file != "x"


def test_backfills_are_listed_with_their_intervals_counted_and_filtered_by_status(
    admin_client, daily, owner
):
    running = backfill_of(daily, owner)
    ended = backfill_of(daily, owner, start="2024-01-05")
    backfill_actions.cancel_backfill(ended, owner)
    advance.advance(running.pk)

    response = admin_client.get("/admin/editor/backfill/")
    assert [item.pk for item in response.context["cl"].result_list] == [ended.pk, running.pk]
    assert "8 waiting · 2 running of 10" in response.content.decode()
    assert "6 cancelled of 6" in response.content.decode()
    only = listed(admin_client, "/admin/editor/backfill/?status__exact=running")
    assert [item.pk for item in only] == [running.pk]
    assert [item.pk for item in listed(admin_client, "/admin/editor/backfill/?q=daily")] == [
        ended.pk, running.pk
    ]  # fmt: skip


def test_a_backfill_is_read_only_in_the_admin(admin_client, daily, owner):
    backfill = backfill_of(daily, owner)
    page = admin_client.get(f"/admin/editor/backfill/{backfill.pk}/change/")
    assert page.status_code == 200 and b'name="concurrency"' not in page.content
    assert page.content.count(b"2024-01-0") >= 10  # its intervals, shown
    admin_client.post(f"/admin/editor/backfill/{backfill.pk}/change/", {"concurrency": "32"})
    backfill.refresh_from_db()
    assert backfill.concurrency == 2
    assert admin_client.get("/admin/editor/backfill/add/").status_code == 403
    assert admin_client.get(f"/admin/editor/backfill/{backfill.pk}/delete/").status_code == 403


def test_the_cancel_action_cancels_a_running_backfill_and_its_runs_audited(
    admin_client, daily, owner
):
    running = backfill_of(daily, owner)
    ended = backfill_of(daily, owner, start="2024-01-05")
    backfill_actions.cancel_backfill(ended, owner)
    started = advance.advance(running.pk)
    assert len(started) == 2

    body = {"action": "cancel", "_selected_action": [running.pk, ended.pk]}
    response = admin_client.post("/admin/editor/backfill/", body, follow=True)

    assert messages_of(response) == [
        "Cancelled 1 backfill(s).",
        "1 backfill(s) had ended already: left as they were.",
    ]
    running.refresh_from_db()
    assert running.status == Backfill.Status.CANCELLED
    assert not running.intervals.exclude(status=BackfillInterval.Status.CANCELLED).exists()
    assert set(Run.objects.filter(pk__in=started).values_list("status", flat=True)) == {
        RunStatus.CANCELLED
    }
    cancels = AuditEntry.objects.filter(action="backfill.cancelled").order_by("pk")
    assert [(entry.details["backfill"], entry.username) for entry in cancels] == [
        (ended.pk, "owner"), (running.pk, "admin")
    ]  # fmt: skip


def test_a_pin_deleted_in_the_admin_unpins_its_node_and_its_file_goes(
    admin_client, pipeline, owner, django_capture_on_commit_callbacks
):
    pin = pins.pin_from_rows(pipeline, owner, "adults", [{"id": 1, "name": "Ada", "age": 36}])
    file = pins.pipeline_folder(pipeline.pk).parent / pin.file
    assert file.exists()

    with django_capture_on_commit_callbacks(execute=True):
        response = admin_client.post(f"/admin/editor/pin/{pin.pk}/delete/", {"post": "yes"})

    assert response.status_code == 302
    assert not Pin.objects.filter(pk=pin.pk).exists()
    assert not file.exists()
