"""Column lineage on the canvas (issue 29): a column picked in a node's panel lights up the
nodes and edges it came through, with a legend naming its inputs, until Clear or Escape; an
output's panel lists which inputs reach it."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import node, open_editor, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

SEED_IDS = ("csv_input_1", "filter_1", "aggregate_1", "csv_output_1")
ON_PATH = re.compile(r"\bis-lineage\b")
ANY_LINEAGE = re.compile(r"lineage")


async def test_a_traced_column_lights_its_path_until_cleared(signed_in, api, people, screenshot):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))
    await select(page, "csv_output_1")
    panel = page.get_by_role("complementary", name="Node")

    reaching = panel.get_by_role("region", name="Which inputs reach it?")
    await expect(reaching).to_contain_text("csv_input_1")
    await expect(reaching).to_contain_text("people.csv): amount, country, id")

    await panel.get_by_label("Where does a column come from?").select_option("amount")
    await panel.get_by_role("button", name="Show lineage").click()
    legend = page.get_by_role("complementary", name="Column lineage")
    await expect(legend).to_contain_text("Lineage of csv_output_1 · amount")
    await expect(legend).to_contain_text("people.csv): amount")
    await expect(legend).to_contain_text("filter_1: kept rows where age >= 18")
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_class(ON_PATH)
    await screenshot(page, "traced")

    await page.keyboard.press("Escape")
    await expect(legend).to_have_count(0)
    await expect(node(page, "filter_1")).not_to_have_class(ANY_LINEAGE)


async def test_a_column_read_from_another_pipelines_output_links_to_its_path_there(
    signed_in, api, people, screenshot
):
    page = signed_in
    (people / "out").mkdir()
    (people / "out" / "spending.csv").write_text("country,people,amount\nFR,2,30.5\n")
    upstream_id = await api.create(seed(people))
    report = {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "Spending report",
        "nodes": [
            {"id": "spending", "operator": "csv_input",
             "params": {"path": people.name("out/spending.csv")}, "position": {"x": 0, "y": 0}},
            {"id": "report", "operator": "csv_output",
             "params": {"path": people.name("report.csv")}, "position": {"x": 260, "y": 0}},
        ],
        "edges": [{"source": "spending", "target": "report"}],
    }  # fmt: skip
    report_id = await api.create(report)
    await open_editor(page, report_id, nodes=2)
    await select(page, "report")
    panel = page.get_by_role("complementary", name="Node")
    await panel.get_by_label("Where does a column come from?").select_option("amount")
    await panel.get_by_role("button", name="Show lineage").click()
    legend = page.get_by_role("complementary", name="Column lineage")
    hop = "Adult spending by country \u203a csv_output_1 \u203a amount"
    link = legend.get_by_role("link", name=hop)
    await expect(legend).to_contain_text("spending: comes from")
    await expect(link).to_be_visible()
    await screenshot(page, "downstream")

    await link.click()
    await page.wait_for_url(f"**/pipelines/{upstream_id}/?lineage_node=csv_output_1*")
    await expect(legend).to_contain_text("Lineage of csv_output_1 · amount")
    await expect(legend).to_contain_text("people.csv): amount")
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_class(ON_PATH)
    await screenshot(page, "upstream")

    await select(page, "csv_output_1")
    reaching = page.get_by_role("region", name="Which inputs reach it?")
    await expect(reaching.get_by_role("link", name="Spending report")).to_have_attribute(
        "href", f"/pipelines/{report_id}/"
    )
    await reaching.scroll_into_view_if_needed()
    await screenshot(page, "read-by")
