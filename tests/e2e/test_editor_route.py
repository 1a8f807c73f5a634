"""A route node in the editor: its output handles follow the conditions as the user types
them, each connects to an output, and a run writes each port's rows to its file."""

from __future__ import annotations

import asyncio
import csv

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import (
    canvas,
    connected,
    drop_operator,
    edges,
    node,
    open_editor,
    port,
    save,
    select,
)

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def outputs_pipeline(folder) -> dict:
    """An input and three outputs, waiting for a route between them."""
    return {
        "format": "pipewright.pipeline",
        "version": 2,
        "name": "Routing",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": folder.name("people.csv")},
             "position": {"x": 0, "y": 150}},
            *(
                {"id": f"write_{name}", "operator": "csv_output",
                 "params": {"path": folder.name(f"out/{name}.csv")},
                 "position": {"x": 760, "y": 20 + 150 * index}}
                for index, name in enumerate(["adults", "french", "rest"])
            ),
        ],
        "edges": [],
    }  # fmt: skip


def names_in(path) -> list[str]:
    with path.open(newline="") as file:
        return [row["name"] for row in csv.DictReader(file)]


async def test_route_handles_follow_the_conditions_and_a_run_writes_each_port(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(outputs_pipeline(people))
    await open_editor(page, pipeline_id, nodes=4)
    box = await canvas(page).bounding_box()
    read = await node(page, "read").bounding_box()
    await drop_operator(page, "route", read["x"] - box["x"] + 330, read["y"] - box["y"] + 60)
    await expect(node(page, "route_1")).to_be_visible()
    await expect(node(page, "route_1").locator("[data-port]")).to_have_count(2)  # in, otherwise

    await select(page, "route_1")
    side = page.get_by_role("complementary", name="Node")
    conditions = side.get_by_role("group", name="Conditions")
    for index, (name, condition) in enumerate(
        [("adults", "age >= 18 and country != 'FR'"), ("french", "country = 'FR'")]
    ):
        await conditions.get_by_role("button", name="+ Add").last.click()
        await conditions.get_by_role("textbox", name="Port").nth(index).fill(name)
        await expect(port(page, "route_1", name)).to_be_visible()  # before any save
        field = conditions.get_by_role("textbox", name="Condition", exact=True)
        await field.nth(index).fill(condition)
    await expect(node(page, "route_1").locator("[data-port]")).to_have_count(4)
    await expect(port(page, "route_1", "otherwise")).to_be_visible()

    await connected(page, "read", "route_1")
    for name, target in [("adults", "adults"), ("french", "french"), ("otherwise", "rest")]:
        await connected(page, "route_1", f"write_{target}", out=name)
    await expect(edges(page)).to_have_count(4)
    await screenshot(page, "1-connected")
    await save(page)

    await page.get_by_role("button", name="Run", exact=True).click()
    for node_id in ["read", "route_1", "write_adults", "write_french", "write_rest"]:
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
    await screenshot(page, "2-ran")
    out = people / "out"
    assert await asyncio.to_thread(names_in, out / "adults.csv") == ["Grace", "Alan"]
    assert await asyncio.to_thread(names_in, out / "french.csv") == ["Ada", "Marie"]
    assert await asyncio.to_thread(names_in, out / "rest.csv") == ["Linus", "Tim"]

    await select(page, "route_1")
    # Renamed: the edge from its old port strays (red) until it is moved or removed.
    await conditions.get_by_role("textbox", name="Port").nth(1).fill("fr")
    await expect(port(page, "route_1", "fr")).to_be_visible()
    await expect(page.locator(".react-flow__edge.pw-edge-stray")).to_have_count(1)
    await screenshot(page, "3-renamed")
