"""The admin: workspaces with their members, pipelines with their graph, runs with their node
runs, connections, API tokens, the audit log."""

from editor.admin import audit, connections, pipelines, runs, tokens, workspaces

__all__ = ["audit", "connections", "pipelines", "runs", "tokens", "workspaces"]
