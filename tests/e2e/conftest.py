"""Fixtures for the browser tests: one Chromium per session, a fresh context per test.

The server is the session's `asgi_server` (tests/conftest.py), a daphne process over the
pytest test database: tests use `transactional_db` so that it sees their rows. Each test
gets a user with a session and an API token, a folder of its own under the server's data
root, and a page whose console errors fail the test (`@pytest.mark.console_allows(...)`
names the ones a test expects). Screenshots go to test-artifacts/e2e/, also when a test fails.
Without Chromium or the server these tests fail, never skip.
"""

from __future__ import annotations

import asyncio
import re
import shutil
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import pytest_asyncio
from django.contrib.auth import get_user_model
from django.test import Client
from playwright.async_api import Error as PlaywrightError
from playwright.async_api import Page, async_playwright

from editor.workspaces.tokens import create_token
from tests.e2e.browser import VIEWPORT, ConsoleErrors, launch_chromium, sign_in_with_session
from tests.e2e.seed_pipeline import PEOPLE
from tests.servers import DaphneServer

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "e2e"
TIMEOUT_MS = 15_000


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "console_allows(*fragments): console errors a browser test expects"
    )


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Keep each phase's report on the test, so that fixtures know whether it failed."""
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """test-artifacts/e2e/, emptied once per session."""
    shutil.rmtree(ARTIFACTS, ignore_errors=True)
    ARTIFACTS.mkdir(parents=True)
    return ARTIFACTS


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def browser():
    """Debian's Chromium, launched once for the session."""
    async with async_playwright() as playwright:
        try:
            chromium = await launch_chromium(playwright)
        except (FileNotFoundError, PlaywrightError) as error:
            pytest.fail(f"the browser tests need Chromium: {error}")
        yield chromium
        await chromium.close()


@pytest.fixture
def user(transactional_db):
    """The user the pages are opened as (no password: the session is made directly)."""
    return get_user_model().objects.create_user("ada")


@pytest.fixture
def session_key(user) -> str:
    """A signed-in session of `user`, stored where the server reads sessions."""
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


@dataclass
class Api:
    """The JSON API of the test's server, called with the user's bearer token."""

    server: DaphneServer
    token: str

    async def call(self, method: str, path: str, body=None) -> dict:
        """The answer of one call that must succeed."""
        status, answer = await asyncio.to_thread(
            self.server.request, method, path, body, self.token
        )
        assert status < 300, f"{method} {path}: {status} {answer}\n{self.server.errors()}"
        return answer

    async def create(self, document: dict) -> int:
        """A new pipeline's id."""
        return (await self.call("POST", "/api/pipelines", document))["id"]

    async def get(self, pipeline_id: int) -> dict:
        """The pipeline as the server has it now."""
        return await self.call("GET", f"/api/pipelines/{pipeline_id}")


@pytest.fixture
def api(asgi_server, user) -> Api:
    return Api(asgi_server, create_token(user, "browser tests"))


@dataclass
class DataFolder:
    """A folder of one test under the server's data root."""

    path: Path
    relative: str

    def __truediv__(self, name: str) -> Path:
        return self.path / name

    def name(self, name: str) -> str:
        """`name` as a path relative to the data root, as the operators' `path` takes it."""
        return f"{self.relative}/{name}"


@pytest.fixture
def data_folder(asgi_server, user, request) -> DataFolder:
    """A folder of the test's own in the user's workspace."""
    relative = f"e2e/{_slug(request.node.name)}"
    path = asgi_server.data_root / user.personal_workspace.slug / relative
    shutil.rmtree(path, ignore_errors=True)
    path.mkdir(parents=True)
    return DataFolder(path, relative)


@pytest.fixture
def people(data_folder) -> DataFolder:
    """The test's data folder with the seed pipeline's input, people.csv."""
    (data_folder / "people.csv").write_text(PEOPLE)
    return data_folder


@pytest_asyncio.fixture(loop_scope="session")
async def page(browser, asgi_server, artifacts, request) -> AsyncIterator[Page]:
    """A page in a fresh context; fails the test on console errors it did not expect."""
    context = await browser.new_context(
        base_url=asgi_server.url, viewport=VIEWPORT, accept_downloads=True
    )
    context.set_default_timeout(TIMEOUT_MS)
    opened = await context.new_page()
    errors = ConsoleErrors(opened)
    yield opened
    failed = getattr(request.node, "report_call", None)
    if failed is not None and failed.failed:
        await opened.screenshot(path=artifacts / f"{_slug(request.node.name)}--FAILED.png")
    await context.close()
    marker = request.node.get_closest_marker("console_allows")
    unexpected = errors.unexpected(tuple(marker.args) if marker else ())
    if unexpected:
        pytest.fail("the browser reported errors:\n" + "\n".join(unexpected))


@pytest_asyncio.fixture(loop_scope="session")
async def signed_in(page, asgi_server, session_key) -> Page:
    """`page`, signed in as `user`."""
    await sign_in_with_session(page.context, asgi_server.url, session_key)
    return page


@pytest.fixture
def screenshot(artifacts, request):
    """`await screenshot(page, step)`: test-artifacts/e2e/<test>--<step>.png."""

    async def take(page: Page, step: str) -> Path:
        path = artifacts / f"{_slug(request.node.name)}--{step}.png"
        await page.screenshot(path=path)
        return path

    return take


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-")
