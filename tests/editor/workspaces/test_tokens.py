"""Bearer tokens for scripts: accepted by the API, stored only as a hash."""

from __future__ import annotations

import hashlib

import pytest
from django.test import Client

from editor.models import ApiToken
from editor.workspaces.tokens import create_token

pytestmark = pytest.mark.django_db


def test_a_bearer_token_authenticates_api_calls_without_csrf(owner):
    key = create_token(owner, "ci")
    client = Client(enforce_csrf_checks=True)
    headers = {"Authorization": f"Bearer {key}"}
    created = client.post(
        "/api/pipelines", '{"name": "From CI"}', content_type="application/json", headers=headers
    )
    assert created.status_code == 201, created.content
    assert created.json()["owner"] == "owner"
    assert ApiToken.objects.get().last_used_at is not None


def test_only_the_hash_of_a_token_is_stored(owner):
    key = create_token(owner)
    token = ApiToken.objects.get()
    assert token.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert key not in (token.key_hash, token.prefix, token.name)


def test_a_wrong_token_or_none_gets_401_json():
    client = Client()
    wrong = client.get("/api/pipelines", headers={"Authorization": "Bearer pw_nope"})
    assert wrong.status_code == 401 and wrong.json()["code"] == "unauthenticated"
    assert client.get("/api/pipelines").status_code == 401


def test_a_token_of_a_deactivated_user_is_refused(owner):
    key = create_token(owner)
    owner.is_active = False
    owner.save()
    response = Client().get("/api/pipelines", headers={"Authorization": f"Bearer {key}"})
    assert response.status_code == 401


def test_the_session_needs_csrf_for_unsafe_methods(owner):
    client = Client(enforce_csrf_checks=True)
    client.force_login(owner)
    response = client.post("/api/pipelines", '{"name": "x"}', content_type="application/json")
    assert response.status_code == 403 and response.json()["code"] == "csrf_failed"
