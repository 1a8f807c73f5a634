"""Reusing stored results from the browser: a second run shows each unchanged node as cached,
Run fresh runs everything, and a node's Run menu runs up to it or from it."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import node, open_editor
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

SEED_IDS = ["csv_input_1", "filter_1", "aggregate_1", "csv_output_1"]


async def ran(page, statuses: dict[str, str]) -> None:
    """Wait until the run bar is free again and each node shows its status."""
    for node_id, status in statuses.items():
        await expect(node(page, node_id)).to_have_attribute("data-status", status)
    await expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled()


def cached(page, node_id: str):
    return node(page, node_id).get_by_text("cached", exact=True)


async def test_a_second_run_shows_unchanged_nodes_cached_and_run_fresh_reruns_them(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="Run", exact=True).click()
    await ran(page, dict.fromkeys(SEED_IDS, "succeeded"))
    await expect(page.locator(".pw-cached")).to_have_count(0)

    await page.get_by_role("button", name="Run", exact=True).click()
    await ran(page, dict.fromkeys(SEED_IDS, "succeeded"))
    for node_id in SEED_IDS:
        await expect(cached(page, node_id)).to_be_visible()
    await expect(node(page, "filter_1")).to_contain_text("6 → 4")  # the figures it stored
    await screenshot(page, "1-cached")

    await page.get_by_label("More ways to run").click()
    await page.get_by_role("button", name="Run fresh", exact=True).click()
    await expect(page.locator(".pw-cached")).to_have_count(0)
    await ran(page, dict.fromkeys(SEED_IDS, "succeeded"))
    await expect(page.locator(".pw-cached")).to_have_count(0)


async def test_a_nodes_run_menu_runs_up_to_it_and_from_it(signed_in, api, people, screenshot):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await node(page, "filter_1").click()
    await page.get_by_text("Run ▾", exact=True).click()
    await screenshot(page, "1-menu")
    await page.get_by_role("button", name="Run up to here").click()
    await ran(page, {"csv_input_1": "succeeded", "filter_1": "succeeded"})
    await ran(page, {"aggregate_1": "skipped", "csv_output_1": "skipped"})
    assert not (people / "out" / "spending.csv").exists()

    await node(page, "filter_1").click()
    await page.get_by_text("Run ▾", exact=True).click()
    await page.get_by_role("button", name="Run from here").click()
    await ran(page, dict.fromkeys(SEED_IDS, "succeeded"))
    await expect(cached(page, "csv_input_1")).to_be_visible()
    for node_id in SEED_IDS[1:]:
        await expect(cached(page, node_id)).to_have_count(0)
    assert (people / "out" / "spending.csv").exists()
    await screenshot(page, "2-from-here")
