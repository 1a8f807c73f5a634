"""Workspaces in the browser: the home page's sections, a workspace's Files and settings pages,
and the editor a viewer gets, against the real daphne server.

The test user `ada` has her personal workspace and belongs to a team workspace made by `bob`
with the role each test needs. Everything a page must not offer (Run for a viewer, upload in
the shared folder) is checked by its absence, and what the server holds is read back from
the database or the data root, not from the page.
"""

from __future__ import annotations

import asyncio
import re
import shutil

import pytest
from django.contrib.auth import get_user_model
from playwright.async_api import expect

from editor.models import Membership, Role
from editor.workspaces.membership import create_workspace, set_member
from editor.workspaces.tokens import create_token
from tests.e2e.browser import sign_in_with_session
from tests.e2e.conftest import Api
from tests.e2e.editor_page import drag, node

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

SHOTS = "/tmp/ui-shots"
TEAM = "Data team"
TOO_LARGE = "413 (Request Entity Too Large)"  # Chromium logs the refused upload as a console error


def two_nodes(name: str) -> dict:
    """A small pipeline to look at (its input need not exist)."""
    return {
        "format": "pipewright.pipeline",
        "version": 1,
        "name": name,
        "nodes": [
            {"id": "csv_input_1", "operator": "csv_input", "params": {"path": "people.csv"},
             "position": {"x": 0, "y": 0}},
            {"id": "filter_1", "operator": "filter", "params": {"condition": "age >= 18"},
             "position": {"x": 300, "y": 0}},
        ],
        "edges": [{"source": "csv_input_1", "target": "filter_1"}],
    }  # fmt: skip


@pytest.fixture
def team(user, asgi_server):
    """`(workspace, bob's Api)`: bob's team workspace, where the test sets ada's role."""
    bob = get_user_model().objects.create_user("bob")
    workspace = create_workspace(TEAM, admin=bob)
    return workspace, Api(asgi_server, create_token(bob, "browser tests"))


async def offset(page, first: str, second: str) -> tuple[float, float]:
    """Where node `second` is on the screen from node `first`."""
    a, b = await node(page, first).bounding_box(), await node(page, second).bounding_box()
    return round(b["x"] - a["x"]), round(b["y"] - a["y"])


async def shot(page, name: str) -> None:
    """A screenshot to look at, outside the repository."""
    await page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


async def test_home_page_groups_pipelines_by_workspace_and_offers_a_viewer_no_edits(
    signed_in, user, api, team
):
    page = signed_in
    workspace, bob = team
    await asyncio.to_thread(set_member, workspace, user, Role.VIEWER)
    await api.create(two_nodes("My own pipeline"))
    await bob.call(
        "POST", "/api/pipelines", {**two_nodes("Team pipeline"), "workspace": workspace.slug}
    )

    await page.goto("/")
    sections = page.locator("section[data-workspace]")
    await expect(sections).to_have_count(2)
    await expect(sections.nth(0).get_by_role("heading")).to_have_text("ada")
    await expect(sections.nth(1).get_by_role("heading")).to_have_text(TEAM)
    mine, theirs = sections.nth(0), sections.nth(1)
    await expect(mine).to_contain_text("your workspace · admin")
    await expect(theirs).to_contain_text("viewer")
    await expect(mine.get_by_role("link", name="My own pipeline")).to_be_visible()
    await expect(theirs.get_by_role("link", name="Team pipeline")).to_be_visible()
    await expect(mine.get_by_role("link", name="Team pipeline")).to_have_count(0)
    await expect(theirs.get_by_role("link", name="Files")).to_have_attribute(
        "href", f"/workspaces/{workspace.slug}/files/"
    )
    await expect(mine.get_by_role("link", name="Settings")).to_be_visible()
    await expect(theirs.get_by_role("link", name="Settings")).to_have_count(0)
    for label in ("New pipeline", "Import JSON", "Rename", "Duplicate", "Delete"):
        await expect(mine.get_by_role("button", name=label)).to_be_visible()
        await expect(theirs.get_by_role("button", name=label)).to_have_count(0)
    await shot(page, "home")

    await mine.get_by_role("button", name="New pipeline").click()
    await expect(page).to_have_url(re.compile(r"/pipelines/\d+/$"))
    created = await api.get(int(page.url.rstrip("/").rsplit("/", 1)[1]))
    assert created["workspace"] == user.personal_workspace.slug


