"""Comparing two runs in the editor (issue 15, "Compare two runs"): run the seed pipeline,
make its filter stricter, run it again, then from the History menu compare the two runs: the
edited node is marked with its rows before and after, and the output's rows, keyed by country,
show the one changed group with its old and new values.
"""

from __future__ import annotations

import pytest
from playwright.async_api import Page, expect

from tests.e2e.editor_page import node, open_editor, save_state, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def run_to_the_end(page: Page, filtered: str) -> None:
    """Press Run and wait until the output is written and the filter shows `filtered`."""
    await page.get_by_role("button", name="Run", exact=True).click()
    await expect(node(page, "csv_output_1")).to_have_attribute("data-status", "succeeded")
    await expect(node(page, "filter_1")).to_contain_text(filtered)
    await expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled()


async def two_runs_compared(page: Page, api, people) -> None:
    """Two runs of the seed, the filter edited between them, opened side by side."""
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await run_to_the_end(page, "6 → 4")
    await select(page, "filter_1")
    side = page.get_by_role("complementary", name="Node")
    await side.get_by_role("textbox", name="Condition", exact=True).fill("age >= 40")
    await expect(save_state(page)).to_have_text("Saved", timeout=10_000)
    await run_to_the_end(page, "6 → 3")
    await page.get_by_role("button", name="History").click()
    await page.get_by_role("menuitem", name="Compare with…").click()
    view = page.get_by_role("region", name="Compare runs")
    await expect(
        view.get_by_role("table", name="Nodes of run #1 (A) and run #2 (B)")
    ).to_be_visible()


async def test_two_runs_with_an_edit_between_compare_node_by_node_and_row_by_row(
    signed_in, api, people, screenshot
):
    page = signed_in
    await two_runs_compared(page, api, people)
    view = page.get_by_role("region", name="Compare runs")
    await expect(view.get_by_label("Run A").locator("option:checked")).to_contain_text("#1 ·")
    await expect(view.get_by_label("Run B").locator("option:checked")).to_contain_text("#2 ·")
    filtered = view.locator('tr[data-node-id="filter_1"]')
    await expect(filtered).to_have_attribute("data-mark", "changed")
    await expect(filtered).to_contain_text("params.condition edited")
    await expect(filtered.get_by_role("cell").nth(2)).to_have_text("4 → 3 (\u22121)")
    await expect(view.locator('tr[data-node-id="csv_input_1"]')).to_have_attribute(
        "data-mark", "same"
    )

    await view.get_by_role("button", name="Compare rows of csv_output_1").click()
    rows = view.get_by_role("region", name="Rows of csv_output_1")
    key = rows.get_by_role("checkbox", name="country")
    await expect(key).to_be_checked()
    await rows.get_by_role("button", name="Compare rows").click()
    await expect(rows.get_by_role("status")).to_contain_text(
        "0 added · 0 removed · 1 changed · 2 unchanged"
    )
    changed = rows.get_by_role("table", name="Changed")
    await expect(changed.get_by_role("row")).to_have_count(3)  # people and amount of FR
    await expect(changed.get_by_role("row").nth(1)).to_contain_text("FR")
    await expect(changed).to_contain_text("150")
    await expect(changed).to_contain_text("30")
    await screenshot(page, "compared")

    await rows.get_by_role("checkbox", name="people").check()
    await rows.get_by_role("checkbox", name="country").uncheck()
    await rows.get_by_role("button", name="Compare rows").click()
    await expect(rows.get_by_role("alert")).to_contain_text("do not identify one row")

    await view.get_by_role("button", name="Back to the editor").click()
    await expect(view).to_have_count(0)
