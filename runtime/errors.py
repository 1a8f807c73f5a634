"""The engine's small error hierarchy and the `Problem` record that validation collects.

Every error a user can cause carries words a user can act on. Validation never stops at the
first problem: it gathers `Problem`s, each naming the node and field, and raises them together.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TextPosition:
    """Where in a param's text a problem is (an expression's token): 1-based line and column,
    and the column just after its end when known, for the editor to underline it."""

    line: int
    column: int
    end_column: int | None = None

    def to_json(self) -> dict:
        return {"line": self.line, "column": self.column, "end_column": self.end_column}


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with a pipeline: where (node, field) and how to fix it.

    `field` is the dotted path the editor finds the field by (`params.group_by.0`); a message
    that names the field as the form titles it ("Group by, item 1: …") has that title in
    `field_title`, and then reads on its own after the node's id.
    """

    message: str
    node: str | None = None
    field: str | None = None
    code: str = "invalid"
    field_title: str | None = None
    position: TextPosition | None = None
    """Where in the field's text, for a problem found in an expression."""

    def location(self) -> str:
        """`node.field`, `node`, `field` or `pipeline`, for one-line messages."""
        parts = [part for part in (self.node, self.field) if part]
        return ".".join(parts) if parts else "pipeline"

    def __str__(self) -> str:
        if self.field_title:
            return f"{self.node}: {self.message}" if self.node else self.message
        return f"{self.location()}: {self.message}"

    def to_json(self) -> dict:
        """Its JSON form; `line`, `column` and `end_column` only when it has a position."""
        found = {
            "code": self.code,
            "node": self.node,
            "field": self.field,
            "field_title": self.field_title,
            "message": self.message,
        }
        return found if self.position is None else {**found, **self.position.to_json()}

    @classmethod
    def from_json(cls, fields: dict) -> Problem:
        """The problem `to_json` gave (sent from a job's process, say)."""
        fields = dict(fields)
        place = {key: fields.pop(key) for key in ("line", "column", "end_column") if key in fields}
        position = TextPosition(**place) if place.get("line") is not None else None
        return cls(**fields, position=position)


class PipewrightError(Exception):
    """Base of every error the engine raises on purpose."""


class PipelineValidationError(PipewrightError):
    """The document cannot run as it is; `problems` lists everything found.

    `outline` is, for a document whose fields do not validate, the graph as far as it does
    (see `runtime.document.spec.outline`), so that its structural problems can be reported too.
    """

    def __init__(self, problems: list[Problem], outline=None):
        self.problems = list(problems)
        self.outline = outline
        super().__init__("\n".join(str(problem) for problem in self.problems))


class OperatorError(PipewrightError):
    """A user-level failure inside an operator (missing file, wrong column, bad data).

    Its message is shown as is; no traceback is needed to understand it.
    """


class UnreachableError(OperatorError):
    """A database that could not be connected to: it may be back when a run reads it, so a
    check before the run says so without refusing the run (whose retries wait for it)."""


class MemberError(OperatorError):
    """A failure of one node among the several that one task runs together (a segment's
    query): `node` is reported failed with `detail`, the task's other nodes as not finished.
    `node` is None when the failure cannot be placed; the whole task then fails."""

    def __init__(self, detail: str, node: str | None = None):
        self.node = node
        self.detail = detail
        super().__init__(f"node '{node}': {detail}" if node else detail)


class UnsafePathError(OperatorError):
    """A file path points outside the data root."""

    retryable = False


class NodeCancelled(PipewrightError):
    """Raised inside a node when its run was cancelled or its deadline passed."""


class ParamsError(OperatorError):
    """A node's params do not fit its input (a missing column, a type that does not fit).

    `field` is the params field at fault (`group_by`, `mappings[1].expression`), so that the
    editor can show the message at that field; `position`, where in its text (an expression).
    """

    retryable = False

    def __init__(self, field: str, message: str, position: TextPosition | None = None):
        self.field = field
        self.message = message
        self.position = position
        super().__init__(f"{field}: {message}")


class NodeExecutionError(PipewrightError):
    """A node failed while the engine ran it on the caller's behalf (a preview, say)."""

    def __init__(self, node_id: str, message: str):
        self.node_id = node_id
        self.message = message
        super().__init__(f"node '{node_id}' failed: {message}")


class ComparisonError(PipewrightError):
    """Two runs' results cannot be compared as asked; `field` is the request's field at fault
    ("keys", "node") and `node` the node whose rows were compared, when there are."""

    def __init__(self, message: str, field: str | None = None, node: str | None = None):
        self.field = field
        self.node = node
        super().__init__(message)


class NotLowerable(Exception):
    """A node or expression that would give different results on a columnar backend than on
    pandas, so it stays on pandas; the message says why, in the user's words, for `explain`."""
