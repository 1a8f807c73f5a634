"""Errors the editor's actions raise for the API and admin to turn into answers.

Each carries an HTTP status and a stable machine `code` that clients branch on (Zulip's
JsonableError), plus the node and field when the problem has a place in the pipeline.
"""

from __future__ import annotations

from runtime.errors import Problem


class ActionError(Exception):
    """A refused action: `status`, `code`, `message`, optional `node`, `field` and extras."""

    def __init__(
        self,
        status: int,
        code: str,
        message: str,
        *,
        node: str | None = None,
        field: str | None = None,
        **extra,
    ):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.node = node
        self.field = field
        self.extra = extra

    def to_json(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "node": self.node,
            "field": self.field,
            **self.extra,
        }


def problems_error(status: int, code: str, summary: str, problems: list[Problem]) -> ActionError:
    """An error listing validation problems; the first one gives its place and message."""
    first = problems[0] if problems else None
    message = f"{summary}: {first}" if first else summary
    return ActionError(
        status,
        code,
        message,
        node=first.node if first else None,
        field=first.field if first else None,
        problems=[problem.to_json() for problem in problems],
    )
