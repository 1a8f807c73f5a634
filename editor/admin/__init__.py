"""The admin: workspaces with their members, pipelines with their graph, runs with their node
runs, connections, schedules, triggers and their events, pins, backfills, API tokens,
incremental inputs' positions, the audit log."""

from editor.admin import (
    audit,
    backfills,
    connections,
    pipelines,
    positions,
    runs,
    schedules,
    tokens,
    triggers,
    workspaces,
)

__all__ = [
    "audit",
    "backfills",
    "connections",
    "pipelines",
    "positions",
    "runs",
    "schedules",
    "tokens",
    "triggers",
    "workspaces",
]
