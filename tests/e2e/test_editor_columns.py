"""Columns you pick and expressions that help (issue 14): a column picker filled from the
input's columns before any save, an expression editor with completion and underlined
problems, cards that say what their node does, and a form that keeps its place."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import connected, node, open_editor, select
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def side_panel(page):
    return page.get_by_role("complementary", name="Node")


def expression_editor(page):
    return side_panel(page).locator("[data-expression-editor] .cm-content")


async def hold_saves(page, pipeline_id: int) -> list:
    """Keeps every save of the pipeline waiting (returned: the held requests), so that what
    the page shows meanwhile cannot have come from one."""
    held = []

    async def hold(route):
        if route.request.method == "PUT":
            held.append(route)
        else:
            await route.continue_()

    await page.route(f"**/api/pipelines/{pipeline_id}", hold)
    return held


async def test_group_by_columns_are_picked_on_a_freshly_connected_node_before_any_save(
    signed_in, api, people, screenshot
):
    page = signed_in
    document = seed(people)
    document["edges"] = [edge for edge in document["edges"] if edge["target"] != "aggregate_1"]
    document["nodes"][2]["params"] = {"aggregations": [{"function": "size"}]}
    pipeline_id = await api.create(document)
    held = await hold_saves(page, pipeline_id)
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "aggregate_1")
    await expect(side_panel(page)).to_contain_text("The columns of in appear once")

    await connected(page, "filter_1", "aggregate_1")
    await select(page, "aggregate_1")
    group_by = side_panel(page).get_by_role("combobox", name="Group by")
    await group_by.click()
    options = side_panel(page).get_by_role("listbox", name="Columns of in")
    country = options.get_by_role("option", name=re.compile(r"^\s*country\s+string"))
    await expect(country).to_be_visible()
    assert (await api.get(pipeline_id))["revision"] == 1  # nothing saved: the check answered
    await group_by.fill("coun")
    await expect(options.get_by_role("option")).to_have_count(1)
    await screenshot(page, "column-picker")
    await country.click()
    await expect(options).to_be_hidden()  # chosen: the list no longer lies over the next field
    await group_by.fill("region")
    await group_by.press("Enter")
    chosen = side_panel(page).get_by_role("list", name="Group by: chosen")
    await expect(chosen.get_by_role("listitem")).to_have_text(
        [re.compile("^country"), re.compile("^region")]
    )
    await expect(side_panel(page).get_by_role("status")).to_have_text(
        "'region' is not a column of in (yet)."
    )
    await screenshot(page, "column-picker-chosen")
    for route in held:
        await route.continue_()


async def test_the_expression_editor_completes_columns_and_functions(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "filter_1")
    editor = expression_editor(page)
    await editor.click()
    await page.keyboard.press("End")
    await page.keyboard.type(" and coun")
    completions = page.locator(".cm-tooltip-autocomplete")
    country = completions.get_by_role("option").first
    await expect(country).to_contain_text("country")
    await expect(country).to_contain_text("string")
    await country.click()
    await page.keyboard.type(" = up")
    upper = completions.get_by_role("option", name=re.compile("upper"))
    await expect(upper).to_contain_text("upper(text) → string")
    await screenshot(page, "function-completion")
    await expect(upper).to_have_attribute("aria-selected", "true")
    # CodeMirror ignores Enter within 75 ms of the list changing (`interactionDelay`); on a
    # loaded machine the list may have just been redrawn
    await page.wait_for_timeout(150)
    await page.keyboard.press("Enter")
    await expect(editor).to_have_text(re.compile(r"country = upper\(\s*$"))
    await page.keyboard.type("name)")
    await expect(editor).to_have_text("age >= 18 and country = upper(name)")
    link = side_panel(page).get_by_role("link", name="Expression language")
    await expect(link).to_have_attribute("href", "/docs/expressions/")
    await page.goto("/docs/expressions/")
    await expect(page.get_by_role("heading", name="Expressions", level=1)).to_be_visible()
    await expect(page.get_by_role("cell", name="substr(text, start, length?)")).to_be_visible()
    await screenshot(page, "language-page")


async def test_a_bad_expression_is_underlined_with_the_servers_message(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "filter_1")
    await expression_editor(page).click()
    await page.keyboard.press("End")
    await page.keyboard.type(" and agee > 1")
    underlined = side_panel(page).locator(".cm-lintRange-error")
    await expect(underlined).to_have_text("agee")
    await expect(side_panel(page).get_by_role("alert")).to_contain_text(
        "unknown column 'agee' at 1:15; did you mean 'age'?"
    )
    await underlined.hover()
    await expect(page.locator(".cm-tooltip-lint")).to_contain_text("unknown column 'agee'")
    await screenshot(page, "expression-problem")


async def test_cards_show_what_their_node_does_and_follow_typing(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    summary = node(page, "aggregate_1").locator(".pw-node-summary")
    await expect(summary).to_have_text("by country: count, sum")
    await expect(node(page, "csv_input_1").locator(".pw-node-summary")).to_have_text(
        people.name("people.csv")
    )
    await select(page, "filter_1")
    await expression_editor(page).click()
    await page.keyboard.press("End")
    await page.keyboard.type(" and country = 'FR'")
    filtered = node(page, "filter_1").locator(".pw-node-summary")
    await expect(filtered).to_have_text("age >= 18 and country = 'FR'")
    await expect(filtered).to_have_attribute("title", "age >= 18 and country = 'FR'")
    await screenshot(page, "card-summaries")


async def test_add_focuses_the_new_field_and_each_node_starts_at_the_top(signed_in, api, people):
    page = signed_in
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "aggregate_1")
    panel = side_panel(page)
    aggregations = panel.get_by_role("group", name="Aggregations")
    await aggregations.get_by_role("button", name="+ Add").click()
    new_card = aggregations.locator("[data-item]").nth(2)
    await expect(new_card.get_by_role("combobox", name="Column")).to_be_focused()

    await panel.evaluate("panel => { panel.scrollTop = panel.scrollHeight; }")
    assert await panel.evaluate("panel => panel.scrollTop") > 0
    await select(page, "filter_1")
    assert await side_panel(page).evaluate("panel => panel.scrollTop") == 0


async def test_the_expression_editor_loads_only_once_an_expression_field_is_shown(
    signed_in, api, people
):
    page = signed_in
    loaded = []
    page.on("request", lambda request: loaded.append(request.url.rsplit("/", 1)[-1]))
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    await select(page, "csv_output_1")  # no expression field (aggregate has: `where`)
    assert "ExpressionEditor.js" not in loaded
    await select(page, "filter_1")
    await expect(expression_editor(page)).to_have_text("age >= 18")
    assert loaded.count("ExpressionEditor.js") == 1