@pytest.mark.console_allows(TOO_LARGE)
async def test_files_page_uploads_downloads_and_deletes_and_keeps_shared_read_only(
    page, user, session_key, start_server, tmp_path
):
    [server] = await asyncio.to_thread(start_server, 1, {"PIPEWRIGHT_MAX_UPLOAD_MB": "1"})
    await sign_in_with_session(page.context, server.url, session_key)
    slug = user.personal_workspace.slug
    folder = server.data_root / slug
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "sales").mkdir(parents=True)
    (server.data_root / "shared").mkdir(exist_ok=True)
    (server.data_root / "shared" / "countries.csv").write_text("code\nFR\n")

    response = await page.goto(f"{server.url}/workspaces/{slug}/files/")
    assert response.status == 200
    rows = page.locator("tr[data-path]")
    await expect(rows).to_have_count(2)
    await expect(rows.nth(0)).to_have_attribute("data-path", "shared")
    await expect(rows.nth(0)).to_contain_text("read-only")
    await expect(rows.nth(0).get_by_role("button", name="Delete shared")).to_have_count(0)

    await page.get_by_role("link", name="sales").click()
    await expect(page.get_by_role("navigation", name="Folder")).to_contain_text("sales")
    await page.get_by_label("File to upload").set_input_files(
        files=[{"name": "people.csv", "mimeType": "text/csv", "buffer": b"id,name\n1,Ada\n"}]
    )
    uploaded = page.locator('tr[data-path="sales/people.csv"]')
    await expect(uploaded).to_contain_text("14 B")
    await expect(uploaded).to_contain_text("just now")
    assert (folder / "sales" / "people.csv").read_bytes() == b"id,name\n1,Ada\n"
    await shot(page, "files-uploaded")

    await page.get_by_label("File to upload").set_input_files(
        files=[{"name": "big.csv", "mimeType": "text/csv", "buffer": b"x" * (2 * 2**20)}]
    )
    await expect(page.locator(".pw-toast").last).to_contain_text(
        "big.csv is too large to upload: the upload is larger than the 1,048,576-byte limit."
    )
    assert not (folder / "sales" / "big.csv").exists()
    await shot(page, "files-too-large")

    async with page.expect_download() as download:
        await uploaded.get_by_role("link", name="Download people.csv").click()
    saved = tmp_path / "downloaded.csv"
    await (await download.value).save_as(saved)
    assert saved.read_bytes() == b"id,name\n1,Ada\n"

    await uploaded.get_by_role("button", name="Delete people.csv").click()
    dialog = page.get_by_role("dialog", name="Delete sales/people.csv?")
    await dialog.get_by_role("button", name="Delete").click()
    await expect(uploaded).to_have_count(0)
    assert not (folder / "sales" / "people.csv").exists()

    await page.get_by_role("link", name=user.personal_workspace.name).click()
    await page.get_by_role("link", name="shared").click()
    shared_file = page.locator('tr[data-path="shared/countries.csv"]')
    await expect(shared_file.get_by_role("link", name="Download countries.csv")).to_be_visible()
    await expect(shared_file.get_by_role("button", name="Delete countries.csv")).to_have_count(0)
    await expect(page.get_by_role("button", name="Upload file")).to_have_count(0)
    await expect(page.get_by_role("note")).to_contain_text("read-only")
    await shot(page, "files-shared")


