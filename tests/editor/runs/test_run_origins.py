"""A run says what started it: a backfill's interval (`trigger` "backfill" with the backfill and
the interval) or a trigger (by id, kind and name), in its details and in the run history,
without a query per run; a run whose trigger was deleted keeps the event in words."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from editor.backfills import advance
from editor.models import Backfill, Pipeline, Run
from editor.schedules import actions as schedule_actions
from editor.triggers import watch
from tests.editor.backfills.test_backfills import BODY, DAILY, url
from tests.editor.conftest import post_json
from tests.editor.triggers.helpers import make_pipeline
from tests.editor.triggers.test_webhook_triggers import call

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def runs_stay_queued(settings):
    settings.PIPEWRIGHT_WORKERS = "service"


def backfill_runs(client, owner) -> tuple[Backfill, list[int]]:
    pipeline = Pipeline.objects.get(pk=post_json(client, "/api/pipelines", DAILY).json()["id"])
    fields = schedule_actions.ScheduleIn(cron="0 0 * * *", timezone="UTC", enabled=False)
    schedule = schedule_actions.create_schedule(pipeline, owner, fields)
    body = {**BODY, "end": "2024-01-04", "concurrency": 3}
    backfill = Backfill.objects.get(pk=post_json(client, url(schedule), body).json()["id"])
    return backfill, advance.advance(backfill.pk)


def test_a_backfills_run_is_labelled_backfill_with_its_interval(client, data_root, owner):
    backfill, [first, *_] = backfill_runs(client, owner)

    details = client.get(f"/api/runs/{first}").json()

    assert details["trigger"] == "backfill"
    assert details["started_from"] == {
        "kind": "backfill",
        "backfill": backfill.pk,
        "interval_start": "2024-01-01T00:00:00+00:00",
        "interval_end": "2024-01-02T00:00:00+00:00",
        **dict.fromkeys(("trigger", "trigger_kind", "name")),
    }


def test_a_triggered_run_names_its_trigger_until_the_trigger_is_deleted(client, data_root):
    pipeline = make_pipeline(client)
    base = f"/api/pipelines/{pipeline.pk}/triggers"
    hook = post_json(client, base, {"kind": "webhook", "name": "From CRM",
                                    "parameters": {"min_age": "age"}}).json()  # fmt: skip
    call(hook, b'{"age": 30}')
    [run_id] = watch.tick()

    details = client.get(f"/api/runs/{run_id}").json()
    assert details["trigger"] == "trigger"
    assert details["started_from"] == {
        "kind": "trigger", "trigger": hook["id"], "trigger_kind": "webhook", "name": "From CRM",
        **dict.fromkeys(("backfill", "interval_start", "interval_end")),
    }  # fmt: skip

    assert client.delete(f"{base}/{hook['id']}").status_code == 204
    details = client.get(f"/api/runs/{run_id}").json()
    assert details["started_from"] is None
    assert details["triggered_by"].startswith(f"trigger {hook['id']} (webhook): webhook call")


def test_the_history_says_what_started_each_run_in_a_fixed_number_of_queries(
    client, data_root, owner
):
    backfill, started = backfill_runs(client, owner)
    Run.objects.filter(pk__in=started).update(status="succeeded")
    pipeline_id = backfill.pipeline_id
    with CaptureQueriesContext(connection) as three:
        listed = client.get(f"/api/pipelines/{pipeline_id}/runs").json()["items"]
    assert [run["started_from"]["interval_start"][:10] for run in listed] == [
        "2024-01-03", "2024-01-02", "2024-01-01"
    ]  # fmt: skip
    advance.advance(backfill.pk)  # nothing left to claim: the runs stay three
    post_json(client, f"/api/pipelines/{pipeline_id}/runs", {})  # and a person's run
    with CaptureQueriesContext(connection) as four:
        listed = client.get(f"/api/pipelines/{pipeline_id}/runs").json()["items"]
    assert [run["trigger"] for run in listed] == ["manual", "backfill", "backfill", "backfill"]
    assert listed[0]["started_from"] is None
    assert len(four.captured_queries) == len(three.captured_queries)
