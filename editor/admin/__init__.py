"""The admin: workspaces with their members, pipelines with their graph, runs with their node
runs, connections, schedules, API tokens, incremental inputs' positions."""

from editor.admin import connections, pipelines, positions, runs, schedules, tokens, workspaces

__all__ = ["connections", "pipelines", "positions", "runs", "schedules", "tokens", "workspaces"]
