"""The Data tab after a run: a node's stored result paged, sorted and filtered on the server,
with column statistics, naming the columns the run did not keep; a node whose result is no
longer kept is recomputed, from the nearest result still stored, and says so.

`filter_1`'s stored result is replaced here (its key in the node's metrics, the Parquet file in
the workspace's store) by one of 250 rows, so that the result has several pages.
"""

from __future__ import annotations

import asyncio
import hashlib
import re

import pyarrow as pa
import pytest
from playwright.async_api import expect

from editor.models import NodeRun, Run
from runtime.cache.store import ResultStore
from runtime.io.paths import CACHE
from tests.e2e.editor_page import node, open_editor, select
from tests.e2e.seed_pipeline import seed
from tests.e2e.test_accessibility import assert_no_blocking_violation
from tests.e2e.test_editor_runs import SEED_IDS

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

ROWS = 250
CITIES = ["Zürich", "東京", "Ålesund", "Lyon"]


def store_result(asgi_server, user, node_id: str) -> None:
    """Record `node_id`'s result in the latest run as a run with the store does."""
    run = Run.objects.latest("id")
    key = hashlib.sha256(f"{run.pk}:{node_id}".encode()).hexdigest()
    table = pa.table(
        {
            "id": list(range(1, ROWS + 1)),
            "age": [(index * 37) % 90 + 10 for index in range(ROWS)],
            "city": [CITIES[index % len(CITIES)] for index in range(ROWS)],
        }
    )
    folder = asgi_server.data_root / CACHE / user.personal_workspace.slug
    ResultStore(folder).put_arrow(key, table)
    node_run = NodeRun.objects.get(run=run, node_id=node_id)
    node_run.metrics = {**node_run.metrics, "results": {"out": key}}
    node_run.save()


def forget_result(node_id: str) -> None:
    """Make the latest run's `node_id` a node whose result was not kept (evicted, say)."""
    node_run = NodeRun.objects.get(run=Run.objects.latest("id"), node_id=node_id)
    node_run.metrics = {
        name: value for name, value in node_run.metrics.items() if name != "results"
    }
    node_run.save()


