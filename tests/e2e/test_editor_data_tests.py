"""Data tests in the editor: a check is added in the node's Checks section and saved, a run
shows the node's passed and warned checks on its card, and the run details list each result
with its sample rows."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import node, open_editor, save, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def test_a_check_added_in_the_side_panel_is_saved_run_and_shown(
    signed_in, api, people, screenshot
):
    page = signed_in
    document = seed(people)
    adults = next(item for item in document["nodes"] if item["id"] == "filter_1")
    adults["expect"] = [{"check": "in_range", "column": "age", "max": 60, "severity": "warn"}]
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "filter_1")

    checks = page.get_by_role("region", name="Checks")
    await checks.get_by_role("button", name="+ Add").click()
    await checks.get_by_label("Column").last.fill("name")
    await checks.get_by_label("Column").last.press("Tab")
    await screenshot(page, "1-check-added")
    await save(page)
    saved = await api.get(pipeline_id)
    added = next(item for item in saved["nodes"] if item["id"] == "filter_1")["expect"]
    assert [(check["check"], check.get("column")) for check in added] == [
        ("in_range", "age"),
        ("not_null", "name"),
    ]

    await page.get_by_role("button", name="Run", exact=True).click()
    card = node(page, "filter_1")
    await expect(card).to_have_attribute("data-status", "succeeded")
    badge = card.locator(".pw-checks-badge")
    await expect(badge).to_have_text("1 ✓ 1 !")
    await expect(badge).to_have_attribute("title", "Checks: 1 passed, 1 warned, 0 failed")
    results = page.get_by_label("Check results")
    await expect(results).to_contain_text("in_range on age failed: 2 of 4 rows are not at most 60")
    await expect(results.locator("tbody tr")).to_have_count(2)  # Grace, 85 and Marie, 66
    await screenshot(page, "2-run-with-checks")
