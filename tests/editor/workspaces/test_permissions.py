"""Every URL in the URL conf, walked as anonymous, as another user and as the owner.

A new endpoint without a login or ownership check fails here without anyone having to
remember to add it: routes are read from the URL conf, not listed by hand.
"""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import URLResolver, get_resolver

from editor.models import (
    Backfill,
    Connection,
    InputPosition,
    Notification,
    Pin,
    Run,
    Schedule,
    Trigger,
)
from editor.workspaces.membership import personal_workspace
from tests.editor.conftest import SEED, client_for, post_json

METHODS = ("get", "post", "put", "delete")
PUBLIC = {"accounts/login/", "accounts/logout/", "admin/login/", "admin/logout/", "favicon.ico"}
PUBLIC |= {"api/hooks/<token>"}  # signed by the caller, not signed in: tests/editor/triggers
NOT_ENDPOINTS = {"api/"}  # the API's root: 404 for everyone
DOCS = {"api/docs", "api/openapi.json"}  # pages: they redirect to the login page
LISTS = {
    "",
    "api/pipelines",
    "api/operators",
    "api/openapi.json",
    "api/docs",
    "api/pipelines/import",
    "api/workspaces",
    "api/expressions",  # the expression language: the same for everyone
    "docs/<slug:name>/",  # the documentation pages
    "api/schedules/preview",  # the times a cron expression fires: the same for everyone
    "api/previews/line",  # where the caller's own waiting preview is: every user has one
}

REACHED_ELSEWHERE = {
    # a node path of a run of a pipeline with a sub-pipeline: tests/editor/test_api_run_inside.py
    # reaches it; the owner's run here has none, so the owner gets the 404 naming the path
    "api/runs/<int:run_id>/inside/<path>",
}


def walk(patterns, prefix: str = ""):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from walk(pattern.url_patterns, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern)


ROUTES = sorted(
    {route for route in walk(get_resolver().url_patterns) if not route.startswith("admin/")}
    - PUBLIC
    - NOT_ENDPOINTS
)
ADMIN_ROUTES = sorted(
    route
    for route in walk(get_resolver().url_patterns)
    if route.startswith("admin/") and route not in PUBLIC
)


@pytest.fixture
def objects(owner, data_root):
    """The owner's pipeline and run, which other users must not reach."""
    client = client_for(owner)
    pipeline_id = post_json(client, "/api/pipelines", {**SEED, "name": "Owner's secret"}).json()[
        "id"
    ]
    run = Run.objects.create(pipeline_id=pipeline_id, document=SEED, status="succeeded")
    schedule = Schedule.objects.create(pipeline_id=pipeline_id, owner=owner, cron="0 6 * * *")
    connection = Connection(workspace=personal_workspace(owner), name="db", url="sqlite:///x.db")
    connection.save()
    hook = Notification.objects.create(pipeline_id=pipeline_id, kind="email", recipients=[])
    InputPosition.objects.create(
        pipeline_id=pipeline_id, node_id="read", position={"value": 3}, run=run, run_number=1
    )
    trigger = Trigger.objects.create(pipeline_id=pipeline_id, owner=owner, kind="webhook")
    backfill = Backfill.objects.create(
        pipeline_id=pipeline_id, schedule=schedule, owner=owner, start=run.created_at,
        end=run.created_at, start_parameter="a", end_parameter="b",
    )  # fmt: skip
    Pin.objects.create(pipeline_id=pipeline_id, node_id="read", file="secret.parquet")
    (data_root / "secret.csv").write_text("Owner's secret\n")
    return {
        "trigger_id": trigger.pk,
        "backfill_id": backfill.pk,
        "node": "read",
        "pipeline_id": pipeline_id,
        "run_id": run.pk,
        "schedule_id": schedule.pk,
        "notification_id": hook.pk,
        "slug": "owner",
        "username": "owner",
        "name": "db",
        "path": "secret.csv",
        "node_id": "read",
    }


def url_for(route: str, objects: dict) -> str:
    if route.startswith("docs/"):
        return "/docs/expressions/"
    url = route.replace("^", "").replace("$", "")
    url = re.sub(r"<int:(\w+)>", lambda m: str(objects.get(m[1], 1)), url)
    url = re.sub(
        r"<(?:\w+:)?(\w+)>", lambda m: "svg" if m[1] == "fmt" else objects.get(m[1], "1"), url
    )
    if url.endswith("runs/compare"):
        return f"/{url}?a={objects['run_id']}&b={objects['run_id']}"
    return "/" + url + ("?path=secret.csv" if "/files" in url else "")


@pytest.mark.django_db
@pytest.mark.parametrize("route", ROUTES + ADMIN_ROUTES)
def test_anonymous_visitors_get_nothing(route, objects):
    url = url_for(route, objects)
    for method in METHODS:
        response = getattr(Client(), method)(url)
        assert response.status_code in (302, 401, 403, 404, 405), (
            method,
            url,
            response.status_code,
        )
        if response.status_code == 302:
            assert "/login/" in response["Location"], (method, url)
        if (
            route not in DOCS
            and route.startswith("api/")
            and response.status_code not in (404, 405)
        ):
            assert response.status_code == 401 and response.json()["code"] == "unauthenticated"


@pytest.mark.django_db
@pytest.mark.parametrize("route", ROUTES)
def test_another_user_cannot_reach_or_see_the_owners_things(route, objects, other):
    url = url_for(route, objects)
    client = client_for(other)
    for method in METHODS:
        response = getattr(client, method)(url, content_type="application/json")
        if route in LISTS:
            assert b"Owner's secret" not in response.content, (method, url)
        else:
            assert response.status_code in (404, 405), (method, url, response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("route", ROUTES)
def test_the_owner_reaches_every_endpoint(route, objects, owner):
    url = url_for(route, objects)
    client = client_for(owner)
    reached = [
        getattr(client, method)(url, content_type="application/json").status_code
        for method in METHODS
    ]
    if route in REACHED_ELSEWHERE:
        assert reached == [404, 405, 405, 405], (url, reached)
        assert "has no" in client.get(url).json()["message"]
        return
    assert any(status not in (401, 403, 404, 405) for status in reached), (url, reached)


@pytest.mark.django_db
def test_staff_see_every_pipeline(objects, staff):
    response = client_for(staff).get(f"/api/pipelines/{objects['pipeline_id']}")
    assert response.status_code == 200


@pytest.mark.django_db
def test_an_anonymous_page_redirects_to_the_login_page():
    response = Client().get("/")
    assert response.status_code == 302 and response["Location"] == "/accounts/login/?next=/"
