"""The relational operators of issue 28 as an analyst meets them in the editor: found in the
palette by the word another tool gives them ("crosstab" for pivot, "running total" for
window), their forms filled, their cards summarising them, their result in the Data tab.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.e2e.editor_page import RUN_BUTTON, connected, node, open_editor, save, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

TPCH = Path(__file__).resolve().parents[1] / "golden" / "tpch"

SALES = """region,month,day,amount
North,Jan,1,10
South,Jan,2,5
North,Feb,3,20
South,Feb,4,7
North,Jan,5,1
"""


def sales_input(folder) -> dict:
    """A pipeline of one CSV input over sales.csv."""
    (folder / "sales.csv").write_text(SALES)
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": "Sales by month",
        "nodes": [
            {
                "id": "csv_input_1",
                "operator": "csv_input",
                "params": {"path": folder.name("sales.csv")},
                "position": {"x": 0, "y": 0},
            }
        ],
        "edges": [],
    }


async def add_by_search(page: Page, search: str, operator: str) -> None:
    """Search the palette with an analyst's word; the one operator it finds is added."""
    palette = page.get_by_role("complementary", name="Operators")
    await palette.get_by_role("searchbox", name="Search operators").fill(search)
    found = palette.locator("[data-operator]")
    await expect(found).to_have_count(1)
    await expect(found).to_have_attribute("data-operator", operator)
    await found.press("Enter")
    await expect(node(page, f"{operator}_1")).to_be_visible()


def data_table(page: Page, node_id: str):
    return page.get_by_role("region", name=f"Data of {node_id}").get_by_role("table")


async def run_and_show_data(page: Page, node_id: str) -> None:
    await save(page)
    await page.get_by_role("button", name="Fit View").click()  # every card drawn again
    await page.get_by_role("button", name=RUN_BUTTON).click()
    await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
    await select(page, node_id)
    await page.get_by_role("tab", name="Data").click()


