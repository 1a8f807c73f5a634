"""Errors the editor's actions raise for the API and admin to turn into answers.

Each carries an HTTP status and a stable machine `code` that clients branch on (Zulip's
JsonableError), plus the node and field when the problem has a place in the pipeline.
`error_json` is the one shape of every error the API answers: `{code, message, node, field}`.
"""

from __future__ import annotations

from runtime import Problem


def error_json(code: str, message: str, node: str | None = None, field: str | None = None, **extra):
    """An error as the API answers it, extras (`problems`, `revision`, …) after the four keys."""
    return {"code": code, "message": message, "node": node, "field": field, **extra}


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
        return error_json(self.code, self.message, self.node, self.field, **self.extra)


def problems_error(status: int, code: str, summary: str, problems: list[Problem]) -> ActionError:
    """An error listing validation problems; the first one gives its place.

    The message holds the one problem, or says how many there are: `problems` lists them, and a
    client showing the message above the list then shows no problem twice.
    """
    first = problems[0] if problems else None
    if len(problems) == 1:
        message = f"{summary}: {first}"
    else:
        message = f"{summary}: {len(problems)} problems" if problems else summary
    return ActionError(
        status,
        code,
        message,
        node=first.node if first else None,
        field=first.field if first else None,
        problems=[problem.to_json() for problem in problems],
    )
