"""The admin: workspaces with their members, pipelines with their graph, runs with their node
runs, connections, API tokens, incremental inputs' positions."""

from editor.admin import connections, pipelines, positions, runs, tokens, workspaces

__all__ = ["connections", "pipelines", "positions", "runs", "tokens", "workspaces"]
