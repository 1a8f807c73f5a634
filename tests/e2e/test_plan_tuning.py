"""The Plan tab's "tuning from past runs" section: before any run it says nothing was tuned;
after a run succeeded, each choice is listed with the past figure it came from."""

from __future__ import annotations

import asyncio
import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import open_editor
from tests.e2e.seed_pipeline import PEOPLE, seed
from tests.e2e.test_editor_runs import SEED_IDS

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def finished(api, run_id: int) -> str:
    for _ in range(600):
        status = (await api.call("GET", f"/api/runs/{run_id}"))["status"]
        if status not in ("queued", "running"):
            return status
        await asyncio.sleep(0.1)
    raise AssertionError(f"run {run_id} did not finish")


async def test_the_plan_tab_lists_what_was_tuned_from_past_runs(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    (data_folder / "people.csv").write_text(PEOPLE)
    pipeline_id = await api.create(seed(data_folder))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))
    await page.get_by_role("tab", name="Plan").click()
    tuning = page.get_by_role("region", name="Tuning from past runs")
    await expect(tuning).to_contain_text("not tuned: no successful run of this plan yet")

    run = await api.call("POST", f"/api/pipelines/{pipeline_id}/runs", {})
    assert await finished(api, run["id"]) == "succeeded"
    await page.get_by_label("Backend").select_option("pandas")  # plans again

    await expect(tuning).to_contain_text("backend pandas: set in the document or chosen for")
    concurrency = re.compile(r"max_concurrency \d+: the last run made 6 rows")
    await expect(tuning.locator("li").nth(1)).to_contain_text(concurrency)
    await tuning.scroll_into_view_if_needed()
    await screenshot(page, "tuned")
