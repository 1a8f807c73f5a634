"""The new user's task (issue 30), scripted: build the seed ETL — two CSV inputs, filter,
transform, aggregate, join, a CSV and a SQL output — from an empty canvas, save and run it,
counting what it takes a user who knows the editor: pointer actions (a click, a drag, a key
that picks, such as Enter on a completion) and typed entries (text typed into one field).

A user in an early session took 80 pointer actions and 48 typed entries; the issue asks for
at most half. The counts are what this script does, so they move only when the editor offers
a shorter way; the test pins that the short way works from end to end.
"""

from __future__ import annotations

import asyncio
import re
import sqlite3

import pytest
from playwright.async_api import Locator, Page, expect

from editor.models import Connection
from tests.e2e.editor_page import canvas, edges, node, open_editor, port
from tests.e2e.seed_pipeline import seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

USERS = """id,name,age,country,amount
1,ada,36,FR,120
2,linus,17,FI,40
3,grace,85,FR,99
4,alan,41,DE,10
"""
COUNTRIES = """country,country_name
FR,France
DE,Germany
FI,Finland
"""
MOST_POINTER_ACTIONS = 40
MOST_TYPED_ENTRIES = 24


class Actions:
    """What the user does, counted."""

    def __init__(self, page: Page):
        self.page = page
        self.pointer = 0
        self.typed = 0

    async def click(self, target: Locator) -> None:
        self.pointer += 1
        await target.click()

    async def pick(self, target: Locator, key: str = "Enter") -> None:
        """A key that takes what is offered (a completion, a palette's match)."""
        self.pointer += 1
        await target.press(key)

    async def choose(self, target: Locator, option: str) -> None:
        """A dropdown's option: one action (opening and choosing, as one gesture)."""
        self.pointer += 1
        await target.select_option(option)

    async def type(self, target: Locator, text: str) -> None:
        self.typed += 1
        await target.fill(text)

    async def drop(self, operator: str, x: float, y: float) -> None:
        """Drag an operator from the palette onto the canvas."""
        self.pointer += 1
        await self.page.locator(f'[data-operator="{operator}"]').drag_to(
            canvas(self.page), target_position={"x": x, "y": y}
        )

    async def drag_out(self, node_id: str, name: str, dx: float, dy: float = 0) -> None:
        """Drag a connection from a port and let it go on empty canvas."""
        self.pointer += 1
        box = await port(self.page, node_id, name).bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        await self.page.mouse.move(x, y)
        await self.page.mouse.down()
        await self.page.mouse.move(x + dx, y + dy, steps=10)
        await self.page.mouse.up()

    async def connect(self, source: str, target: str, into: str) -> None:
        """Drag from one node's output to another's input; on a loaded machine a handle just
        added may not be measured yet and the drag draws nothing: it is made again (counted)."""
        before = await edges(self.page).count()
        await self._drag_to_port(source, target, into)
        try:
            await expect(edges(self.page)).to_have_count(before + 1, timeout=3_000)
        except AssertionError:
            await self._drag_to_port(source, target, into)
            await expect(edges(self.page)).to_have_count(before + 1)

    async def _drag_to_port(self, source: str, target: str, into: str) -> None:
        self.pointer += 1
        await port(self.page, source, "out").hover()
        await self.page.mouse.down()
        box = await port(self.page, target, into).bounding_box()
        await self.page.mouse.move(
            box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, steps=8
        )
        await self.page.mouse.up()

    async def add_after(self, node_id: str, search: str, dx: float = 60, dy: float = 0):
        """Quick-add: a connection let go from `node_id`'s output, the palette's match picked."""
        await self.drag_out(node_id, "out", dx, dy)
        palette = self.page.get_by_role("combobox", name="Search operators to connect")
        await self.type(palette, search)
        await self.pick(palette)


def side(page: Page) -> Locator:
    return page.get_by_role("complementary", name="Node")


