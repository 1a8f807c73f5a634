"""Two people editing one pipeline in two browsers: each sees the other on the top bar and
their selection on the canvas, their saves of different nodes are merged (both edits kept),
and the save of one arrives live in the other's editor.
"""

from __future__ import annotations

import pytest
import pytest_asyncio
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.async_api import expect

from editor.models import Role
from editor.workspaces.membership import create_workspace, set_member
from tests.e2e.browser import VIEWPORT, sign_in_with_session
from tests.e2e.conftest import TIMEOUT_MS
from tests.e2e.editor_page import node, open_editor, save_state, select
from tests.e2e.seed_pipeline import PEOPLE, seed
from tests.e2e.test_editor_conflicts import CONFLICT, hold_saves

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]


class TeamFolder:
    """The seed's paths, relative to the team workspace's folder."""

    @staticmethod
    def name(path: str) -> str:
        return path


@pytest.fixture
def team(user, asgi_server):
    """`(slug, Grace's session key)`: a team of ada (admin) and Grace Hopper (editor), with
    the seed's input in its folder."""
    grace = get_user_model().objects.create_user("grace", first_name="Grace", last_name="Hopper")
    workspace = create_workspace("Together", admin=user)
    set_member(workspace, grace, Role.EDITOR)
    folder = asgi_server.data_root / workspace.slug
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "people.csv").write_text(PEOPLE)
    client = Client()
    client.force_login(grace)
    return workspace.slug, client.cookies["sessionid"].value


@pytest_asyncio.fixture(loop_scope="session")
async def grace_page(browser, asgi_server, team):
    context = await browser.new_context(base_url=asgi_server.url, viewport=VIEWPORT)
    context.set_default_timeout(TIMEOUT_MS)
    await sign_in_with_session(context, asgi_server.url, team[1])
    yield await context.new_page()
    await context.close()


@pytest.mark.console_allows(CONFLICT)
async def test_two_people_edit_different_nodes_and_both_edits_are_kept(
    signed_in, grace_page, api, team, screenshot
):
    ada, grace = signed_in, grace_page
    pipeline_id = await api.create({**seed(TeamFolder), "workspace": team[0]})
    await open_editor(ada, pipeline_id, nodes=4)
    await open_editor(grace, pipeline_id, nodes=4)
    await expect(ada.get_by_role("listitem", name="Grace Hopper")).to_be_visible()
    await expect(grace.get_by_role("listitem", name="ada")).to_be_visible()
    await select(grace, "csv_output_1")  # outlined in Grace's colour on ada's canvas
    outlined = node(ada, "csv_output_1")
    await expect(outlined).to_have_css("outline-style", "solid")
    await screenshot(ada, "presence")

    release = await hold_saves(ada)
    await select(ada, "filter_1")
    ada_side = ada.get_by_role("complementary", name="Node")
    await ada_side.get_by_role("textbox", name="Condition", exact=True).fill("age >= 21")
    grace_side = grace.get_by_role("complementary", name="Node")
    await grace_side.get_by_role("combobox", name="Path", exact=True).fill("out/grace.csv")
    await expect(save_state(grace)).to_have_text("Saved")
    await expect(ada.get_by_text("Grace Hopper saved a newer version")).to_be_visible()
    await screenshot(ada, "newer-version")
    await release()

    await expect(ada.get_by_text("Merged with Grace Hopper's save")).to_be_visible()
    await expect(save_state(ada)).to_have_text("Saved")
    await screenshot(ada, "merged")
    saved = {item["id"]: item["params"] for item in (await api.get(pipeline_id))["nodes"]}
    assert saved["filter_1"]["condition"] == "age >= 21"
    assert saved["csv_output_1"]["path"] == "out/grace.csv"
    await select(grace, "filter_1")  # ada's save arrived live in Grace's editor
    await expect(grace_side.get_by_role("textbox", name="Condition", exact=True)).to_have_value(
        "age >= 21"
    )
