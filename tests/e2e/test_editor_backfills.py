"""Settings → Schedules → Backfill: a backfill is started over a date range, a parameter the
pipeline does not declare is named, and the progress and the calendar of intervals show."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from playwright.async_api import expect

from editor.models import Backfill, BackfillInterval, Pipeline
from editor.schedules import actions as schedules
from tests.e2e.editor_page import open_editor
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def make_schedule(pipeline_id: int, user) -> None:
    fields = schedules.ScheduleIn(cron="0 0 * * *", timezone="UTC", enabled=False)
    schedules.create_schedule(Pipeline.objects.get(pk=pipeline_id), user, fields)


@pytest.mark.console_allows("400 (Bad Request)")
async def test_a_backfill_is_started_from_a_schedule_and_its_calendar_shows(
    signed_in, api, people, user, screenshot
):
    """The server's scheduler may start intervals meanwhile: counts are read as totals."""
    page = signed_in
    document = seed(people) | {"config": {"parameters": {"day": "2024-01-01", "until": ""}}}
    pipeline_id = await api.create(document)
    await sync_to_async(make_schedule)(pipeline_id, user)
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="Settings", exact=True).click()
    dialog = page.get_by_role("dialog", name="Pipeline settings")
    await dialog.get_by_role("button", name="Backfill").click()

    form = dialog.get_by_role("group", name="New backfill")
    await form.get_by_label("From").fill("2024-01-01")
    await form.get_by_label("To").fill("2024-03-01")
    await form.get_by_role("button", name="Start backfill").click()
    await expect(form.get_by_text("declares no parameter 'interval_start'")).to_be_visible()

    await form.get_by_label("Start parameter").fill("day")
    await form.get_by_label("End parameter").fill("until")
    await form.get_by_role("button", name="Start backfill").click()
    await expect(dialog.get_by_label("Progress")).to_contain_text("of 60")
    calendar = dialog.get_by_label("Calendar of intervals")
    await expect(calendar.locator(".pw-calendar-cells .pw-calendar-cell")).to_have_count(60)
    await calendar.scroll_into_view_if_needed()
    await screenshot(page, "started")

    await dialog.get_by_role("button", name="Cancel backfill").click()
    await expect(dialog.get_by_label("Progress")).to_contain_text("cancelled")
    await expect(dialog.get_by_role("button", name="Cancel backfill")).to_have_count(0)
    backfill = await sync_to_async(Backfill.objects.get)(pipeline_id=pipeline_id)
    assert backfill.status == Backfill.Status.CANCELLED
    running = backfill.intervals.filter(status=BackfillInterval.Status.RUNNING)
    assert not await sync_to_async(running.exists)()
