"""Readable at any size (issue 30): at 1280 x 720 the top bar is one line with Run in it, a
nine-node pipeline opens with its card titles at 11 px or more on the screen (and "Fit view"
keeps them so), and the bottom panel keeps the height its edge was dragged to after a reload."""

from __future__ import annotations

import itertools

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import RUN_BUTTON, node

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

STEPS = ["filter", "sort", "deduplicate", "drop_nulls", "limit", "select", "aggregate"]

# The on-screen size of every card title drawn: its font size times the canvas's scale.
TITLE_SIZES = """() => [...document.querySelectorAll('.pw-node-label, .pw-node-big-title')]
  .map((el) => parseFloat(getComputedStyle(el).fontSize)
    * el.getBoundingClientRect().height / el.offsetHeight)"""


def nine_nodes(folder) -> dict:
    """A chain of nine cards in a row: fitted whole, they would be too small to read."""
    ids = ["read", *STEPS, "write"]
    operators = ["csv_input", *STEPS, "csv_output"]
    params = {
        "read": {"path": folder.name("people.csv")},
        "filter": {"condition": "age >= 18"},
        "write": {"path": folder.name("out/people.csv")},
    }
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "Nine steps",
        "nodes": [
            {"id": node_id, "operator": operator, "params": params.get(node_id, {}),
             "position": {"x": index * 260, "y": 0}}
            for index, (node_id, operator) in enumerate(zip(ids, operators, strict=True))
        ],
        "edges": [{"source": a, "target": b} for a, b in itertools.pairwise(ids)],
    }  # fmt: skip


async def test_at_1280_the_bar_is_one_line_titles_are_readable_and_the_panel_keeps_its_height(
    signed_in, api, people, screenshot
):
    page = signed_in
    await page.set_viewport_size({"width": 1280, "height": 720})
    pipeline_id = await api.create(nine_nodes(people))
    await page.goto(f"/pipelines/{pipeline_id}/")
    await expect(node(page, "read")).to_be_visible()  # the start; the rest is a pan away

    bar = await page.get_by_role("toolbar", name="Pipeline").bounding_box()
    run = page.get_by_role("button", name=RUN_BUTTON)
    run_box = await run.bounding_box()
    assert bar["height"] < 56  # one line of buttons
    assert bar["y"] <= run_box["y"] and run_box["y"] + run_box["height"] <= bar["y"] + bar["height"]
    assert run_box["x"] + run_box["width"] <= 1280

    sizes = await page.evaluate(TITLE_SIZES)
    assert sizes and min(sizes) >= 11, sizes
    await screenshot(page, "1-opened")
    await page.get_by_role("button", name="Fit View").click()
    sizes = await page.evaluate(TITLE_SIZES)
    assert sizes and min(sizes) >= 11, sizes

    await page.get_by_role("tab", name="Logs").click()
    splitter = page.get_by_role("separator", name="Resize the panel")
    panel = page.get_by_role("region", name="Logs, preview, data, plan and timeline")
    before = (await panel.bounding_box())["height"]
    edge = await splitter.bounding_box()
    await page.mouse.move(edge["x"] + 200, edge["y"] + 3)
    await page.mouse.down()
    await page.mouse.move(edge["x"] + 200, edge["y"] - 120, steps=4)
    await page.mouse.up()
    await splitter.focus()
    await page.keyboard.press("ArrowUp")
    height = (await panel.bounding_box())["height"]
    assert height == pytest.approx(before + 123 + 24, abs=3)
    await screenshot(page, "2-panel-resized")

    await page.reload()
    await page.get_by_role("tab", name="Logs").click()
    await expect(splitter).to_be_visible()
    assert (await panel.bounding_box())["height"] == pytest.approx(height, abs=1)


VIEWPORT_ZOOM = """() => new DOMMatrixReadOnly(
  getComputedStyle(document.querySelector('.react-flow__viewport')).transform).a"""


async def test_a_graph_zoomed_out_past_fit_view_stays_whole_when_the_canvas_resizes(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await api.create(nine_nodes(people))
    await page.goto(f"/pipelines/{pipeline_id}/")
    await expect(node(page, "read")).to_be_visible()
    pane = await page.locator(".react-flow__pane").bounding_box()
    await page.mouse.move(pane["x"] + 10, pane["y"] + pane["height"] / 2)
    for _ in range(4):  # the wheel, left of the graph, zooms out past where "Fit View" stops
        await page.mouse.wheel(0, 300)
    await expect(node(page, "write")).to_be_visible()
    zoomed_out = await page.evaluate(VIEWPORT_ZOOM)
    assert zoomed_out < 0.42

    await page.get_by_role("tab", name="Logs").click()
    await page.get_by_role("separator", name="Resize the panel").focus()
    for _ in range(3):
        await page.keyboard.press("ArrowUp")  # the canvas gets shorter

    pane = await page.locator(".react-flow__pane").bounding_box()
    for node_id in ("read", "write"):
        box = await node(page, node_id).bounding_box()
        assert pane["x"] <= box["x"] and box["x"] + box["width"] <= pane["x"] + pane["width"]
        assert pane["y"] <= box["y"] and box["y"] + box["height"] <= pane["y"] + pane["height"]
    assert await page.evaluate(VIEWPORT_ZOOM) <= 0.42  # not zoomed back in to "Fit View"'s floor
