"""Editing together over the live view's websocket: who else has the pipeline open, what they
select, when they leave, and that a save is told to everyone watching."""

from __future__ import annotations

import pytest
from asgiref.sync import sync_to_async

from editor.models import Role
from editor.workspaces.membership import create_workspace, set_member
from tests.editor.conftest import SEED, client_for, make_user, post_json, put_json
from tests.editor.live.test_consumers import communicator
from tests.live_client import session_cookie

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.asyncio]


@pytest.fixture
def team_pipeline(owner, data_root):
    """`(pipeline id, owner's cookie, Grace's cookie, Grace's client)` of a team's pipeline."""
    team = create_workspace("Team", admin=owner)
    grace = make_user("grace", first_name="Grace", last_name="Hopper")
    set_member(team, grace, Role.EDITOR)
    mine = client_for(owner)
    pipeline_id = post_json(mine, "/api/pipelines", {**SEED, "workspace": "team"}).json()["id"]
    theirs = client_for(grace)
    return pipeline_id, session_cookie(mine), session_cookie(theirs), theirs


async def opened(pipeline_id: int, cookie: str):
    socket = communicator(pipeline_id, cookie)
    assert (await socket.connect())[0]
    assert (await socket.receive_json_from(timeout=5))["type"] == "snapshot"
    return socket


async def test_each_editor_sees_the_other_with_their_selection_and_leaving(team_pipeline):
    pipeline_id, mine_cookie, their_cookie, _ = team_pipeline
    mine = await opened(pipeline_id, mine_cookie)
    theirs = await opened(pipeline_id, their_cookie)

    joined = await mine.receive_json_from(timeout=5)
    assert joined["type"] == "presence" and joined["selection"] is None
    assert {key: joined["who"][key] for key in ("name", "initials")} == {
        "name": "Grace Hopper",
        "initials": "GH",
    }
    already_here = await theirs.receive_json_from(timeout=5)
    assert already_here["who"]["name"] == "owner"

    await theirs.send_json_to({"type": "select", "node": "adults"})
    selected = await mine.receive_json_from(timeout=5)
    assert selected["selection"] == "adults" and selected["who"]["id"] == joined["who"]["id"]

    await theirs.disconnect()
    assert await mine.receive_json_from(timeout=5) == {
        "type": "presence_left",
        "id": joined["who"]["id"],
    }
    await mine.disconnect()


async def test_a_selection_that_is_no_node_id_reaches_the_others_as_none(team_pipeline):
    """Other editors' pages draw the selection into CSS: only what a node id may be passes."""
    pipeline_id, mine_cookie, their_cookie, _ = team_pipeline
    mine = await opened(pipeline_id, mine_cookie)
    theirs = await opened(pipeline_id, their_cookie)
    await mine.receive_json_from(timeout=5)  # they joined
    await theirs.receive_json_from(timeout=5)  # I was here
    for hostile in ('x\f] {} body{display:none} a[b="', "adults\n", "a" * 101, 7):
        await theirs.send_json_to({"type": "select", "node": hostile})
        assert (await mine.receive_json_from(timeout=5))["selection"] is None, hostile
    await theirs.disconnect()
    await mine.disconnect()


async def test_nobody_is_shown_their_own_presence(team_pipeline):
    pipeline_id, mine_cookie, _, _ = team_pipeline
    first = await opened(pipeline_id, mine_cookie)
    second = await opened(pipeline_id, mine_cookie)
    await second.send_json_to({"type": "select", "node": "adults"})
    assert await first.receive_nothing(timeout=0.3)
    await first.disconnect()
    await second.disconnect()


async def test_a_save_is_told_to_everyone_watching_with_who_saved_it(team_pipeline):
    pipeline_id, mine_cookie, _, grace = team_pipeline
    mine = await opened(pipeline_id, mine_cookie)
    url = f"/api/pipelines/{pipeline_id}"
    body = (await sync_to_async(grace.get)(url)).json()
    response = await sync_to_async(put_json)(grace, url, {**body, "name": "Grown-ups"})
    assert response.status_code == 200

    saved = await mine.receive_json_from(timeout=5)
    assert {key: saved[key] for key in ("type", "revision", "by")} == {
        "type": "saved",
        "revision": 2,
        "by": "Grace Hopper",
    }
    await mine.disconnect()