async def test_the_seed_etl_is_built_from_an_empty_canvas_in_half_the_actions(
    signed_in, api, user, data_folder, screenshot
):
    page = signed_in
    (data_folder / "users.csv").write_text(USERS)
    (data_folder / "countries.csv").write_text(COUNTRIES)
    await asyncio.to_thread(
        Connection.objects.create,
        workspace=user.personal_workspace,
        name="warehouse",
        url=f"sqlite:///{data_folder.relative}/warehouse.db",
        read_only=False,
    )
    pipeline_id = await api.create({**seed(data_folder), "nodes": [], "edges": []})
    await open_editor(page, pipeline_id, nodes=0)
    actor = Actions(page)
    form = side(page)
    box = await canvas(page).bounding_box()

    await actor.drop("csv_input", 120, box["height"] / 4)
    await actor.type(
        form.get_by_role("combobox", name="Path", exact=True), data_folder.name("users.csv")
    )

    await actor.add_after("csv_input_1", "filter")
    await actor.type(form.locator("[data-expression-editor] .cm-content"), "age > 18")

    await actor.add_after("filter_1", "transform")
    mappings = form.get_by_role("group", name="Mappings")
    for index, (target, expression) in enumerate(
        [("amount_eur", "amount * 0.92"), ("name", "upper(name)")]
    ):
        await actor.click(mappings.get_by_role("button", name="+ Add").last)
        await actor.type(mappings.get_by_label(re.compile(r"^Column")).nth(index), target)
        await actor.type(
            mappings.locator("[data-expression-editor] .cm-content").nth(index), expression
        )

    await actor.add_after("transform_1", "aggregate", dx=-640, dy=180)
    group_by = form.get_by_role("combobox", name="Group by")
    await actor.type(group_by, "coun")
    await expect(form.get_by_role("option", name=re.compile(r"country\s+string"))).to_be_visible()
    await actor.pick(group_by)
    aggregations = form.get_by_role("group", name="Aggregations")
    for index, (column, function, name) in enumerate(
        [("id", "count", "users"), ("amount_eur", "sum", "amount_eur"), ("age", "mean", "mean_age")]
    ):
        await actor.click(aggregations.get_by_role("button", name="+ Add").last)
        await actor.type(aggregations.get_by_label("Column", exact=True).nth(index), column)
        function_field = aggregations.get_by_role("combobox", name="Function", exact=True)
        await actor.choose(function_field.nth(index), function)
        await actor.type(aggregations.get_by_label("Output column", exact=True).nth(index), name)

    await actor.add_after("aggregate_1", "join")
    await actor.drop("csv_input", 120, box["height"] / 4 + 360)
    await actor.type(
        form.get_by_role("combobox", name="Path", exact=True), data_folder.name("countries.csv")
    )
    await actor.connect("csv_input_2", "join_1", "right")
    await actor.click(node(page, "join_1"))
    await actor.click(form.get_by_role("button", name="Join on country"))
    await expect(form.get_by_role("list", name="Left keys: chosen")).to_contain_text("country")

    await actor.add_after("join_1", "csv output", dy=-70)
    await actor.type(
        form.get_by_role("combobox", name="Path", exact=True), data_folder.name("out/seed.csv")
    )
    await actor.add_after("join_1", "sql output", dy=120)
    await actor.choose(form.get_by_role("combobox", name="Connection", exact=True), "warehouse")
    await actor.type(form.get_by_role("textbox", name="Table", exact=True), "spending")
    await screenshot(page, "1-built")

    await actor.click(page.get_by_role("button", name="Save", exact=True))
    await actor.click(page.get_by_role("button", name="Run", exact=True))
    await expect(node(page, "sql_output_1")).to_have_attribute(
        "data-status", "succeeded", timeout=60_000
    )
    await screenshot(page, "2-ran")

    written = (data_folder / "out/seed.csv").read_text().splitlines()
    assert written[0].split(",") == [
        "country", "users", "amount_eur", "mean_age", "country_name"
    ]  # fmt: skip
    assert len(written) == 3  # FR and DE: the 17-year-old's FI is filtered out
    with sqlite3.connect(data_folder / "warehouse.db") as database:
        assert database.execute("select count(*) from spending").fetchone() == (2,)
    print(f"\nnew user's task: {actor.pointer} pointer actions, {actor.typed} typed entries")
    assert actor.pointer <= MOST_POINTER_ACTIONS
    assert actor.typed <= MOST_TYPED_ENTRIES
