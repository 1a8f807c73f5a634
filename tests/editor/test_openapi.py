"""The OpenAPI contract: schemathesis finds no server error and no answer outside the schema.

Schemathesis takes the schema `/api/openapi.json` serves and sends each operation generated
requests, with a bearer token as a script would, through the WSGI application in this
process, over the test database (the schema is loaded at import, not from a fixture:
schemathesis' lazy fixture loader does not run under pytest 9). `aim` points each request
at a real pipeline, run and node, so that operations do their work rather than answer 404.
Bounded (`max_examples`) and derandomized: CI runs the same cases every time, in about a
minute.
"""

from __future__ import annotations

import re

import pytest
import schemathesis
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.test import Client
from hypothesis import HealthCheck, Phase
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from editor.api import api
from editor.models import Backfill, Notification, Pipeline, Run, Schedule, Trigger
from editor.pipelines import actions
from editor.workspaces.tokens import create_token
from runtime.document.spec import load_document
from tests.editor.conftest import SEED
from tests.strategies import bounded

pytestmark = pytest.mark.django_db

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]


schema = schemathesis.openapi.from_dict(api.get_openapi_schema())
schema.app = WSGIHandler()


@pytest.fixture
def in_process_app():
    """Requests stay on this test's database connection (as with Django's test client)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def bearer(owner) -> dict:
    return {"Authorization": f"Bearer {create_token(owner, 'schemathesis')}"}


@pytest.fixture
def targets(owner) -> dict:
    """A real pipeline, run, schedule and workspace for the generated requests to act on."""
    pipeline = actions.create_pipeline(owner, load_document(SEED))
    run = Run.objects.create(pipeline=pipeline, document=SEED, started_by=owner, status="failed")
    schedule = Schedule.objects.create(pipeline=pipeline, owner=owner, cron="0 6 * * *")
    hook = Notification.objects.create(pipeline=pipeline, kind="webhook", url="http://192.0.2.1/")
    backfill = Backfill.objects.create(
        pipeline=pipeline, schedule=schedule, owner=owner, start=run.created_at,
        end=run.created_at, start_parameter="a", end_parameter="b",
    )  # fmt: skip
    trigger = Trigger.objects.create(pipeline=pipeline, owner=owner, kind="file", pattern="*.csv")
    return {
        "trigger_id": trigger.pk,
        "schedule_id": schedule.pk,
        "backfill_id": backfill.pk,
        "notification_id": hook.pk,
        "pipeline_id": pipeline.pk,
        "run_id": run.pk,
        "slug": pipeline.workspace.slug,
        "revision": pipeline.revision,
    }


@schema.parametrize()
@bounded(30, tolerate=HealthCheck, phases=[Phase.explicit, Phase.generate])
def test_every_operation_answers_within_its_schema(
    case, in_process_app, data_root, bearer, targets, owner
):
    aim(case, targets, owner)
    case.call_and_validate(headers=bearer, checks=CHECKS)


NODES = [node["id"] for node in SEED["nodes"]]


def aim(case, targets: dict, owner) -> None:
    """Point a generated request at real things: ids, a kept revision, the current one in
    bodies, a node, a format.

    Only where the generated value is of the right type, so that invalid requests stay invalid.
    """
    ids = dict(targets)
    if case.method == "DELETE":  # each deletion gets a pipeline of its own
        ids["pipeline_id"] = actions.create_pipeline(owner, load_document(SEED)).pk
    path = case.path_parameters or {}
    for name in path.keys() & ids.keys():
        path[name] = ids[name]
    if isinstance(path.get("fmt"), str):
        path["fmt"] = ("svg", "png", path["fmt"])[len(path["fmt"]) % 3]
    body = case.body if isinstance(case.body, dict) else {}
    restore = case.method == "POST" and isinstance(body.get("revision"), int)
    if restore or (case.method == "PUT" and isinstance(body.get("revision", 0), int)):
        body["revision"] = Pipeline.objects.get(pk=targets["pipeline_id"]).revision
    if case.operation.path.endswith("/preview") and isinstance(body.get("node"), str):
        body["node"] = NODES[len(body["node"]) % len(NODES)]


def test_the_schema_is_served_to_a_bearer_token_alone(bearer):
    answer = Client().get("/api/openapi.json", HTTP_AUTHORIZATION=bearer["Authorization"])
    assert answer.status_code == 200
    assert answer.json()["paths"].keys() == api.get_openapi_schema()["paths"].keys()
    assert Client().get("/api/openapi.json").status_code == 302  # to the sign-in page
    bad = Client().get("/api/openapi.json", HTTP_AUTHORIZATION="Bearer pw_not-a-token")
    assert bad.status_code == 302


def test_every_operation_documents_its_errors_and_a_success_schema(client):
    paths = client.get("/api/openapi.json").json()["paths"]
    for path, operations in paths.items():
        for method, operation in operations.items():
            responses = operation["responses"]
            errors = {status for status in responses if status.startswith("4")}
            assert {"401", "422"} <= errors, (method, path)
            for status in errors:
                schema = responses[status]["content"]["application/json"]["schema"]
                assert schema == {"$ref": "#/components/schemas/Error"}, (method, path, status)
            success = [status for status in responses if status.startswith("2")]
            assert success, (method, path)
            assert all(status == "204" or responses[status].get("content") for status in success), (
                method,
                path,
            )


def test_the_docs_page_loads_nothing_from_another_site(client):
    page = client.get("/api/docs")
    assert page.status_code == 200
    html = page.content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert any(asset.endswith("swagger-ui-bundle.js") for asset in assets)
    assert all(asset.startswith("/static/") for asset in assets), assets
    for asset in assets:
        response = client.get(asset)
        response.close()  # a streamed static file: left open, it warns in a later test
        assert response.status_code == 200, asset