async def test_a_pivot_found_as_crosstab_turns_months_into_columns(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    pipeline_id = await api.create(sales_input(data_folder))
    await open_editor(page, pipeline_id, nodes=1)
    await add_by_search(page, "crosstab", "pivot")
    await screenshot(page, "1-found-as-crosstab")
    await connected(page, "csv_input_1", "pivot_1")

    await select(page, "pivot_1")
    side = page.get_by_role("complementary", name="Node")
    index = side.get_by_role("combobox", name="Index")
    await index.fill("region")
    await index.press("Enter")
    await side.get_by_role("combobox", name="Column", exact=True).fill("month")
    values = side.get_by_role("group", name="Values")
    for at, month in enumerate(["Jan", "Feb"]):
        await values.get_by_role("button", name="+ Add").click()
        await values.get_by_role("textbox", name=f"Values {at + 1}").fill(month)
    await side.get_by_role("combobox", name="Value", exact=True).fill("amount")
    await expect(node(page, "pivot_1")).to_contain_text("sum of amount by month per region")
    await screenshot(page, "2-form-and-card")

    await run_and_show_data(page, "pivot_1")
    table = data_table(page, "pivot_1")
    await expect(table.get_by_role("columnheader")).to_have_text(
        [re.compile(r"^region"), re.compile(r"^Jan\s*integer"), re.compile(r"^Feb\s*integer")]
    )
    await expect(table.locator("tbody tr").first).to_contain_text("North")
    await expect(table.locator("tbody tr").first).to_contain_text("11")
    await screenshot(page, "3-pivoted-data")


async def test_a_window_found_as_running_total_adds_a_running_sum_per_region(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    pipeline_id = await api.create(sales_input(data_folder))
    await open_editor(page, pipeline_id, nodes=1)
    await add_by_search(page, "running total", "window")
    await connected(page, "csv_input_1", "window_1")

    await select(page, "window_1")
    side = page.get_by_role("complementary", name="Node")
    partition = side.get_by_role("combobox", name="Partition by")
    await partition.fill("region")
    await partition.press("Enter")
    order_by = side.get_by_role("group", name="Order by")
    await order_by.get_by_role("button", name="+ Add").click()
    await order_by.get_by_role("combobox", name="Column", exact=True).fill("day")
    functions = side.get_by_role("group", name="Functions")
    await functions.get_by_role("button", name="+ Add").last.click()
    await functions.get_by_role("combobox", name="Function", exact=True).select_option("sum")
    await functions.get_by_role("combobox", name="Column", exact=True).fill("amount")
    await functions.get_by_label("Output column", exact=True).fill("running")
    await expect(node(page, "window_1")).to_contain_text("sum per region by day")
    await screenshot(page, "1-form-and-card")

    await run_and_show_data(page, "window_1")
    table = data_table(page, "window_1")
    await expect(table.get_by_role("columnheader").last).to_contain_text("running")
    await expect(table.locator("tbody tr").nth(4)).to_contain_text("31")  # 10 + 20 + 1
    await screenshot(page, "2-running-totals")


async def test_an_imported_tpch_query_is_laid_out_summarised_and_runs_on_tpch_data(
    signed_in, api, data_folder, tpch_files, asgi_server, user, screenshot
):
    """Q21 (suppliers who kept orders waiting) imported as a file: its 18 nodes come without
    positions, so the import lays them out (none on another), each card saying what it does."""
    page = signed_in
    # A screen where the laid-out query fits at a zoom that keeps titles readable ("Fit View"
    # goes no further out): every card is drawn, for the overlap check.
    await page.set_viewport_size({"width": 2400, "height": 1200})
    pipeline_id = await api.create({**sales_input(data_folder), "nodes": []})
    await open_editor(page, pipeline_id, nodes=0)
    await page.get_by_label("Pipeline JSON file").set_input_files(TPCH / "q21.json")
    await expect(page.locator("[data-node-id]")).to_have_count(18)
    assert await overlapping_cards(page, 18) == []  # once the layout after the import has run
    await screenshot(page, "1-imported-and-laid-out")

    zoom_in = page.get_by_role("button", name="Zoom In")
    for _ in range(5):  # the whole graph fits at a zoom where cards show no text
        await zoom_in.click()
    await expect(node(page, "with_another_supplier")).to_contain_text(
        "semi: l_orderkey = l_orderkey where l_suppkey_right <> l_suppkey_left"
    )
    await expect(node(page, "the_only_late_one")).to_contain_text("anti: l_orderkey")
    await expect(node(page, "by_supplier")).to_contain_text("by s_name: size")
    await screenshot(page, "2-zoomed-in")

    # Its inputs read the workspace's top folder, where an analyst would put TPC-H's tables.
    workspace = asgi_server.data_root / user.personal_workspace.slug
    for table in ("lineitem", "orders", "nation", "supplier"):
        shutil.copy(tpch_files / "parquet" / f"{table}.parquet", workspace)
    await save(page)
    await page.get_by_role("button", name="Fit View").click()  # every card drawn again
    await page.get_by_role("button", name=RUN_BUTTON).click()
    await expect(node(page, "answer")).to_have_attribute("data-status", "succeeded", timeout=60_000)
    await select(page, "top")
    await page.get_by_role("tab", name="Data").click()
    table = data_table(page, "top")
    await expect(table.get_by_role("columnheader")).to_have_text(
        [re.compile(r"^s_name"), re.compile(r"^numwait")]
    )
    await expect(table.locator("tbody tr").first).to_contain_text("Supplier#")
    await screenshot(page, "3-answer")


async def overlapping_cards(page: Page, count: int) -> list[tuple[str, str]]:
    """The pairs of cards drawn over each other, once all `count` cards are drawn and none
    overlap, or after 5 s: the layout runs after the import (and moves the view), so the first
    boxes are the unplaced ones. The boxes are read in one step in the page, as the canvas may
    take a card off the screen and draw it again between two reads."""
    cards = page.locator("[data-node-id]")
    for _ in range(50):
        boxes = await cards.evaluate_all(
            """cards => cards.map(card => {
                const {x, y, width, height} = card.getBoundingClientRect();
                return [card.dataset.nodeId, {x, y, width, height}];
            })"""
        )
        placed = [(name, box) for name, box in boxes if box["width"] and box["height"]]
        pairs = [
            (a, b)
            for at, (a, box_a) in enumerate(placed)
            for b, box_b in placed[at + 1 :]
            if overlap(box_a, box_b)
        ]
        if not pairs and len(placed) == count:
            return []
        await page.wait_for_timeout(100)
    return pairs


def overlap(a: dict, b: dict) -> bool:
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and a["y"] < b["y"] + b["height"]
        and b["y"] < a["y"] + a["height"]
    )


async def test_the_palette_finds_each_new_operator_by_the_words_other_tools_use(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    palette = page.get_by_role("complementary", name="Operators")
    search = palette.get_by_role("searchbox", name="Search operators")
    found = palette.locator("[data-operator]")
    for words, operator in [
        ("melt", "unpivot"),
        ("row number", "window"),
        ("lag", "window"),
        ("scalar", "broadcast"),
        ("not exists", "join"),
        ("anti join", "join"),
    ]:
        await search.fill(words)
        await expect(found.first, f"{words!r} finds {operator}").to_have_attribute(
            "data-operator", operator
        )


async def test_an_aggregations_condition_is_an_expression_with_the_new_syntax_completed(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "aggregate_1")
    side = page.get_by_role("complementary", name="Node")
    # Each aggregation has two expression fields, Expression then "Only rows where".
    where = side.locator("[data-expression-editor] .cm-content").nth(3)
    await where.click()
    await page.keyboard.type("name li")
    completions = page.locator(".cm-tooltip-autocomplete")
    await expect(completions.get_by_role("option", name=re.compile("^like"))).to_be_visible()
    await page.keyboard.press("Escape")
    await page.keyboard.type("ke 'A%' and nam")
    await expect(completions.get_by_role("option").first).to_contain_text("name")
    await page.keyboard.press("Escape")
    await page.keyboard.type("ee = 'x'")
    await expect(side.locator(".cm-lintRange-error")).to_have_text("namee")
    await screenshot(page, "1-where-underlined")
