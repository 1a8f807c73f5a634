"""The admin's pipeline page in Chromium: a large graph's picture fits its column (scaled
down), the nodes inline scrolls inside the page instead of widening it, and status
badges keep their colours under the Content-Security-Policy."""

from __future__ import annotations

import os

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from editor.models import Run
from editor.pipelines import actions
from runtime.document.spec import load_document
from tests.e2e.browser import VIEWPORT, sign_in_with_session

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.server,
]

SCREENSHOTS = os.environ.get("PIPEWRIGHT_SCREENSHOTS")
"""A folder to save the pages' screenshots in, when set (never the repository)."""


def wide_pipeline(length: int = 30) -> dict:
    """A chain long enough that its picture is far wider than any screen."""
    nodes = [{"id": "read", "operator": "csv_input", "params": {"path": "in.csv"}}]
    edges = []
    for index in range(length):
        nodes.append({"id": f"keep_{index}", "operator": "filter",
                      "params": {"condition": f"a_rather_long_column_name > {index}"}})  # fmt: skip
        edges.append(
            {"source": f"keep_{index - 1}" if index else "read", "target": f"keep_{index}"}
        )
    return {"name": "Wide", "nodes": nodes, "edges": edges}


@pytest.fixture
def admin(transactional_db):
    """A superuser's session key and a long pipeline of theirs with a finished run."""
    user = get_user_model().objects.create_user("root", is_staff=True, is_superuser=True)
    pipeline = actions.create_pipeline(user, load_document(wide_pipeline()))
    Run.objects.create(pipeline=pipeline, document={}, status="failed")
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value, pipeline


async def measure(page) -> dict:
    """The page's width, and the picture's box, column and scrolling."""
    return await page.evaluate(
        """() => {
          const box = document.querySelector(".pw-graph-picture");
          const column = box.parentElement.getBoundingClientRect();
          return {page: document.documentElement.scrollWidth,
                  box: box.getBoundingClientRect().right, column: column.right,
                  scrolls: box.scrollWidth > box.clientWidth};
        }"""
    )


async def test_the_graph_picture_and_the_nodes_inline_fit_the_screen(page, asgi_server, admin):
    session, pipeline = admin
    await sign_in_with_session(page.context, asgi_server.url, session)
    await page.goto(f"/admin/editor/pipeline/{pipeline.pk}/change/")
    picture = page.locator(".pw-graph-picture img")
    await picture.wait_for()
    await page.wait_for_function("document.querySelector('.pw-graph-picture img').complete")
    if SCREENSHOTS:
        await page.screenshot(path=f"{SCREENSHOTS}/admin-pipeline.png")
        await page.locator("#nodes-group").screenshot(path=f"{SCREENSHOTS}/admin-nodes.png")
    found = await measure(page)
    assert found["page"] <= VIEWPORT["width"], found  # neither picture nor inline widens it
    assert found["box"] <= found["column"] + 1, found  # the picture stays in its column
    assert not found["scrolls"], found  # scaled to fit it, not scrolled
    natural = await picture.evaluate("image => image.naturalWidth")
    assert natural > VIEWPORT["width"]
    shown = await picture.evaluate("image => image.getBoundingClientRect().width")
    assert shown <= found["column"]


async def test_status_badges_keep_their_colours_under_the_policy(page, asgi_server, admin):
    session, _ = admin
    await sign_in_with_session(page.context, asgi_server.url, session)
    await page.goto("/admin/editor/pipeline/")
    badge = page.locator(".pw-badge").first
    await badge.wait_for()
    colour = await badge.evaluate("badge => getComputedStyle(badge).backgroundColor")
    assert colour not in ("rgba(0, 0, 0, 0)", "transparent")
    if SCREENSHOTS:
        await page.screenshot(path=f"{SCREENSHOTS}/admin-pipelines.png")
