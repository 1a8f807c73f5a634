"""The migration into workspaces: run backwards to before it, fed old rows, run forwards."""

from __future__ import annotations

import pytest

from editor.models import Connection, Pipeline, Workspace
from tests.editor.migrating import migrate

BEFORE = [("editor", "0002_workspaces")]


@pytest.fixture
def old_apps(transactional_db):
    """The models as they were before pipelines had workspaces; forwards again afterwards."""
    yield migrate(BEFORE)
    migrate()


def test_pipelines_files_and_connections_move_into_their_owners_workspaces(
    old_apps, settings, tmp_path
):
    settings.PIPEWRIGHT_DATA_ROOT = tmp_path
    (tmp_path / "orders.csv").write_text("id\n1\n")
    (tmp_path / "shop.db").write_bytes(b"SQLite format 3\x00")
    User = old_apps.get_model("auth", "User")
    OldPipeline = old_apps.get_model("editor", "Pipeline")
    OldNode = old_apps.get_model("editor", "Node")
    OldConnection = old_apps.get_model("editor", "Connection")
    alice = User.objects.create(username="alice")
    bob = User.objects.create(username="bob", is_superuser=True, is_staff=True)
    for owner in (alice, bob):
        pipeline = OldPipeline.objects.create(owner=owner, name=f"{owner.username}'s")
        OldNode.objects.create(
            pipeline=pipeline, node_id="read", operator="csv_input", params={"path": "orders.csv"}
        )
        OldNode.objects.create(
            pipeline=pipeline,
            node_id="query",
            operator="sql_input",
            params={"connection": "warehouse", "query": "select 1"},
        )
    OldConnection.objects.create(
        name="warehouse", url="postgresql+psycopg://app@db/sales", password="pw-warehouse"
    )
    OldConnection.objects.create(name="spare", url="sqlite:///shop.db", password="")

    migrate()

    assert {p.name: p.workspace.slug for p in Pipeline.objects.all()} == {
        "alice's": "alice",
        "bob's": "bob",
    }
    assert sorted(Workspace.objects.values_list("slug", "personal_of__username")) == [
        ("alice", "alice"),
        ("bob", "bob"),
    ]
    assert (tmp_path / "alice" / "orders.csv").read_text() == "id\n1\n"
    assert (tmp_path / "bob" / "orders.csv").exists()
    copies = {(c.workspace.slug, c.name): c for c in Connection.objects.all()}
    assert sorted(copies) == [("alice", "warehouse"), ("bob", "spare"), ("bob", "warehouse")]
    warehouse = copies["alice", "warehouse"]
    assert not warehouse.read_only  # as writable as it was, so sql_output keeps working
    assert "pw-warehouse" in warehouse.full_url()
    assert "pw-warehouse" not in warehouse.encrypted_password
    assert (tmp_path / "bob" / "shop.db").exists()
