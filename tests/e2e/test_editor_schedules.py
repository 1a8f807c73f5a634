"""Settings → Schedules: a schedule is added in the editor, its next five times showing as
the expression is typed, a bad field is named, and the saved schedule is listed."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from playwright.async_api import expect

from editor.models import Schedule
from tests.e2e.editor_page import open_editor
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.console_allows("400 (Bad Request)")
async def test_a_schedule_is_added_in_settings_with_its_next_five_times_shown(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="Settings", exact=True).click()
    dialog = page.get_by_role("dialog", name="Pipeline settings")
    await dialog.get_by_role("button", name="+ Add schedule").click()

    await dialog.get_by_label("Cron expression").fill("0 25 * * *")
    await expect(dialog.get_by_text("the hour field '25' is not valid")).to_be_visible()
    await dialog.get_by_label("Cron expression").fill("30 2 * * *")
    await dialog.get_by_label("Time zone").fill("Europe/Paris")
    times = dialog.get_by_role("list", name="Next five times").get_by_role("listitem")
    await expect(times).to_have_count(5)
    await expect(times.first).to_contain_text("02:30")
    await dialog.get_by_label("While a run is going").select_option("queue")
    await times.last.scroll_into_view_if_needed()
    await screenshot(page, "typing")

    await dialog.get_by_role("button", name="Save schedule").click()
    await expect(dialog.get_by_text("30 2 * * *", exact=True)).to_be_visible()
    await expect(dialog.get_by_text("next:")).to_contain_text("02:30")
    await screenshot(page, "saved")
    saved = await sync_to_async(Schedule.objects.get)(pipeline_id=pipeline_id)
    assert (saved.cron, saved.timezone, saved.overlap) == ("30 2 * * *", "Europe/Paris", "queue")
