"""A preview that waits for a process says where it is in line, then shows its rows.

Another user's two slow previews hold both processes of `PIPEWRIGHT_MAX_PREVIEWS`; this
user's preview is held in the server's line (it used to be refused with 429 after 5 s), and
the Preview tab says so until its turn comes.
"""

from __future__ import annotations

import asyncio

import pytest
from django.contrib.auth import get_user_model
from playwright.async_api import expect

from editor.workspaces.tokens import create_token
from tests.e2e.editor_page import open_editor, select
from tests.editor.runs.test_jobs import chain

pytestmark = [
    pytest.mark.server,
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.django_db(transaction=True),
]

HOLD_S = 8
"""How long each of the other user's previews holds its process."""


async def test_a_waiting_preview_shows_its_place_in_line_then_its_rows(signed_in, api, asgi_server):
    page = signed_in
    mine = await api.create(chain(("numbers", "slow_source", {"seconds": 0})))
    await open_editor(page, mine, 1)
    await page.wait_for_load_state("networkidle")  # the editor's own schemas are in
    someone = await asyncio.to_thread(get_user_model().objects.create_user, "grace")
    token = await asyncio.to_thread(create_token, someone, "tests")
    slow = chain(("numbers", "slow_source", {"seconds": 0}), ("hold", "pause", {"seconds": HOLD_S}))
    status, theirs = await asyncio.to_thread(
        asgi_server.request, "POST", "/api/pipelines", slow, token
    )
    assert status == 201, theirs
    path = f"/api/pipelines/{theirs['id']}/preview"
    holding = [
        asyncio.create_task(
            asyncio.to_thread(asgi_server.request, "POST", path, {"node": "hold"}, token, 60)
        )
        for _ in range(2)
    ]
    await asyncio.sleep(1)  # both are executing

    await select(page, "numbers")
    await (
        page.get_by_role("complementary", name="Node").get_by_role("button", name="Preview").click()
    )

    await expect(
        page.get_by_text("Waiting for a process to preview numbers (1st in line)…")
    ).to_be_visible()
    await expect(page.get_by_text("numbers: first 3 rows")).to_be_visible(timeout=HOLD_S * 3000)
    assert [status for status, _ in await asyncio.gather(*holding)] == [200, 200]
