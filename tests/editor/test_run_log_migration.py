"""The migration that ends `NodeRun.log_tail`: old runs keep their node log lines as `RunLog`
rows, runs that have them already are left alone, and backwards the tails come back."""

from __future__ import annotations

import pytest

from editor.models import Run, RunLog
from tests.editor.migrating import migrate

BEFORE = [("editor", "0006_pipeline_notes_and_groups")]


@pytest.fixture
def old_apps(transactional_db):
    """The models as they were while node runs kept a log tail; forwards again afterwards."""
    yield migrate(BEFORE)
    migrate()


def _old_run(apps, name: str, tails: dict[str, list[str]]):
    User = apps.get_model("auth", "User")
    Workspace = apps.get_model("editor", "Workspace")
    Pipeline = apps.get_model("editor", "Pipeline")
    owner, _ = User.objects.get_or_create(username="alice")
    workspace, _ = Workspace.objects.get_or_create(slug="alice", defaults={"name": "alice"})
    pipeline = Pipeline.objects.create(owner=owner, workspace=workspace, name=name)
    run = apps.get_model("editor", "Run").objects.create(
        pipeline=pipeline, document={}, status="succeeded"
    )
    for node_id, tail in tails.items():
        run.node_runs.create(node_id=node_id, status="succeeded", log_tail=tail)
    return run


def test_old_log_tails_become_run_log_lines_in_time_order(old_apps):
    old = _old_run(old_apps, "old", {
        "write": ["2026-11-30T10:00:02+00:00 INFO wrote 2 rows", "not a log line"],
        "read": ["2026-11-30T10:00:01+00:00 WARNING 1 row skipped: bad date"],
    })  # fmt: skip
    recorded = _old_run(old_apps, "recorded", {"read": ["2026-11-30T10:00:01+00:00 INFO old"]})
    old_apps.get_model("editor", "RunLog").objects.create(
        run=recorded, seq=3, time=recorded.created_at, level="info", node="read", message="new"
    )

    migrate()

    lines = RunLog.objects.filter(run_id=old.pk)
    assert [(line.seq, line.level, line.node, line.message) for line in lines] == [
        (1, "warning", "read", "1 row skipped: bad date"),
        (2, "info", "write", "wrote 2 rows"),
        (3, "info", "write", "not a log line"),
    ]
    assert lines[0].time.isoformat() == "2026-11-30T10:00:01+00:00"
    assert lines[2].time == Run.objects.get(pk=old.pk).created_at  # no time of its own
    kept = RunLog.objects.filter(run_id=recorded.pk)
    assert [line.message for line in kept] == ["new"]


def test_backwards_each_node_gets_its_run_log_lines_as_its_tail_again(old_apps):
    old = _old_run(old_apps, "old", {"read": ["2026-11-30T10:00:01+00:00 INFO read 3 rows"]})
    migrate()

    apps = migrate(BEFORE)

    node = apps.get_model("editor", "NodeRun").objects.get(run_id=old.pk, node_id="read")
    assert node.log_tail == ["2026-11-30T10:00:01+00:00 INFO read 3 rows"]
