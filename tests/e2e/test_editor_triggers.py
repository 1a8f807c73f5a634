"""Settings → Triggers: a webhook trigger is added in the editor, its address shown with the
note that PIPEWRIGHT_BASE_URL is unset and its secret shown once; a file trigger whose glob
leaves the folder is refused at its field; a trigger's events are listed; a webhook's secret
rotated, the old one kept a day, and its run naming the trigger in the history."""

from __future__ import annotations

import urllib.request

import pytest
from asgiref.sync import sync_to_async
from playwright.async_api import expect

from editor.models import Run, Trigger, TriggerEvent
from editor.triggers import hooks, watch
from tests.e2e.editor_page import open_editor
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


@pytest.mark.console_allows("400 (Bad Request)")
async def test_triggers_are_added_in_settings_with_the_webhook_secret_shown_once(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="Settings", exact=True).click()
    dialog = page.get_by_role("dialog", name="Pipeline settings")
    section = dialog.get_by_role("region", name="Triggers")

    await section.get_by_role("button", name="+ Add trigger").click()
    await section.get_by_label("Files (a glob in the workspace folder)").fill("../*.csv")
    await section.get_by_role("button", name="Save trigger").click()
    await expect(section.get_by_text("stays inside it")).to_be_visible()
    await section.get_by_label("Files (a glob in the workspace folder)").fill("incoming/*.csv")
    await section.get_by_role("button", name="Save trigger").click()
    await expect(section.get_by_text("incoming/*.csv ·")).to_be_visible()

    await section.get_by_role("button", name="+ Add trigger").click()
    await section.get_by_label("Runs when").select_option("webhook")
    await section.get_by_label("Name").fill("from CRM")
    await section.get_by_role("button", name="Save trigger").click()
    secret = section.get_by_role("status")
    await expect(secret).to_contain_text("shown this once")
    await expect(section.get_by_text("POST http")).to_contain_text("/api/hooks/")
    await expect(section.get_by_text("PIPEWRIGHT_BASE_URL is not set")).to_be_visible()
    await secret.scroll_into_view_if_needed()
    await screenshot(page, "webhook")

    hook = await sync_to_async(Trigger.objects.get)(pipeline_id=pipeline_id, kind="webhook")
    await sync_to_async(TriggerEvent.objects.create)(
        trigger=hook, key="k", description="webhook call 1a2b3c", status="started"
    )
    await page.reload()
    await page.get_by_role("button", name="Settings", exact=True).click()
    listed = page.get_by_role("dialog", name="Pipeline settings").get_by_role(
        "region", name="Triggers"
    )
    await expect(listed.get_by_text("webhook call 1a2b3c")).to_be_visible()
    await expect(listed.get_by_role("status")).to_have_count(0)  # the secret: once only
    await screenshot(page, "events")


async def test_a_webhooks_secret_is_rotated_in_settings_and_its_run_names_the_trigger(
    signed_in, api, asgi_server, people, screenshot, settings
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    base = f"/api/pipelines/{pipeline_id}/triggers"
    hook = await api.call("POST", base, {"kind": "webhook", "name": "from CRM"})
    body = b'{"delivery": "d-1"}'
    signed = {hooks.SIGNATURE_HEADER: hooks.signature(hook["secret"], body)}
    call = urllib.request.Request(
        asgi_server.url + hook["webhook_url"], body, {**signed, "Content-Type": "application/json"}
    )
    with urllib.request.urlopen(call, timeout=10) as answer:
        assert answer.status == 202
    settings.PIPEWRIGHT_WORKERS = "service"  # the run is the server's, not this process's
    await sync_to_async(watch.tick)()  # a scheduler's tick (the servers run none); this process
    # sees none of the server's files: the run fails at once, as the trigger's run all the same
    event = await sync_to_async(TriggerEvent.objects.get)(trigger_id=hook["id"])
    run_id = event.run_id

    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="History").click()
    line = page.get_by_role("menuitem", name=f"#{await run_number(run_id)}")
    await expect(line).to_contain_text("triggered by from CRM (webhook)")
    await screenshot(page, "triggered-run")
    await page.keyboard.press("Escape")

    await page.get_by_role("button", name="Settings", exact=True).click()
    section = page.get_by_role("dialog", name="Pipeline settings").get_by_role(
        "region", name="Triggers"
    )
    await expect(section.get_by_label("Keep the old secret valid for 24 h")).to_be_checked()
    await section.get_by_role("button", name="Rotate secret").click()
    shown = section.get_by_role("status")
    await expect(shown).to_contain_text("New signing secret (shown this once")
    await expect(shown).to_contain_text("the old secret stays valid until")
    new_secret = (await shown.locator("code").text_content()).strip()
    assert new_secret.startswith("whsec_") and new_secret != hook["secret"]
    await shown.scroll_into_view_if_needed()
    await screenshot(page, "rotated")
    listed = await api.call("GET", f"{base}/{hook['id']}")
    assert listed["secret"] is None and listed["old_secret_valid_until"]


async def run_number(run_id: int) -> int:
    return (await sync_to_async(Run.objects.get)(pk=run_id)).number
