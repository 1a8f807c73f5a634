"""The editor agrees with the server and shows what is true (issue 11's browser bugs).

A stored edge into a port its node does not have (older data) is drawn in red and can be
deleted; Ctrl+A selects every node and the problem list brings its node into view; auto-layout
leaves no card over another, problem notes included; the graph picture downloads under the
pipeline's name; Cancel says so until the run has ended, and no longer. Screenshots also go
to /tmp/front-shots/ for a person to look at.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from playwright.async_api import expect

from editor.models import Edge, Node
from tests.e2e.boxes import overlaps
from tests.e2e.editor_page import edges, node, open_editor, save
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

SHOTS = Path("/tmp/front-shots")


@pytest.fixture
def shot(screenshot):
    """`await shot(page, step)`: the test's screenshot, also under /tmp/front-shots/."""

    async def take(page, step: str) -> None:
        path = await screenshot(page, step)
        SHOTS.mkdir(exist_ok=True)
        (SHOTS / path.name).write_bytes(path.read_bytes())

    return take


@sync_to_async
def add_stray_edge(pipeline_id: int) -> None:
    """An edge into `aggregate_1.rows`, a port aggregate does not have, as older data had."""
    source = Node.objects.get(pipeline_id=pipeline_id, node_id="csv_input_1")
    target = Node.objects.get(pipeline_id=pipeline_id, node_id="aggregate_1")
    Edge.objects.create(pipeline_id=pipeline_id, source=source, target=target, target_port="rows")


async def test_a_stored_edge_to_a_missing_port_is_drawn_red_and_can_be_deleted(
    signed_in, api, people, shot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await add_stray_edge(pipeline_id)
    await open_editor(page, pipeline_id, nodes=4)

    stray = page.locator(".react-flow__edge.pw-edge-stray")
    await expect(edges(page)).to_have_count(4)
    await expect(stray).to_have_count(1)
    # The stray end sits under the card's problem note, which comes with the server's check:
    # until it is drawn, the curve ends elsewhere (CI once clicked where it had been).
    await expect(node(page, "aggregate_1")).to_contain_text("there is no input port 'rows'")
    await shot(page, "stray-edge")
    # Near its end: the curve first runs along the edge into filter_1, then behind its card.
    point = await stray.locator("path").first.evaluate(
        """path => {
            const at = path.getPointAtLength(path.getTotalLength() * 0.85);
            const screen = at.matrixTransform(path.getScreenCTM());
            return {x: screen.x, y: screen.y};
        }"""
    )
    await page.mouse.click(point["x"], point["y"])
    await expect(page.locator(".react-flow__edge.pw-edge-stray.selected")).to_have_count(1)
    await page.keyboard.press("Delete")
    await expect(stray).to_have_count(0)
    await expect(edges(page)).to_have_count(3)
    await save(page)

    saved = await api.get(pipeline_id)
    assert {(edge["target"], edge["target_port"]) for edge in saved["edges"]} == {
        ("filter_1", "in"),
        ("aggregate_1", "in"),
        ("csv_output_1", "in"),
    }


async def test_ctrl_a_selects_every_node_and_a_listed_problem_shows_its_node(
    signed_in, api, people, shot
):
    page = signed_in
    document = seed(people)
    document["nodes"][1]["params"]["condition"] = "agee >= 18"
    document["nodes"][1]["position"] = {"x": 4000, "y": 3000}  # far from the others
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=3)  # the far one is out of view, not drawn
    await page.locator(".react-flow__pane").click(position={"x": 5, "y": 5})

    await page.keyboard.press("Control+a")
    await expect(page.get_by_role("complementary", name="Pipeline")).to_contain_text(
        "4 nodes selected"
    )

    await page.locator(".react-flow__pane").click(position={"x": 5, "y": 5})
    overview = page.get_by_role("complementary", name="Pipeline")
    await overview.get_by_role("button", name="filter_1: Condition").click()
    side = page.get_by_role("complementary", name="Node")
    await expect(side).to_contain_text("filter_1")
    await expect(node(page, "filter_1")).to_be_in_viewport()
    await shot(page, "problem-shows-its-node")


async def test_auto_layout_leaves_no_card_over_another_problem_notes_included(
    signed_in, api, people, shot
):
    page = signed_in
    document = seed(people)
    # Four inputs into one union, each reading a file that is not there: each card has a note.
    document["nodes"] = [
        {
            "id": f"read_{index}",
            "operator": "csv_input",
            "params": {"path": people.name(f"missing_{index}.csv")},
            "position": {"x": 0, "y": 0},
        }
        for index in range(4)
    ] + [{"id": "all", "operator": "union", "params": {}, "position": {"x": 0, "y": 0}}]
    document["edges"] = [{"source": f"read_{index}", "target": "all"} for index in range(4)]
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=5)
    await expect(page.locator(".pw-node-problem")).to_have_count(4)

    before = await node(page, "read_1").bounding_box()
    await page.get_by_role("button", name="Auto-layout").click()
    for _ in range(100):  # until the layout has moved the nodes
        if await node(page, "read_1").bounding_box() != before:
            break
        await asyncio.sleep(0.1)
    await save(page)
    ids = [f"read_{index}" for index in range(4)] + ["all"]
    # Only cards on screen are drawn: fit them all in before measuring.
    await page.locator(".react-flow__controls-fitview").click()
    for node_id in ids:
        await expect(node(page, node_id)).to_be_in_viewport()
    await shot(page, "auto-layout")
    boxes = {node_id: await node(page, node_id).bounding_box() for node_id in ids}
    touching = [(a, b) for a in ids for b in ids if a < b and overlaps(boxes[a], boxes[b])]
    assert touching == []


async def test_the_graph_picture_downloads_under_the_pipelines_name(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="More").click()
    async with page.expect_download() as download:
        await page.get_by_role("menuitem", name="Graph as PNG").click()
    assert (await download.value).suggested_filename == "Adult spending by country.png"


async def test_cancel_says_cancelling_until_the_run_has_ended_and_then_that_it_was(
    signed_in, api, people, shot
):
    page = signed_in
    document = seed(people)
    document["nodes"][1] = {
        "id": "filter_1",
        "operator": "pause",
        "params": {"seconds": 30},
        "position": {"x": 260, "y": 0},
    }
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="Run", exact=True).click()
    await expect(node(page, "filter_1")).to_have_attribute("data-status", "running")

    await page.get_by_role("button", name="Cancel", exact=True).click()

    toasts = page.locator(".pw-toast")
    await expect(toasts.filter(has_text="Run cancelled")).to_have_count(1)
    await shot(page, "cancelled")
    await expect(toasts.filter(has_text="Cancelling")).to_have_count(0, timeout=2_000)
    await expect(page.get_by_text("Cancelling…")).to_have_count(0)
    await expect(page.get_by_role("button", name="Run", exact=True)).to_be_enabled()
    for node_id in ("aggregate_1", "csv_output_1"):
        await expect(node(page, node_id)).not_to_contain_text("written")
