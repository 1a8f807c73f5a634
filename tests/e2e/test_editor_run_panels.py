"""Smaller things an analyst meets around a run (issue 30): an input's incremental mode is
optional, the run's durations say what they measure, the Data and Logs tabs name nodes by
label, and deleting a middle node reconnects its neighbours in one undo step."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import edges, node, open_editor, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def test_after_a_run_the_panels_name_nodes_by_label_and_a_deleted_middle_node_is_bridged(
    signed_in, api, people, screenshot
):
    page = signed_in
    document = seed(people)
    document["nodes"][1]["label"] = "Adults"  # filter_1
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=4)
    side = page.get_by_role("complementary", name="Node")

    await select(page, "csv_input_1")
    await expect(side.get_by_role("button", name="+ Set up incremental (optional)")).to_be_visible()
    await expect(side.get_by_label("Read", exact=True)).to_have_count(0)
    await screenshot(page, "incremental-folded")

    await page.get_by_role("button", name="Run", exact=True).click()
    await expect(node(page, "csv_output_1")).to_have_attribute("data-status", "succeeded")
    await expect(page.get_by_text(re.compile(r"^Run succeeded: ran \d"))).to_be_visible()

    tabs = page.get_by_role("tablist", name="Panel")
    await tabs.get_by_role("tab", name="Data").click()
    options = page.locator("#pw-data-node option")
    await expect(options.filter(has_text="Adults (filter_1)")).to_have_count(1)
    await screenshot(page, "data-labels")
    await tabs.get_by_role("tab", name=re.compile("^Logs")).click()
    await expect(page.locator(".pw-log-lines")).not_to_contain_text("Run the pipeline")
    await screenshot(page, "logs")

    await expect(edges(page)).to_have_count(3)
    await select(page, "filter_1")
    await page.keyboard.press("Delete")
    await expect(node(page, "filter_1")).to_have_count(0)
    await expect(edges(page)).to_have_count(2)  # csv_input_1 → aggregate_1 now
    await expect(page.locator('[data-id="csv_input_1.out->aggregate_1.in"]')).to_have_count(1)
    await screenshot(page, "bridged")
    await page.keyboard.press("Control+z")
    await expect(node(page, "filter_1")).to_be_visible()
    await expect(edges(page)).to_have_count(3)
