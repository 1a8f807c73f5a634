"""An incremental input's panel shows where its last successful run stopped reading, and an
editor's Reset makes the next run read everything again."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from editor.models import InputPosition
from tests.e2e.editor_page import node, open_editor

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def incremental(folder) -> dict:
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "New orders",
        "nodes": [
            {"id": "orders", "operator": "csv_input", "position": {"x": 0, "y": 0}, "params": {
                "path": folder.name("orders"),
                "incremental": {"mode": "watermark", "column": "id"}}},
            {"id": "write", "operator": "csv_output", "position": {"x": 300, "y": 0},
             "params": {"path": folder.name("out/new.csv")}},
        ],
        "edges": [{"source": "orders", "target": "write"}],
    }  # fmt: skip


async def test_the_panel_shows_the_stored_position_and_reset_forgets_it(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    (data_folder / "orders").mkdir()
    (data_folder / "orders" / "a.csv").write_text("id,amount\n1041,10\n1042,12\n")
    pipeline_id = await api.create(incremental(data_folder))
    await open_editor(page, pipeline_id, nodes=2)
    await page.get_by_role("button", name="Run", exact=True).click()
    await expect(node(page, "write")).to_have_attribute("data-status", "succeeded")

    await node(page, "orders").click()
    panel = page.get_by_label("Incremental position")
    await expect(panel).to_contain_text("read up to id = 1042 at")
    await expect(panel).to_contain_text("run #1")
    await panel.scroll_into_view_if_needed()
    await screenshot(page, "1-position")

    await panel.get_by_role("button", name="Reset").click()
    await expect(panel).to_contain_text("No position stored: the next run reads everything.")
    await screenshot(page, "2-reset")
    assert not await InputPosition.objects.filter(pipeline_id=pipeline_id).aexists()

    column = page.get_by_label("Watermark column")  # the settings form edits the mode
    await column.scroll_into_view_if_needed()
    await expect(column).to_have_value("id")
    await screenshot(page, "3-settings")