@pytest.mark.console_allows("409 (Conflict)")
async def test_uploading_over_a_files_name_asks_replace_and_keeps_the_old_one_unless_confirmed(
    signed_in, user, asgi_server, data_folder
):
    """As a user uploads a newer people.csv: the page asks "Replace …?" (it replaced the file
    without asking); also when the file arrived after the page listed the folder (the
    server's 409 asks then)."""
    page = signed_in
    (data_folder / "people.csv").write_bytes(b"id\n1\n")
    slug = user.personal_workspace.slug
    await page.goto(f"/workspaces/{slug}/files/?folder={data_folder.relative}")
    listed = page.locator(f'tr[data-path="{data_folder.name("people.csv")}"]')
    await expect(listed).to_contain_text("5 B")
    chooser = page.get_by_label("File to upload")
    newer = {"name": "people.csv", "mimeType": "text/csv", "buffer": b"id\n1\n2\n"}

    await chooser.set_input_files(files=[newer])
    dialog = page.get_by_role("dialog", name=f"Replace {data_folder.name('people.csv')}?")
    await dialog.get_by_role("button", name="Keep the old one").click()
    await expect(dialog).to_have_count(0)
    assert (data_folder / "people.csv").read_bytes() == b"id\n1\n"

    await chooser.set_input_files(files=[newer])
    await dialog.get_by_role("button", name="Replace").click()
    await expect(listed).to_contain_text("7 B")
    assert (data_folder / "people.csv").read_bytes() == b"id\n1\n2\n"

    (data_folder / "late.csv").write_bytes(b"theirs\n")  # another tab, after the listing
    await chooser.set_input_files(files=[{**newer, "name": "late.csv"}])
    late = page.get_by_role("dialog", name=f"Replace {data_folder.name('late.csv')}?")
    await expect(late).to_be_visible()
    assert (data_folder / "late.csv").read_bytes() == b"theirs\n"
    await late.get_by_role("button", name="Replace").click()
    await expect(page.locator(f'tr[data-path="{data_folder.name("late.csv")}"]')).to_be_visible()
    assert (data_folder / "late.csv").read_bytes() == b"id\n1\n2\n"


@pytest.mark.console_allows("404 (Not Found)")
async def test_files_and_settings_pages_are_not_found_for_non_members(signed_in, team):
    page = signed_in
    workspace, _ = team
    for address in (f"/workspaces/{workspace.slug}/files/", f"/workspaces/{workspace.slug}/"):
        response = await page.goto(address)
        assert response.status == 404, address


async def test_a_viewer_gets_a_read_only_editor_without_run_that_sends_no_changes(
    signed_in, user, team
):
    page = signed_in
    workspace, bob = team
    await asyncio.to_thread(set_member, workspace, user, Role.VIEWER)
    created = await bob.call(
        "POST", "/api/pipelines", {**two_nodes("Team pipeline"), "workspace": workspace.slug}
    )
    changes = []
    page.on(
        "request",
        lambda request: request.method in ("PUT", "DELETE") and changes.append(request.url),
    )
    page.on(
        "request",
        lambda request: (
            request.method == "POST" and "/runs" in request.url and changes.append(request.url)
        ),
    )

    await page.goto(f"/pipelines/{created['id']}/")
    await expect(page.locator("[data-node-id]")).to_have_count(2)
    banner = page.get_by_role("status").filter(has_text="Read only")
    await expect(banner).to_contain_text(f"Read only — you are a viewer in {TEAM}")
    toolbar = page.get_by_role("toolbar", name="Pipeline")
    await expect(toolbar.get_by_role("link", name=TEAM)).to_have_attribute(
        "href", f"/workspaces/{workspace.slug}/files/"
    )
    for label in ("Run", "Cancel", "Save", "Import", "Auto-layout", "Undo"):
        await expect(toolbar.get_by_role("button", name=label, exact=True)).to_have_count(0)
    await toolbar.get_by_role("button", name="More").click()
    await expect(toolbar.get_by_role("menuitem", name="Export as JSON")).to_be_visible()
    await expect(toolbar.get_by_role("menuitem", name="Import JSON…")).to_have_count(0)
    await page.keyboard.press("Escape")
    await expect(page.locator("[data-operator]")).to_have_count(0)

    before = await offset(page, "csv_input_1", "filter_1")
    await drag(page, "filter_1", 120, 80)  # pans the view: the nodes keep their places
    assert await offset(page, "csv_input_1", "filter_1") == before
    await node(page, "filter_1").click()
    side = page.get_by_role("complementary", name="Node")
    await expect(side.get_by_role("textbox", name="Label")).to_be_disabled()
    await expect(side.get_by_role("button", name="Preview")).to_be_enabled()
    await page.keyboard.press("Delete")
    await expect(page.locator("[data-node-id]")).to_have_count(2)
    await page.keyboard.press("Control+s")
    await page.wait_for_timeout(2000)  # longer than autosave's delay: nothing may go out
    await shot(page, "editor-viewer")
    assert changes == []
    assert (await bob.call("GET", f"/api/pipelines/{created['id']}"))["revision"] == created[
        "revision"
    ]


