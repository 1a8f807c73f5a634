"""Pins in the editor: the Data tab pins a node's output from the run shown, the card shows a
pin badge, the next run does not run the pinned node's input and history says "with pins";
Unpin takes the badge away."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import node, open_editor, select
from tests.e2e.seed_pipeline import seed
from tests.e2e.test_editor_runs import SEED_IDS

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def test_a_node_pinned_from_the_data_tab_is_badged_and_used_by_the_next_run(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))
    run_button = page.get_by_role("button", name="Run", exact=True)
    await run_button.click()
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")

    await select(page, "filter_1")
    await page.get_by_role("tab", name="Data").click()
    await page.get_by_role("button", name="Pin this output").click()
    await expect(page.locator(".pw-pin-controls .pw-pin")).to_contain_text(
        "Pinned: 4 rows from run #1"
    )
    await expect(node(page, "filter_1").locator(".pw-pin")).to_have_text("pinned")
    await screenshot(page, "pinned")

    await run_button.click()
    await expect(node(page, "csv_input_1")).to_have_attribute("data-status", "skipped")
    await expect(node(page, "csv_output_1")).to_have_attribute("data-status", "succeeded")
    await page.get_by_role("button", name="History").click()
    await expect(page.get_by_role("menuitem", name="#2")).to_contain_text("with pins")
    await screenshot(page, "history")
    await page.keyboard.press("Escape")

    await select(page, "filter_1")
    await page.get_by_role("tab", name="Data").click()
    await page.get_by_role("button", name="Unpin").click()
    await expect(node(page, "filter_1").locator(".pw-pin")).to_have_count(0)
