"""The engine's small error hierarchy and the `Problem` record that validation collects.

Every error a user can cause carries words a user can act on. Validation never stops at the
first problem: it gathers `Problem`s, each naming the node and field, and raises them together.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a pipeline: where (node, field) and how to fix it."""

    message: str
    node: str | None = None
    field: str | None = None
    code: str = "invalid"

    def location(self) -> str:
        """`node.field`, `node`, `field` or `pipeline`, for one-line messages."""
        parts = [part for part in (self.node, self.field) if part]
        return ".".join(parts) if parts else "pipeline"

    def __str__(self) -> str:
        return f"{self.location()}: {self.message}"

    def to_json(self) -> dict:
        return {"code": self.code, "node": self.node, "field": self.field, "message": self.message}


class PipewrightError(Exception):
    """Base of every error the engine raises on purpose."""


class PipelineValidationError(PipewrightError):
    """The document cannot run as it is; `problems` lists everything found."""

    def __init__(self, problems: list[Problem]):
        self.problems = list(problems)
        super().__init__("\n".join(str(problem) for problem in self.problems))


class OperatorError(PipewrightError):
    """A user-level failure inside an operator (missing file, wrong column, bad data).

    Its message is shown as is; no traceback is needed to understand it.
    """


class UnsafePathError(OperatorError):
    """A file path points outside the data root."""

    retryable = False


class NodeCancelled(PipewrightError):
    """Raised inside a node when its run was cancelled or its deadline passed."""


class ParamsError(OperatorError):
    """A node's params do not fit its input (a missing column, a type that does not fit).

    `field` is the params field at fault (`group_by`, `mappings[1].expression`), so that the
    editor can show the message at that field.
    """

    retryable = False

    def __init__(self, field: str, message: str):
        self.field = field
        self.message = message
        super().__init__(f"{field}: {message}")


class NodeExecutionError(PipewrightError):
    """A node failed while the engine ran it on the caller's behalf (a preview, say)."""

    def __init__(self, node_id: str, message: str):
        self.node_id = node_id
        self.message = message
        super().__init__(f"node '{node_id}' failed: {message}")
