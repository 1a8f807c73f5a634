"""When someone else saved meanwhile and changed what this user changed, the browser editor
names who and what, and lets the user take theirs, keep theirs and save this version as a copy,
or say in so many words to overwrite theirs; no path writes the stale version over theirs
silently. (Saves that changed different things merge: test_editor_together.py.)
"""

from __future__ import annotations

import asyncio
import re

import pytest
from playwright.async_api import expect

from tests.e2e.editor_page import open_editor, save_state
from tests.e2e.seed_pipeline import graph_of, seed

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

CONFLICT = "409 (Conflict)"  # Chromium logs the refused save's response as a console error


async def change_elsewhere(api, pipeline_id: int, name: str) -> None:
    """Someone else renames the pipeline through the API."""
    current = await api.get(pipeline_id)
    await api.call("PUT", f"/api/pipelines/{pipeline_id}", {**current, "name": name})


async def hold_saves(page):
    """Hold the page's saves until the returned `release()`: the edit stays unsaved meanwhile
    (autosave would otherwise save it first, whatever the machine's speed)."""
    gate = asyncio.Event()

    async def hold(route):
        if route.request.method == "PUT":
            await gate.wait()
        await route.fallback()

    await page.route("**/api/pipelines/*", hold)

    async def release():
        gate.set()
        await page.unroute("**/api/pipelines/*", hold)

    return release


async def opened_then_saved_elsewhere(page, api, people) -> int:
    """The seed pipeline open in the editor and renamed there, unsaved, when someone else
    renames it too; its id."""
    pipeline_id = await api.create(seed(people))
    await open_editor(page, pipeline_id, nodes=4)
    release = await hold_saves(page)
    await page.get_by_label("Pipeline name").fill("Renamed here")
    await change_elsewhere(api, pipeline_id, "Renamed elsewhere")
    await release()
    return pipeline_id


async def conflict_dialog(page):
    """The dialog of the (auto)save that follows: a conflict on the name."""
    dialog = page.get_by_role("dialog", name="ada saved this pipeline")
    await expect(dialog).to_contain_text(
        "ada saved changes to this pipeline while you were editing it, and changed what you "
        "changed: name"
    )
    return dialog


@pytest.mark.console_allows(CONFLICT)
async def test_after_a_conflicting_save_take_theirs_shows_the_other_version(
    signed_in, api, people, screenshot
):
    page = signed_in
    pipeline_id = await opened_then_saved_elsewhere(page, api, people)

    dialog = await conflict_dialog(page)
    await screenshot(page, "conflict")
    await dialog.get_by_role("button", name="Take theirs").click()

    await expect(dialog).to_be_hidden()
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed elsewhere")
    await expect(save_state(page)).to_have_text("Saved")
    assert (await api.get(pipeline_id))["name"] == "Renamed elsewhere"


@pytest.mark.console_allows(CONFLICT)
async def test_undo_after_reloading_theirs_does_not_bring_the_stale_version_back_over_theirs(
    signed_in, api, people
):
    """Undo after "Take theirs" brought back the whole stale document, which the next
    (auto)save wrote over the other user's change with the fresh revision."""
    page = signed_in
    pipeline_id = await opened_then_saved_elsewhere(page, api, people)
    dialog = await conflict_dialog(page)
    await dialog.get_by_role("button", name="Take theirs").click()
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed elsewhere")

    await page.get_by_label("Pipeline name").blur()
    await page.keyboard.press("Control+z")
    await page.get_by_role("button", name="Save", exact=True).click()
    await expect(save_state(page)).to_have_text("Saved")
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed elsewhere")
    saved = await api.get(pipeline_id)
    assert saved["name"] == "Renamed elsewhere" and saved["revision"] == 2


@pytest.mark.console_allows(CONFLICT)
async def test_keep_mine_as_a_copy_saves_this_version_as_a_new_pipeline_and_shows_theirs(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await opened_then_saved_elsewhere(page, api, people)

    dialog = await conflict_dialog(page)
    await dialog.get_by_role("button", name="Keep mine as a copy").click()

    await expect(dialog).to_be_hidden()
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed elsewhere")
    await expect(save_state(page)).to_have_text("Saved")
    theirs = await api.get(pipeline_id)
    assert theirs["name"] == "Renamed elsewhere" and theirs["revision"] == 2
    listed = (await api.call("GET", "/api/pipelines"))["items"]
    [copy] = [item for item in listed if item["id"] != pipeline_id]
    assert copy["name"] == "Renamed here (my copy)"
    assert graph_of(await api.get(copy["id"])) == graph_of(seed(people))

    await page.get_by_role("link", name="Open your copy").click()
    await expect(page).to_have_url(re.compile(rf"/pipelines/{copy['id']}/$"))
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed here (my copy)")


@pytest.mark.console_allows(CONFLICT)
async def test_after_a_conflicting_save_overwrite_keeps_this_version(signed_in, api, people):
    page = signed_in
    pipeline_id = await opened_then_saved_elsewhere(page, api, people)

    dialog = await conflict_dialog(page)
    await dialog.get_by_role("button", name="Overwrite with mine").click()

    await expect(dialog).to_be_hidden()
    await expect(save_state(page)).to_have_text("Saved")
    saved = await api.get(pipeline_id)
    assert saved["name"] == "Renamed here" and saved["revision"] == 3
    assert graph_of(saved) == graph_of(seed(people))


@pytest.mark.console_allows(CONFLICT)
async def test_show_what_differs_tells_what_this_version_changes_in_theirs_and_saves_nothing(
    signed_in, api, people
):
    page = signed_in
    pipeline_id = await opened_then_saved_elsewhere(page, api, people)
    dialog = await conflict_dialog(page)
    await dialog.get_by_role("button", name="Show everything that differs").click()

    await expect(dialog.get_by_role("status", name="What differs")).to_have_text(
        "Compared with theirs, your version: changed name."
    )
    saved = await api.get(pipeline_id)
    assert saved["name"] == "Renamed elsewhere" and saved["revision"] == 2
    await dialog.get_by_role("button", name="Take theirs").click()
    await expect(page.get_by_label("Pipeline name")).to_have_value("Renamed elsewhere")
