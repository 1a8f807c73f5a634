"""A sub-pipeline as an analyst uses it: found in the palette's Sub-pipelines group, added
with its ports, its revision ("latest" with its number) and parameters set in its form, and
its card adding up the run of the nodes it was inlined as."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import RUN_BUTTON, connected, node, open_editor, save, select

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def clean_orders() -> dict:
    return {
        "name": "Clean orders",
        "config": {"parameters": {"min": 10}},
        "nodes": [
            {"id": "orders", "operator": "pipeline_input", "params": {"name": "orders"}},
            {"id": "big", "operator": "filter", "params": {"condition": "amount > ${min}"}},
            {"id": "kept", "operator": "pipeline_output", "params": {"name": "kept"}},
        ],
        "edges": [{"source": "orders", "target": "big"}, {"source": "big", "target": "kept"}],
    }


def report(folder) -> dict:
    (folder / "orders.csv").write_text("amount\n5\n20\n30\n")
    return {
        "name": "Order report",
        "nodes": [
            {"id": "read", "operator": "csv_input", "params": {"path": folder.name("orders.csv")},
             "position": {"x": 0, "y": 0}},
            {"id": "write", "operator": "csv_output", "params": {"path": folder.name("out.csv")},
             "position": {"x": 600, "y": 0}},
        ],
        "edges": [],
    }  # fmt: skip


async def test_a_pipeline_from_the_palette_runs_inlined_and_its_card_adds_up_the_run(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    await api.create(clean_orders())
    pipeline_id = await api.create(report(data_folder))
    await open_editor(page, pipeline_id, nodes=2)

    palette = page.get_by_role("complementary", name="Operators")
    await palette.get_by_role("searchbox", name="Search operators").fill("clean")
    group = palette.get_by_role("region", name="Sub-pipelines")
    await expect(group).to_contain_text("in: orders · out: kept")
    await group.get_by_role("button").press("Enter")
    await expect(node(page, "clean_orders_1")).to_be_visible()
    await connected(page, "read", "clean_orders_1", into="orders")
    await connected(page, "clean_orders_1", "write", out="kept")

    await select(page, "clean_orders_1")
    side = page.get_by_role("complementary", name="Node")
    await expect(side.get_by_role("combobox", name="Revision")).to_contain_text(
        "latest (revision 1)"
    )
    await side.get_by_label("min").fill("25")
    await expect(side.get_by_role("link", name="Open")).to_be_visible()
    await screenshot(page, "1-form")

    await save(page)
    await page.get_by_role("button", name=RUN_BUTTON).click()
    card = node(page, "clean_orders_1")
    await expect(card).to_have_attribute("data-status", "succeeded")
    await expect(card).to_contain_text("1/1 nodes")
    await expect(card).not_to_have_attribute("data-stale", "true")
    await screenshot(page, "2-ran")
    assert (data_folder / "out.csv").read_text() == "amount\n30\n"
