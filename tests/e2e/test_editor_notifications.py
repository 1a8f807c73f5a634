"""The Notifications section of the pipeline's settings: add a webhook, see its secret once,
press Test and read whether it arrived."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.browser import sign_in_with_session
from tests.e2e.seed_pipeline import seed
from tests.webhook_receiver import Receiver

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def test_a_webhook_is_added_and_tested_from_the_settings(
    page, api, people, session_key, start_server, screenshot
):
    receiver = Receiver()
    [server] = start_server(1, env={"PIPEWRIGHT_WEBHOOK_ALLOW": "127.0.0.1"})
    try:
        pipeline_id = await api.create(seed(people))
        await sign_in_with_session(page.context, server.url, session_key)
        await page.goto(f"{server.url}/pipelines/{pipeline_id}/")
        await expect(page.locator("[data-node-id]")).to_have_count(4)
        await page.get_by_role("button", name="Settings", exact=True).click()
        dialog = page.get_by_role("dialog", name="Pipeline settings")
        await dialog.get_by_role("button", name="+ Add notification").click()
        await dialog.get_by_label("URL").fill(receiver.url)
        await dialog.get_by_label("When a run succeeds").check()
        await dialog.get_by_role("button", name="Save notification").click()
        await expect(dialog.get_by_text("Signing secret, shown this once")).to_be_visible()
        await expect(dialog.locator(".pw-notification")).to_contain_text(
            "when a run fails, succeeds"
        )
        await dialog.get_by_role("button", name="Test").click()
        status = dialog.locator(".pw-notification [role=status]")
        await expect(status).to_have_text("Delivered: webhook to 127.0.0.1: delivered (HTTP 200)")
        await dialog.locator(".pw-notifications").scroll_into_view_if_needed()
        await screenshot(page, "tested")
        assert len(receiver.requests) == 1
        assert receiver.requests[0]["headers"]["X-Pipewright-Signature"].startswith("sha256=")
    finally:
        await page.goto("about:blank")  # before the server stops: no reconnecting socket
        receiver.stop()