@pytest.mark.console_allows("400 (Bad Request)")  # the unknown column in the filter
async def test_the_data_tab_pages_sorts_filters_and_summarises_a_stored_result(
    signed_in, api, people, asgi_server, user, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=len(SEED_IDS))
    await page.get_by_role("button", name="Run", exact=True).click()
    for node_id in SEED_IDS:
        await expect(node(page, node_id)).to_have_attribute("data-status", "succeeded")
    await asyncio.to_thread(store_result, asgi_server, user, "filter_1")

    await select(page, "filter_1")
    await page.get_by_role("tab", name="Data").click()
    status = page.locator(".pw-data [role=status]")
    await expect(status).to_contain_text("Rows 1\N{EN DASH}50 of 250 · Stored result")
    table = page.get_by_role("region", name="Data of filter_1").get_by_role("table")
    await expect(table.locator("tbody tr")).to_have_count(50)

    await (
        page.get_by_role("navigation", name="Pages of rows")
        .get_by_role("button", name="Next")
        .click()
    )
    await expect(status).to_contain_text("Rows 51\N{EN DASH}100 of 250")
    await expect(table.locator("tbody tr").first.locator("td").first).to_have_text("51")

    await table.get_by_title("Sort by age").click()
    age = table.get_by_role("columnheader", name=re.compile(r"^age "))
    await expect(age).to_have_attribute("aria-sort", "ascending")
    # a new sort starts at the top
    await expect(status).to_contain_text("Rows 1\N{EN DASH}50 of 250")
    await expect(table.locator("tbody tr").first.locator("td").nth(1)).to_have_text("10")
    await table.get_by_title("Sort by age").click()
    await expect(age).to_have_attribute("aria-sort", "descending")
    await expect(table.locator("tbody tr").first.locator("td").nth(1)).to_have_text("99")

    await page.locator("#pw-data-filter").fill("city = 'Zürich' and age >= 90")
    await page.get_by_role("button", name="Apply").click()
    kept = [
        index for index in range(ROWS) if index % len(CITIES) == 0 and (index * 37) % 90 + 10 >= 90
    ]
    await expect(status).to_contain_text(f"of {len(kept)} ")
    await expect(table.locator("tbody tr")).to_have_count(len(kept))
    for cell in await table.locator("tbody tr td:nth-child(3)").all_inner_texts():
        assert cell == "Zürich"

    await page.get_by_role("button", name="Column statistics").click()
    statistics = page.get_by_role("complementary", name="Statistics")
    await expect(statistics).to_contain_text("Column statistics (filtered)")
    await expect(statistics.get_by_role("table", name="Histogram of age")).to_be_visible()
    await expect(statistics.get_by_role("table", name="Most frequent of city")).to_contain_text(
        "Zürich"
    )
    await screenshot(page, "1-stored-filtered-with-statistics")
    await statistics.get_by_role("table", name="Histogram of age").scroll_into_view_if_needed()
    await screenshot(page, "2-histogram")
    await assert_no_blocking_violation(page)

    await page.locator("#pw-data-filter").fill("nope > 1")
    await page.get_by_role("button", name="Apply").click()
    await expect(page.locator(".pw-data [role=alert]").first).to_contain_text(
        "unknown column 'nope'"
    )

    # The run kept of people.csv only what the filter and the aggregate read: not the names.
    await page.locator("#pw-data-node").select_option("csv_input_1")
    await expect(status).to_contain_text(
        "Stored result. Not kept by the run: name (nothing after this node reads it)."
    )
    input_table = page.get_by_role("region", name="Data of csv_input_1").get_by_role("table")
    await expect(input_table.get_by_role("columnheader", name="name")).to_have_count(0)
    await screenshot(page, "3-columns-not-kept")
    await page.get_by_role("button", name="Show every column (recomputed, first rows)").click()
    await expect(status).to_contain_text("recomputed from the run's pipeline")
    await expect(input_table.get_by_role("columnheader", name="name")).to_have_count(1)
    await page.get_by_role("button", name="Back to the stored result").click()
    await expect(status).to_contain_text("Stored result. Not kept by the run: name")
    # The aggregate's result is gone: recomputed from the input's stored result, not the file.
    await asyncio.to_thread(forget_result, "aggregate_1")
    await page.locator("#pw-data-node").select_option("aggregate_1")
    await expect(status).to_contain_text(
        "recomputed from the stored result of csv_input_1, first 10,000 rows"
    )
    await expect(
        page.get_by_role("region", name="Data of aggregate_1").locator("tbody tr")
    ).to_have_count(3)
    await screenshot(page, "4-recomputed-from-a-stored-result")

    await asyncio.to_thread(forget_result, "csv_input_1")
    await page.locator("#pw-data-node").select_option("csv_input_1")
    await expect(status).to_contain_text("recomputed from the run's pipeline, first 10,000 rows")
    await expect(
        page.get_by_role("region", name="Data of csv_input_1").locator("tbody tr")
    ).to_have_count(6)
    await expect(statistics).to_contain_text("Statistics need the whole result")
    await expect(status).to_contain_text(
        'To keep it whole, run up to csv_input_1 ("Run up to here" in its panel).'
    )
    await screenshot(page, "5-recomputed")
    # The advice, followed: that run stores the input's result, which pages with statistics.
    await node(page, "csv_input_1").click()
    await page.get_by_text("Run ▾", exact=True).click()
    await page.get_by_role("button", name="Run up to here").click()
    await expect(node(page, "aggregate_1")).to_have_attribute("data-status", "skipped")
    await select(page, "csv_input_1")
    await page.get_by_role("tab", name="Data").click()
    await expect(status).to_contain_text("Stored result")
    await page.get_by_role("button", name="Column statistics").click()  # the tab opened anew
    await expect(statistics.get_by_role("table", name="Histogram of age")).to_be_visible()
