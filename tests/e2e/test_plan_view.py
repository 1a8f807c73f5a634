"""The editor's plan view (issue 12, "Explain"): the bottom panel's Plan tab shows `explain`'s
text and marks every card with where it runs (a segment's backend, pandas, or not run), for
the backend chosen in the tab; after a save it shows the saved pipeline's plan again, and
leaving the tab takes the marks off the cards.
"""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import node, open_editor, save, select
from tests.e2e.seed_pipeline import PEOPLE, seed
from tests.e2e.test_editor_runs import SEED_IDS

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def expected_marks(plan: dict) -> dict[str, str]:
    """Each node's mark as the server's plan gives it, by the kinds the cards show."""
    marks = {node_id: "pandas" for node_id in plan["pandas"]}
    for segment in plan["segments"]:
        marks.update(dict.fromkeys(segment["nodes"], "segment"))
    marks.update(dict.fromkeys(plan["eliminated"], "eliminated"))
    marks.update(dict.fromkeys(plan["merged"], "merged"))
    return marks


async def test_the_plan_tab_shows_the_text_and_marks_every_node(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    (data_folder / "people.csv").write_text(PEOPLE)
    pipeline_id = await api.create(seed(data_folder))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))

    await page.get_by_role("tab", name="Plan").click()
    text = page.locator(".pw-plan-text")
    await expect(text).to_contain_text("Plan of 'Adult spending by country'")
    await expect(text).to_contain_text("backend auto: the inputs are small")
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-plan", "pandas")
        await expect(node(page, node_id).locator(".pw-plan-tag")).to_have_text("pandas")
    legend = page.get_by_role("list", name="Legend")
    await expect(legend).to_contain_text("pandas, node by node (4)")

    await page.get_by_label("Backend").select_option("duckdb")
    planned = await api.call("GET", f"/api/pipelines/{pipeline_id}/plan?backend=duckdb")
    await expect(text).to_have_text(planned["text"])
    for node_id, mark in expected_marks(planned).items():
        await expect(node(page, node_id)).to_have_attribute("data-plan", mark)
    for segment in planned["segments"]:
        first = node(page, segment["nodes"][0])
        await expect(first.locator(".pw-plan-tag")).to_have_text(segment["backend"])
        title = f"{segment['id']} on {segment['backend']}: {segment['reason']}"
        await expect(first).to_have_attribute("title", title)
    await screenshot(page, "plan-duckdb")

    await page.get_by_label("Pipeline name").fill("Spending, planned")
    await save(page)
    await expect(text).to_contain_text("Plan of 'Spending, planned'")

    await page.get_by_role("tab", name="Logs").click()
    await expect(page.locator("[data-plan]")).to_have_count(0)


def tagged(data_folder) -> dict:
    """The seed over a Parquet file whose map column DuckDB cannot read as pandas does, which
    the aggregate reads (it counts the people with tags): a column nothing reads would not
    keep its reader off DuckDB."""
    tags = pa.array([[("a", 1.5)], None, [], [("b", 2.5)]], pa.map_(pa.string(), pa.float64()))
    table = pa.table({"id": [1, 2, 3, 4], "age": [36, 17, 85, 41], "tags": tags})
    pq.write_table(table.append_column("country", pa.array(["FR", "FI", "US", "GB"])),
                   data_folder / "people.parquet")  # fmt: skip
    document = seed(data_folder)
    document["nodes"][0] = {
        **document["nodes"][0],
        "operator": "parquet_input",
        "params": {"path": data_folder.name("people.parquet")},
    }
    aggregations = document["nodes"][2]["params"]["aggregations"]
    aggregations[0]["column"], aggregations[1]["column"] = "tags", "age"
    return document


def refusal(data_folder) -> str:
    return (
        f"column 'tags' of '{data_folder.name('people.parquet')}' is map<string, double ('tags')>"
    )


async def test_the_plan_tab_says_which_column_keeps_a_node_off_duckdb_and_why(
    signed_in, api, data_folder, screenshot
):
    """Only the reader of the map column leaves the segment, and the tab and its card say
    which column and why."""
    page = signed_in
    pipeline_id = await api.create(tagged(data_folder))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))

    await page.get_by_role("tab", name="Plan").click()
    await page.get_by_label("Backend").select_option("duckdb")
    reader = node(page, "csv_input_1")
    await expect(reader).to_have_attribute("data-plan", "pandas")
    why = refusal(data_folder)
    listed = page.get_by_role("list", name="On pandas, not DuckDB")
    await expect(listed).to_contain_text(f"csv_input_1 runs on pandas, not DuckDB: {why}")
    await expect(reader).to_have_attribute(
        "title",
        f"runs on pandas, not DuckDB: {why}, whose JSON text pandas writes its own way (floats, "
        "dates and bytes in lists and maps)",
    )
    for node_id in SEED_IDS[1:]:
        await expect(node(page, node_id)).to_have_attribute("data-plan", "segment")
    await screenshot(page, "fallback-listed")


async def test_a_run_on_duckdb_says_which_node_ran_on_pandas_and_why(
    signed_in, api, data_folder, screenshot
):
    page = signed_in
    document = {**tagged(data_folder), "config": {"backend": "duckdb"}}
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))

    await page.get_by_role("button", name="Run", exact=True).click()
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
    details = page.get_by_role("complementary", name="Node").locator(".pw-run-details")
    await select(page, "csv_input_1")
    await expect(details).to_contain_text("Ran onpandas")
    await expect(details).to_contain_text(f"On pandas, not DuckDB: {refusal(data_folder)}")
    await screenshot(page, "ran-on-pandas")
    await select(page, "filter_1")
    await expect(details).to_contain_text("Ran onduckdb")
    await expect(details).not_to_contain_text("On pandas, not DuckDB")
