"""The admin: workspaces with their members, pipelines with their graph, runs with their node
runs, connections, schedules, API tokens."""

from editor.admin import connections, pipelines, runs, schedules, tokens, workspaces

__all__ = ["connections", "pipelines", "runs", "schedules", "tokens", "workspaces"]
