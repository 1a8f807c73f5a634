"""Files and connections picked, not typed (issue 30): a path field's "Browse…" shows the
workspace's files with the chosen one's first rows (an output's names a new file in a folder),
a misspelt path says "did you mean" under the field, and a connection field's "New
connection…" opens the connection form, whose "Test connection" reaches a real SQLite file
before the connection is saved and chosen."""

from __future__ import annotations

import sqlite3

import pytest
from playwright.async_api import expect

from editor.models import Connection
from tests.e2e.editor_page import open_editor, select

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


def one_node(operator: str, params: dict) -> dict:
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": f"pick for {operator}",
        "nodes": [
            {"id": "node_1", "operator": operator, "params": params, "position": {"x": 0, "y": 0}}
        ],
        "edges": [],
    }


def side_panel(page):
    return page.get_by_role("complementary", name="Node")


async def test_a_file_is_picked_by_browsing_with_its_first_rows_shown(
    signed_in, api, people, screenshot
):
    page = signed_in
    typo = people.name("peple.csv")
    pipeline_id = await api.create(one_node("csv_input", {"path": typo}))
    await open_editor(page, pipeline_id, nodes=1)
    await select(page, "node_1")
    panel = side_panel(page)
    await expect(panel.locator(".pw-field-path .pw-field-problems")).to_contain_text(
        f"did you mean '{people.name('people.csv')}'?"
    )
    await panel.get_by_role("button", name="Browse files for Path").click()
    dialog = page.get_by_role("dialog", name="Choose a file")
    await expect(dialog.locator(f"[data-path='{people.name('people.csv')}']")).to_be_visible()
    await screenshot(page, "file-picker-folder")
    await dialog.get_by_role("searchbox", name="Search every file").fill("people")
    await dialog.locator(f"[data-path='{people.name('people.csv')}']").click()
    rows = dialog.get_by_role("region", name=f"First rows of {people.name('people.csv')}")
    await expect(rows.locator("thead")).to_contain_text("age")
    await expect(rows.locator("tbody tr").first).to_be_visible()
    await screenshot(page, "file-picker")
    await dialog.get_by_role("button", name="Use this file").click()
    await expect(panel.locator(".pw-field-path input[type=text]")).to_have_value(
        people.name("people.csv")
    )
    await expect(panel.locator(".pw-field-path .pw-field-problems")).to_have_count(0)


async def test_an_output_file_is_named_in_a_folder_picked_by_browsing(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await api.create(one_node("csv_output", {"path": "adults.csv"}))
    await open_editor(page, pipeline_id, nodes=1)
    await select(page, "node_1")
    panel = side_panel(page)
    await panel.get_by_role("button", name="Browse files for Path").click()
    dialog = page.get_by_role("dialog", name="Choose where to write")
    folder = people.name("people.csv").rsplit("/", 1)[0]
    top = folder.split("/")[0]
    await dialog.locator(f"[data-path='{top}']").click()  # into the test's folder
    await dialog.locator(f"[data-path='{folder}']").click()
    await expect(dialog.locator(f"[data-path='{people.name('people.csv')}']")).to_be_visible()
    name = dialog.get_by_label("File name")
    await expect(name).to_have_value("adults.csv")  # the field's, in the folder shown
    await name.fill("grown-ups.csv")  # a file that does not exist yet
    await screenshot(page, "file-picker-output")
    await dialog.get_by_role("button", name="Write here").click()
    await expect(panel.locator(".pw-field-path input[type=text]")).to_have_value(
        f"{folder}/grown-ups.csv"
    )


@pytest.mark.console_allows("400 (Bad Request)")  # the failed test of nope.db
async def test_a_connection_is_made_tested_and_chosen_from_the_connection_field(
    signed_in, api, user, asgi_server, screenshot
):
    page = signed_in
    folder = asgi_server.data_root / user.personal_workspace.slug
    folder.mkdir(parents=True, exist_ok=True)
    sqlite3.connect(folder / "shop.db").close()
    params = {"connection": "", "query": "select 1 as one"}
    pipeline_id = await api.create(one_node("sql_input", params))
    await open_editor(page, pipeline_id, nodes=1)
    await select(page, "node_1")
    field = side_panel(page).locator(".pw-field-connection select")
    await field.select_option(label="New connection…")
    dialog = page.get_by_role("dialog", name="New connection")
    await dialog.get_by_label("Name", exact=True).fill("shop")
    await dialog.get_by_label("Database", exact=True).select_option(
        label="SQLite (a file in this workspace)"
    )
    await dialog.get_by_label("SQLite file").fill("nope.db")
    await dialog.get_by_role("button", name="Test connection").click()
    await expect(dialog.get_by_role("alert")).to_contain_text("no SQLite file 'nope.db'")
    await dialog.get_by_label("Or paste a URL").fill("sqlite:///shop.db")
    await expect(dialog.get_by_label("SQLite file")).to_have_value("shop.db")
    await dialog.get_by_role("button", name="Test connection").click()
    await expect(dialog.get_by_role("status")).to_contain_text("Connected: SQLite 3.")
    await screenshot(page, "connection-form")
    await dialog.get_by_role("button", name="Save connection").click()
    await expect(dialog).to_have_count(0)
    await expect(field).to_have_value("shop")
    connection = await Connection.objects.aget(name="shop")
    assert connection.url == "sqlite:///shop.db" and connection.read_only
