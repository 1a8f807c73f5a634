"""The editor's versions (issue 14, "History"): the Versions menu lists what history kept, a
version opens beside the pipeline now with added, removed and changed nodes marked and a
changed node's fields side by side, and restoring one replaces the canvas as one undo step.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import node, open_editor, save, save_state, select
from tests.e2e.seed_pipeline import PEOPLE, seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def reworked(api, pipeline_id: int) -> None:
    """Save, as another tab would, a stricter filter and no output node."""
    body = await api.get(pipeline_id)
    for item in body["nodes"]:
        if item["id"] == "filter_1":
            item["params"]["condition"] = "age >= 30"
    body["nodes"] = [item for item in body["nodes"] if item["id"] != "csv_output_1"]
    body["edges"] = [edge for edge in body["edges"] if edge["target"] != "csv_output_1"]
    await api.call("PUT", f"/api/pipelines/{pipeline_id}", body)


async def opened_after_rework(page, api, data_folder) -> int:
    """The seed pipeline, reworked by another tab, open in the editor; its id."""
    (data_folder / "people.csv").write_text(PEOPLE)
    pipeline_id = await api.create(seed(data_folder))
    await reworked(api, pipeline_id)
    await open_editor(page, pipeline_id, nodes=3)
    return pipeline_id


async def test_a_version_shows_what_differs_and_restoring_it_is_one_undo_step(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    pipeline_id = await opened_after_rework(page, api, data_folder)

    await page.get_by_role("button", name="Versions").click()
    menu = page.get_by_role("menu", name="Versions")
    await expect(menu.get_by_role("menuitem")).to_have_count(2)
    await expect(menu.get_by_role("menuitem").first).to_contain_text("changed filter_1")
    await menu.get_by_role("menuitem").nth(1).click()

    view = page.get_by_role("region", name="Version #1: differences")
    await expect(view.get_by_role("status")).to_have_text("#1 → now: 1 changed, 2 removed")
    marks = {"csv_input_1": "same", "filter_1": "changed", "aggregate_1": "same"}
    marks["csv_output_1"] = "removed"  # #1 has it, the pipeline now does not
    for node_id, mark in marks.items():
        await expect(view.locator(f'[data-node-id="{node_id}"]')).to_have_attribute(
            "data-mark", mark
        )
    await view.get_by_role("button", name="Compared with now").click()
    await view.get_by_role("button", name="changed filter_1").click()
    fields = view.get_by_role("table", name="filter_1: changed fields")
    await expect(fields.get_by_role("row").nth(1)).to_contain_text("params.condition")
    await expect(fields.get_by_role("row").nth(1)).to_contain_text("age >= 18")
    await expect(fields.get_by_role("row").nth(1)).to_contain_text("age >= 30")
    await screenshot(page, "version-compared")

    await view.get_by_role("button", name="Restore #1").click()
    await expect(view).to_have_count(0)
    await expect(page.locator(".react-flow__node [data-node-id]")).to_have_count(4)
    restored = await api.get(pipeline_id)
    assert {item["id"] for item in restored["nodes"]} == {
        "csv_input_1", "filter_1", "aggregate_1", "csv_output_1"
    }  # fmt: skip
    history = await api.call("GET", f"/api/pipelines/{pipeline_id}/revisions")
    assert history["items"][0]["kind"] == "restored"

    await page.keyboard.press("Control+z")
    await expect(node(page, "csv_output_1")).to_have_count(0)
    await expect(save_state(page)).to_have_text("Saved", timeout=10_000)
    undone = await api.get(pipeline_id)
    assert "csv_output_1" not in {item["id"] for item in undone["nodes"]}


async def test_an_edit_after_restoring_a_version_is_saved_and_still_there_after_a_reload(
    signed_in, api, data_folder
):
    """Restore, then edit and save as a user goes on: the save is taken (it was refused while
    the restore's answer, `problems` and `schemas` included, went back as the document)."""
    page = signed_in
    pipeline_id = await opened_after_rework(page, api, data_folder)

    await page.get_by_role("button", name="Versions").click()
    await page.get_by_role("menu", name="Versions").get_by_role("menuitem").nth(1).click()
    view = page.get_by_role("region", name="Version #1: differences")
    await view.get_by_role("button", name="Restore #1").click()
    await expect(view).to_have_count(0)
    await expect(page.locator(".react-flow__node [data-node-id]")).to_have_count(4)

    await select(page, "filter_1")
    side = page.get_by_role("complementary", name="Node")
    await side.get_by_role("textbox", name="Condition", exact=True).fill("age >= 40")
    await save(page)
    saved = await api.get(pipeline_id)
    assert next(n for n in saved["nodes"] if n["id"] == "filter_1")["params"] == {
        "condition": "age >= 40"
    }

    await page.reload()
    await expect(page.locator(".react-flow__node [data-node-id]")).to_have_count(4)
    await select(page, "filter_1")
    condition = side.get_by_role("textbox", name="Condition", exact=True)
    await expect(condition).to_have_value("age >= 40")
