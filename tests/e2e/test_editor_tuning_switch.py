"""The Run menu's "Use figures from past runs": off, the runs started from the editor are
planned without past runs' figures, recorded so, and history and the run's banner say
"untuned"; on again, the next run is tuned."""

from __future__ import annotations

import asyncio

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
ACTIVE = ("queued", "running")


async def run_and_wait(page, api, pipeline_id: int, number: int) -> list[dict]:
    """Click Run and wait for run #`number` it starts to end; the pipeline's runs, the newest
    first. (The cards still show the last run's statuses until the new run starts: they
    cannot tell that it ended.)"""
    await page.get_by_role("button", name="Run", exact=True).click()
    for _ in range(300):
        runs = (await api.call("GET", f"/api/pipelines/{pipeline_id}/runs"))["items"]
        if runs and runs[0]["number"] == number and runs[0]["status"] not in ACTIVE:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError(f"run #{number} did not end: {runs}")
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
    await expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled()
    return runs


async def test_turning_off_past_runs_figures_starts_untuned_runs_labelled_so(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_label("More ways to run").click()
    switch = page.get_by_label("Use figures from past runs")
    await expect(switch).to_be_checked()
    await switch.uncheck()
    await screenshot(page, "1-switch-off")
    await page.get_by_label("More ways to run").click()  # close the menu
    runs = await run_and_wait(page, api, pipeline_id, 1)
    assert [run["tuning"] for run in runs] == [False]

    await page.get_by_role("button", name="History").click()
    history = page.locator(".pw-history")
    await expect(history.get_by_role("menuitem").filter(has_text="#1")).to_contain_text("untuned")
    await screenshot(page, "2-history")
    await history.get_by_role("menuitem").filter(has_text="#1").click()
    await expect(page.get_by_role("status").filter(has_text="Run #1")).to_contain_text("untuned")
    await screenshot(page, "3-banner")
    await page.get_by_role("button", name="Back to the editor").click()

    await page.get_by_label("More ways to run").click()
    await page.get_by_label("Use figures from past runs").check()
    await page.get_by_label("More ways to run").click()
    runs = await run_and_wait(page, api, pipeline_id, 2)
    assert [run["tuning"] for run in runs] == [True, False]
