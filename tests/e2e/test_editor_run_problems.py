"""The Run button counts the problems the editor shows and lists them before running; "Run
anyway" runs the branch that does not depend on a node with problems; a node edited after the
run is then marked stale."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import node, open_editor, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def seed_with_a_typo_and_a_copy(folder) -> dict:
    """The seed with `agee` in its filter, and a second branch copying the input as it is."""
    document = seed(folder)
    document["nodes"][1]["params"]["condition"] = "agee >= 18"
    document["nodes"].append(
        {"id": "csv_output_2", "operator": "csv_output", "label": "Copy",
         "params": {"path": folder.name("out/copy.csv")}, "position": {"x": 260, "y": 260}}
    )  # fmt: skip
    document["edges"].append({"source": "csv_input_1", "target": "csv_output_2"})
    return document


@pytest.mark.console_allows("status of 422")  # the server refuses the run: the list opens
async def test_run_lists_the_problems_first_and_run_anyway_runs_the_rest_then_edits_are_stale(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed_with_a_typo_and_a_copy(people))
    await open_editor(page, pipeline_id, nodes=5)
    run = page.get_by_role("button", name="Run · 1 problem", exact=True)

    await run.click()

    dialog = page.get_by_role("dialog", name="1 problem before running")
    await expect(dialog).to_contain_text("unknown column 'agee'")
    await screenshot(page, "problems")
    await dialog.get_by_role("button", name="filter_1").click()  # shows the node
    await expect(dialog).to_have_count(0)
    side = page.get_by_role("complementary", name="Node")
    await expect(side.get_by_role("textbox", name="Condition", exact=True)).to_contain_text("agee")
    await run.click()
    await dialog.get_by_role("button", name="Run anyway").click()
    await expect(page.get_by_role("status").filter(has_text="Run succeeded")).to_be_visible(
        timeout=20_000
    )
    await page.locator(".react-flow__controls-fitview").click()  # the logs took the lower part

    await expect(node(page, "csv_output_2")).to_have_attribute("data-status", "succeeded")
    for node_id in ("filter_1", "aggregate_1", "csv_output_1"):
        await expect(node(page, node_id)).to_have_attribute("data-status", "skipped")
    await screenshot(page, "ran-anyway")
    assert (people / "out/copy.csv").exists()
    assert not (people / "out/spending.csv").exists()

    await select(page, "csv_output_2")
    await side.get_by_role("combobox", name="Path", exact=True).fill(people.name("out/copy2.csv"))
    await expect(node(page, "csv_output_2")).to_have_attribute("data-stale", "true")
    await expect(node(page, "csv_output_2")).to_contain_text("stale")
    await expect(node(page, "csv_input_1")).not_to_have_attribute("data-stale", "true")
    await screenshot(page, "stale")
