"""Folder and tags from the editor (issue 30, "Many pipelines"): the Settings dialog files the
open pipeline at once, as the home page does, and shows what was saved when opened again."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import expect

from editor.models import Pipeline
from tests.e2e.editor_page import open_editor
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def test_the_settings_dialog_files_the_pipeline_in_a_folder_with_tags(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    settings = page.get_by_role("button", name="Settings", exact=True)
    await settings.click()
    dialog = page.get_by_role("dialog", name="Pipeline settings")
    filing = dialog.get_by_role("region", name="Folder and tags")
    await filing.get_by_role("textbox", name="Folder").fill("reports/monthly")
    await filing.get_by_label("Tags, separated by commas").fill("KPI, daily")
    await filing.get_by_role("button", name="Save folder and tags").click()
    await expect(filing.get_by_role("status")).to_have_text("Saved")
    await expect(filing.get_by_label("Tags, separated by commas")).to_have_value("kpi, daily")
    await screenshot(page, "settings-filing")

    saved = await asyncio.to_thread(lambda: Pipeline.objects.get(pk=pipeline_id))
    assert (saved.folder, saved.tags) == ("reports/monthly", ["kpi", "daily"])
    await dialog.get_by_role("button", name="Close").click()
    await settings.click()  # opened again: what was saved, not what the page loaded with
    await expect(filing.get_by_role("textbox", name="Folder")).to_have_value("reports/monthly")
