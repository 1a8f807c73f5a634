"""What every operation's contract shares: answers, error answers, paging, ids and times.

Each operation declares `response=answers({200: ItsSchema}, *error_statuses)`; ninja checks
what the view returns against the schema, and every error is an `Error` (the exception
handlers in `editor.api.errors` write them). Query and path numbers are typed `Limit`,
`Offset` and `ObjectId`, so that a negative, huge or non-integer one is a 422 naming it
before any database sees it. Request bodies are read by hand (`editor.api.bodies`) after
the permission check; `request_body(...)` documents them.
"""

from __future__ import annotations

from typing import Annotated, Any

from ninja import Schema
from pydantic import BaseModel, Field

MAX_PAGE = 200
MAX_OFFSET = 1_000_000_000
MAX_ID = 2**63 - 1
"""The largest id a database's 64-bit key column holds."""

Limit = Annotated[int, Field(ge=1, le=MAX_PAGE, description=f"Items per page, 1 to {MAX_PAGE}.")]
Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET, description="Items to skip.")]
ObjectId = Annotated[int, Field(ge=1, le=MAX_ID)]
Timestamp = Annotated[str, Field(json_schema_extra={"format": "date-time"})]

ALWAYS = (401, 422)
"""Any operation may answer: not signed in, or a malformed path or query parameter."""


class Many(BaseModel):
    """An item answers hold by the thousand (a node's columns, a run's node states): checked
    as the plain dict it is built from. Ninja's `Schema` first wraps each item in a getter
    for model instances, which made the schemas of a 1,000-node pipeline take 60 ms to
    check instead of 17."""


class Problem(Many):
    """One thing wrong with a pipeline, at a node and field."""

    code: str
    node: str | None
    field: str | None
    field_title: str | None = Field(
        None, description='The field as the form titles it ("Group by, item 1"), if any.'
    )
    message: str
    line: int | None = Field(
        None, description="In an expression's text: the 1-based line of the problem."
    )
    column: int | None = Field(None, description="Its 1-based column on that line.")
    end_column: int | None = Field(
        None, description="The column just after the token at fault, when known."
    )


class Error(Schema):
    """Every 4xx answer: a stable `code` to branch on, a message, and the place if any."""

    code: str
    message: str
    node: str | None
    field: str | None
    problems: list[Problem] | None = Field(None, description="Every problem, when validating.")
    revision: int | None = Field(None, description="The current revision, on a `conflict`.")
    saved_by: str | None = Field(None, description="Who saved meanwhile, on a `conflict`.")
    conflicts: list[dict[str, Any]] | None = Field(
        None,
        description="What both saves changed differently (`{kind, id, label, reason}`), on a "
        "`conflict` of a save sent with its `base`.",
    )
    theirs: dict[str, Any] | None = Field(
        None, description="The saved document and its `revision`, with `conflicts`."
    )
    run_id: int | None = Field(None, description="The active run, on `run_in_progress`.")


def answers(success: dict[int, Any], *errors: int) -> dict[int, Any]:
    """An operation's `response=`: its success schemas, and `Error` for each error status."""
    return {**success, **dict.fromkeys(sorted({*ALWAYS, *errors}), Error)}


def request_body(schema: dict, *, required: bool = True) -> dict:
    """An operation's `openapi_extra=` documenting a JSON body that the view reads itself."""
    content = {"application/json": {"schema": _inlined(schema)}}
    return {"requestBody": {"required": required, "content": content}}


def _inlined(schema: dict) -> dict:
    """A pydantic JSON Schema with its `$defs` written in place (they are not components)."""
    definitions = schema.pop("$defs", {})

    def inline(value):
        if isinstance(value, dict):
            reference = value.get("$ref", "")
            if reference.startswith("#/$defs/"):
                return inline(definitions[reference.removeprefix("#/$defs/")])
            return {key: inline(item) for key, item in value.items()}
        if isinstance(value, list):
            return [inline(item) for item in value]
        return value

    return inline(schema)
