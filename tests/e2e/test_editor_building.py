"""The browser editor end to end: a user signs in and opens a pipeline, or builds the seed's
pipeline by dragging operators from the palette, connecting ports and filling the forms,
then saves and reloads it.
"""

from __future__ import annotations

import asyncio
import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import (
    canvas,
    connected,
    drop_operator,
    edges,
    node,
    open_editor,
    save,
    save_state,
    select,
)
from tests.e2e.seed_pipeline import graph_of, seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

DROP_OFFSET = (100, 28)  # a dropped node's top left, from the drop point (half its nominal size)


async def test_signing_in_shows_the_pipelines_and_opens_one_in_the_editor(
    page, user, api, people, screenshot
):
    user.set_password("correct horse battery staple")
    await asyncio.to_thread(user.save)
    pipeline_id = await api.create(seed(people))
    await api.create({**seed(people), "name": "Another pipeline"})

    await page.goto("/")
    await expect(page).to_have_url("/accounts/login/?next=/")
    await page.locator("[name=username]").fill("ada")
    await page.locator("[name=password]").fill("correct horse battery staple")
    await screenshot(page, "1-sign-in")
    await page.get_by_role("button", name="Sign in").click()

    await expect(page.get_by_role("heading", name="Pipelines")).to_be_visible()
    await expect(page.get_by_role("link", name="Another pipeline")).to_be_visible()
    await screenshot(page, "2-home")
    await page.get_by_role("link", name="Adult spending by country").click()
    await expect(page).to_have_url(f"/pipelines/{pipeline_id}/")
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    await screenshot(page, "3-editor")


async def test_a_pipeline_built_by_dragging_and_filling_forms_is_saved_and_reloads(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create({**seed(people), "nodes": [], "edges": []})
    await open_editor(page, pipeline_id, nodes=0)
    await screenshot(page, "1-empty")
    palette = page.get_by_role("complementary", name="Operators")
    assert (
        await page.locator("[data-operator]").count()
        == await palette.locator("[data-operator]").count()
        > 20
    )

    box = await canvas(page).bounding_box()
    middle_x, middle_y = box["width"] / 2, box["height"] / 2
    spots = {  # where to drop, in the canvas: input and filter, then aggregate and output
        "csv_input": (middle_x, middle_y),
        "filter": (middle_x + 280, middle_y),
        "aggregate": (middle_x - 280, middle_y + 180),
        "csv_output": (middle_x, middle_y + 180),
    }
    for operator, (x, y) in spots.items():
        await drop_operator(page, operator, x, y)
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    for operator, (x, y) in spots.items():  # the view did not move (or zoom) under them
        dropped = await node(page, f"{operator}_1").bounding_box()
        assert (dropped["x"] - box["x"], dropped["y"] - box["y"]) == pytest.approx(
            (x - DROP_OFFSET[0], y - DROP_OFFSET[1]), abs=2
        ), f"{operator} did not stay where it was dropped"
    await connected(page, "csv_input_1", "filter_1")
    await connected(page, "filter_1", "aggregate_1")
    await connected(page, "aggregate_1", "csv_output_1")
    await expect(edges(page)).to_have_count(3)

    side = page.get_by_role("complementary", name="Node")
    await select(page, "csv_input_1")
    await side.get_by_role("combobox", name="Path", exact=True).fill(people.name("people.csv"))
    await select(page, "filter_1")
    await side.get_by_role("textbox", name="Condition", exact=True).fill("age >= 18")
    await select(page, "aggregate_1")
    group_by = side.get_by_role("combobox", name="Group by")
    await group_by.fill("coun")
    await expect(side.get_by_role("option", name=re.compile(r"country\s+string"))).to_be_visible()
    await group_by.press("Enter")  # the picker's one match
    aggregations = side.get_by_role("group", name="Aggregations")
    for index, (column, function, name) in enumerate(
        [("id", "count", "people"), ("amount", "sum", "amount")]
    ):
        await aggregations.get_by_role("button", name="+ Add").last.click()
        await aggregations.get_by_label("Column", exact=True).nth(index).fill(column)
        function_field = aggregations.get_by_role("combobox", name="Function", exact=True)
        await function_field.nth(index).select_option(function)
        await aggregations.get_by_label("Output column", exact=True).nth(index).fill(name)
    await select(page, "csv_output_1")
    await side.get_by_role("combobox", name="Path", exact=True).fill(
        people.name("out/spending.csv")
    )
    await screenshot(page, "2-built")
    await save(page)

    assert graph_of(await api.get(pipeline_id)) == graph_of(seed(people))
    await page.reload()
    await expect(page.locator("[data-node-id]")).to_have_count(4)
    await expect(edges(page)).to_have_count(3)
    await expect(save_state(page)).to_have_text("Saved")
    overview = page.get_by_role("complementary", name="Pipeline")
    await expect(overview).to_contain_text("No problems found.")
    await select(page, "aggregate_1")
    chosen = side.get_by_role("list", name="Group by: chosen").get_by_role("listitem")
    await expect(chosen).to_have_text([re.compile(r"^country")])
    await expect(side.get_by_label("Output column", exact=True).nth(1)).to_have_value("amount")
    await screenshot(page, "3-reloaded")


async def test_the_editor_asks_for_its_first_three_answers_once_before_its_script_is_loaded(
    signed_in, api, people
):
    """The page preloads the editor's first three calls while the script downloads; the editor
    then uses those answers instead of asking again."""
    page = signed_in
    pipeline_id = await api.create(seed(people))
    seen = []
    page.on("request", lambda request: seen.append(("asked", request.url.split("/", 3)[3])))
    page.on("requestfinished", lambda request: seen.append(("got", request.url.split("/", 3)[3])))
    await open_editor(page, pipeline_id, nodes=4)
    calls = [
        f"api/pipelines/{pipeline_id}",
        "api/operators",
        f"api/pipelines/{pipeline_id}/schemas",
    ]
    assert sorted(url for kind, url in seen if kind == "asked" and url in calls) == sorted(calls)
    script = seen.index(("got", "static/editor/dist/editor.js"))
    assert all(seen.index(("asked", url)) < script for url in calls)
