"""The editor and the server agree on every check (issue 11, bug 4).

While a connection is dragged, the ports it may not end at are greyed with the reason the
drop (and the server) would give; a problem the server finds at a pipeline setting shows
under that setting in the Settings dialog.
"""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import edges, open_editor, port, save, save_state
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

REFUSED = "pw-handle-refused"
REFUSED_CLASS = re.compile(rf"\b{REFUSED}\b")


async def test_dragging_from_an_output_greys_the_inputs_it_may_not_take(
    signed_in, api, people, screenshot
):
    page = signed_in
    document = seed(people)
    document["nodes"].append(
        {"id": "filter_2", "operator": "filter", "params": {"condition": "age >= 1"},
         "position": {"x": 520, "y": 200}}
    )  # fmt: skip
    pipeline_id = await api.create(document)
    await open_editor(page, pipeline_id, nodes=5)

    await port(page, "aggregate_1", "out").hover()
    await page.mouse.down()
    free = await port(page, "filter_2", "in").bounding_box()
    await page.mouse.move(free["x"] - 60, free["y"] - 60, steps=6)

    cycle = port(page, "filter_1", "in")
    await expect(cycle).to_have_class(REFUSED_CLASS)
    for node_id, reason in (
        ("filter_1", "would make a cycle"),
        ("aggregate_1", "cannot feed itself"),
        ("csv_output_1", "already connected"),
    ):
        await expect(port(page, node_id, "in")).to_have_attribute("title", re.compile(reason))
    await expect(port(page, "csv_input_1", "out")).to_have_class(REFUSED_CLASS)
    await expect(port(page, "filter_2", "in")).not_to_have_class(REFUSED_CLASS)
    await expect(port(page, "aggregate_1", "out")).not_to_have_class(REFUSED_CLASS)
    await screenshot(page, "refused-ends")

    await page.mouse.move(free["x"] + free["width"] / 2, free["y"] + free["height"] / 2, steps=6)
    await page.mouse.up()
    await expect(edges(page)).to_have_count(4)
    await expect(page.locator(f".{REFUSED}")).to_have_count(0)


@pytest.mark.console_allows("400 (Bad Request)")
async def test_a_settings_problem_from_the_server_shows_under_its_field(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)

    # The browser takes 0 (the input's minimum); the server wants more than 0.
    await page.get_by_role("button", name="Settings", exact=True).click()
    dialog = page.get_by_role("dialog", name="Pipeline settings")
    await dialog.get_by_label("Timeout (s)").fill("0")
    await dialog.get_by_role("button", name="Apply").click()
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(save_state(page)).to_have_text("Unsaved")

    await page.get_by_role("button", name="Settings", exact=True).click()
    timeout = dialog.get_by_label("Timeout (s)")
    await expect(timeout).to_have_attribute("aria-invalid", "true")
    field = dialog.locator(".pw-field").filter(has=page.get_by_label("Timeout (s)"))
    await expect(field.get_by_role("alert")).to_have_text(
        "Settings, Timeout (s): must be greater than 0"
    )
    retries = dialog.locator(".pw-field").filter(has=page.get_by_label("Retries", exact=True))
    await expect(retries.get_by_role("alert")).to_have_count(0)
    await screenshot(page, "settings-problem")


async def test_the_backend_chosen_in_settings_is_saved_and_the_plan_follows_it(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await page.get_by_role("button", name="Settings", exact=True).click()
    dialog = page.get_by_role("dialog", name="Pipeline settings")
    await expect(dialog.get_by_label("Backend")).to_have_value("auto")
    await dialog.get_by_label("Backend").select_option("duckdb")
    await dialog.get_by_role("button", name="Apply").click()
    await save(page)
    assert (await api.get(pipeline_id))["config"]["backend"] == "duckdb"
    plan = await api.call("GET", f"/api/pipelines/{pipeline_id}/plan")
    assert plan["segments"], "a small pipeline still lowers when the document asks for DuckDB"
    await page.get_by_role("tab", name="Plan").click()
    await expect(page.get_by_text("segment:1 on duckdb (backend duckdb)")).to_be_visible()
    await screenshot(page, "backend-duckdb")
