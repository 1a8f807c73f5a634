"""A run's history and timeline in the browser editor: the Timeline tab draws one bar per
node's attempt; reopening an older run shows the document as it ran (a node deleted since is
there), read-only, under a banner naming the run and its revision; going back to the editor
finds the graph as the user left it.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from tests.e2e.editor_page import node, open_editor, save, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

SEED_IDS = ["csv_input_1", "filter_1", "aggregate_1", "csv_output_1"]


async def run_to_the_end(page: Page) -> None:
    await page.get_by_role("button", name="Run", exact=True).click()
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")


def timeline_rows(page: Page):
    return page.locator("[data-timeline-node]")


async def test_the_timeline_shows_one_bar_per_node_of_the_run(signed_in, api, people, screenshot):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("tab", name="Timeline").click()
    await expect(page.get_by_text("No run yet.")).to_be_visible()

    await run_to_the_end(page)
    await expect(timeline_rows(page)).to_have_count(4)
    for node_id in SEED_IDS:
        bars = page.locator(f'[data-timeline-node="{node_id}"] [data-attempt]')
        await expect(bars).to_have_count(1)
        await expect(bars).to_have_attribute("data-status", "succeeded")
        await expect(bars).to_have_attribute("title", re.compile(rf"^{node_id} · attempt 1 · "))
    chart = page.get_by_role("img", name=re.compile(r"^Timeline of run #1, nodes over "))
    await expect(chart).to_contain_text("csv_output_1")
    await expect(chart).to_have_attribute("aria-label", re.compile(r"4 nodes, 4 attempts; 4 succ"))
    await screenshot(page, "1-timeline")

    await page.get_by_role("button", name="As a table").click()
    table = page.get_by_role("table")
    await expect(table.get_by_role("row")).to_have_count(5)  # the header and one per attempt
    await expect(table.get_by_role("row").nth(1)).to_contain_text("csv_input_1")


async def test_an_older_run_shows_its_own_document_read_only_and_back_keeps_the_edits(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await run_to_the_end(page)
    await select(page, "csv_output_1")
    await page.keyboard.press("Delete")
    await save(page)  # revision 2: the run's node is gone from the pipeline
    await select(page, "aggregate_1")
    await page.keyboard.press("Delete")  # an edit the user keeps working on
    await expect(page.locator("[data-node-id]")).to_have_count(2)

    await page.get_by_role("button", name="History").click()
    await page.get_by_role("menuitem", name=re.compile(r"^#1 · succeeded · you · ")).click()
    banner = page.get_by_role("status").filter(has_text="Run #1")
    await expect(banner).to_contain_text("Run #1 · revision 1 · succeeded")
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    for node_id in SEED_IDS:  # the deleted nodes too, with the states they ran to
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
    await expect(page.locator("[data-operator]")).to_have_count(0)  # no palette: read-only
    await node(page, "csv_output_1").click()
    await page.keyboard.press("Delete")
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    await page.get_by_role("tab", name="Timeline").click()
    await expect(timeline_rows(page)).to_have_count(4)
    await screenshot(page, "2-older-run")

    await banner.get_by_role("button", name="Back to the editor").click()
    await expect(banner).to_have_count(0)
    await expect(page.locator("[data-node-id]")).to_have_count(2)
    await expect(node(page, "aggregate_1")).to_have_count(0)
    await expect(page.locator("[data-operator]").first).to_be_visible()
    await save(page)
    stored = await api.get(pipeline_id)
    assert [item["id"] for item in stored["nodes"]] == ["csv_input_1", "filter_1"]
    assert stored["revision"] == 3
