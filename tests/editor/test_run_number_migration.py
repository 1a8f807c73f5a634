"""The migration that numbers runs: existing runs get 1, 2, 3 … per pipeline in the order
they were made, an unknown revision and no attempt spans."""

from __future__ import annotations

import pytest

from editor.models import NodeRun, Run
from tests.editor.migrating import migrate

BEFORE = [("editor", "0009_pipeline_revisions")]


@pytest.fixture
def old_apps(transactional_db):
    """The models as they were before run numbers; forwards again afterwards."""
    yield migrate(BEFORE)
    migrate()


def test_existing_runs_are_numbered_per_pipeline_in_creation_order(old_apps):
    User = old_apps.get_model("auth", "User")
    Workspace = old_apps.get_model("editor", "Workspace")
    Pipeline = old_apps.get_model("editor", "Pipeline")
    OldRun = old_apps.get_model("editor", "Run")
    owner = User.objects.create(username="alice")
    workspace = Workspace.objects.create(slug="alice", name="alice")
    first, second = (
        Pipeline.objects.create(owner=owner, workspace=workspace, name=name, revision=7)
        for name in ("first", "second")
    )
    made = [OldRun.objects.create(pipeline=pipeline, document={}, status="succeeded")
            for pipeline in (first, second, first, first)]  # fmt: skip
    made[0].node_runs.create(node_id="read", status="succeeded")

    migrate()

    runs = [Run.objects.get(pk=run.pk) for run in made]
    assert [run.number for run in runs] == [1, 1, 2, 3]
    assert {run.revision for run in runs} == {None}
    assert NodeRun.objects.get(run_id=made[0].pk).attempt_spans == []
    assert Run.objects.create(pipeline_id=first.pk, document={}).number == 4
