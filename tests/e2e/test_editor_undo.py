"""Undo and redo in the browser editor: Ctrl+Z and Ctrl+Shift+Z step through drops and
connections, and a drag or a run of arrow-key nudges is one step.
"""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import (
    canvas,
    connected,
    drag,
    drop_operator,
    edges,
    node,
    open_editor,
    save_state,
    select,
)
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def test_ctrl_z_undoes_a_drop_and_a_connection_and_ctrl_shift_z_redoes_them(
    signed_in, api, people
):
    page = signed_in
    document = seed(people)
    pipeline_id = await api.create({**document, "nodes": document["nodes"][:1], "edges": []})
    await open_editor(page, pipeline_id, nodes=1)
    box = await canvas(page).bounding_box()
    await drop_operator(page, "filter", box["width"] * 0.75, box["height"] * 0.3)
    await connected(page, "csv_input_1", "filter_1")
    await expect(edges(page)).to_have_count(1)
    nodes = page.locator("[data-node-id]")

    await page.keyboard.press("Control+z")
    await expect(edges(page)).to_have_count(0)
    await expect(nodes).to_have_count(2)
    await page.keyboard.press("Control+z")
    await expect(nodes).to_have_count(1)
    await page.keyboard.press("Control+Shift+z")
    await expect(node(page, "filter_1")).to_be_visible()
    await expect(edges(page)).to_have_count(0)
    await page.keyboard.press("Control+Shift+z")
    await expect(edges(page)).to_have_count(1)
    await expect(nodes).to_have_count(2)


async def test_a_dragged_node_is_saved_where_it_was_dropped_and_ctrl_z_moves_it_back(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    before = await node(page, "filter_1").bounding_box()

    await drag(page, "filter_1", 0, 150)

    moved = await node(page, "filter_1").bounding_box()
    assert moved["x"] == pytest.approx(before["x"], abs=1) and moved["y"] > before["y"] + 100
    await expect(save_state(page)).to_have_text("Unsaved")
    await expect(save_state(page)).to_have_text("Saved", timeout=5000)  # autosave
    saved = {item["id"]: item["position"] for item in (await api.get(pipeline_id))["nodes"]}
    assert saved["filter_1"]["x"] == 260 and saved["filter_1"]["y"] > 100
    await page.keyboard.press("Control+z")  # the whole drag is one undo step
    await expect(save_state(page)).to_have_text("Unsaved")
    back = await node(page, "filter_1").bounding_box()
    assert (back["x"], back["y"]) == pytest.approx((before["x"], before["y"]), abs=1)


async def test_arrow_keys_nudge_the_selected_node_as_one_undo_step(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    before = await node(page, "aggregate_1").bounding_box()
    await select(page, "aggregate_1")

    for _ in range(4):
        await page.keyboard.press("ArrowDown")

    await expect(save_state(page)).to_have_text("Unsaved")
    nudged = await node(page, "aggregate_1").bounding_box()
    assert nudged["y"] > before["y"] + 5
    await page.keyboard.press("Control+z")
    await page.wait_for_function(  # back where it was after one undo
        """([id, top]) => Math.abs(
            document.querySelector(`[data-node-id="${id}"]`).getBoundingClientRect().top - top
        ) < 1""",
        arg=["aggregate_1", before["y"]],
    )
