"""Security headers: a Content-Security-Policy on every page, `no-store` on every API answer.

That the pages really work under the policy (no violation in Chromium) is checked by the
browser tests in tests/e2e/test_content_security_policy.py.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client

from tests.editor.conftest import client_for, make_user

pytestmark = pytest.mark.django_db

POLICY = {
    "default-src": "'self'",
    "script-src": "'self'",
    "style-src": "'self'",
    "img-src": "'self' data:",
    "connect-src": "'self'",
    "object-src": "'none'",
    "base-uri": "'self'",
    "frame-ancestors": "'none'",
}


def directives(response) -> dict[str, str]:
    header = response.headers["Content-Security-Policy"]
    parts = (part.strip().split(" ", 1) for part in header.split(";") if part.strip())
    return {name: value for name, value in parts}


@pytest.fixture
def pages(db) -> list[tuple[Client, str]]:
    admin = client_for(make_user("boss", is_staff=True, is_superuser=True))
    return [
        (Client(), "/accounts/login/"),
        (admin, "/"),
        (admin, "/admin/"),
        (admin, "/admin/editor/pipeline/"),
        (admin, "/api/docs"),
    ]


def test_every_page_carries_the_content_security_policy(pages, client, pipeline_id):
    for page_client, url in pages:
        response = page_client.get(url)
        assert response.status_code == 200, url
        for name, value in POLICY.items():
            assert directives(response).get(name) == value, (url, name)


def test_the_editor_allows_only_the_style_elements_of_its_own_nonce(client, pipeline_id):
    """CodeMirror adds <style> elements: the editor's policy allows those carrying the nonce
    of that response (given to the page), never style attributes or other pages' nonces."""
    url = f"/pipelines/{pipeline_id}/"
    first, second = client.get(url), client.get(url)
    nonces = []
    for response in (first, second):
        policy = directives(response)
        assert {name: policy.get(name) for name in POLICY if name != "style-src"} == {
            name: value for name, value in POLICY.items() if name != "style-src"
        }
        match = re.fullmatch(r"'self' 'nonce-([A-Za-z0-9+/=_-]{16,})'", policy["style-src"])
        assert match, policy["style-src"]
        assert f'data-csp-nonce="{match[1]}"' in response.content.decode()
        nonces.append(match[1])
    assert nonces[0] != nonces[1]


def test_no_template_of_ours_has_inline_script_style_or_handlers(settings):
    for template in (settings.BASE_DIR / "templates").rglob("*.html"):
        text = template.read_text()
        assert "<style" not in text and " style=" not in text, template
        assert not re.search(r"\son[a-z]+=", text), f"inline event handler in {template}"
        for script in text.split("<script")[1:]:
            assert " src=" in script.split(">", 1)[0], f"inline script in {template}"


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/api/pipelines", 200),
        ("/api/operators", 200),
        ("/api/pipelines/999999", 404),
        ("/api/no-such-endpoint", 404),
    ],
)
def test_api_answers_are_never_stored_by_a_cache_errors_included(client, path, status):
    response = client.get(path)
    assert response.status_code == status
    assert "no-store" in response.headers["Cache-Control"]


def test_an_unauthenticated_api_call_is_not_stored_either():
    response = Client().get("/api/pipelines")
    assert response.status_code == 401
    assert "no-store" in response.headers["Cache-Control"]


def test_an_invalid_api_body_answer_is_not_stored(client):
    response = client.post("/api/pipelines", "{not json", content_type="application/json")
    assert 400 <= response.status_code < 500
    assert "no-store" in response.headers["Cache-Control"]


def test_pages_outside_the_api_keep_their_own_caching(client):
    assert "no-store" not in client.get("/").headers.get("Cache-Control", "")
