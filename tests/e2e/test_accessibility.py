"""Accessibility (issue 14, "Quality"; issue 30, "Keyboard and contrast"): axe-core finds no
serious or critical violation on the home page (with a cancelled run's badge), in the editor
with a pipeline open, in its settings dialog, in the editor after a run with its log open, in
the comparison of two versions and in that of two runs, on the Files page, on a workspace's
page and in the admin's pipeline page.

axe-core runs in the page through Playwright's evaluate, which the page's Content-Security-
Policy does not govern, so the policy is tested as it is served.
"""

from __future__ import annotations

import asyncio

import pytest
from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Page, expect

from editor.models import Pipeline, Run
from tests.e2e.editor_page import node, open_editor
from tests.e2e.seed_pipeline import seed
from tests.e2e.test_editor_run_compare import two_runs_compared
from tests.e2e.test_editor_runs import SEED_IDS

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

BLOCKING = {"serious", "critical"}


async def assert_no_blocking_violation(page: Page) -> None:
    """Fails listing each serious or critical violation as "rule (impact): where, why"."""
    results = await Axe().run(page)
    found = [
        f"{violation['id']} ({violation['impact']}): {target['target']} {target['failureSummary']}"
        for violation in results.response["violations"]
        if violation["impact"] in BLOCKING
        for target in violation["nodes"]
    ]
    assert not found, "\n".join(found)


async def test_the_home_page_searched_by_tag_has_no_serious_violation(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await asyncio.to_thread(
        lambda: Run.objects.create(
            pipeline=Pipeline.objects.get(pk=pipeline_id), status="cancelled", document={}
        )
    )
    await page.goto("/")
    await expect(page.get_by_role("link", name="Adult spending by country")).to_be_visible()
    await page.get_by_role("button", name="Tags and folder of Adult spending by country").click()
    await page.get_by_role("textbox", name="Folder").fill("reports")
    await page.get_by_label("Tags, separated by commas").fill("KPI, daily")
    await screenshot(page, "home-filing")
    await page.get_by_role("button", name="Save", exact=True).click()
    await page.get_by_role("button", name="kpi").click()  # a tag searches for its pipelines
    await expect(page.get_by_label("Search pipelines")).to_have_value("tag:kpi")
    await expect(page.get_by_role("status")).to_contain_text("1 pipeline matches")
    await expect(page.locator(".pw-badge.pw-status-cancelled")).to_have_count(1)
    await screenshot(page, "home")
    await assert_no_blocking_violation(page)


async def test_the_files_page_has_no_serious_violation(signed_in, user, people):
    page = signed_in
    await page.goto(f"/workspaces/{user.personal_workspace.slug}/files/?folder={people.relative}")
    await expect(page.get_by_role("button", name="Copy path of people.csv")).to_be_visible()
    await assert_no_blocking_violation(page)


async def test_the_workspace_page_has_no_serious_violation(signed_in, user):
    page = signed_in
    await page.goto(f"/workspaces/{user.personal_workspace.slug}/")
    await expect(page.get_by_role("heading", level=1)).to_be_visible()
    await assert_no_blocking_violation(page)


async def test_the_pipeline_settings_dialog_has_no_serious_violation(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))
    await page.get_by_role("button", name="Settings", exact=True).click()
    await expect(page.get_by_role("dialog", name="Pipeline settings")).to_be_visible()
    await assert_no_blocking_violation(page)


# axe-core sets styles on this page while it checks it, which the policy refuses and logs; the
# page alone logs nothing (test_admin_layout.py opens it without this allowance).
@pytest.mark.console_allows("Applying inline style violates")
async def test_the_admin_pipeline_page_has_no_serious_violation(signed_in, user, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await asyncio.to_thread(
        lambda: type(user).objects.filter(pk=user.pk).update(is_staff=True, is_superuser=True)
    )
    await page.goto(f"/admin/editor/pipeline/{pipeline_id}/change/")
    await expect(page.locator(".pw-graph-picture img")).to_be_visible()
    await assert_no_blocking_violation(page)


async def test_the_editor_with_a_pipeline_open_and_a_node_selected_has_no_serious_violation(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))
    await node(page, "filter_1").click()
    await expect(page.get_by_role("complementary", name="Node")).to_contain_text("filter_1")
    await assert_no_blocking_violation(page)


async def test_the_run_view_has_no_serious_violation(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))
    await page.get_by_role("button", name="Run", exact=True).click()
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
    await page.get_by_role("tab", name="Logs").click()
    await assert_no_blocking_violation(page)


async def test_the_comparison_of_two_versions_has_no_serious_violation(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    body = await api.get(pipeline_id)
    body["nodes"] = [item for item in body["nodes"] if item["id"] != "csv_output_1"]
    body["edges"] = [edge for edge in body["edges"] if edge["target"] != "csv_output_1"]
    await api.call("PUT", f"/api/pipelines/{pipeline_id}", body)
    await open_editor(page, pipeline_id, nodes=3)
    await page.get_by_role("button", name="Versions").click()
    await page.get_by_role("menu", name="Versions").get_by_role("menuitem").nth(1).click()
    view = page.get_by_role("region", name="Version #1: differences")
    await expect(view.locator('[data-mark="removed"]')).to_have_count(1)
    await assert_no_blocking_violation(page)


async def test_the_comparison_of_two_runs_with_rows_compared_has_no_serious_violation(
    signed_in, api, people
):
    page = signed_in
    await two_runs_compared(page, api, people)
    view = page.get_by_role("region", name="Compare runs")
    await view.get_by_role("button", name="Compare rows of csv_output_1").click()
    rows = view.get_by_role("region", name="Rows of csv_output_1")
    await rows.get_by_role("button", name="Compare rows").click()
    await expect(rows.get_by_role("table", name="Changed")).to_be_visible()
    await assert_no_blocking_violation(page)
