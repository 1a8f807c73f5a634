"""The admin: workspaces with their members, pipelines with their graph, runs with their node
runs, connections, schedules, triggers and their events, API tokens, incremental inputs'
positions, the audit log."""

from editor.admin import (
    audit,
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
    "connections",
    "pipelines",
    "positions",
    "runs",
    "schedules",
    "tokens",
    "triggers",
    "workspaces",
]