@pytest.mark.console_allows("409 (Conflict)")
async def test_an_admin_changes_a_role_on_the_settings_page_and_keeps_the_last_admin(
    signed_in, user, team
):
    page = signed_in
    workspace, _ = team
    await asyncio.to_thread(set_member, workspace, user, Role.ADMIN)
    bob = await asyncio.to_thread(get_user_model().objects.get, username="bob")
    await asyncio.to_thread(set_member, workspace, bob, Role.EDITOR)

    await page.goto(f"/workspaces/{workspace.slug}/")
    await expect(page.get_by_role("heading", level=1)).to_contain_text(TEAM)
    await page.get_by_label("Role of bob").select_option("viewer")
    await expect(page.get_by_text("bob is now a viewer.")).to_be_visible()
    role = await asyncio.to_thread(
        lambda: Membership.objects.get(workspace=workspace, user=bob).role
    )
    assert role == Role.VIEWER

    await page.get_by_label("Role of ada").select_option("editor")
    await expect(page.get_by_role("alert")).to_contain_text("a workspace keeps at least one admin")
    await expect(page.get_by_label("Role of ada")).to_have_value("admin")
    await shot(page, "settings")


async def test_a_connection_password_is_stored_but_never_shown_again(signed_in, user, team):
    page = signed_in
    workspace, _ = team
    await asyncio.to_thread(set_member, workspace, user, Role.ADMIN)
    await page.goto(f"/workspaces/{workspace.slug}/")
    await page.get_by_role("button", name="Add connection").click()
    dialog = page.get_by_role("dialog", name="New connection")
    await dialog.get_by_label("Name", exact=True).fill("shop")
    await dialog.get_by_label("Or paste a URL").fill("postgresql+psycopg://reader:inline@db/shop")
    password = dialog.get_by_label("Password", exact=True)
    await expect(password).to_have_value("inline")  # moved out of the URL
    await expect(dialog.get_by_label("Host")).to_have_value("db")
    await expect(dialog).to_contain_text("postgresql+psycopg://reader@db/shop")
    await password.fill("s3cret-pw")
    await dialog.get_by_role("button", name="Save connection").click()
    row = page.locator('tr[data-connection="shop"]')
    await expect(row).to_contain_text("stored")
    await row.get_by_role("button", name="Edit shop").click()
    editing = page.get_by_role("dialog", name="Connection “shop”")
    await expect(editing.get_by_label("Password", exact=True)).to_have_value("")
    await expect(editing).to_contain_text(
        "A password is stored. Leave empty to keep it (for the same"
    )
    await shot(page, "settings-connection")
    assert "s3cret-pw" not in await page.content() and ":inline@" not in await page.content()
