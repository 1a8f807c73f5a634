"""The admin: pipelines with their graph, runs with their node runs, connections, API tokens."""

from editor.admin import connections, pipelines, runs, tokens

__all__ = ["connections", "pipelines", "runs", "tokens"]
