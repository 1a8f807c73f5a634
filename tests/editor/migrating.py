"""Moving the test database's schema back and forth, for the tests of data migrations."""

from __future__ import annotations

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: list[tuple[str, str]] | None = None):
    """Migrate to `targets` (by default the latest migrations); the models as they are there."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    targets = targets or executor.loader.graph.leaf_nodes("editor")
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps
