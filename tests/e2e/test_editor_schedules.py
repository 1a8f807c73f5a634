"""Settings → Schedules: a schedule is added in the editor, its next five times showing as
the expression is typed, a bad field is named, and the saved schedule is listed; the
workspace page tells its admins of a schedule paused because its owner left."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from playwright.async_api import expect

from editor.models import Role, Schedule
from editor.pipelines import actions
from editor.workspaces.membership import create_workspace, remove_member, set_member
from runtime.document.spec import load_document
from tests.e2e.editor_page import open_editor
from tests.e2e.seed_pipeline import seed
from tests.editor.conftest import SEED as SEED_DOCUMENT

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


async def test_a_schedule_every_n_minutes_is_picked_not_typed_and_apply_is_at_the_bottom(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="Settings", exact=True).click()
    dialog = page.get_by_role("dialog", name="Pipeline settings")
    await dialog.get_by_role("button", name="+ Add schedule").click()
    await dialog.get_by_label("Runs", exact=True).select_option("interval")
    await dialog.get_by_label("Every", exact=True).select_option("20")
    await expect(dialog.get_by_label("Cron expression")).to_have_value("*/20 * * * *")
    times = dialog.get_by_role("list", name="Next five times").get_by_role("listitem")
    await expect(times).to_have_count(5)
    await screenshot(page, "interval")
    await dialog.get_by_role("button", name="Save schedule").click()
    await expect(dialog.get_by_text("every 20 minutes", exact=True)).to_be_visible()
    saved = await sync_to_async(Schedule.objects.get)(pipeline_id=pipeline_id)
    assert saved.cron == "*/20 * * * *"

    # Close and Apply close the dialog, below every section (notifications the last).
    apply = dialog.get_by_role("button", name="Apply")
    notifications = dialog.get_by_role("heading", name="Notifications")
    await notifications.scroll_into_view_if_needed()
    assert (await apply.bounding_box())["y"] > (await notifications.bounding_box())["y"]
    await screenshot(page, "footer")


async def test_the_workspace_page_tells_its_admins_of_a_schedule_paused_when_its_owner_left(
    signed_in, user, asgi_server, screenshot
):
    page = signed_in

    def paused_in_a_team() -> str:
        bob = get_user_model().objects.create_user("bob")
        workspace = create_workspace("Night shift", admin=user)
        set_member(workspace, bob, Role.EDITOR)
        pipeline = actions.create_pipeline(bob, load_document(SEED_DOCUMENT), workspace)
        Schedule.objects.create(pipeline=pipeline, owner=bob, cron="0 2 * * *")
        remove_member(workspace, bob)
        return workspace.slug

    slug = await sync_to_async(paused_in_a_team)()
    await page.goto(f"{asgi_server.url}/workspaces/{slug}/")
    section = page.get_by_role("region", name="Paused schedules")
    await expect(section).to_contain_text("0 2 * * *")
    await expect(section).to_contain_text("its owner bob may no longer run pipelines")
    await screenshot(page, "paused")
