"""Every page works under the Content-Security-Policy in Chromium, and the policy bites.

Each page is opened as a user would, and the test fails on any CSP violation (the browser
fires `securitypolicyviolation` and logs a console error, which the `page` fixture also
catches). The attack: markup injected into a page, as a stored XSS would, carrying an inline
event handler and an inline script; the policy must keep both from running.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from tests.e2e.browser import sign_in_with_session

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.asyncio(loop_scope="session"),
    pytest.mark.server,
]

RECORD_VIOLATIONS = """
window.__violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  window.__violations.push(`${event.violatedDirective} ${event.blockedURI}`);
});
"""
INJECTED = (
    '<img src="data:," onerror="window.__pwned = \'handler\'">'
    "<script>window.__pwned = 'script'</script>"
)


@pytest.fixture
def admin_session(transactional_db) -> str:
    admin = get_user_model().objects.create_user("root", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(admin)
    return client.cookies["sessionid"].value


async def open_page(page, path: str, ready: str) -> list[str]:
    """Open `path`, wait for `ready` (a selector) and the network; the CSP violations seen."""
    await page.add_init_script(RECORD_VIOLATIONS)
    response = await page.goto(path)
    assert response.status == 200, path
    assert "Content-Security-Policy" in {name.title() for name in response.headers}
    await page.wait_for_selector(ready)
    await page.wait_for_load_state("networkidle")
    return await page.evaluate("window.__violations")


async def test_the_sign_in_page_works_under_the_policy(page):
    assert await open_page(page, "/accounts/login/", "#id_username") == []


async def test_the_home_page_and_the_editor_work_under_the_policy(signed_in, api):
    pipeline_id = await api.create({"name": "Under CSP"})
    assert await open_page(signed_in, "/", ".pw-app-home") == []
    assert await open_page(signed_in, f"/pipelines/{pipeline_id}/", ".react-flow") == []


async def test_the_admin_and_the_api_docs_work_under_the_policy(page, asgi_server, admin_session):
    await sign_in_with_session(page.context, asgi_server.url, admin_session)
    assert await open_page(page, "/admin/", "#content") == []
    assert await open_page(page, "/admin/editor/pipeline/", "#changelist") == []
    assert await open_page(page, "/api/docs", ".swagger-ui .info") == []


@pytest.mark.console_allows("Content Security Policy")
async def test_injected_inline_script_and_handlers_do_not_run(page):
    await open_page(page, "/accounts/login/", "#id_username")
    await page.evaluate(
        "html => { const box = document.createElement('div');"
        " box.innerHTML = html; document.body.append(box);"
        " const script = document.createElement('script');"
        " script.textContent = \"window.__pwned = 'script'\"; document.body.append(script); }",
        INJECTED,
    )
    await page.wait_for_function("window.__violations.length >= 2")
    assert await page.evaluate("window.__pwned") is None
    violations = await page.evaluate("window.__violations")
    assert all(violation.startswith("script-src") for violation in violations), violations
