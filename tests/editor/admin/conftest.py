"""What the admin tests look at: a pipeline with a finished run, a connection whose
password is SECRET, and an API token.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from editor.models import ApiToken, Connection, NodeRun, Pipeline, Run
from editor.pipelines import actions
from editor.pipelines.documents import to_document
from editor.workspaces.membership import personal_workspace
from editor.workspaces.tokens import create_token
from runtime.document.spec import load_document, to_json_dict
from tests.editor.conftest import SEED

SECRET = "hunter2-not-in-any-page"


@pytest.fixture
def pipeline(owner, data_root) -> Pipeline:
    return actions.create_pipeline(owner, load_document({**SEED, "description": "grown-ups"}))


@pytest.fixture
def run(pipeline, owner) -> Run:
    """A finished run with metrics, as the run recorder leaves it."""
    started = timezone.now() - timedelta(seconds=3)
    run = Run.objects.create(
        pipeline=pipeline,
        document=to_json_dict(to_document(pipeline)),
        status="failed",
        started_by=owner,
        started_at=started,
        finished_at=started + timedelta(seconds=2.5),
    )
    metrics = {"rows_in": {"in": 3}, "rows_out": 2, "duration_s": 0.25}
    NodeRun.objects.create(run=run, node_id="adults", status="succeeded", metrics=metrics)
    NodeRun.objects.create(run=run, node_id="write", status="failed", error="disk full")
    return run


@pytest.fixture
def connection(owner) -> Connection:
    connection = Connection(
        workspace=personal_workspace(owner),
        name="sales",
        url="postgresql://app@db.example.com/sales",
    )
    connection.set_password(SECRET)
    connection.save()
    return connection


@pytest.fixture
def token(owner) -> ApiToken:
    create_token(owner, "ci")
    return ApiToken.objects.get(user=owner)
