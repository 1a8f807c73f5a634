"""The editor by keyboard alone (issue 30, "Keyboard and contrast"): a port is focused and
connected by picking its target from a list, a selected node moves with the arrow keys in
one undo step, and "?" lists the shortcuts."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import edges, node, open_editor
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


async def test_a_port_is_connected_and_a_node_moved_by_keyboard_alone(
    signed_in, api, people, screenshot
):
    page = signed_in
    document = seed(people)
    document["edges"] = [edge for edge in document["edges"] if edge["target"] != "aggregate_1"]
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=4)
    await expect(edges(page)).to_have_count(2)

    output = page.get_by_role("button", name="Output of filter_1")
    await output.focus()
    await page.keyboard.press("Enter")
    targets = page.get_by_role("dialog", name="Connect Output of filter_1")
    options = targets.get_by_role("option")
    await expect(options).to_have_text(["Input of aggregate_1"])  # the only one the rules allow
    await screenshot(page, "keyboard-connect")
    await page.keyboard.press("Enter")
    await expect(edges(page)).to_have_count(3)
    await expect(targets).to_have_count(0)
    await expect(output).to_be_focused()

    card = page.locator('.react-flow__node[data-id="aggregate_1"]')
    before = await card.evaluate("element => element.style.transform")
    await card.focus()
    await page.keyboard.press("Enter")  # selects the focused node
    await expect(node(page, "aggregate_1")).to_have_class(re.compile(r"\bis-selected\b"))
    for _ in range(3):
        await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Shift+ArrowDown")
    moved = await card.evaluate("element => element.style.transform")
    assert moved == "translate(535px, 20px)", moved  # 3 x 5 px right, 4 x 5 px down
    await page.keyboard.press("Control+z")  # the presses are one undo step
    await expect(card).to_have_attribute("style", re.compile(re.escape(f"transform: {before}")))
    await expect(edges(page)).to_have_count(3)

    await page.keyboard.press("?")
    sheet = page.get_by_role("dialog", name="Keyboard shortcuts")
    await expect(sheet.get_by_role("row", name="Ctrl+S Save")).to_be_visible()
    await expect(sheet).to_contain_text("On a port: list the ports it can connect to")
    await screenshot(page, "shortcut-sheet")
    await page.keyboard.press("Escape")
    await expect(sheet).to_have_count(0)
