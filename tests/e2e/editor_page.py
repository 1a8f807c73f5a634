"""What a user does in the pipeline editor, in the terms of the editor's contract.

Palette items carry `data-operator`; each node has one element with `data-node-id` and
`data-status`; handles carry `data-port`; "Run" and "Cancel" are buttons by name. Everything
else is found by role and accessible name, as a screen reader would.
"""

from __future__ import annotations

import re

from playwright.async_api import Locator, Page, expect

RUN_BUTTON = re.compile(r"^Run( · \d+ problems?)?$")
"""The Run button's name: "Run", or with the count of the problems the editor shows."""


async def open_editor(page: Page, pipeline_id: int, nodes: int) -> None:
    """Go to the editor of a pipeline and wait until its `nodes` nodes are on the canvas."""
    await page.goto(f"/pipelines/{pipeline_id}/")
    await expect(page.locator("[data-node-id]")).to_have_count(nodes)
    await expect(page.get_by_role("button", name=RUN_BUTTON)).to_be_visible()


async def zoom_out_to_show(page: Page, nodes: int) -> None:
    """Zoom out with the canvas's button until all `nodes` cards are drawn: the editor opens a
    big pipeline at a readable zoom, drawing only the cards in view, and "Fit View" stops at
    the zoom where titles stay readable."""
    cards = page.locator("[data-node-id]")
    zoom_out = page.get_by_role("button", name="Zoom Out")
    await expect(zoom_out).to_be_visible()
    for _ in range(30):
        if await cards.count() == nodes:
            break
        await zoom_out.click()
    await expect(cards).to_have_count(nodes)


def node(page: Page, node_id: str) -> Locator:
    """The element of a node that carries its id and status."""
    return page.locator(f'[data-node-id="{node_id}"]')


def port(page: Page, node_id: str, name: str) -> Locator:
    """A node's handle for the port `name`."""
    return node(page, node_id).locator(f'[data-port="{name}"]')


def canvas(page: Page) -> Locator:
    """The drop target of the palette: the graph canvas."""
    return page.locator(".react-flow").first


async def drop_operator(page: Page, operator: str, x: float, y: float) -> None:
    """Drag an operator from the palette onto the canvas at (`x`, `y`) of the canvas box."""
    await page.locator(f'[data-operator="{operator}"]').drag_to(
        canvas(page), target_position={"x": x, "y": y}
    )


async def connect(page: Page, source: str, target: str, out: str = "out", into: str = "in"):
    """Drag from a node's output handle to another node's input handle."""
    await port(page, source, out).hover()
    await page.mouse.down()
    box = await port(page, target, into).bounding_box()
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8)
    await page.mouse.up()


async def connected(page: Page, source: str, target: str, out: str = "out", into: str = "in"):
    """`connect`, where the connection is allowed: waits for its edge. On a loaded machine the
    canvas may not yet have measured a handle just added when the drag starts; a drag that
    drew nothing is made once more, as a user would."""
    before = await edges(page).count()
    await connect(page, source, target, out, into)
    try:
        await expect(edges(page)).to_have_count(before + 1, timeout=3_000)
    except AssertionError:
        await connect(page, source, target, out, into)
        await expect(edges(page)).to_have_count(before + 1)


async def drag(page: Page, node_id: str, dx: float, dy: float) -> None:
    """Drag a node by its title (`dx`, `dy`) px on the screen, as a mouse does, in steps."""
    box = await node(page, node_id).bounding_box()
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 12)
    await page.mouse.down()
    await page.mouse.move(box["x"] + box["width"] / 2 + dx, box["y"] + 12 + dy, steps=10)
    await page.mouse.up()


def edges(page: Page) -> Locator:
    """The edges drawn on the canvas."""
    return page.locator(".react-flow__edge")


async def select(page: Page, node_id: str) -> None:
    """Click a node so that the side panel shows its form."""
    await node(page, node_id).click()
    await expect(page.get_by_role("complementary", name="Node")).to_contain_text(node_id)


def save_state(page: Page) -> Locator:
    """The "Saved" / "Unsaved" / "Saving…" status in the top bar."""
    return page.get_by_role("toolbar", name="Pipeline").get_by_role("status")


async def save(page: Page) -> None:
    """Press Save and wait until the server has the graph."""
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(save_state(page)).to_have_text("Saved")
