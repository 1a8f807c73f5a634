"""A loop over files as an analyst uses it: its form (the sub-pipeline settings and the loop's
own fields), a run stacking every file's rows, and its card counting the iterations."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import RUN_BUTTON, node, open_editor, select
from tests.loop_documents import ORDERS, SUM_BIG, by_country

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

READ_ONE = {
    "name": "Read one team",
    "config": {"parameters": {"path": "none.csv"}},
    "nodes": [
        {"id": "read", "operator": "csv_input", "params": {"path": "${path}"}},
        {"id": "adults", "operator": "filter", "params": {"condition": "age >= 18"}},
        {"id": "rows", "operator": "pipeline_output", "params": {"name": "rows"}},
    ],
    "edges": [{"source": "read", "target": "adults"}, {"source": "adults", "target": "rows"}],
}


async def test_a_loop_runs_once_per_file_and_its_card_counts_the_iterations(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    (data_folder.path / "blue.csv").write_text("name,age\nAda,36\nLinus,17\n")
    (data_folder.path / "red.csv").write_text("name,age\nGrace,85\n")
    inner = await api.create(READ_ONE)
    loop = {"pipeline": inner, "pattern": data_folder.name("*.csv"), "parameter": "path",
            "max_iterations": 10, "key_column": "team", "outputs": ["rows"]}  # fmt: skip
    pipeline_id = await api.create({
        "name": "All teams",
        "nodes": [
            {"id": "each", "operator": "for_each", "params": loop, "position": {"x": 0, "y": 0}},
            {"id": "write", "operator": "csv_output", "position": {"x": 500, "y": 0},
             "params": {"path": data_folder.name("out/all.csv")}},
        ],
        "edges": [{"source": "each", "source_port": "rows", "target": "write"}],
    })  # fmt: skip
    await open_editor(page, pipeline_id, nodes=2)

    await select(page, "each")
    side = page.get_by_role("complementary", name="Node")
    await expect(side.get_by_role("combobox", name="Revision")).to_contain_text("latest")
    await expect(side.get_by_label("Most iterations")).to_have_value("10")
    await screenshot(page, "1-form")

    await page.get_by_role("button", name=RUN_BUTTON).click()
    card = node(page, "each")
    await expect(card).to_have_attribute("data-status", "succeeded")
    await expect(card).to_contain_text("2/2 runs")
    await expect(card).not_to_have_attribute("data-stale", "true")
    await screenshot(page, "2-ran")
    assert (data_folder.path / "out" / "all.csv").read_text() == (
        f"name,age,team\nAda,36,{data_folder.name('blue.csv')}\n"
        f"Grace,85,{data_folder.name('red.csv')}\n"
    )


async def test_a_loop_over_groups_is_set_in_its_form_and_counts_its_iterations(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    (data_folder.path / "orders.csv").write_text(ORDERS)
    inner = await api.create(SUM_BIG)
    loop = {"over": "files", "pattern": "*.csv", "parameter": "country", "group_by": []}
    pipeline_id = await api.create(
        by_country(inner, rows=data_folder.name("orders.csv"),
                   out=data_folder.name("out/totals.csv"), **loop)
    )  # fmt: skip
    await open_editor(page, pipeline_id, nodes=3)

    await select(page, "each")
    side = page.get_by_role("complementary", name="Node")
    await expect(side.get_by_label("Files")).to_be_visible()
    await side.get_by_label("Over").select_option("groups")
    await expect(side.get_by_label("Files")).to_have_count(0)
    group_by = side.get_by_role("combobox", name="Group by")
    await group_by.fill("coun")
    await group_by.press("Enter")  # the picker's one match, from the loop's input
    chosen = side.get_by_role("list", name="Group by: chosen").get_by_role("listitem")
    await expect(chosen).to_have_text([re.compile(r"^country")])
    card = node(page, "each")
    await expect(card).to_contain_text("for each of groups by country")
    await expect(card).not_to_contain_text("no files match")  # checked again as a loop of groups
    await screenshot(page, "1-groups-form")

    await page.get_by_role("button", name=RUN_BUTTON).click()
    await expect(card).to_have_attribute("data-status", "succeeded")
    await expect(card).to_contain_text("3/3 runs")
    await screenshot(page, "2-ran")
    assert (data_folder.path / "out" / "totals.csv").read_text() == (
        "seen,total,country\nDE,55,DE\nFR,40,FR\n"
    )
